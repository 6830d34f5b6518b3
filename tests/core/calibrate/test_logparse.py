"""Start-up log parsing and calibration, on excerpts in the engines' formats.

The excerpts are in tests/data/engine-logs.

The excerpts carry paraphrased numbers; each expected value below is the printed number
converted by hand (GiB = 2**30 bytes, MiB = 2**20, "GB"/"MB" read as GiB/MiB).
"""

import json
from fractions import Fraction

import pytest

from tests.conftest import DATA
from vramdesk.core import GIB, MIB, Engine, KVDtype, ModelSpec, Runtime, WeightSpec, Workload
from vramdesk.core.calibrate.calibration import (
    calibrated_runtime,
    compare,
    format_rows,
    save_calibration,
)
from vramdesk.core.calibrate.logparse import MAX_LINE_CHARS, MAX_LOG_BYTES, parse_log, read_log
from vramdesk.core.errors import FileReadError, InputError
from vramdesk.core.units import round_half_up

LOGS = DATA / "engine-logs"


def gib(text):
    return round_half_up(Fraction(text) * GIB)


def mib(text):
    return round_half_up(Fraction(text) * MIB)


def test_vllm_v1_log():
    p = read_log(LOGS / "vllm-v1-0.11-llama8b.log")
    assert p.engine is Engine.VLLM
    assert p.value("weights_bytes") == gib("14.9905")  # "Model loading took 14.9905 GiB"
    assert p.value("kv_cache_bytes") == gib("51.36")  # "Available KV cache memory: 51.36 GiB"
    assert p.value("kv_cache_tokens") == 420736  # "GPU KV cache size: 420,736 tokens"
    assert p.value("max_model_len") == 16000
    assert p.value("max_concurrency") == Fraction("26.30")
    assert p.value("cuda_graph_bytes") == -gib("0.46")  # "took -0.46 GiB"


def test_vllm_memory_profile_lines():
    p = read_log(LOGS / "vllm-v1-0.11-memory-profile-debug.log")
    assert p.value("gpu_total_bytes") == gib("79.19")
    assert p.value("gpu_memory_utilization") == Fraction(9, 10)
    assert p.value("weights_bytes") == gib("14.99")
    assert p.value("non_torch_bytes") == gib("0.14")
    assert p.value("activation_peak_bytes") == gib("4.78")
    assert p.value("kv_cache_bytes") == gib("51.36")


def test_vllm_v0_log_reads_gb_as_gib():
    p = read_log(LOGS / "vllm-v0-0.6-llama8b.log")
    assert p.value("weights_bytes") == gib("14.9888")  # "took 14.9888 GB" is GiB
    assert p.value("peak_bytes") == gib("17.07")
    assert p.value("kv_cache_bytes") == gib("3.80")
    assert p.value("num_gpu_blocks") == 1945
    assert p.value("cuda_graph_bytes") == gib("0.52")


def test_sglang_log():
    p = read_log(LOGS / "sglang-qwen3-moe-tp4.log")
    assert p.engine is Engine.SGLANG
    assert p.value("kv_cache_tokens") == 367400
    assert p.value("kv_cache_bytes_k") == p.value("kv_cache_bytes_v") == gib("8.21")
    assert p.value("weights_bytes") == gib("57.63")  # "Load weight end ... mem usage=57.63 GB"


def test_llamacpp_iswa_log():
    p = read_log(LOGS / "llamacpp-gptoss-iswa.log")
    assert p.engine is Engine.LLAMA_CPP
    assert (p.value("kv_cache_cells"), p.value("kv_cache_cells_swa")) == (131072, 768)
    assert p.value("kv_cache_bytes_full_layers") == mib("3072")
    assert p.value("kv_cache_bytes_swa_layers") == mib("18")
    assert p.value("kv_cache_bytes") == mib("3090")  # both caches
    assert p.value("kv_cache_bytes_k") == mib("1536") + mib("9")
    assert p.value("weights_bytes") == mib("1240.10")  # the CUDA0 model buffer
    assert p.value("weights_bytes_host") == mib("10950.00")
    assert p.value("compute_buffer_bytes") == mib("455.97")  # CUDA0, not the host buffer


def test_llamacpp_2023_log_and_ollama():
    old = read_log(LOGS / "llamacpp-2023-gemma.log")
    assert old.engine is Engine.LLAMA_CPP
    assert old.value("kv_cache_bytes") == mib("896")  # "KV self size = 896.00 MiB"
    assert old.value("kv_cache_bytes_k") == mib("448")
    assert old.value("weights_bytes") == mib("4955.54")
    ollama = read_log(LOGS / "ollama-gemma.log")
    assert ollama.engine is Engine.OLLAMA
    assert ollama.value("kv_cache_bytes") == mib("896")
    new = read_log(LOGS / "ollama-new-engine.log")
    assert new.engine is Engine.OLLAMA
    assert new.value("weights_bytes") == gib("4.6")  # device=CUDA0, not the CPU line
    assert new.value("compute_buffer_bytes") == mib("506.0")


