"""Local model discovery on fake stores with the real layouts, with the network disabled."""

import hashlib
import json
import os

import pytest

from tests import local_stores as ls
from vramdesk.core.errors import InputError
from vramdesk.core.local import discovery


@pytest.fixture
def stores(tmp_path, monkeypatch):
    paths = ls.build_all(tmp_path, monkeypatch)
    attempts = ls.no_network(monkeypatch)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    yield paths
    assert attempts == [], "discovery tried to open a socket"


def _blob_sizes(blobs):
    return sum(p.stat().st_size for p in blobs.iterdir())


def test_fake_stores_have_the_real_layouts(stores):
    snap = stores["hf"] / "models--Qwen--Qwen3-8B" / "snapshots" / ls.COMMIT
    for name in ("config.json", "model.safetensors.index.json"):
        link = snap / name
        # huggingface_hub writes relative symlinks into blobs/ named by the content's sha256
        assert link.is_symlink() and os.readlink(link).startswith(os.path.join("..", "..", "blobs"))
        assert link.resolve().name == hashlib.sha256(link.read_bytes()).hexdigest()
    assert (stores["hf"] / "models--Qwen--Qwen3-8B" / "refs" / "main").read_text() == ls.COMMIT


def test_every_store_is_found_with_its_size_and_format(stores):
    found = discovery.discover()
    assert found.problems == ()
    got = {(m.name, m.source, m.format): m for m in found.models}
    assert set(got) == {
        ("Qwen/Qwen3-8B", "huggingface", "safetensors"),
        ("tiny:q8", "ollama", "gguf"),
        ("lmstudio-community/Tiny-GGUF/tiny-F16.gguf", "lmstudio", "gguf"),
    }
    # sizes on disk: the HF snapshot is its two blobs; the Ollama tag every blob its
    # manifest names (model GGUF + template + config); LM Studio the one file
    hf_blobs = stores["hf"] / "models--Qwen--Qwen3-8B" / "blobs"
    assert got[("Qwen/Qwen3-8B", "huggingface", "safetensors")].size_bytes == _blob_sizes(hf_blobs)
    assert got[("tiny:q8", "ollama", "gguf")].size_bytes == _blob_sizes(stores["ollama"] / "blobs")
    gguf = stores["lmstudio"] / "lmstudio-community" / "Tiny-GGUF" / "tiny-F16.gguf"
    lms = got[("lmstudio-community/Tiny-GGUF/tiny-F16.gguf", "lmstudio", "gguf")]
    assert lms.size_bytes == gguf.stat().st_size and lms.path == str(gguf)
    # listed by source, in SOURCES order
    assert [m.source for m in found.models] == ["huggingface", "ollama", "lmstudio"]


