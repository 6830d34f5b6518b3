"""Build GGUF files byte by byte, from the format description alone.

Independent of the reader under test: the layout is GGUF v3 as documented in llama.cpp
``docs/gguf.md`` (magic, version, tensor count, KV count, KVs, tensor infos, alignment
padding, data). Value types are ``GGUFValueType``: 0 u8, 1 i8, 2 u16, 3 i16, 4 u32,
5 i32, 6 f32, 7 bool, 8 string, 9 array, 10 u64, 11 i64, 12 f64.
"""

from __future__ import annotations

import struct

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
_CODES = {U8: "B", I8: "b", U16: "H", I16: "h", U32: "I", I32: "i", F32: "f", BOOL: "?"}
_CODES |= {U64: "Q", I64: "q", F64: "d"}


def gstr(text: str | bytes) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(data)) + data


def value(vtype: int, v) -> bytes:
    if vtype == STRING:
        return gstr(v)
    if vtype == ARRAY:
        etype, items = v
        head = struct.pack("<IQ", etype, len(items))
        if etype == STRING:
            return head + b"".join(gstr(i) for i in items)
        return head + struct.pack(f"<{len(items)}{_CODES[etype]}", *items)
    return struct.pack("<" + _CODES[vtype], v)


def kv(key: str, vtype: int, v) -> bytes:
    return gstr(key) + struct.pack("<I", vtype) + value(vtype, v)


def tensor_info(name: str, dims: tuple[int, ...], ggml_type: int = 1, offset: int = 0) -> bytes:
    return (
        gstr(name)
        + struct.pack("<I", len(dims))
        + struct.pack(f"<{len(dims)}Q", *dims)
        + struct.pack("<IQ", ggml_type, offset)
    )


def gguf(kvs: list[bytes], tensors: list[bytes] = (), *, n_kv=None, n_tensors=None) -> bytes:
    """A GGUF v3 header; ``n_kv``/``n_tensors`` override the stated counts (hostile files)."""
    n_kv = len(kvs) if n_kv is None else n_kv
    n_tensors = len(tensors) if n_tensors is None else n_tensors
    return b"GGUF" + struct.pack("<IQQ", 3, n_tensors, n_kv) + b"".join(kvs) + b"".join(tensors)


def llama_kvs(arch: str = "llama", layers: int = 32, **extra) -> list[bytes]:
    """The shape keys of Llama 3.1 8B (``config.json``: 32 layers, 4096 hidden, 32/8 heads)."""
    kvs = [
        kv("general.architecture", STRING, arch),
        kv("general.name", STRING, "Test"),
        kv(f"{arch}.block_count", U32, layers),
        kv(f"{arch}.context_length", U32, 131072),
        kv(f"{arch}.embedding_length", U32, 4096),
        kv(f"{arch}.feed_forward_length", U32, 14336),
        kv(f"{arch}.attention.head_count", U32, 32),
        kv(f"{arch}.attention.head_count_kv", U32, 8),
        kv("general.file_type", U32, 1),
    ]
    return kvs + [kv(k, t, v) for k, (t, v) in extra.items()]


def llama3_tokenizer(vocab: int = 128_256, merges: int = 280_147) -> list[bytes]:
    """Tokenizer keys the size of Llama 3's: 128,256 tokens, 280,147 merges, token types."""
    tokens = [f"tok{i}" for i in range(vocab)]
    merge = [f"a{i} b{i}" for i in range(merges)]
    return [
        kv("tokenizer.ggml.model", STRING, "gpt2"),
        kv("tokenizer.ggml.pre", STRING, "llama-bpe"),
        kv("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
        kv("tokenizer.ggml.token_type", ARRAY, (I32, [1] * vocab)),
        kv("tokenizer.ggml.merges", ARRAY, (STRING, merge)),
        kv("tokenizer.ggml.bos_token_id", U32, 128000),
        kv("tokenizer.chat_template", STRING, "{% for m in messages %}{{ m }}{% endfor %}" * 100),
    ]


def llama3_tensors(layers: int = 32, vocab: int = 128_256) -> list[bytes]:
    """The 291 tensors of Llama 3.1 8B as F16 (ggml dims order: columns first)."""
    h, kvd, ff = 4096, 1024, 14336
    out = [tensor_info("token_embd.weight", (h, vocab)), tensor_info("output.weight", (h, vocab))]
    out.append(tensor_info("output_norm.weight", (h,), 0))
    for i in range(layers):
        for name, dims in (
            ("attn_q", (h, h)),
            ("attn_k", (h, kvd)),
            ("attn_v", (h, kvd)),
            ("attn_output", (h, h)),
            ("ffn_gate", (h, ff)),
            ("ffn_up", (h, ff)),
            ("ffn_down", (ff, h)),
        ):
            out.append(tensor_info(f"blk.{i}.{name}.weight", dims))
        out.append(tensor_info(f"blk.{i}.attn_norm.weight", (h,), 0))
        out.append(tensor_info(f"blk.{i}.ffn_norm.weight", (h,), 0))
    return out