@pytest.mark.parametrize("name", ["garbage.log", "truncated-vllm.log"])
def test_garbage_and_truncated_logs_do_not_raise(name):
    p = read_log(LOGS / name)
    if name == "garbage.log":
        assert p.figures == {} and p.engine is None
        assert p.describe().startswith("no figures found")
    else:  # the cut-off "Available KV cache mem..." line gives nothing; earlier lines count
        assert set(p.figures) == {"weights_bytes"}


def test_pathological_input_is_bounded():
    # a long line of digits and a long unterminated pattern: each line is cut, no exception
    text = (
        "Model loading took "
        + "9" * (MAX_LINE_CHARS * 3)
        + "\n"
        + "KV Cache is allocated. #tokens: " * 5000
    )
    p = parse_log(text)
    assert "kv_cache_tokens" not in p.figures
    assert parse_log("").figures == {}


def test_read_log_caps_size_and_reports_missing(tmp_path):
    big = tmp_path / "big.log"
    big.write_bytes(b"x" * (MAX_LOG_BYTES + 10))
    assert read_log(big).truncated is True
    with pytest.raises(FileReadError, match="does not exist"):
        read_log(tmp_path / "missing.log")


LLAMA8 = ModelSpec(
    num_hidden_layers=32,
    hidden_size=4096,
    num_attention_heads=32,
    num_key_value_heads=8,
    head_dim=128,
    intermediate_size=14336,
    vocab_size=128256,
    max_position_embeddings=131072,
)


def test_compare_with_a_scenario():
    p = read_log(LOGS / "vllm-v1-0.11-memory-profile-debug.log")
    rows = {
        r.name: r
        for r in compare(p, LLAMA8, WeightSpec(), Workload(kv_dtype=KVDtype.BF16), Runtime())
    }
    # vLLM weights: params x 2 + 32 MiB RoPE cache, printed 14.99 GiB: within the 0.005 GiB rounding
    assert abs(rows["weights_bytes"].predicted - rows["weights_bytes"].measured) <= gib("0.005")
    assert rows["gpu_total_bytes"].predicted is None  # context, not compared
    assert abs(rows["kv_cache_bytes"].rel_diff) < 0.01
    text = format_rows(list(rows.values()), p)
    assert "weights_bytes" in text and "%" in text
    assert all(r.predicted is None for r in compare(p))  # no scenario: figures only


def test_calibrated_runtime_saved_as_preset(config_dir):
    p = read_log(LOGS / "vllm-v1-0.11-memory-profile-debug.log")
    rt = calibrated_runtime(p)
    assert (rt.engine, rt.non_torch_bytes, rt.activation_peak_bytes) == (
        Engine.VLLM,
        gib("0.14"),
        gib("4.78"),
    )
    path = save_calibration("H100 / vLLM 0.11", rt)
    assert path.parent.parent == config_dir and path.suffix == ".json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["kind"] == "runtime" and doc["runtime"]["activation_peak_bytes"] == gib("4.78")
    # V0: the peak includes the weights; the kept activation is peak - weights
    v0 = calibrated_runtime(read_log(LOGS / "vllm-v0-0.6-llama8b.log"))
    assert v0.activation_peak_bytes == gib("17.07") - gib("14.9888")
    with pytest.raises(InputError, match="no overhead"):
        calibrated_runtime(read_log(LOGS / "garbage.log"))


def test_llamacpp_log_knobs_fill_the_runtime():
    # the gpt-oss log states n_ubatch 512, one sequence and flash attention on
    p = read_log(LOGS / "llamacpp-gptoss-iswa.log")
    assert (p.value("n_ubatch"), p.value("n_seq_max"), p.value("flash_attn")) == (512, 1, 1)
    model = ModelSpec(
        num_hidden_layers=24,
        hidden_size=2880,
        num_attention_heads=64,
        num_key_value_heads=8,
        head_dim=64,
        intermediate_size=2880,
        vocab_size=201088,
        sliding_window=128,
        layer_types=("sliding_attention", "full_attention") * 12,
    )
    rows = {r.name: r for r in compare(p, model, WeightSpec(), Workload(), Runtime())}
    # 12 full layers x 131072 cells x 8 x 64 x 2 B x 2 (K, V) = 3072 MiB;
    # 12 sliding layers x 768 cells = 18 MiB
    assert rows["kv_cache_bytes_full_layers"].predicted == mib("3072")
    assert rows["kv_cache_bytes_swa_layers"].predicted == mib("18")
    assert rows["kv_cache_cells"].rel_diff == 0.0


