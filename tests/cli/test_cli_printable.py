"""Issue 22 item 7: one line, printable characters only, in our words.

Before the fix: a path argument holding a newline made the one-line error two lines; a
GPU name or a model name with terminal escape codes was printed raw (``\\x1b[31m`` reached
the terminal); an Ollama manifest of an unexpected shape was reported as Python's
"'int' object is not iterable"; a GGUF per-layer array of the wrong length was accepted.
"""

from __future__ import annotations

import json

import pytest

from tests import gguf_files as g
from tests import local_stores as ls
from tests.bounded import assert_one_line_refusal, run_cli_bounded
from vramdesk.core.printable import printable, printable_json, printable_lines

EVIL = "NVIDIA \x1b[31mH100\x1b]0;pwned\x07\r\nfake line\x9b\u202e"


def _fake_nvml(tmp_path, name=EVIL):
    path = tmp_path / "fake.json"
    gpu = {"index": 0, "name": name, "total_bytes": 80 << 30, "used_bytes": 1 << 30}
    gpu["free_bytes"] = gpu["total_bytes"] - gpu["used_bytes"]
    doc = {"driver_version": "550.54\x1b[2J", "nvml_version": "12.550", "gpus": [gpu]}
    path.write_text(json.dumps(doc))
    return {"VRAMDESK_FAKE_NVML": str(path)}


def _no_control(text: str) -> None:
    assert all(ch.isprintable() or ch == "\n" for ch in text), repr(text)


def test_printable_escapes_every_non_printable_character():
    assert printable("a\nb\x1b[31mc\x9b\u202ed\U000e0041") == (
        "a\\nb\\x1b[31mc\\x9b\\u202ed\\U000e0041"
    )
    assert printable("Llama-3.1-8B 日本語") == "Llama-3.1-8B 日本語"  # printable text as it is
    assert printable_lines("one\x1b\ntwo") == "one\\x1b\ntwo"
    assert printable_lines("a,b\r\nc\rd,e\r\n") == "a,b\r\nc\\rd,e\r\n"
    text = json.dumps({"n": "a\x9b\u202e\U000e0041"}, ensure_ascii=False)
    assert json.loads(printable_json(text)) == {"n": "a\x9b\u202e\U000e0041"}
    _no_control(printable_json(text))


def test_a_newline_in_an_argument_keeps_the_error_on_one_line(tmp_path):
    bad = str(tmp_path / "a\nb\x1b[2J.gguf")
    result = run_cli_bounded(["estimate", "--gguf", bad, "--context", "100"])
    line = assert_one_line_refusal(result, "path:", "does not exist", "a\\nb\\x1b[2J.gguf")
    _no_control(line)
    result = run_cli_bounded(["compare", "llama-3.1-8b", "no\nsuch\x1bworkload"])
    _no_control(assert_one_line_refusal(result, "workload:"))


def test_gpu_names_with_escape_codes_are_printed_escaped(tmp_path):
    result = run_cli_bounded(["gpus"], env=_fake_nvml(tmp_path))
    assert result.rc == 0, result.stderr
    _no_control(result.stdout)
    lines = result.stdout.splitlines()
    assert lines[0] == "Driver 550.54\\x1b[2J, NVML 12.550"
    assert lines[1].startswith(
        "GPU 0: NVIDIA \\x1b[31mH100\\x1b]0;pwned\\x07\\r\\nfake line\\x9b\\u202e  total 81,920 MiB"
    )
    assert len(lines) == 2  # the name's newline forged no line
    as_json = run_cli_bounded(["gpus", "--json"], env=_fake_nvml(tmp_path))
    _no_control(as_json.stdout)
    assert json.loads(as_json.stdout)["gpus"][0]["name"] == EVIL  # the value, exactly


def test_a_model_name_with_escape_codes_is_printed_escaped(tmp_path):
    path = tmp_path / "m.gguf"
    kvs = [b for b in g.llama_kvs(layers=2) if b"general.name" not in b]
    kvs += [
        g.kv("general.name", g.STRING, "evil\x1b[31mred\nModel: fake"),
        g.kv("llama.vocab_size", g.U32, 1000),
    ]
    path.write_bytes(g.gguf(kvs))
    result = run_cli_bounded(["estimate", "--gguf", str(path), "--context", "100"])
    assert result.rc == 0, result.stderr
    _no_control(result.stdout)
    assert result.stdout.splitlines()[0].startswith("Model: evil\\x1b[31mred\\nModel: fake  (")


@pytest.mark.parametrize(
    "manifest,reason",
    [
        ({"layers": 5}, "no list of layers"),
        ({"layers": [5]}, "a layer that is not an object"),
        ([1, 2], "a JSON list, not an object"),
        (
            {"layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": [1]}]},
            "a layer whose digest is not text",
        ),
        (
            {"layers": [{"mediaType": 7, "digest": "sha256:" + "0" * 64}]},
            "a layer whose mediaType is not text",
        ),
        ({"layers": []}, "it lists no model layer"),
    ],
)
def test_an_ollama_manifest_of_another_shape_is_reported_in_our_words(
    tmp_path, monkeypatch, manifest, reason
):
    ls.point_at(monkeypatch, tmp_path, ollama=tmp_path / "ollama")
    from vramdesk.core.local import discovery

    tags = tmp_path / "ollama" / "manifests" / "registry.ollama.ai" / "library"
    (tags / "odd").mkdir(parents=True)
    (tags / "odd" / "1b").write_text(json.dumps(manifest))
    found = discovery.discover()
    problems = [p for p in found.problems if "odd/1b" in p]
    assert len(problems) == 1, found.problems
    assert reason in problems[0]
    for internal in ("object is not", "has no attribute", "indices must", "KeyError", "'int'"):
        assert internal not in problems[0], problems[0]


def test_a_per_layer_array_of_the_wrong_length_is_refused(tmp_path):
    path = tmp_path / "m.gguf"
    kvs = [b for b in g.llama_kvs() if b"head_count_kv" not in b]
    kvs += [
        g.kv("llama.attention.head_count_kv", g.ARRAY, (g.U32, [8, 8, 8])),
        g.kv("llama.vocab_size", g.U32, 128256),
    ]
    path.write_bytes(g.gguf(kvs))
    result = run_cli_bounded(["estimate", "--gguf", str(path), "--context", "100"])
    assert_one_line_refusal(
        result,
        "llama.attention.head_count_kv:",
        "holds 3 entries, but llama.block_count is 32",
    )
    # the right length is read layer by layer, as before
    kvs[-2] = g.kv("llama.attention.head_count_kv", g.ARRAY, (g.U32, [8] * 32))
    path.write_bytes(g.gguf(kvs))
    ok = run_cli_bounded(["estimate", "--gguf", str(path), "--context", "100", "--json"])
    assert ok.rc == 0, ok.stderr
    assert json.loads(ok.stdout)["kv_bytes_per_token"] == 2 * 8 * 128 * 2 * 32
