"""Issue 12 item 9: safetensors headers, indexes and shard folders within real-checkpoint bounds.

Repros generated here; each runs the real command line in a child interpreter measuring
time and peak RSS growth (tests/bounded.py).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from tests.bounded import assert_one_line_refusal, run_cli_bounded

SECONDS, MIB = 10.0, 200.0
CONFIG = Path(__file__).resolve().parents[2] / "data/reference/models/llama-3.1-8b/config.json"


def _tiny_entries(n: int, prefix: str = "t") -> dict:
    return {
        f"{prefix}{i}": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]} for i in range(n)
    }


def _safetensors(path: Path, entries: dict, *, claimed: int | None = None) -> None:
    header = json.dumps(entries, separators=(",", ":")).encode()
    n = len(header) if claimed is None else claimed
    path.write_bytes(struct.pack("<Q", n) + header + b"\0\0")


def _estimate(target: Path):
    return run_cli_bounded(["estimate", "--config", str(target), "--context", "1"])


def _bounded(result):
    assert result.seconds < SECONDS and result.rss_growth_mib < MIB, (
        result.seconds,
        result.rss_growth_mib,
    )
    return result


def test_header_claiming_99_mb_is_refused_before_reading(tmp_path):
    path = tmp_path / "model.safetensors"
    _safetensors(path, {}, claimed=99_000_000)
    with path.open("r+b") as fh:
        fh.truncate(99_000_100)  # sparse: the length is plausible, nothing is read
    result = _bounded(run_cli_bounded(["estimate", "--config", str(path), "--context", "1"]))
    assert_one_line_refusal(result, "header of 99,000,000 bytes exceeds the limit")


def test_header_of_many_tiny_entries_is_refused_before_parsing(tmp_path):
    # the 99 MB / 1.67 million entries scaled into the 16 MiB limit: 250,000
    # entries of ~58 bytes (8 JSON values each); the parse would have built 250,000 dicts
    path = tmp_path / "model.safetensors"
    _safetensors(path, _tiny_entries(250_000))
    assert path.stat().st_size < 16 * 2**20
    result = _bounded(run_cli_bounded(["estimate", "--config", str(path), "--context", "1"]))
    assert_one_line_refusal(result, "JSON values", "limit 1,500,000")


def test_header_with_too_many_tensors_is_refused(tmp_path):
    # under the value count (5 per entry) but over 65,536 tensors
    path = tmp_path / "model.safetensors"
    _safetensors(path, _tiny_entries(140_000))
    result = _bounded(run_cli_bounded(["estimate", "--config", str(path), "--context", "1"]))
    assert_one_line_refusal(result, "140,000 tensors", "limit 65,536")


def test_index_larger_than_16_mib_is_refused_by_its_size(tmp_path):
    (tmp_path / "config.json").write_text(CONFIG.read_text())
    index = tmp_path / "model.safetensors.index.json"
    index.write_bytes(b"{}")
    with index.open("r+b") as fh:
        fh.truncate(60_000_000)  # the 60 MB index
    result = _bounded(_estimate(tmp_path))
    assert_one_line_refusal(result, "model.safetensors.index.json is too large")


def test_index_of_many_tiny_values_is_refused_before_parsing(tmp_path):
    (tmp_path / "config.json").write_text(CONFIG.read_text())
    index = tmp_path / "model.safetensors.index.json"
    values = ",".join(["1"] * 5_000_000)  # 10 MB: 5 million list slots if parsed
    index.write_text('{"metadata": {"total_size": 1}, "weight_map": [' + values + "]}")
    result = _bounded(_estimate(tmp_path))
    assert_one_line_refusal(result, "JSON values")


def test_shard_folder_beyond_real_checkpoints_is_refused_early(tmp_path):
    # 24 shards of 15,000 tensors: over 131,072 tensors by the 9th; the 512
    # shards took 120 s
    (tmp_path / "config.json").write_text(CONFIG.read_text())
    for k in range(24):
        _safetensors(
            tmp_path / f"model-{k:05d}-of-00024.safetensors", _tiny_entries(15_000, f"s{k}.")
        )
    result = _bounded(_estimate(tmp_path))
    assert_one_line_refusal(result, "131,072 tensors", "first 9 safetensors files")


def test_real_sized_shards_still_load(tmp_path):
    # Llama 3.1 8B's four shards hold 291 tensors: the folder loads and sums data_offsets
    (tmp_path / "config.json").write_text(CONFIG.read_text())
    for k in range(4):
        entries = {
            f"model.layers.{k * 8 + i}.w{j}": {
                "dtype": "BF16",
                "shape": [4096, 4096],
                "data_offsets": [0, 4096 * 4096 * 2],
            }
            for i in range(8)
            for j in range(9)
        }
        _safetensors(tmp_path / f"model-{k + 1:05d}-of-00004.safetensors", entries)
    result = _bounded(
        run_cli_bounded(["estimate", "--config", str(tmp_path), "--context", "1", "--json"])
    )
    assert result.rc == 0, result.stderr
    # bf16 checkpoint kept as is: 4 shards x 72 tensors x 4096 x 4096 x 2 bytes
    assert json.loads(result.stdout)["weights_bytes"] == 4 * 72 * 4096 * 4096 * 2


def test_a_header_over_the_tensor_limit_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    # issue 22: a 131,072-tensor header was parsed and checked in full (7.4 s) to be accepted
    from tests.slow_inputs import many_tensors_safetensors
    from vramdesk.core.errors import FileReadError
    from vramdesk.core.local.importers import _safetensors

    parsed = []
    monkeypatch.setattr(_safetensors, "parse_json", lambda *a: parsed.append(a) or {})
    path = many_tensors_safetensors(tmp_path / "model.safetensors", 131_072)
    with pytest.raises(FileReadError, match=r"131,072 tensors .*limit 65,536"):
        _safetensors.read_header(path)
    assert parsed == []


def test_a_header_at_the_limit_is_read_without_a_collector_pass(tmp_path):
    # the collector walked the header's dicts and lists again at each of its passes (about
    # 500 for this header, a third of the time); it holds no cycle, so the parse and checks
    # run with the collector paused: at most the one pass when it resumes
    import gc

    from tests.slow_inputs import many_tensors_safetensors
    from vramdesk.core.local.importers import _safetensors

    path = many_tensors_safetensors(tmp_path / "model.safetensors", 65_536)
    passes = []
    gc.callbacks.append(callback := lambda phase, _info: passes.append(phase))
    try:
        header = _safetensors.read_header(path)
    finally:
        gc.callbacks.remove(callback)
    assert len(header.tensors) == 65_536 and header.data_bytes == 2 * 65_536
    assert header.elements == 65_536
    assert passes.count("start") <= 1
    assert gc.isenabled()
