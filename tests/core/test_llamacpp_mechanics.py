"""llama.cpp / Ollama mechanisms of issue 10: flash attention, offload copies, slot caches."""

from __future__ import annotations

import json

import pytest

from vramdesk.cli import main
from vramdesk.core import Engine, KVDtype, Runtime, WeightFormat, WeightSpec, Workload, estimate
from vramdesk.core.bundled import find_model
from vramdesk.core.engines.llamacpp import FA_AUTO_SINCE_BUILD, flash_attention
from vramdesk.core.errors import InputError
from vramdesk.core.units import GIB, MIB  # noqa: F401 - MiB figures below

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