def test_run_calibration_with_a_preset_and_save(config_dir):
    from vramdesk.core.calibrate.calibration import run_calibration

    out = run_calibration(
        LOGS / "vllm-v1-0.11-memory-profile-debug.log",
        {"preset": "llama-3.1-8b", "kv_dtype": "bf16", "save": "h100"},
    )
    assert out["engine"] == "vllm" and out["saved"].endswith("h100.json")
    rows = {r["name"]: r for r in out["figures"]}
    assert abs(rows["weights_bytes"]["rel_diff"]) < 0.001
    assert json.loads(json.dumps(out))["summary"] == "vllm: 9 figures"
    bare = run_calibration(LOGS / "garbage.log", {})
    assert bare["figures"] == [] and bare["text"].startswith("no figures found")


def test_vllm_version_read_from_the_log_and_used_when_none_is_given(config_dir):
    from vramdesk.core.calibrate.calibration import run_calibration

    # "vLLM API server version 0.11.0"; V0: "Initializing an LLM engine (v0.6.4.post1)"
    assert read_log(LOGS / "vllm-v1-0.11-llama8b.log").engine_version == "0.11.0"
    v0_log = LOGS / "vllm-v0-0.6-llama8b.log"
    assert read_log(v0_log).engine_version == "0.6.4.post1"
    assert read_log(LOGS / "llamacpp-gptoss-iswa.log").engine_version is None

    def predicted(version):
        opts = {"preset": "llama-3.1-8b", "kv_dtype": "bf16", "engine_version": version}
        out = run_calibration(v0_log, opts)
        return {r["name"]: r["predicted"] for r in out["figures"]}, out["notes"]

    # no --engine-version: modelled as the log's 0.6.4 (V0), not as the newest release
    figures, notes = predicted(None)
    assert figures == predicted("0.6.4.post1")[0] != predicted("0.11.0")[0]
    assert notes == ["using the log's engine version 0.6.4.post1"]


def test_calibrate_says_which_of_the_users_values_the_log_replaces():
    from vramdesk.core.calibrate.calibration import run_calibration

    # the log states max_model_len 16,000 and gpu_memory_utilization 0.90
    opts = {"preset": "llama-3.1-8b", "context": 8000, "util": "0.85", "engine_version": "0.11.0"}
    out = run_calibration(LOGS / "vllm-v1-0.11-memory-profile-debug.log", opts)
    assert out["notes"] == [
        "using the log's max_model_len 16,000 (you gave --context 8,000)",
        "using the log's gpu_memory_utilization 0.9 (you gave --util 0.85)",
    ]
    assert out["text"].endswith("\n".join(out["notes"]))
    # values that agree with the log, or were not given, say nothing
    opts = {"preset": "llama-3.1-8b", "context": 16000, "engine_version": "0.11.0"}
    assert run_calibration(LOGS / "vllm-v1-0.11-memory-profile-debug.log", opts)["notes"] == []


def test_saved_calibration_keeps_engine_and_version_and_never_overwrites_silently(config_dir):
    from vramdesk.core.calibrate.calibration import run_calibration
    from vramdesk.core.store.presets import PresetStore

    v1 = LOGS / "vllm-v1-0.11-llama8b.log"  # "vLLM API server version 0.11.0"
    out = run_calibration(v1, {"save": "h100"})
    runtime = PresetStore().find("h100").data["runtime"]
    assert (runtime["engine"], runtime["engine_version"]) == ("vllm", "0.11.0")
    assert runtime["cuda_graph_bytes"] == -gib("0.46")  # "took -0.46 GiB"
    assert out["notes"] == []
    for blank in ("", "  "):
        with pytest.raises(InputError) as err:
            run_calibration(v1, {"save": blank})
        assert (err.value.field, err.value.reason) == ("name", "is required")
    # the same name again: refused (its figures would be lost) unless forced
    debug = LOGS / "vllm-v1-0.11-memory-profile-debug.log"  # prints no version
    with pytest.raises(InputError, match="already exists") as err:
        run_calibration(debug, {"save": "h100"})
    assert err.value.field == "name"
    assert PresetStore().find("h100").data["runtime"]["cuda_graph_bytes"] == -gib("0.46")
    forced = run_calibration(debug, {"save": "h100", "force": True})
    assert PresetStore().find("h100").data["runtime"]["activation_peak_bytes"] == gib("4.78")
    assert any("no vLLM version" in n for n in forced["notes"])


def test_describe_pluralises_the_figure_count():
    # one vLLM line with one figure: "Model loading took 14.9905 GiB"
    one = parse_log("INFO [gpu_model_runner.py] Model loading took 14.9905 GiB and 5.1 seconds")
    assert one.describe() == "vllm: 1 figure"
    two = parse_log("# GPU blocks: 1945\nGPU KV cache size: 420,736 tokens")
    assert two.describe() == "vllm: 2 figures"
