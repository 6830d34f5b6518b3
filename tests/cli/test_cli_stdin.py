"""``-`` for standard input wherever the command line reads a file (27.6).

Standard input is a real descriptor here: a pipe (``os.pipe``, the writer closed) or a
redirected file (``open``), set as ``sys.stdin`` as a shell would, and the output must be
what the same command prints with the file's path.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests import local_stores as ls
from vramdesk.cli import main
from vramdesk.core.errors import FileReadError
from vramdesk.core.files import read_limited

DATA = Path(__file__).resolve().parents[1] / "data"
CONFIG = DATA / "reference" / "models" / "qwen3-8b" / "config.json"
LOG = DATA / "engine-logs" / "vllm-v1-0.11-llama8b.log"
CASES = DATA / "reference" / "engine-cases.jsonl"


@pytest.fixture
def pipe_in(monkeypatch):
    """Put ``data`` on a pipe as standard input (at most the pipe's buffer, 64 KiB)."""
    opened = []

    def feed(data: bytes) -> None:
        r, w = os.pipe()
        os.write(w, data)
        os.close(w)
        stream = os.fdopen(r, "r")
        opened.append(stream)
        monkeypatch.setattr(sys, "stdin", stream)

    yield feed
    for stream in opened:
        stream.close()


@pytest.fixture
def file_in(monkeypatch):
    """Redirect standard input from ``path`` (``< path``)."""
    opened = []

    def redirect(path: Path) -> None:
        stream = open(path)  # noqa: SIM115 (closed by the fixture)
        opened.append(stream)
        monkeypatch.setattr(sys, "stdin", stream)

    yield redirect
    for stream in opened:
        stream.close()


def _out(capsys, argv) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def test_config_from_a_pipe_is_the_config_from_its_path(capsys, pipe_in):
    argv = ["estimate", "--context", "4096", "--json"]
    by_path = json.loads(_out(capsys, [*argv, "--config", str(CONFIG)]))
    pipe_in(CONFIG.read_bytes())
    by_stdin = json.loads(_out(capsys, [*argv, "--config", "-"]))
    # Qwen3-8B's config.json names no _name_or_path: the name is the folder's, or "stdin"
    assert by_path.pop("model") == "qwen3-8b" and by_stdin.pop("model") == "stdin"
    assert by_stdin == by_path
    assert by_stdin["kv_bytes_per_token"] == 2 * 8 * 128 * 2 * 36  # 36 layers, 8 KV heads


def test_config_from_stdin_is_bounded(pipe_in):
    pipe_in(b"x" * 11)
    with pytest.raises(FileReadError, match="standard input holds more than 10 bytes"):
        read_limited(Path("-"), 10, "config")


def test_gguf_from_a_redirected_file(tmp_path, capsys, file_in):
    gguf = ls.write_gguf(tmp_path / "tiny.gguf", q8=False)
    argv = ["estimate", "--context", "256", "--json"]
    by_path = json.loads(_out(capsys, [*argv, "--gguf", str(gguf)]))
    file_in(gguf)
    by_stdin = json.loads(_out(capsys, [*argv, "--gguf", "-"]))
    by_path.pop("model"), by_stdin.pop("model")
    assert by_stdin == by_path and by_stdin["weights_bytes"] > 0


def test_gguf_from_a_pipe_is_refused_in_one_line(tmp_path, capsys, pipe_in):
    gguf = ls.write_gguf(tmp_path / "tiny.gguf", q8=False)
    pipe_in(gguf.read_bytes())
    assert main(["estimate", "--context", "256", "--gguf", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "a GGUF header cannot be read from standard input that is not a file" in err
    assert "(- < FILE)" in err


def test_calibrate_log_from_a_pipe(capsys, pipe_in):
    by_path = _out(capsys, ["calibrate", str(LOG)])
    pipe_in(LOG.read_bytes())
    assert _out(capsys, ["calibrate", "-"]) == by_path
    assert "figure" in by_path


def test_validate_cases_from_a_redirected_file(capsys, file_in):
    argv = ["validate", "--json"]
    code = main([*argv, str(CASES)])
    by_path = capsys.readouterr().out
    file_in(CASES)
    assert main([*argv, "-"]) == code
    assert capsys.readouterr().out == by_path
    assert json.loads(by_path)["summary"]["checks"]["total"] > 0


def test_preset_import_from_a_pipe(capsys, pipe_in, tmp_path):
    exported = tmp_path / "mine.json"
    assert main(["presets", "export", "qwen3-8b", str(exported)]) == 0
    capsys.readouterr()
    pipe_in(exported.read_bytes())
    out = _out(capsys, ["presets", "import", "-"])
    assert out.startswith("imported model preset")
    listed = _out(capsys, ["presets", "list", "--json"])
    assert any(not row["read_only"] for row in json.loads(listed))


def test_a_hugging_face_config_on_stdin_is_sent_to_estimate(capsys, pipe_in):
    pipe_in(CONFIG.read_bytes())
    assert main(["presets", "import", "-"]) == 2
    err = capsys.readouterr().err
    assert "standard input is a Hugging Face model config" in err
    assert "vramdesk estimate --config -" in err