def test_the_hf_scan_reads_files_only(stores):
    # issue 22: the cache is read as files (vramdesk.core.local.hf_cache), not through
    # huggingface_hub, which is neither imported nor able to reach the network from here
    import subprocess
    import sys

    code = (
        "import sys; from vramdesk.core.local import discovery; "
        "found = discovery.discover(); "
        "print(len(found.models), 'huggingface_hub' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["3", "False"]


def test_hf_home_is_honoured(tmp_path, monkeypatch):
    ls.point_at(monkeypatch, tmp_path)
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hfhome"))
    ls.build_hf_cache(tmp_path / "hfhome" / "hub")
    assert discovery.hf_cache_dir() == tmp_path / "hfhome" / "hub"
    assert [m.name for m in discovery.discover().models] == ["Qwen/Qwen3-8B"]


def test_imported_exactly_from_headers(stores):
    qwen = discovery.load_named("Qwen/Qwen3-8B").model
    # model.safetensors.index.json metadata.total_size: 8,190,735,360 params x 2 bytes (bf16)
    assert qwen.checkpoint_bytes == 16_381_470_720 and qwen.name == "Qwen/Qwen3-8B"
    assert (qwen.num_hidden_layers, qwen.num_key_value_heads, qwen.head_dim) == (36, 8, 128)
    tiny = discovery.load_named("tiny:q8").model
    # f16 32 x 64 = 4,096 bytes + Q8_0 64 x 64 = 128 blocks x 34 bytes = 4,352 bytes
    assert tiny.checkpoint_bytes == 8_448 == ls.OLLAMA_GGUF_BYTES
    assert tiny.params == 32 * 64 + 64 * 64 and tiny.name == "tiny:q8"
    lms = discovery.load_named("lmstudio-community/Tiny-GGUF/tiny-F16.gguf").model
    # token_embd f16 48 x 64 and five f32 norms of 64 (tests/local_stores.py)
    assert lms.checkpoint_bytes == 48 * 64 * 2 + 5 * 64 * 4 and lms.params == 48 * 64 + 5 * 64


def test_names_paths_and_ollama_latest(stores, tmp_path):
    assert discovery.find_local("QWEN/qwen3-8b").name == "Qwen/Qwen3-8B"  # case-insensitive
    # a path is read directly
    gguf = stores["lmstudio"] / "lmstudio-community" / "Tiny-GGUF" / "tiny-F16.gguf"
    assert discovery.load_named(str(gguf)).model.checkpoint_bytes == 48 * 64 * 2 + 5 * 64 * 4
    # an Ollama name without a tag means :latest, as in Ollama
    latest = stores["ollama"] / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "latest"
    latest.write_bytes(latest.with_name("q8").read_bytes())
    assert discovery.find_local("tiny").name == "tiny:latest"
    with pytest.raises(InputError, match="no local model named 'nothing'"):
        discovery.find_local("nothing")


def test_ollama_tags_of_other_namespaces_and_hosts():
    assert discovery.ollama_tag(["registry.ollama.ai", "library", "qwen3", "8b"]) == "qwen3:8b"
    assert discovery.ollama_tag(["registry.ollama.ai", "me", "m", "q4"]) == "me/m:q4"
    assert discovery.ollama_tag(["hf.co", "bartowski", "m", "Q4_K_M"]) == "hf.co/bartowski/m:Q4_K_M"


def test_a_broken_ollama_manifest_is_a_problem_not_a_crash(stores):
    tags = stores["ollama"] / "manifests" / "registry.ollama.ai" / "library"
    (tags / "broken").mkdir()
    (tags / "broken" / "1b").write_text("{not json")
    good = json.loads((tags / "tiny" / "q8").read_text())
    model_layer = good["layers"][0]
    for tag, digest in (("gone", "sha256:" + "0" * 64), ("odd", "sha256:../../etc/passwd")):
        (tags / tag).mkdir()
        manifest = {**good, "layers": [{**model_layer, "digest": digest}]}
        (tags / tag / "1b").write_text(json.dumps(manifest))
    found = discovery.discover()
    assert [m.name for m in found.models if m.source == "ollama"] == ["tiny:q8"]
    assert len(found.problems) == 3
    assert any("broken/1b" in p and "not valid JSON" in p for p in found.problems)
    assert any("gone/1b" in p and "model blob" in p and "missing" in p for p in found.problems)
    assert any("odd/1b" in p and "unexpected digest" in p for p in found.problems)


def test_split_gguf_listed_once_and_projectors_skipped(tmp_path, monkeypatch):
    folder = tmp_path / "mine" / "pub" / "repo"
    folder.mkdir(parents=True)
    ls.point_at(monkeypatch, tmp_path)
    monkeypatch.setenv("VRAMDESK_MODEL_DIRS", str(tmp_path / "mine"))
    for name in ("m-00001-of-00002.gguf", "m-00002-of-00002.gguf", "mmproj-m-f16.gguf"):
        ls.write_gguf(folder / name, q8=False)
    found = discovery.discover().models
    assert [(m.name, m.source) for m in found] == [("pub/repo/m-00001-of-00002.gguf", "folder")]
    assert found[0].size_bytes == sum(
        (folder / n).stat().st_size for n in ("m-00001-of-00002.gguf", "m-00002-of-00002.gguf")
    )


def test_walks_are_bounded(tmp_path, monkeypatch):
    ls.point_at(monkeypatch, tmp_path)
    deep = tmp_path / "mine" / "a" / "b" / "c" / "d" / "e"
    deep.mkdir(parents=True)
    ls.write_gguf(deep / "too-deep.gguf", q8=False)
    ls.write_gguf(tmp_path / "mine" / "a" / "b" / "ok.gguf", q8=False)
    (tmp_path / "mine" / "loop").symlink_to(tmp_path / "mine")  # a cycle is not followed
    found = discovery.discover([tmp_path / "mine"]).models
    assert [m.name for m in found] == ["a/b/ok.gguf"]
    monkeypatch.setattr(discovery, "MAX_ENTRIES", 3)
    found = discovery.discover([tmp_path / "mine"])
    assert any("stopped after 3 entries" in p for p in found.problems)


def test_empty_machine_says_where_it_looked(tmp_path, monkeypatch):
    ls.point_at(monkeypatch, tmp_path)
    found = discovery.discover()
    assert found.models == ()
    assert discovery.models_text(found).startswith("No local models found.")


def test_hf_repo_of_gguf_files_lists_each_quantization(tmp_path, monkeypatch):
    hub = tmp_path / "hub"
    repo = hub / "models--someone--Tiny-GGUF"
    blobs, snap = repo / "blobs", repo / "snapshots" / ls.COMMIT
    blobs.mkdir(parents=True)
    snap.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(ls.COMMIT)
    for name, q8 in (("tiny-Q8_0.gguf", True), ("tiny-F16.gguf", False)):
        data = ls.write_gguf(tmp_path / name, q8=q8).read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        (blobs / digest).write_bytes(data)
        os.symlink(os.path.join("..", "..", "blobs", digest), snap / name)
    ls.point_at(monkeypatch, tmp_path, hub=hub)
    found = discovery.discover().models
    assert [(m.name, m.format) for m in found] == [
        ("someone/Tiny-GGUF/tiny-F16.gguf", "gguf"),
        ("someone/Tiny-GGUF/tiny-Q8_0.gguf", "gguf"),
    ]
    q8 = discovery.load_named("someone/Tiny-GGUF/tiny-Q8_0.gguf").model
    assert q8.checkpoint_bytes == ls.OLLAMA_GGUF_BYTES  # 4,096 + 4,352 bytes
    assert found[1].size_bytes == (tmp_path / "tiny-Q8_0.gguf").stat().st_size
