"""vLLM ``--language-model-only``: a multimodal checkpoint without its vision / audio towers.

vLLM (``vllm/config/multimodal.py``, docs "Multimodal models": "a text-only mode can be
enabled by setting all multimodal modalities to 0 using --language-model-only. This prevents
loading multimodal modules, freeing up GPU memory for KV cache") builds only the language
model; the towers and projectors (``ModelSpec.encoder_params``) are not loaded.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA
from vramdesk.cli import main
from vramdesk.core import InputError
from vramdesk.core.estimate import estimate
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.workload import Workload

VLLM = Runtime(engine=Engine.VLLM)
WL = Workload(context_tokens=8192, batch=4)


def _qwen3_5_9b():
    path = DATA / "configs" / "oracle" / "qwen3.5-9b.json"
    return model_from_config(json.loads(path.read_text(encoding="utf-8")))


def test_the_towers_leave_the_weights_and_nothing_else_moves():
    imported = _qwen3_5_9b()
    # the vision tower + merger: 456,010,480 parameters (tests/core/model/test_family_params.py
    # derives it from vision_config); bf16 under vLLM: 2 bytes each, on one GPU
    assert imported.model.encoder_params == 456_010_480
    full = estimate(imported.model, imported.weights, WL, VLLM)
    text = estimate(imported.model, imported.weights, WL, VLLM.replace(language_model_only=True))
    assert full.weights.bytes - text.weights.bytes == 2 * 456_010_480
    assert text.kv_cache.bytes == full.kv_cache.bytes
    assert (
        "--language-model-only: the multimodal encoders and projectors (456,010,480 "
        "parameters) are not loaded"
    ) in text.weights.assumptions


def test_on_two_gpus_each_holds_half_of_what_was_left_out():
    imported = _qwen3_5_9b()
    tp2 = VLLM.replace(tensor_parallel_size=2)
    full = estimate(imported.model, imported.weights, WL, tp2)
    text = estimate(imported.model, imported.weights, WL, tp2.replace(language_model_only=True))
    # (params + pad) * 2 / 2 per GPU: the 456,010,480 tower parameters are 456,010,480 bytes
    assert full.weights.bytes - text.weights.bytes == 456_010_480


def test_a_text_model_says_there_is_nothing_to_leave_out():
    imported = model_from_config(
        json.loads((DATA / "reference" / "models" / "llama-3.1-8b" / "config.json").read_text())
    )
    b = estimate(imported.model, imported.weights, WL, VLLM.replace(language_model_only=True))
    assert b.weights.bytes == estimate(imported.model, imported.weights, WL, VLLM).weights.bytes
    assert "no multimodal encoder to leave out" in b.weights.assumptions[-1]


def test_another_engine_refuses_the_setting_naming_it():
    imported = _qwen3_5_9b()
    with pytest.raises(InputError) as err:
        estimate(
            imported.model,
            imported.weights,
            WL,
            Runtime(engine=Engine.SGLANG, language_model_only=True),
        )
    assert err.value.field == "language_model_only"


CONFIG = str(DATA / "configs" / "oracle" / "qwen3.5-9b.json")


def _weights_bytes(capsys, argv) -> int:
    code = main([*argv, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    data = json.loads(out.out)
    return data["estimate"]["weights_bytes"] if argv[0] == "from-command" else data["weights_bytes"]


def test_the_command_line_flag_and_the_pasted_vllm_command_agree(capsys):
    base = ["--config", CONFIG, "--engine", "vllm", "--context", "8192", "--batch", "4"]
    full = _weights_bytes(capsys, ["estimate", *base])
    text = _weights_bytes(capsys, ["estimate", *base, "--language-model-only"])
    assert full - text == 2 * 456_010_480
    pasted = (
        "vllm serve Qwen/Qwen3.5-9B --max-model-len 8192 --max-num-seqs 4 --language-model-only"
    )
    # from-command reads the flag and prints the vramdesk command it sized, flag and all
    assert _weights_bytes(capsys, ["from-command", "--config", CONFIG, pasted]) == text


def test_the_emitted_vllm_command_carries_the_flag():
    from vramdesk.core.model.emit import emit_command
    from vramdesk.core.model.formats import KVDtype

    def launch(runtime):
        return emit_command("vllm", "Qwen/Qwen3.5-9B", 8192, 4, KVDtype.FP16, runtime)

    assert "--language-model-only" in launch(VLLM.replace(language_model_only=True))
    assert "--language-model-only" not in launch(VLLM)


def test_a_preset_with_its_published_count_loses_the_towers_too():
    from vramdesk.core.store.bundled import find_model

    # Gemma-3-27B-IT's preset carries the published 27,432,406,640, SigLIP tower + projector
    # 423,060,336 included (presets/models/gemma-3-27b-it.json source); bf16: 846,120,672 bytes
    preset = find_model("gemma-3-27b-it")
    assert preset.model.params == 27_432_406_640 and preset.model.encoder_params == 423_060_336
    full = estimate(preset.model, preset.weights, WL, VLLM)
    text = estimate(preset.model, preset.weights, WL, VLLM.replace(language_model_only=True))
    assert full.weights.bytes - text.weights.bytes == 846_120_672
    assert (
        "includes the multimodal encoders and projectors: 423,060,336 parameters (vLLM "
        "--language-model-only leaves them out)"
    ) in full.weights.assumptions


def test_llama_cpp_reads_the_towers_from_the_projector_file_not_the_models_gguf():
    from vramdesk.core.store.bundled import find_model

    # convert_hf_to_gguf.py writes a multimodal model's towers to the --mmproj file: the
    # model's GGUF (bf16 here) holds 27,432,406,640 - 423,060,336 parameters
    preset = find_model("gemma-3-27b-it")
    llamacpp = Runtime(engine=Engine.LLAMA_CPP)
    b = estimate(preset.model, preset.weights, WL, llamacpp)
    text = preset.model.replace(params=27_432_406_640 - 423_060_336, encoder_params=0)
    assert b.weights.bytes == estimate(text, preset.weights, WL, llamacpp).weights.bytes
    assert (
        "the multimodal encoders (423,060,336 parameters) are not in the model's GGUF: "
        "the projector file (--mmproj) holds them"
    ) in b.weights.assumptions
    with_projector = estimate(
        preset.model, preset.weights, WL, llamacpp.replace(mmproj_bytes=858_000_000)
    )
    assert with_projector.projector.bytes == 858_000_000  # counted once, as its own part
    assert with_projector.weights.bytes == b.weights.bytes


def test_a_decode_step_reads_the_language_model_not_the_encoders():
    from vramdesk.core.model.formats import WeightFormat, WeightSpec
    from vramdesk.core.model.spec import count_params
    from vramdesk.core.terms.speed import weights_read_bytes

    # Qwen3.5-9B in int4 (g128), formula profile: text tokens run through neither the input
    # embedding table (a lookup: its 248,320 x 4,096 rows stay unread) nor the vision tower
    # (456,010,480 parameters), both kept 16-bit: the step reads the weights less
    # 2 x (embedding + tower) bytes
    imported = _qwen3_5_9b()
    m = imported.model
    int4 = WeightSpec(WeightFormat.parse("int4"))
    b = estimate(m, int4, WL, Runtime())
    embed = count_params(m).embedding
    assert embed == 248_320 * 4096 and not m.tie_word_embeddings
    assert weights_read_bytes(m, int4, b, 1) == b.weights.bytes - 2 * (embed + 456_010_480)
