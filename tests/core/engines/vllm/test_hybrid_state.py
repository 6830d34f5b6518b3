"""vLLM's recurrent-state dtypes and hybrid block size (issue 21, mechanisms 4 and 9).

Sources read: ``vllm/model_executor/layers/mamba/mamba_utils.py``
(``MambaStateDtypeCalculator._mamba_state_dtype``), ``vllm/model_executor/models/config.py``
(``NemotronHForCausalLMConfig``, ``HybridAttentionMambaModelConfig``),
``vllm/platforms/interface.py`` (``_align_hybrid_block_size``).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA
from vramdesk.cli import main
from vramdesk.core import Engine, ModelSpec, Runtime, WeightSpec, Workload, estimate
from vramdesk.core.engines.vllm.kv_cache_interface import mamba_page_bytes, mamba_state_dtypes
from vramdesk.core.engines.vllm.kv_cache_utils import hybrid_block_alignment, hybrid_block_size
from vramdesk.core.engines.vllm.profile import VllmProfile
from vramdesk.core.errors import InputError
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.spec import RECURRENT

#: A Nemotron-H-shaped config.json (nvidia/Nemotron-H-8B geometry, 8 layers: 4 Mamba-2, one
#: attention, 3 MLP) without ``mamba_ssm_cache_dtype``, so vLLM's hook default applies.
NEMOTRON_H = {
    "architectures": ["NemotronHForCausalLM"],
    "model_type": "nemotron_h",
    "num_hidden_layers": 8,
    "hybrid_override_pattern": "M-M*M-M-",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "intermediate_size": 21504,
    "vocab_size": 131072,
    "mamba_num_heads": 128,
    "mamba_head_dim": 64,
    "ssm_state_size": 128,
    "n_groups": 8,
    "conv_kernel": 4,
    "max_position_embeddings": 8192,
    "torch_dtype": "bfloat16",
}


def _nemotron(**config) -> ModelSpec:
    return model_from_config({**NEMOTRON_H, **config}).model.replace(params=2_000_000_000)


def _vllm(version: str | None = None, **kw) -> Runtime:
    return Runtime(engine=Engine.VLLM, engine_version=version, **kw)


def test_nemotron_h_state_elements_and_the_hook_flag():
    # mamba_utils.py mamba2_state_shape: conv (d_inner + 2 * n_groups * d_state) * (d_conv - 1)
    # = (8,192 + 2 * 8 * 128) * 3 = 30,720; SSM n_heads * head_dim * d_state = 128 * 64 * 128
    # = 1,048,576 elements per layer and sequence
    m = _nemotron()
    assert (m.conv_state_elements, m.ssm_state_elements) == (30_720, 1_048_576)
    assert m.ssm_dtype_hook and m.mamba_ssm_cache_dtype is None
    assert _nemotron(mamba_ssm_cache_dtype="float32").mamba_ssm_cache_dtype == "float32"
    with pytest.raises(InputError) as e:
        _nemotron(mamba_ssm_cache_dtype="fp8")
    assert e.value.field == "mamba_ssm_cache_dtype"


def test_ssm_dtype_by_release_flag_and_config():
    # config.py NemotronHForCausalLMConfig: no hook before 0.13 (auto: the conv state's, the
    # model dtype); float16 default from vllm-project/vllm#29978; float32 from #39032; the
    # config's value wins over the default, the flag over both
    m = _nemotron()
    assert mamba_state_dtypes(m, _vllm("0.11.0")) == ("auto", "auto")
    assert mamba_state_dtypes(m, _vllm("0.13.0")) == ("auto", "float16")
    assert mamba_state_dtypes(m, _vllm("0.19.0")) == ("auto", "float32")
    assert mamba_state_dtypes(m, _vllm()) == ("auto", "float32")  # unknown: the newest
    named = _nemotron(mamba_ssm_cache_dtype="bfloat16")
    assert mamba_state_dtypes(named, _vllm("0.19.0")) == ("auto", "bfloat16")
    flag = _vllm("0.19.0", mamba_ssm_cache_dtype="float16")
    assert mamba_state_dtypes(m, flag) == ("auto", "float16")
    # mamba_cache_dtype sets the conv state, and the SSM state when that is auto (no hook)
    jamba = model_from_config(
        json.loads((DATA / "configs" / "jamba-v0.1.json").read_text(encoding="utf-8"))
    ).model
    assert mamba_state_dtypes(jamba, _vllm(mamba_cache_dtype="float32")) == (
        "float32",
        "float32",
    )


def test_float32_ssm_state_doubles_the_page_and_raises_the_block():
    # page = conv * e_conv + ssm * e_ssm; attention bytes per token per layer 2 * 8 * 128 * 2
    # = 4,096. 0.11.0 (bf16 state): 30,720 * 2 + 1,048,576 * 2 = 2,158,592 B;
    # block = 16 * cdiv(2,158,592, 16 * 4,096) = 16 * 33 = 528 tokens (config.py
    # HybridAttentionMambaModelConfig). 0.19.0 (float32 SSM): 61,440 + 4,194,304 = 4,255,744 B;
    # block = 16 * cdiv(4,255,744, 65,536) = 16 * 65 = 1,040 tokens.
    m, wl = _nemotron(), Workload(context_tokens=8192, batch=2)
    assert mamba_page_bytes(m, _vllm("0.11.0")) == 2_158_592
    assert mamba_page_bytes(m, _vllm("0.19.0")) == 4_255_744
    assert hybrid_block_size(m, wl, _vllm("0.11.0")) == 528
    assert hybrid_block_size(m, wl, _vllm("0.19.0")) == 1040
    # the state is padded to the attention page, one per Mamba layer and sequence:
    # 2 sequences * 4 layers * 1,040 * 4,096 = 34,078,720 B (0.11.0: 2 * 4 * 528 * 4,096
    # = 17,301,504 B)
    assert estimate(m, WeightSpec(), wl, _vllm("0.19.0")).state_bytes == 34_078_720
    assert estimate(m, WeightSpec(), wl, _vllm("0.11.0")).state_bytes == 17_301_504


def test_pure_recurrent_state_in_the_flag_dtypes():
    # two Mamba layers, conv 24,576 and SSM 131,072 elements: auto 2 * (24,576 * 2 + 131,072
    # * 2) = 622,592 B per sequence; --mamba-cache-dtype float32 (both states, the SSM one
    # following the conv's) 2 * (24,576 * 4 + 131,072 * 4) = 1,245,184; --mamba-ssm-cache-dtype
    # float32 alone 2 * (49,152 + 524,288) = 1,146,880
    m = ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=1,
        head_dim=64,
        layer_types=(RECURRENT,) * 2,
        conv_state_elements=24_576,
        ssm_state_elements=131_072,
        params=10**8,
    )
    wl = Workload(context_tokens=4096)
    assert estimate(m, WeightSpec(), wl, _vllm()).state_bytes == 622_592
    both = _vllm(mamba_cache_dtype="float32")
    assert estimate(m, WeightSpec(), wl, both).state_bytes == 1_245_184
    ssm = _vllm(mamba_ssm_cache_dtype="float32")
    assert estimate(m, WeightSpec(), wl, ssm).state_bytes == 1_146_880
    assert "conv state auto, SSM state float32" in " ".join(
        estimate(m, WeightSpec(), wl, ssm).state.assumptions
    )


def test_state_dtype_flags_are_checked():
    m, wl = _nemotron(), Workload(context_tokens=4096)
    # vllm/config/cache.py MambaDType: auto / float32 only before float16 came (0.13)
    with pytest.raises(InputError) as e:
        estimate(m, WeightSpec(), wl, _vllm("0.11.0", mamba_ssm_cache_dtype="float16"))
    assert e.value.field == "mamba_ssm_cache_dtype"
    with pytest.raises(InputError) as e:
        _vllm(mamba_cache_dtype="fp8").validate()
    assert e.value.field == "mamba_cache_dtype"
    with pytest.raises(InputError) as e:  # another engine's option
        Runtime(engine=Engine.SGLANG, mamba_ssm_cache_dtype="float32").validate()
    assert e.value.field == "mamba_ssm_cache_dtype"


def test_cli_takes_the_state_dtype_flags(tmp_path, capsys):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(NEMOTRON_H), encoding="utf-8")
    base = [
        "estimate",
        "--config",
        str(cfg),
        "--params-b",
        "2",
        "--context",
        "8192",
        "--batch",
        "2",
    ]
    vllm = [*base, "--engine", "vllm", "--engine-version", "0.19.0", "--json"]
    assert main([*vllm, "--mamba-ssm-cache-dtype", "float16"]) == 0
    # the flag wins over the hook: back to the 528-token block, 2 * 4 * 528 * 4,096 B
    assert json.loads(capsys.readouterr().out)["state_bytes"] == 17_301_504
    assert main([*vllm, "--mamba-ssm-cache-dtype", "AUTO"]) == 0
    assert json.loads(capsys.readouterr().out)["state_bytes"] == 34_078_720
    assert main([*base, "--engine", "llama.cpp", "--mamba-cache-dtype", "float32"]) == 2
    assert "mamba_cache_dtype" in capsys.readouterr().err


# ---------------------------------------------------- 9: tokens and the hybrid block
def test_given_tokens_of_a_hybrid_model_are_blocks_of_the_hybrid_block():
    # Jamba-v0.1 under vLLM 0.11.0: hybrid block 80 (16 * cdiv(311,296, 16 * 4,096)); groups of
    # 4 layers: 1 attention group + 7 Mamba groups = 8. A logged 8,000 tokens are
    # 8,000 // 80 * 8 = 800 blocks (kv_cache_utils.py: tokens = blocks // groups * block),
    # not 8,000 // 16 * 8 = 4,000
    jamba = model_from_config(
        json.loads((DATA / "configs" / "jamba-v0.1.json").read_text(encoding="utf-8"))
    ).model.replace(params=51_570_000_000)
    rt, wl = _vllm("0.11.0"), Workload(context_tokens=8192)
    fig = VllmProfile().figures(jamba, WeightSpec(), wl, rt, counts={"kv_cache_tokens": 8000})
    assert fig["num_gpu_blocks"] == 800
    assert fig["kv_cache_tokens"] == 8000  # and back: 800 // 8 * 80


def test_hybrid_alignment_by_backend_and_release():
    # --block-size 64 on the Nemotron-H shape (bf16 state page 2,158,592 B, 4,096 B/token):
    # 0.11.0 config.py: align 16, 16 * 33 = 528 > 64 -> 528; from 0.14 platforms/interface.py
    # _align_hybrid_block_size: align = max(16, 64) = 64, 64 * cdiv(2,158,592, 64 * 4,096)
    # = 64 * 9 = 576 (0.14: the hook's float16 SSM state, the same page as bf16)
    m, wl = _nemotron(), Workload(context_tokens=8192)
    assert hybrid_block_size(m, wl, _vllm("0.11.0", block_size=64)) == 528
    assert hybrid_block_size(m, wl, _vllm("0.14.0", block_size=64)) == 576
    # MLA hybrids align to the MLA kernels' 64 from 0.12 (config.py kernel_block_alignment_size)
    mla = ModelSpec(
        num_hidden_layers=2, num_key_value_heads=1, kv_lora_rank=512, qk_rope_head_dim=64
    )
    assert hybrid_block_alignment(mla, _vllm("0.11.0")) == 16
    assert hybrid_block_alignment(mla, _vllm("0.12.0")) == 64
    assert hybrid_block_alignment(m, _vllm("0.12.0")) == 16
