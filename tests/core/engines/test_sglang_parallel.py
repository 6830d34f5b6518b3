"""SGLang data-parallel attention and expert parallelism, per GPU (issue 21 item 2).

Sources followed (read in sgl-project/sglang): ``layers/dp_attention.py``
``compute_dp_attention_world_info`` (attention TP = ``tp_size // dp_size``), the models'
``VocabParallelEmbedding(enable_tp=not is_dp_attention_enabled())`` (the embedding whole on
every rank with dp-attention), ``ParallelLMHead`` over the full TP group (``enable_dp_lm_head``
off), ``layers/moe`` (``num_experts // ep_size`` experts per rank, each over ``tp // ep``).

Qwen3-30B-A3B, bf16: 48 layers, 32 query / 4 KV heads of 128, hidden 2048, 128 experts,
vocabulary 151,936 (untied).
"""

from __future__ import annotations

import pytest

from vramdesk.core import InputError, Runtime, Workload, estimate
from vramdesk.core.engines import profile_for
from vramdesk.core.engines.sglang import check_ep_size
from vramdesk.core.model.runtime import Engine
from vramdesk.core.store.bundled import find_model

#: Qwen3-30B-A3B attention params: 48 x (q 2048 x 4096 + k, v 2 x 2048 x 512 + o 4096 x 2048
#: + q/k norms 2 x 128) = 48 x 18,874,624 = 905,981,952.
ATTENTION = 48 * (2048 * 4096 + 2 * 2048 * 512 + 4096 * 2048 + 2 * 128)
#: The embedding: 151,936 x 2048 = 311,164,928 params.
EMBEDDING = 151_936 * 2048
#: Whole model in bf16 / 4 + RoPE cache (40,960 x 128 x 2): 61,064,245,248 / 4 + 10,485,760.
TP4_WEIGHTS = 61_064_245_248 // 4 + 40_960 * 128 * 2


def _estimate(batch=7, **runtime):
    preset = find_model("qwen3-30b-a3b")
    rt = Runtime(engine=Engine.SGLANG, **runtime)
    wl = Workload(context_tokens=4096, batch=batch)
    return estimate(preset.model, preset.weights, wl, rt)


def test_dp_attention_weights_hold_a_larger_attention_share_and_the_whole_embedding():
    # TP 4 with dp 2: attention over tp / dp = 2 ranks instead of 4, the extra 1/2 - 1/4 of
    # 905,981,952 x 2 bytes = 452,990,976; the embedding whole instead of a quarter, the
    # extra 3/4 of 311,164,928 x 2 = 466,747,392; 15,276,547,072 + 919,738,368
    assert ATTENTION == 905_981_952
    plain = _estimate(tensor_parallel_size=4)
    assert plain.weights.bytes == TP4_WEIGHTS == 15_276_547_072
    dpa = _estimate(tensor_parallel_size=4, data_parallel_size=2, enable_dp_attention=True)
    extra = ATTENTION * 2 // 4 + EMBEDDING * 2 * 3 // 4
    assert dpa.weights.bytes == TP4_WEIGHTS + extra == 16_196_285_440
    # ep_size moves whole experts (128 / 4 per rank, no TP inside): the same routed bytes
    ep = _estimate(
        tensor_parallel_size=4, data_parallel_size=2, enable_dp_attention=True, ep_size=4
    )
    assert ep.weights.bytes == dpa.weights.bytes


def test_dp_attention_kv_heads_follow_the_attention_tp():
    # TP 4: max(1, 4 // 4) = 1 KV head: 48 x 1 x 128 x 2 x 2 = 24,576 bytes per token, 7 x
    # 4096 x 24,576 = 704,643,072; dp-attention 2: attention TP 2, 2 heads = 49,152 per token
    # for ceil(7 / 2) = 4 sequences: 4 x 4096 x 49,152 = 805,306,368, still on 4 GPUs
    plain = _estimate(tensor_parallel_size=4)
    assert plain.kv_cache.bytes == 7 * 4096 * 24_576 == 704_643_072
    dpa = _estimate(tensor_parallel_size=4, data_parallel_size=2, enable_dp_attention=True)
    assert dpa.kv_cache.bytes == 4 * 4096 * 49_152 == 805_306_368
    assert dpa.gpus == 4


def test_dp_without_dp_attention_is_whole_replicas():
    # --dp-size 2 --tp-size 2: two TP-2 replicas (4 GPUs), each 4 of the 7 sequences at 2 KV
    # heads: 4 x 4096 x 49,152; weights those of TP 2 (61,064,245,248 / 2 + 10,485,760)
    b = _estimate(tensor_parallel_size=2, data_parallel_size=2)
    assert (b.kv_cache.bytes, b.gpus) == (805_306_368, 4)
    assert b.weights.bytes == 61_064_245_248 // 2 + 40_960 * 128 * 2


def test_the_pool_s_tokens_use_one_attention_rank_s_cell():
    # a pool of 4,915,200 bytes over the 49,152-byte cell of attention TP 2: 100 tokens
    preset = find_model("qwen3-30b-a3b")
    rt = Runtime(
        engine=Engine.SGLANG, tensor_parallel_size=4, data_parallel_size=2, enable_dp_attention=True
    )
    wl = Workload(context_tokens=4096, batch=1)
    b = estimate(preset.model, preset.weights, wl, rt)
    # the profile's capacity figures from a given pool size (as `validate` reads a log)
    f = profile_for(Engine.SGLANG).capacity_figures(
        b, preset.model, wl, rt, {"kv_cache_bytes": 4_915_200}, None
    )
    assert f["kv_cache_tokens"] == 100


@pytest.mark.parametrize(
    ("runtime", "field"),
    [
        ({"tensor_parallel_size": 4, "ep_size": 3}, "ep_size"),  # 3 does not divide TP 4
        (
            {"tensor_parallel_size": 4, "data_parallel_size": 3, "enable_dp_attention": True},
            "data_parallel_size",
        ),
        ({"enable_expert_parallel": True}, "enable_expert_parallel"),  # vLLM's flag
    ],
)
def test_refusals_name_the_field(runtime, field):
    with pytest.raises(InputError) as e:
        _estimate(**runtime)
    assert e.value.field == field


def test_ep_size_must_divide_the_experts():
    # 120 experts over ep 16: 120 % 16 = 8, SGLang's num_experts // ep_size would drop 8
    preset = find_model("qwen3-30b-a3b")
    model = preset.model.replace(num_local_experts=120)
    rt = Runtime(engine=Engine.SGLANG, tensor_parallel_size=16, ep_size=16)
    with pytest.raises(InputError) as e:
        check_ep_size(model, rt)
    assert e.value.field == "ep_size"
    check_ep_size(model, rt.replace(ep_size=8))  # 120 = 8 x 15
