"""Every figure the command line prints, pinned to the byte (issue 19).

``tests/data/cli_corpus/corpus.jsonl`` holds 480-odd command lines across every bundled
model, engine, weight format, KV cache dtype, output format and error path, with the exit
status and the exact text each printed when it was recorded. A refactor must leave all of
them identical; a change that is meant to move a figure regenerates the file
(``python tests/data/cli_corpus/make_corpus.py``) and says which figures moved and why.
"""

from __future__ import annotations

import json

import pytest

from tests.data.cli_corpus import make_corpus

ROWS = [
    json.loads(line) for line in make_corpus.CORPUS.read_text(encoding="utf-8").splitlines() if line
]


def test_the_corpus_is_the_generator_s_command_list():
    # a command added to make_corpus.py without regenerating would be silently unchecked
    assert [r["argv"] for r in ROWS] == make_corpus.commands()
    assert len(ROWS) >= 300
    assert {r["exit"] for r in ROWS} == {0, 2}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: " ".join(r["argv"])[:90])
def test_command_prints_what_it_printed_when_recorded(row, monkeypatch, tmp_path):
    monkeypatch.chdir(make_corpus.ROOT)
    monkeypatch.delenv("VRAMDESK_FAKE_NVML", raising=False)
    got = make_corpus.run(row["argv"])
    assert (got["exit"], got["stderr"]) == (row["exit"], row["stderr"])
    assert got["stdout"] == row["stdout"]
