"""The Hugging Face cache read as files lists what ``huggingface_hub.scan_cache_dir`` would
(issue 22: the library's scan took 16-22 s for 10,000 repos; this one reads each repo's
listed revision only, with a bounded number of system calls per repo)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests import local_stores as ls
from tests.slow_inputs import hf_cache
from vramdesk.core.local import discovery
from vramdesk.core.local import hf_cache as reader

CONFIG = b'{"model_type": "llama"}'


def _oracle(cache: Path) -> tuple[list[tuple], int]:
    """What the listing was built from before: ``scan_cache_dir`` (models, problem count)."""
    from huggingface_hub import scan_cache_dir

    info = scan_cache_dir(cache)
    out = []
    for repo in info.repos:
        if repo.repo_type != "model" or not repo.revisions:
            continue
        revs = sorted(repo.revisions, key=lambda r: r.last_modified, reverse=True)
        rev = next((r for r in revs if "main" in r.refs), revs[0])
        files = sorted((str(f.file_path), f.file_name, f.size_on_disk) for f in rev.files)
        out.append((repo.repo_id, str(rev.snapshot_path), files, rev.size_on_disk))
    return sorted(out), len(info.warnings)


def _ours(cache: Path) -> tuple[list[tuple], int]:
    found = list(reader.scan(cache))
    models = [r for r in found if isinstance(r, reader.CachedModel)]
    rows = [
        (m.repo_id, m.snapshot, sorted((f.path, f.name, f.size) for f in m.files), m.size)
        for m in models
    ]
    return sorted(rows), len(found) - len(models)


def _repo(hub: Path, name: str, revisions: dict[str, dict[str, bytes]], refs: dict[str, str]):
    repo = hub / name
    (repo / "blobs").mkdir(parents=True)
    for commit, files in revisions.items():
        for rel, data in files.items():
            digest = f"b{abs(hash(data)):x}"
            (repo / "blobs" / digest).write_bytes(data)
            link = repo / "snapshots" / commit / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            depth = len(Path(rel).parts) + 1
            os.symlink(Path(*[".."] * depth, "blobs", digest), link)
    for ref, commit in refs.items():
        (repo / "refs" / ref).parent.mkdir(parents=True, exist_ok=True)
        (repo / "refs" / ref).write_text(commit)
    return repo


@pytest.fixture
def varied(tmp_path) -> Path:
    hub = ls.build_hf_cache(tmp_path / "hub")
    a, b = "a" * 40, "b" * 40
    _repo(
        hub, "models--org--two-revs", {a: {"config.json": CONFIG}, b: {"x.json": b"1"}}, {"main": a}
    )
    old = _repo(hub, "models--org--no-refs", {a: {"config.json": CONFIG}, b: {"w.gguf": b"22"}}, {})
    os.utime((old / "snapshots" / a / "config.json").resolve(), (1, 1))  # the older revision
    _repo(
        hub,
        "models--org--ggufs",
        {a: {"m-00001-of-00002.gguf": b"1" * 5, "m-00002-of-00002.gguf": b"2" * 7,
             "mmproj.gguf": b"3", "sub/q4.gguf": b"44", "twice.gguf": b"1" * 5}},
        {"main": a, "refs/pr/1": a},
    )  # fmt: skip
    _repo(hub, "datasets--org--data", {a: {"d.json": b"{}"}}, {"main": a})
    broken = _repo(hub, "models--org--broken", {a: {"config.json": CONFIG}}, {"main": a})
    for blob in (broken / "blobs").iterdir():
        blob.unlink()
    (hub / "models--org--no-snapshots" / "refs").mkdir(parents=True)
    _repo(hub, "models--org--lost-ref", {a: {"config.json": CONFIG}}, {"main": b})
    (hub / "stray.txt").write_text("not a repo")
    (hub / ".locks").mkdir()
    (hub / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55")
    return hub


def test_the_cache_reads_as_scan_cache_dir_lists_it(varied):
    models, problems = _ours(varied)
    assert (models, problems) == _oracle(varied)
    assert [m[0] for m in models] == ["Qwen/Qwen3-8B", "org/ggufs", "org/no-refs", "org/two-revs"]
    assert problems == 4  # broken link, no snapshots, lost ref, stray file


def test_the_listing_from_the_reader(varied):
    problems: list[str] = []
    listed = {(m.name, m.format, m.size_bytes) for m in discovery.iter_hf(varied, problems)}
    qwen = sum(b.stat().st_size for b in (varied / "models--Qwen--Qwen3-8B" / "blobs").iterdir())
    assert listed == {
        ("Qwen/Qwen3-8B", "safetensors", qwen),
        ("org/two-revs", "config.json", len(CONFIG)),
        ("org/no-refs/w.gguf", "gguf", 2),  # the newer revision: no refs to choose by
        ("org/ggufs/m-00001-of-00002.gguf", "gguf", 12),
        ("org/ggufs/q4.gguf", "gguf", 2),
        ("org/ggufs/twice.gguf", "gguf", 5),
    }
    assert len(problems) == 4 and all(p.startswith("Hugging Face cache: ") for p in problems)


def test_a_scan_takes_a_few_system_calls_per_repo(tmp_path, monkeypatch):
    hub = hf_cache(tmp_path / "hub", 2_000, CONFIG)
    calls = {"stat": 0, "scandir": 0}
    for name in ("stat", "scandir"):
        real = getattr(os, name)
        monkeypatch.setattr(reader.os, name, lambda *a, _r=real, _n=name, **k: (
            calls.__setitem__(_n, calls[_n] + 1), _r(*a, **k))[1])  # fmt: skip
    start = time.perf_counter()
    found = list(reader.scan(hub))
    seconds = time.perf_counter() - start
    assert len(found) == 2_000 and all(isinstance(r, reader.CachedModel) for r in found)
    # per repo: the snapshots, refs and revision folders, one blob stat
    assert calls["scandir"] <= 3 * 2_000 + 1 and calls["stat"] <= 2_000 + 1
    assert seconds < 4  # 10x the 2 s allowed for 10,000 repos, scaled to 2,000


def test_a_broken_link_names_its_missing_blob(varied):
    # the blob's path as scan_cache_dir's CorruptedCacheException words it; the reader now
    # stats through the link (one call per file, issue 24) and reads the link only then
    texts = [r.text for r in reader.scan(varied) if isinstance(r, reader.CacheProblem)]
    snapshot = varied / "models--org--broken" / "snapshots" / ("a" * 40) / "config.json"
    blob = os.path.abspath(os.path.join(snapshot.parent, os.readlink(snapshot)))
    assert f"Blob missing (broken symlink): {blob}" in texts


def test_two_links_to_one_blob_count_it_once(tmp_path):
    hub = tmp_path / "hub"
    repo = _repo(hub, "models--org--m", {"a" * 40: {"config.json": CONFIG}}, {"main": "a" * 40})
    snap = repo / "snapshots" / ("a" * 40)
    os.symlink(os.readlink(snap / "config.json"), snap / "copy.json")
    (model,) = reader.scan(hub)
    assert [f.size for f in model.files] == [len(CONFIG), len(CONFIG)]
    assert model.size == len(CONFIG)
