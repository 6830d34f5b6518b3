"""Fake model stores with the real on-disk layouts, for the discovery tests.

* A Hugging Face hub cache (``models--Qwen--Qwen3-8B/{blobs,refs,snapshots}``): the
  snapshot's files are relative symlinks into ``blobs/``, ``refs/main`` names the commit,
  exactly as ``huggingface_hub`` writes it. The config is the real Qwen3-8B config.json
  from the reference data; the weight index states the real bf16 byte size
  (8,190,735,360 parameters x 2 bytes), so no multi-GiB file is needed.
* An Ollama store: ``manifests/registry.ollama.ai/library/tiny/q8`` is a v2 manifest whose
  ``application/vnd.ollama.image.model`` layer is ``blobs/sha256-<digest>``, a small GGUF
  written with ``gguf.GGUFWriter``.
* An LM Studio folder ``publisher/repo/file.gguf``.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from pathlib import Path

import numpy as np

REFERENCE = Path(__file__).resolve().parent / "data" / "reference"
QWEN3_8B_PARAMS = 8_190_735_360  # models.json true_total_params (= hf_safetensors_total)
QWEN3_8B_BYTES = 2 * QWEN3_8B_PARAMS  # bf16: 2 bytes per parameter
COMMIT = "0123456789abcdef0123456789abcdef01234567"

# The Ollama GGUF: token_embd f16 32 x 64 = 4,096 bytes; blk.0.attn_q Q8_0 64 x 64 =
# 4,096 elements / 32 per block = 128 blocks x 34 bytes = 4,352 bytes.
OLLAMA_GGUF_BYTES = 32 * 64 * 2 + (64 * 64 // 32) * 34
OLLAMA_GGUF_PARAMS = 32 * 64 + 64 * 64
# The LM Studio GGUF: token_embd f16 48 x 64 = 6,144 bytes + 5 f32 norms of 64 = 1,280 bytes.
LMSTUDIO_GGUF_BYTES = 48 * 64 * 2 + 5 * 64 * 4


def write_gguf(path: Path, *, q8: bool, rows: int = 32, layers: int = 2) -> Path:
    """A tiny llama GGUF: 64 wide, 4 heads, 2 KV heads, ``rows`` vocabulary rows."""
    import gguf
    from gguf.quants import quantize

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(layers)
    w.add_embedding_length(64)
    w.add_head_count(4)
    w.add_head_count_kv(2)
    w.add_feed_forward_length(128)
    w.add_context_length(256)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0 if q8 else gguf.LlamaFileType.MOSTLY_F16)
    w.add_tensor("token_embd.weight", np.zeros((rows, 64), dtype=np.float16))
    if q8:
        q = quantize(np.ones((64, 64), dtype=np.float32), gguf.GGMLQuantizationType.Q8_0)
        w.add_tensor("blk.0.attn_q.weight", q, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    else:
        # the norms (2 per layer and a final one, f32): without them the tensor table holds
        # fewer parameters than the header's own shape needs, which the import refuses
        for i in range(layers):
            for norm in ("attn_norm", "ffn_norm"):
                w.add_tensor(f"blk.{i}.{norm}.weight", np.ones(64, dtype=np.float32))
        w.add_tensor("output_norm.weight", np.ones(64, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def _blob(blobs: Path, data: bytes) -> str:
    digest = hashlib.sha256(data).hexdigest()
    (blobs / digest).write_bytes(data)
    return digest


def build_hf_cache(hub: Path) -> Path:
    """``hub/models--Qwen--Qwen3-8B`` with a snapshot of config.json and the weight index."""
    repo = hub / "models--Qwen--Qwen3-8B"
    blobs, snap = repo / "blobs", repo / "snapshots" / COMMIT
    for d in (blobs, snap, repo / "refs"):
        d.mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(COMMIT)
    config = (REFERENCE / "models" / "qwen3-8b" / "config.json").read_bytes()
    index = json.dumps(
        {
            "metadata": {"total_size": QWEN3_8B_BYTES},
            "weight_map": {"model.embed_tokens.weight": "model-00001-of-00005.safetensors"},
        }
    ).encode()
    for name, data in (("config.json", config), ("model.safetensors.index.json", index)):
        digest = _blob(blobs, data)
        os.symlink(Path("..", "..", "blobs", digest), snap / name)
    return hub


def build_ollama_store(root: Path) -> Path:
    """``root/{manifests,blobs}`` with the tag ``tiny:q8`` (and a template layer)."""
    blobs = root / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    tmp = write_gguf(root / "model.tmp", q8=True)
    data = tmp.read_bytes()
    tmp.unlink()
    model_digest = hashlib.sha256(data).hexdigest()
    (blobs / f"sha256-{model_digest}").write_bytes(data)
    template = b"{{ .Prompt }}"
    template_digest = hashlib.sha256(template).hexdigest()
    (blobs / f"sha256-{template_digest}").write_bytes(template)
    config = b'{"model_format":"gguf","model_family":"llama"}'
    config_digest = hashlib.sha256(config).hexdigest()
    (blobs / f"sha256-{config_digest}").write_bytes(config)
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {
            "mediaType": "application/vnd.docker.container.image.v1+json",
            "digest": f"sha256:{config_digest}",
            "size": len(config),
        },
        "layers": [
            {
                "mediaType": "application/vnd.ollama.image.model",
                "digest": f"sha256:{model_digest}",
                "size": len(data),
            },
            {
                "mediaType": "application/vnd.ollama.image.template",
                "digest": f"sha256:{template_digest}",
                "size": len(template),
            },
        ],
    }
    tag = root / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "q8"
    tag.parent.mkdir(parents=True, exist_ok=True)
    tag.write_text(json.dumps(manifest))
    return root


def build_lmstudio(root: Path) -> Path:
    """``root/lmstudio-community/Tiny-GGUF/tiny-F16.gguf``."""
    folder = root / "lmstudio-community" / "Tiny-GGUF"
    folder.mkdir(parents=True, exist_ok=True)
    write_gguf(folder / "tiny-F16.gguf", q8=False, rows=48)
    return root


def build_all(base: Path, monkeypatch) -> dict[str, Path]:
    """Every fake store under ``base``, the environment pointed at them (and only them)."""
    paths = {
        "hf": build_hf_cache(base / "hf" / "hub"),
        "ollama": build_ollama_store(base / "ollama"),
        "lmstudio": build_lmstudio(base / "lmstudio"),
    }
    point_at(monkeypatch, base, hub=paths["hf"], ollama=paths["ollama"], lms=paths["lmstudio"])
    return paths


def point_at(monkeypatch, base: Path, *, hub=None, ollama=None, lms=None) -> None:
    """Point every store variable into ``base`` (missing folders: empty stores)."""
    monkeypatch.setenv("HF_HUB_CACHE", str(hub or base / "no-hf"))
    monkeypatch.setenv("OLLAMA_MODELS", str(ollama or base / "no-ollama"))
    monkeypatch.setenv("VRAMDESK_LMSTUDIO_MODELS", str(lms or base / "no-lmstudio"))
    monkeypatch.setenv("LLAMA_CACHE", str(base / "no-llama.cpp"))
    monkeypatch.setenv("VRAMDESK_MODEL_DIRS", "")


def no_network(monkeypatch) -> list[tuple]:
    """Make every socket creation and DNS lookup raise; returns the attempts made."""
    attempts: list[tuple] = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts
