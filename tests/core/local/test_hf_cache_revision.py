"""``--revision``: a Hugging Face cache entry read at a ref or a commit, and refs read bounded.

The fake cache is huggingface_hub's layout (tests/local_stores.py): ``refs/main`` names the
Qwen3-8B snapshot; a second snapshot holds the same config.json with 40 layers instead of 36,
named by the tag ``refs/v2`` and by ``refs/refs/pr/1`` (the file huggingface_hub writes for
the revision ``refs/pr/1``: ``file_download.py``, ``_cache_commit_hash_for_specific_revision``).
"""

from __future__ import annotations

import json
import os
import threading

import pytest

from tests import local_stores as ls
from vramdesk.cli import main
from vramdesk.core.errors import InputError
from vramdesk.core.local import hf_cache
from vramdesk.core.local.discovery import discover

OTHER = "fedcba9876543210fedcba9876543210fedcba98"
SAME_START = "fedcba98aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"  # shares 8 characters with OTHER
# KV bytes per token of Qwen3-8B: 2 (K, V) x 8 KV heads x 128 head_dim x 2 bytes (fp16) x layers
PER_TOKEN_36 = 2 * 8 * 128 * 2 * 36  # 147,456 (the real config)
PER_TOKEN_40 = 2 * 8 * 128 * 2 * 40  # 163,840 (the second revision)


@pytest.fixture
def hub(tmp_path, monkeypatch):
    hub = ls.build_hf_cache(tmp_path / "hub")
    repo = hub / "models--Qwen--Qwen3-8B"
    config = json.loads((repo / "snapshots" / ls.COMMIT / "config.json").read_text())
    config["num_hidden_layers"] = 40
    snap = repo / "snapshots" / OTHER
    snap.mkdir()
    (snap / "config.json").write_text(json.dumps(config))
    (repo / "refs" / "v2").write_text(OTHER)
    (repo / "refs" / "refs" / "pr").mkdir(parents=True)
    (repo / "refs" / "refs" / "pr" / "1").write_text(OTHER)
    ls.point_at(monkeypatch, tmp_path, hub=hub)
    return hub


def _per_token(capsys, *extra: str) -> int:
    argv = ["estimate", "--model", "Qwen/Qwen3-8B", "--context", "1000", "--json", *extra]
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)["kv_bytes_per_token"]


def test_the_hand_figures():
    assert PER_TOKEN_36 == 147_456 and PER_TOKEN_40 == 163_840


@pytest.mark.parametrize(
    ("revision", "per_token"),
    [
        (None, PER_TOKEN_36),  # refs/main, as before
        ("main", PER_TOKEN_36),
        ("v2", PER_TOKEN_40),  # a tag under refs/
        ("refs/pr/1", PER_TOKEN_40),  # a pull request's ref
        (OTHER, PER_TOKEN_40),  # the full commit hash
        (OTHER[:7], PER_TOKEN_40),  # a unique 7-character prefix
        (ls.COMMIT, PER_TOKEN_36),
    ],
)
def test_revision_picks_its_snapshot(hub, capsys, revision, per_token):
    extra = () if revision is None else ("--revision", revision)
    assert _per_token(capsys, *extra) == per_token


def test_revision_returns_the_snapshot_folder(hub):
    model = hf_cache.revision(hub, "Qwen/Qwen3-8B", "v2")
    assert model.snapshot == str(hub / "models--Qwen--Qwen3-8B" / "snapshots" / OTHER)
    assert [f.name for f in model.files] == ["config.json"]


@pytest.mark.parametrize(
    ("revision", "says"),
    [
        ("v3", "is neither a ref nor a snapshot (the cache has: main, refs/pr/1, v2, 01234"),
        ("fedcba", "is neither a ref nor a snapshot"),  # 6 characters: too short a prefix
    ],
)
def test_an_unknown_revision_says_what_the_cache_has(hub, capsys, revision, says):
    argv = ["estimate", "--model", "Qwen/Qwen3-8B", "--context", "9", "--revision", revision]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("vramdesk: error: revision: Qwen/Qwen3-8B: revision") and says in err
    assert err.count("\n") == 1


def test_an_ambiguous_prefix_is_refused(hub):
    (hub / "models--Qwen--Qwen3-8B" / "snapshots" / SAME_START).mkdir()
    with pytest.raises(InputError, match="matches several snapshots"):
        hf_cache.revision(hub, "Qwen/Qwen3-8B", OTHER[:8])
    assert hf_cache.revision(hub, "Qwen/Qwen3-8B", OTHER[:9]).snapshot.endswith(OTHER)


def test_revision_of_a_repo_not_in_the_cache(hub, capsys):
    argv = ["estimate", "--model", "org/absent", "--context", "9", "--revision", "main"]
    assert main(argv) == 2
    assert "org/absent is not in the Hugging Face cache" in capsys.readouterr().err


def test_revision_goes_with_model_only(hub, capsys):
    argv = ["estimate", "--preset", "qwen3-8b", "--context", "9", "--revision", "v2"]
    assert main(argv) == 2
    assert "error: revision: goes with --model" in capsys.readouterr().err


def test_a_ref_to_a_missing_commit(hub):
    (hub / "models--Qwen--Qwen3-8B" / "refs" / "gone").write_text("9" * 40)
    with pytest.raises(InputError, match="ref 'gone' names commit 999999999999"):
        hf_cache.revision(hub, "Qwen/Qwen3-8B", "gone")


# ------------------------------------------------------------------ refs read bounded
def _in_thread(fn, timeout_s=20):
    """Run ``fn`` in a thread; fail (instead of hanging the suite) if it does not return."""
    out: list = []

    def call():
        try:
            out.append((fn(), None))
        except Exception as exc:  # handed back to the test's thread
            out.append((None, exc))

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(timeout_s)
    assert not worker.is_alive(), "the cache read hung"
    value, error = out[0]
    if error is not None:
        raise error
    return value


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_under_refs_is_a_problem_not_a_hang(hub):
    os.mkfifo(hub / "models--Qwen--Qwen3-8B" / "refs" / "stuck")  # no writer: open() would block
    found = _in_thread(lambda: list(hf_cache.scan(hub)))
    assert len(found) == 1 and isinstance(found[0], hf_cache.CacheProblem)
    assert "Ref cannot be read" in found[0].text and "named pipe (FIFO)" in found[0].text
    with pytest.raises(InputError, match="named pipe"):
        _in_thread(lambda: hf_cache.revision(hub, "Qwen/Qwen3-8B", "main"))
    # the listing names the problem and goes on
    assert any("Ref cannot be read" in p for p in discover().problems)


def test_a_huge_ref_file_is_read_only_to_its_limit(hub, monkeypatch):
    big = hub / "models--Qwen--Qwen3-8B" / "refs" / "big"
    big.write_bytes(b"a" * (8 << 20))
    reads: list[int] = []
    real = hf_cache.read_prefix

    def counting(path, limit, field, **kwargs):
        data = real(path, limit, field, **kwargs)
        reads.append(len(data))
        return data

    monkeypatch.setattr(hf_cache, "read_prefix", counting)
    found = list(hf_cache.scan(hub))
    # 128 bytes kept (+1 read to tell a longer file): never the 8 MiB
    assert max(reads) == hf_cache.REF_LIMIT_BYTES + 1
    assert isinstance(found[0], hf_cache.CacheProblem)
    assert "refer to missing commit hashes" in found[0].text


@pytest.mark.parametrize("revision", ["v2", "refs/pr/1", OTHER[:7]])
def test_revision_goes_with_the_positional_model_and_workload(hub, capsys, revision):
    # the one grammar (issue 23 item 9): MODEL and WORKLOAD as words, --revision as with --model
    argv = ["estimate", "Qwen/Qwen3-8B", "1000x1", "--revision", revision, "--json"]
    assert main(argv) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["kv_bytes_per_token"] == PER_TOKEN_40
    argv = ["solve", "Qwen/Qwen3-8B", "1000x1", "80GiB", "--revision", revision, "--json"]
    assert main(argv) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["kv_bytes_per_token"] == PER_TOKEN_40
