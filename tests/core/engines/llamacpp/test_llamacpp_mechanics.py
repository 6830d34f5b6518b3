"""llama.cpp / Ollama mechanisms of issue 10: flash attention, offload copies, slot caches."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.conftest import DATA
from vramdesk.cli import main
from vramdesk.core import (
    Engine,
    KVDtype,
    ModelSpec,
    Runtime,
    WeightFormat,
    WeightSpec,
    Workload,
    estimate,
    solve,
)
from vramdesk.core.engines.llamacpp.build import FA_AUTO_SINCE_BUILD
from vramdesk.core.engines.llamacpp.compute import flash_attention
from vramdesk.core.engines.llamacpp.offload import weight_split
from vramdesk.core.engines.llamacpp.profile import LlamaCppProfile
from vramdesk.core.errors import InputError
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.spec import sliding_layer_pattern
from vramdesk.core.store.bundled import find_model
from vramdesk.core.units import GIB, MIB

QWEN7 = find_model("qwen2.5-7b").model
LLAMA8 = find_model("llama-3.1-8b").model


# ------------------------------------------------------- 10.2 flash attention
def test_ollama_quantized_cache_means_flash_attention_on():
    # Qwen2.5-7B Q4_K_M, 131,072 context, q8_0 cache, Ollama. Ollama keeps a quantized cache
    # only with flash attention on (llm/server.go), so no f32 KQ scores are charged:
    #   before: KQ 28 heads * 131,072 cells * 512 * 4 = 7,516,192,768 + 512 * (3,584 + 18,944)
    #           * 4 = 46,137,344 -> 7,562,330,112 B = 7.04 GiB, total 15.23 GiB
    #   after:  logits 512 * 152,064 * 4 = 311,427,072 + 46,137,344 = 357,564,416 B (0.33 GiB)
    # KV: 131,072 cells * 28 layers * 2 rows of 4 * 128 q8_0 values (512 / 32 * 34 = 544 B)
    #   = 131,072 * 28 * 1,088 = 3,992,977,408 B; the total drops by exactly the KQ term.
    wl = Workload(context_tokens=131_072, kv_dtype=KVDtype.Q8_0)
    w = WeightSpec(WeightFormat.parse("Q4_K_M"))
    b = estimate(QWEN7, w, wl, Runtime(engine=Engine.OLLAMA))
    assert b.activations.bytes == 357_564_416
    assert b.kv_cache.bytes == 3_992_977_408
    off = estimate(QWEN7, w, wl.replace(kv_dtype=KVDtype.FP16), Runtime(engine=Engine.OLLAMA))
    assert off.activations.bytes == 7_562_330_112  # an f16 cache keeps Ollama's default, off
    assert 8.4 * GIB < b.total_bytes < 8.6 * GIB  # the engine needs about 8.5 GiB


def test_ollama_falls_back_to_f16_without_flash_attention():
    # OLLAMA_FLASH_ATTENTION=0 with OLLAMA_KV_CACHE_TYPE=q8_0: Ollama logs a warning and
    # stores f16 (llm/server.go): 131,072 * 28 * 2 * 512 * 2 B = 7,516,192,768 B of KV
    wl = Workload(context_tokens=131_072, kv_dtype=KVDtype.Q8_0)
    w = WeightSpec(WeightFormat.parse("Q4_K_M"))
    b = estimate(QWEN7, w, wl, Runtime(engine=Engine.OLLAMA, flash_attn=False))
    assert b.kv_cache.bytes == 7_516_192_768
    assert any("falls back to f16" in note for note in b.warnings)


def test_llamacpp_refuses_a_quantized_v_cache_without_flash_attention():
    wl = Workload(context_tokens=8192, kv_dtype=KVDtype.Q8_0)
    with pytest.raises(InputError, match="quantized V cache") as err:
        estimate(LLAMA8, WeightSpec(), wl, Runtime(engine=Engine.LLAMA_CPP, flash_attn=False))
    assert err.value.field == "flash_attn"
    old = Runtime(engine=Engine.LLAMA_CPP, engine_version=f"b{FA_AUTO_SINCE_BUILD - 1}")
    with pytest.raises(InputError, match="default"):  # old builds default -fa to off
        estimate(LLAMA8, WeightSpec(), wl, old)
    estimate(LLAMA8, WeightSpec(), wl, old.replace(flash_attn=True))  # -fa on: starts
    # a quantized K cache alone is allowed without flash attention
    k_only = Runtime(engine=Engine.LLAMA_CPP, flash_attn=False, cache_type_k=KVDtype.Q8_0)
    estimate(LLAMA8, WeightSpec(), wl.replace(kv_dtype=KVDtype.FP16), k_only)


def test_flash_attention_per_build_and_cache_type():
    llama = Runtime(engine=Engine.LLAMA_CPP)
    assert flash_attention(llama) is True  # newest build: -fa auto, on for a GPU
    assert flash_attention(llama.replace(engine_version="b6000")) is False
    ollama = Runtime(engine=Engine.OLLAMA)
    assert flash_attention(ollama, Workload(kv_dtype=KVDtype.Q4_0)) is True
    assert flash_attention(ollama, Workload(kv_dtype=KVDtype.FP16)) is False
    assert flash_attention(ollama.replace(flash_attn=True), Workload()) is True


def test_cli_flash_attn_flag(capsys):
    args = ["estimate", "--preset", "qwen2.5-7b", "--weights", "Q4_K_M", "--context", "131072",
            "--engine", "llama.cpp", "--json"]  # fmt: skip
    assert main([*args, "--flash-attn", "off"]) == 0
    off = json.loads(capsys.readouterr().out)["activation_bytes"]
    assert main([*args, "--flash-attn", "auto"]) == 0
    auto = json.loads(capsys.readouterr().out)["activation_bytes"]
    assert (off, auto) == (7_562_330_112, 357_564_416)  # derivation above
    assert main([*args, "--flash-attn", "off", "--kv-dtype", "q8_0"]) == 2
    assert "flash_attn: llama.cpp refuses a quantized V cache" in capsys.readouterr().err


# ------------------------------------------- 10.3 partial offload copies the output
COMMAND_R7B = ModelSpec(  # Command-R7B class: tied 256,000 x 4,096 embedding, fp16
    num_hidden_layers=32,
    num_key_value_heads=8,
    num_attention_heads=32,
    head_dim=128,
    hidden_size=4096,
    intermediate_size=14336,
    vocab_size=256_000,
    tie_word_embeddings=True,
    params=8_030_000_000,
)


def test_output_on_host_is_copied_into_the_compute_buffer():
    # -ngl 32 of 32 repeating layers: the output layer (the 33rd) stays in host memory, and
    # the scheduler copies its matrix into the device compute buffer for the 512-token batch:
    #   graph  = logits 512 * 256,000 * 4 = 524,288,000 + 512 * (4,096 + 14,336) * 4
    #            = 37,748,736 -> 562,036,736 B (536 MiB, what vramdesk said before)
    #   copy   = 256,000 * 4,096 * 2 B = 2,097,152,000 B (2,000 MiB)
    #   buffer = 2,659,188,736 B = 2,536 MiB (the engine asked for 2,508 MiB: +1.1 %)
    wl = Workload(context_tokens=4096)
    fp16 = WeightSpec(WeightFormat.FP16)
    rt = Runtime(engine=Engine.LLAMA_CPP, n_gpu_layers=32)
    b = estimate(COMMAND_R7B, fp16, wl, rt)
    assert b.activations.bytes == 562_036_736 + 2_097_152_000 == 2536 * MIB
    # -ngl 33 offloads the output: no copy; a batch under 32 tokens is not offloaded either
    assert estimate(COMMAND_R7B, fp16, wl, rt.replace(n_gpu_layers=33)).activations.bytes == (
        562_036_736
    )
    small = estimate(COMMAND_R7B, fp16, wl, rt.replace(n_ubatch=16))
    assert small.activations.bytes == 16 * 256_000 * 4 + 16 * (4096 + 14336) * 4


def test_partial_offload_no_longer_fits_a_15_4_gib_card():
    # device weights: 8,030,000,000 * 2 - 2,097,152,000 (tied embedding, on the host)
    #   = 13,962,848,000 B; KV 4,096 cells * 32 layers * 4,096 B = 536,870,912 B.
    # before: 13,962,848,000 + 536,870,912 + 562,036,736 = 15,061,755,648 B = 14.03 GiB: "fits"
    # after:  + 2,097,152,000 = 17,158,907,648 B = 15.98 GiB > 15.4 GiB: out of memory, as seen
    rt = Runtime(engine=Engine.LLAMA_CPP, n_gpu_layers=32)
    b = estimate(COMMAND_R7B, WeightSpec(WeightFormat.FP16), Workload(context_tokens=4096), rt)
    assert b.weights.bytes == 13_962_848_000
    assert b.kv_cache.bytes == 536_870_912
    assert b.total_bytes == 17_158_907_648
    r = solve(COMMAND_R7B, WeightSpec(WeightFormat.FP16), Workload(context_tokens=4096), rt,
              int(15.4 * GIB))  # fmt: skip
    assert not r.fits and not r.fits_total


# ------------------------------------ 10.4 slots with their own sliding-window caches
GEMMA3_270M = ModelSpec(  # Gemma-3-270M class: 18 layers, 5 sliding : 1 global, 1 KV head x 256
    num_hidden_layers=18,
    num_key_value_heads=1,
    num_attention_heads=4,
    head_dim=256,
    hidden_size=640,
    intermediate_size=2048,
    vocab_size=262_144,
    sliding_window=512,
    layer_types=sliding_layer_pattern(18, "5:1"),
    tie_word_embeddings=True,  # Gemma 3 ties them; untied, 268 M params is below the shape's floor
    params=268_098_176,
)


@pytest.mark.parametrize(
    ("slots", "mib"),
    [
        # -np 1, -c 4096: one stream. K + V per cell per layer: 2 * 256 * 2 B = 1,024 B.
        #   3 global layers * 4,096 cells * 1,024 = 12 MiB; 15 sliding layers *
        #   pad256(min(4,096, 512 + 512)) = 1,024 cells * 1,024 = 15 MiB -> 27 MiB (measured 27)
        (1, 27),
        # -np 2, -c 4096, split streams: n_ctx_seq = pad256(4,096 / 2) = 2,048 per slot.
        #   global: 2 * 2,048 * 3 * 1,024 = 12 MiB; sliding: each slot its own
        #   pad256(min(2,048, 512 + 512)) = 1,024 cells: 2 * 1,024 * 15 * 1,024 = 30 MiB
        #   -> 42 MiB (measured 42; vramdesk said 27: one window for both slots)
        (2, 42),
    ],
)
def test_each_slot_has_its_own_sliding_window_cache(slots, mib):
    wl = Workload(context_tokens=4096 // slots, batch=slots)
    rt = Runtime(engine=Engine.LLAMA_CPP, n_parallel=slots)
    b = estimate(GEMMA3_270M, WeightSpec(WeightFormat.BF16), wl, rt)
    assert b.kv_cache.bytes == mib * MIB


def test_unified_cache_shares_one_window_per_sequence():
    # --kv-unified with -np 2: one stream of 4,096 cells; sliding layers pad256(min(4,096,
    # 512 * 2 + 512)) = 1,536 cells: 3 * 4,096 * 1,024 + 15 * 1,536 * 1,024 = 12 + 22.5 MiB
    wl = Workload(context_tokens=2048, batch=2)
    rt = Runtime(engine=Engine.LLAMA_CPP, n_parallel=2, kv_unified=True)
    b = estimate(GEMMA3_270M, WeightSpec(WeightFormat.BF16), wl, rt)
    assert b.kv_cache.bytes == 3 * 4096 * 1024 + 15 * 1536 * 1024


def test_each_slot_context_is_padded_to_256():
    # -c 163,840 with 6 slots: n_ctx_seq = pad256(163,840 / 6 = 27,306) = 27,392 cells per slot,
    # 6 * 27,392 = 164,352 cells in all. Llama-3.1-8B f16: 131,072 B per cell.
    wl = Workload(context_tokens=163_840 // 6, batch=6)  # 27,306 tokens per slot
    rt = Runtime(engine=Engine.LLAMA_CPP, n_parallel=6)
    b = estimate(LLAMA8, WeightSpec(), wl, rt)
    assert b.extras["kv_cache_cells"] == 164_352
    assert b.kv_cache.bytes == 164_352 * 131_072


LLAMA8_PRESET = find_model("llama-3.1-8b")


def test_weight_split_without_a_shape_counts_the_whole_file_as_layers():
    # 7e9 params only, Q8_0 8.5 bpw: 7e9 * 8.5 / 8 = 7,437,500,000 B, all of it "layers";
    # no embedding or output matrix can be told apart
    m = ModelSpec(num_hidden_layers=32, num_key_value_heads=8, head_dim=128, params=7 * 10**9)
    split = weight_split(
        m, WeightSpec(WeightFormat.parse("q8_0")), Runtime(engine=Engine.LLAMA_CPP)
    )
    assert split["layers"] == split["device"] == 7_437_500_000
    assert split["output"] == split["output_matrix"] == split["embedding"] == 0


def test_llamacpp_capacity_of_a_model_without_kv_is_zero():
    enc = ModelSpec(
        num_hidden_layers=12, num_key_value_heads=12, head_dim=64, causal=False, params=10**8
    )
    rt = Runtime(engine=Engine.LLAMA_CPP)
    wl = Workload(context_tokens=512)
    b = estimate(enc, WeightSpec(WeightFormat.FP16), wl, rt)
    assert LlamaCppProfile().kv_capacity(b, enc, wl, rt, 10**9) == (0, None, Fraction(0))


def test_llamacpp_output_buffer_is_slots_times_vocab_floats():
    # llama-context.cpp output buffer: n_seq * n_vocab * 4 B (fp32 logits) = 4 * 128,256 * 4
    rt = Runtime(engine=Engine.LLAMA_CPP, n_parallel=4)
    wl = Workload(context_tokens=4096, batch=4)
    fig = LlamaCppProfile().figures(LLAMA8_PRESET.model, LLAMA8_PRESET.weights, wl, rt)
    assert fig["output_buffer_bytes"] == 2_052_096


def test_flash_attention_auto_from_its_first_build():
    from vramdesk.core.engines.llamacpp.build import FA_AUTO_SINCE_BUILD
    from vramdesk.core.engines.llamacpp.compute import flash_attention

    # common/arg.cpp: -fa auto is the default from build 6325 on, off before
    assert FA_AUTO_SINCE_BUILD == 6325
    assert flash_attention(Runtime(engine=Engine.LLAMA_CPP, engine_version="b6325")) is True
    assert flash_attention(Runtime(engine=Engine.LLAMA_CPP, engine_version="b6324")) is False


def test_llamacpp_swa_cells_are_zero_without_a_window():
    rt = Runtime(engine=Engine.LLAMA_CPP)
    fig = LlamaCppProfile().figures(LLAMA8_PRESET.model, LLAMA8_PRESET.weights, Workload(4096), rt)
    assert fig["kv_cache_cells_swa"] == 0


def test_llamacpp_partial_offload_keeps_the_output_on_the_host():
    # Llama-3.1-8B bf16: embedding and lm_head 128,256 * 4,096 = 525,336,576 params * 2 B =
    # 1,050,673,152 B each; repeating layers 16,060,522,496 - 2 * 1,050,673,152 =
    # 13,959,176,192. -ngl 16 of 32: device 13,959,176,192 * 16 // 32 = 6,979,588,096; the
    # output stays on the host: host = embedding + the other 16 layers + output
    # = 1,050,673,152 + 6,979,588,096 + 1,050,673,152 = 9,080,934,400
    rt = Runtime(engine=Engine.LLAMA_CPP, n_gpu_layers=16)
    split = weight_split(LLAMA8_PRESET.model, WeightSpec(WeightFormat.BF16), rt)
    assert split["device"] == 6_979_588_096
    assert split["host"] == 9_080_934_400


def test_llamacpp_output_copy_from_a_batch_of_32():
    # ggml-cuda offload_op: min_batch_size 32 -> n_ubatch 32 copies the 1,050,673,152-byte
    # output matrix into the compute buffer; 31 does not
    from vramdesk.core.engines.llamacpp.compute import output_copy_bytes

    w = WeightSpec(WeightFormat.BF16)
    rt = Runtime(engine=Engine.LLAMA_CPP, n_gpu_layers=16, n_ubatch=32)
    assert output_copy_bytes(LLAMA8_PRESET.model, w, rt) == 1_050_673_152
    assert output_copy_bytes(LLAMA8_PRESET.model, w, rt.replace(n_ubatch=31)) == 0


def test_ollama_refusal_names_ollama():
    rt = Runtime(engine=Engine.OLLAMA)
    with pytest.raises(InputError) as err:
        estimate(
            LLAMA8_PRESET.model, LLAMA8_PRESET.weights, Workload(4096, kv_dtype=KVDtype.Q5_0), rt
        )
    assert str(err.value).startswith("kv_dtype: Ollama has no q5_0 KV cache")


def test_ollama_quantized_cache_notes_flash_attention():
    # Ollama stores a q8_0 cache only with flash attention on (llm/server.go)
    rt = Runtime(engine=Engine.OLLAMA)
    b = estimate(
        LLAMA8_PRESET.model, LLAMA8_PRESET.weights, Workload(4096, kv_dtype=KVDtype.Q8_0), rt
    )
    assert any(a.startswith("flash attention on") for a in b.activations.assumptions)


def test_ollama_refusal_has_no_llama_cpp_hint():
    # Ollama stores ggml types itself: the hint to switch to llama.cpp would be wrong
    with pytest.raises(InputError) as err:
        estimate(
            LLAMA8_PRESET.model,
            LLAMA8_PRESET.weights,
            Workload(4096, kv_dtype=KVDtype.Q5_0),
            Runtime(engine=Engine.OLLAMA),
        )
    assert str(err.value) == "kv_dtype: Ollama has no q5_0 KV cache; use fp16, q8_0 or q4_0"


def test_llamacpp_state_note_is_per_slot():
    # Falcon-H1-7B on llama.cpp: f32 states, 44 * (19,968 + 1,572,864) * 4 = 280,338,432 B
    # per slot; -np 2 slots serving 4 sequences: still 280,338,432 per sequence (slot)
    cfg = json.loads((DATA / "configs" / "falcon-h1-7b.json").read_text(encoding="utf-8"))
    m = model_from_config(cfg).model.replace(params=7_590_000_000)
    rt = Runtime(engine=Engine.LLAMA_CPP, n_parallel=2)
    r = solve(m, WeightSpec(), Workload(4096, batch=4), rt, 80 * GIB)
    assert any(n.startswith("recurrent layers: 280,338,432 bytes of state") for n in r.notes)


def test_llamacpp_output_matrix_keeps_its_own_file_type():
    # Q4_K_M: llama-quantize stores output.weight as Q6_K (210 bytes per 256 weights):
    # 128,256 * 4,096 = 525,336,576 weights * 210 / 256 = 430,940,160 B
    w = WeightSpec(WeightFormat.parse("Q4_K_M"))
    split = weight_split(LLAMA8_PRESET.model, w, Runtime(engine=Engine.LLAMA_CPP))
    assert split["output_matrix"] == 430_940_160
