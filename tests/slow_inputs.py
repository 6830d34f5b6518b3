"""Slow but bounded inputs of issue 22, built in a folder: split GGUFs, a safetensors header
of many tensors, a Hugging Face cache of many repos, a deep shape.

Shared by the tests (small or refused forms, operation counts) and by
``tests/benchmarks/bench_slow_inputs.py`` (the full sizes, timed).
"""

from __future__ import annotations

import json
import os
import shutil
import struct
from pathlib import Path

from tests import gguf_files as g

#: The shape of issue 22's slow solve: Llama-3-8B widths over 8,192 layers.
DEEP_SHAPE = [
    "--layers", "8192", "--kv-heads", "8", "--head-dim", "128", "--heads", "32",
    "--hidden", "4096", "--intermediate", "14336", "--vocab", "128256", "--params-b", "8",
]  # fmt: skip


def split_gguf(folder: Path, parts: int, *, how: str = "distinct", tokenizer: bool = False) -> Path:
    """A ``parts``-part split GGUF in ``folder``; returns the first part.

    ``how``: ``"distinct"`` (each part its own tensor ``blk.N.w``, as llama.cpp's
    ``gguf-split`` writes them), ``"links"`` (every part a hard link to the first) or
    ``"copies"`` (every part a copy of the first). ``tokenizer``: the first part carries a
    Llama-3-sized tokenizer (8.8 MB of header).
    """
    folder.mkdir(parents=True, exist_ok=True)
    name = lambda i: folder / f"m-{i:05d}-of-{parts:05d}.gguf"  # noqa: E731
    split = [g.kv("split.count", g.U16, parts)]
    kvs = g.llama_kvs(layers=2) + (g.llama3_tokenizer() if tokenizer else []) + split
    name(1).write_bytes(g.gguf(kvs, [g.tensor_info("token_embd.weight", (4096, 1000))]))
    for i in range(2, parts + 1):
        if how == "links":
            os.link(name(1), name(i))
        elif how == "copies":
            shutil.copyfile(name(1), name(i))
        else:
            name(i).write_bytes(g.gguf(split, [g.tensor_info(f"blk.{i}.w", (4096, 4096))]))
    return name(1)


def fat_part(path: Path, parts: int, tensor: str, mib: float) -> None:
    """A later part whose header carries ``mib`` MiB of strings (metadata in the wrong part)."""
    items = ["x" * 1000] * int(mib * 1024 * 1024 / 1008)
    kvs = [g.kv("split.count", g.U16, parts), g.kv("junk", g.ARRAY, (g.STRING, items))]
    path.write_bytes(g.gguf(kvs, [g.tensor_info(tensor, (64, 64))]))


def many_tensors_safetensors(path: Path, tensors: int) -> Path:
    """A ``model.safetensors`` whose header lists ``tensors`` one-element F16 tensors."""
    entries = {
        f"model.layers.{i}.w": {"dtype": "F16", "shape": [1], "data_offsets": [2 * i, 2 * i + 2]}
        for i in range(tensors)
    }
    header = json.dumps(entries, separators=(",", ":")).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * (2 * tensors))
    return path


def hf_cache(hub: Path, repos: int, config: bytes) -> Path:
    """``repos`` Hugging Face cache repos (``models--org--mN``), each with a config.json blob."""
    commit = "0" * 40
    for i in range(repos):
        repo = hub / f"models--org--m{i}"
        snap = repo / "snapshots" / commit
        snap.mkdir(parents=True)
        (repo / "blobs").mkdir()
        (repo / "refs").mkdir()
        (repo / "refs" / "main").write_text(commit)
        (repo / "blobs" / "c0nf1g").write_bytes(config)
        os.symlink(Path("..", "..", "blobs", "c0nf1g"), snap / "config.json")
    return hub
