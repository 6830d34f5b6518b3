"""Issue 12 items 3 and 5: inputs that used to end in a traceback or in negative bytes.

Each repro runs the real command line in a child interpreter (tests/bounded.py), which
measures wall time and peak RSS growth; the contract is one line on stderr, exit 2
(``gpus``: exit 1, "no GPU could be read"), within generous bounds.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from tests import gguf_files as g
from tests.bounded import assert_one_line_refusal, run_cli_bounded

SECONDS, MIB = 5.0, 64.0
#: Python refuses to convert integers of more than 4,300 digits (sys.int_info)
HUGE = "9" * 5000


def _bounded(result):
    assert result.seconds < SECONDS and result.rss_growth_mib < MIB, (
        result.seconds,
        result.rss_growth_mib,
    )
    return result


@pytest.mark.parametrize(
    "option,field",
    [
        ("--overhead-factor", "overhead_factor"),
        ("--fixed-gib", "fixed_overhead_gib"),
        ("--workspace-fraction", "workspace_fraction"),
        ("--util", "gpu_memory_utilization"),
    ],
)
@pytest.mark.parametrize("value", ["1e400", "-1e400"])
def test_numbers_beyond_the_float_range(option, field, value):
    argv = ["estimate", "--preset", "llama-3.1-8b", "--context", "1", f"{option}={value}"]
    line = assert_one_line_refusal(_bounded(run_cli_bounded(argv)), field, "must be between")
    assert "beyond" in line


_REF = Path(__file__).resolve().parents[1] / "data/reference/models/llama-3.1-8b/config.json"


def _huge_in(text: str) -> str:
    """``text`` (JSON) with the first ``4096`` replaced by a 5,000-digit integer."""
    assert "4096" in text
    return text.replace("4096", HUGE, 1)


def test_huge_integer_in_config_json(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(_huge_in(_REF.read_text()))
    result = _bounded(run_cli_bounded(["estimate", "--config", str(path), "--context", "1"]))
    assert_one_line_refusal(result, "config.json", "a number of 5,000 characters")


def test_huge_integer_in_a_safetensors_header(tmp_path):
    (tmp_path / "config.json").write_text(_REF.read_text())
    header = ('{"a": {"dtype": "F16", "shape": [' + HUGE + '], "data_offsets": [0, 2]}}').encode()
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"xx")
    result = _bounded(run_cli_bounded(["estimate", "--config", str(tmp_path), "--context", "1"]))
    assert_one_line_refusal(result, "model.safetensors header", "a number of 5,000 characters")


def test_huge_integer_in_a_safetensors_index(tmp_path):
    (tmp_path / "config.json").write_text(_REF.read_text())
    (tmp_path / "model.safetensors.index.json").write_text(
        '{"metadata": {"total_size": ' + HUGE + '}, "weight_map": {}}'
    )
    result = _bounded(run_cli_bounded(["estimate", "--config", str(tmp_path), "--context", "1"]))
    assert_one_line_refusal(result, "model.safetensors.index.json", "a number of 5,000 characters")


def test_huge_integer_in_a_validate_case(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"schema": "vramdesk-engine-case/1", "x": ' + HUGE + "}\n")
    result = _bounded(run_cli_bounded(["validate", str(path)]))
    assert_one_line_refusal(result, "cases.jsonl:1", "a number of 5,000 characters")


def test_huge_integer_in_the_fake_nvml_file(tmp_path):
    path = tmp_path / "fake.json"
    path.write_text('{"driver_version": "1", "gpus": [{"index": ' + HUGE + "}]}")
    result = _bounded(run_cli_bounded(["gpus"], env={"VRAMDESK_FAKE_NVML": str(path)}))
    # gpus: a figure could not be produced -> exit 1 (documented in main()), one line
    lines = result.stderr.splitlines()
    assert result.rc == 1 and len(lines) == 1 and "a number of 5,000 characters" in lines[0], (
        result.stderr
    )


def test_empty_gguf(tmp_path):
    path = tmp_path / "empty.gguf"
    path.write_bytes(b"")
    result = _bounded(run_cli_bounded(["estimate", "--gguf", str(path), "--context", "1"]))
    assert_one_line_refusal(result, "empty.gguf", "empty")


# ------------------------------------------------------------- item 5: negative bytes
def test_params_below_the_shapes_fixed_tensors_is_refused_naming_both():
    # Llama 3.1 405B: embedding 128,256 x 16,384 = 2,101,346,304, untied lm_head the same,
    # norms (2 x 126 + 1) x 16,384 = 4,145,152 -> 4,206,837,760; the repro printed
    # a total of -1.55 GiB
    argv = ["estimate", "--preset", "llama-3.1-405b", "--params-b", "1", "--engine", "llama.cpp"]
    result = _bounded(run_cli_bounded([*argv, "--context", "1"]))
    assert_one_line_refusal(result, "params: 1,000,000,000", "4,206,837,760")


def test_half_a_billion_on_a_7b_shape_is_refused():
    # Qwen2.5-7B: vocab 152,064 x hidden 3,584 = 544,997,376, untied x 2 = 1,089,994,752,
    # norms (2 x 28 + 1) x 3,584 = 204,288 -> 1,090,199,040
    argv = ["estimate", "--preset", "qwen2.5-7b", "--params-b", "0.5", "--context", "1"]
    result = _bounded(run_cli_bounded([*argv, "--weights", "q4_k_m"]))
    assert_one_line_refusal(result, "params: 500,000,000", "1,090,199,040")


def test_params_just_above_the_floor_gives_no_negative_figure():
    # 4.3 B on the 405B shape is above the 4,206,837,760 floor: every figure must be >= 0
    argv = ["estimate", "--preset", "llama-3.1-405b", "--params-b", "4.3", "--context", "1"]
    for engine in ("formula", "llama.cpp", "vllm", "sglang", "transformers", "ollama"):
        result = run_cli_bounded([*argv, "--engine", engine, "--json"])
        assert result.rc == 0, result.stderr
        _no_negative(json.loads(result.stdout))


def test_gguf_without_tensors_gives_no_negative_weights(tmp_path):
    path = tmp_path / "no-tensors.gguf"
    path.write_bytes(g.gguf(g.llama_kvs() + [g.kv("llama.vocab_size", g.U32, 128256)]))
    argv = ["estimate", "--gguf", str(path), "--context", "1", "--engine", "llama.cpp", "--json"]
    result = run_cli_bounded(argv)
    assert result.rc == 0, result.stderr
    _no_negative(json.loads(result.stdout))


def _no_negative(doc, where="$"):
    if isinstance(doc, dict):
        for k, v in doc.items():
            _no_negative(v, f"{where}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            _no_negative(v, f"{where}[{i}]")
    elif isinstance(doc, (int, float)) and not isinstance(doc, bool):
        if "bytes" in where or where.endswith("total"):
            assert doc >= 0, where
