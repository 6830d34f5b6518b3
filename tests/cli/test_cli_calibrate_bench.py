"""``vramdesk calibrate`` on benchmark output and on a log of another model (issues 25, 23)."""

from __future__ import annotations

import json

from tests.conftest import DATA
from vramdesk.cli import main

BENCH = str(DATA / "bench" / "llama-bench-4766-rtx4090.md")
LOG = str(DATA / "engine-logs" / "vllm-v1-0.11-llama8b.log")
L7 = ["--preset", "llama-2-7b-hf", "--gpu", "RTX 4090"]


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bench_table_fit_and_its_use_in_estimate(capsys, tmp_path):
    code, text, err = run(capsys, "calibrate", BENCH, *L7)
    assert code == 0 and err == ""
    lines = text.splitlines()
    assert lines[0] == "llama-bench on RTX 4090: expected-speed constants fitted (5 measurements)"
    # tg128 F16: measured 61.03 tokens/s; before 1 / (3.5 ms + 13.09e9 B / (0.95 x 1008 GB/s))
    assert lines[3].split() == ["tg128", "llama", "7B", "F16", "61.0", "58.2", "61.0", "77.0",
                                "tokens/s"]  # fmt: skip
    saved = tmp_path / "mine.json"
    code, _, _ = run(capsys, "calibrate", BENCH, *L7, "--save-speed", str(saved))
    assert code == 0 and json.loads(saved.read_text())["speed_constants"]["chunk_tokens"] == 512
    q8 = ["estimate", "--preset", "llama-2-7b-hf", "--weights", "Q8_0", "--context", "128",
          "--engine", "llama.cpp", "--gpu", "RTX 4090", "--json"]  # fmt: skip
    _, before, _ = run(capsys, *q8)
    _, after, _ = run(capsys, *q8, "--speed-constants", str(saved))
    # the run's own tg128 Q8_0 figure is 98.13 tokens/s: the fit meets it, the default not
    assert json.loads(before)["decode_tokens_per_s"] < 95
    assert abs(json.loads(after)["decode_tokens_per_s"] - 98.13) < 0.2
    _, js, _ = run(capsys, "calibrate", BENCH, *L7, "--json")
    from_json = tmp_path / "from-json.json"
    from_json.write_text(js)
    _, again, _ = run(capsys, *q8, "--speed-constants", str(from_json))
    assert json.loads(again)["decode_tokens_per_s"] == json.loads(after)["decode_tokens_per_s"]


def test_bench_needs_a_model_and_a_gpu(capsys, tmp_path):
    code, out, err = run(capsys, "calibrate", BENCH, "--gpu", "RTX 4090")
    assert code == 2 and out == "" and "needs the model it ran" in err
    code, _, err = run(capsys, "calibrate", BENCH, "--preset", "llama-2-7b-hf")
    assert code == 2 and "needs the catalog GPU" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"bandwidth_efficiency": 2}')
    est = ["estimate", "--preset", "llama-3.1-8b", "--context", "8192", "--gpu", "RTX 4090"]
    code, _, err = run(capsys, *est, "--speed-constants", str(bad))
    assert code == 2 and "speed_constants" in err


def test_log_of_another_model_warns_on_stderr_and_exits_0(capsys):
    code, out, err = run(capsys, "calibrate", LOG, "--preset", "qwen3-30b-a3b")
    assert code == 0
    assert "+279.44%" in out  # the figure, still printed
    assert err == (
        "vramdesk: warning: the log is about meta-llama/Llama-3.1-8B-Instruct, not "
        "Qwen3-30B-A3B (another name): its differences compare two models; load it with "
        "--preset llama-3.1-8b\n"
    )
    code, js, err = run(capsys, "calibrate", LOG, "--preset", "qwen3-30b-a3b", "--json")
    check = json.loads(js)["model_check"]
    assert check["mismatch"] and check["matching_preset"] == "llama-3.1-8b"
    code, _, err = run(capsys, "calibrate", LOG, "--preset", "llama-3.1-8b")
    assert code == 0 and err == ""
