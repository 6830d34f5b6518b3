"""Fuzz targets and input strategies shared by tests/test_fuzz.py and bench_fuzz.py.

Each target feeds one input to one file reader (or the command line) the way a user
would, and returns ``"ok"`` or ``"refused"`` (a documented, one-line error). Anything else
raises :class:`Finding`: an undocumented exception, a negative byte figure, or a CLI
refusal that is not exactly one line. Inputs are real headers and configs (the reference
data) mutated, plus the hostile shapes of issue 12.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import struct
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from tests import gguf_files as g
from vramdesk.core.errors import InputError

ROOT = Path(__file__).resolve().parent
REFERENCE = ROOT / "data" / "reference"
LOGS = ROOT / "data" / "engine-logs"
ENGINES = ("formula", "llama.cpp", "vllm", "sglang", "transformers", "ollama")


class Finding(AssertionError):
    """What the fuzzers look for: an undocumented exception, negative bytes, a bad refusal."""


# ------------------------------------------------------------------------- mutations
EXTREMES = [0, 1, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**40, 2**62, 2**63 - 1, 2**64 - 1]


@st.composite
def mutated(draw, base: bytes, max_ops: int = 4) -> bytes:
    """``base`` with up to ``max_ops`` byte flips, 32/64-bit extreme writes, cuts or inserts."""
    data = bytearray(base)
    for _ in range(draw(st.integers(0, max_ops))):
        if not data:
            break
        op = draw(st.sampled_from(["flip", "u64", "u32", "cut", "insert", "dup"]))
        pos = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[pos] = draw(st.integers(0, 255))
        elif op in ("u64", "u32"):
            size = 8 if op == "u64" else 4
            value = draw(st.sampled_from(EXTREMES)) % (1 << (8 * size))
            data[pos : pos + size] = value.to_bytes(size, "little")
        elif op == "cut":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        else:
            end = min(len(data), pos + draw(st.integers(1, 64)))
            data[pos:pos] = data[pos:end] * draw(st.integers(1, 4))
    return bytes(data)


ODD_JSON = [
    None,
    True,
    0,
    -1,
    1,
    3,
    2**31,
    2**64,
    10**20,
    1.5,
    -0.0,
    1e308,
    "32",
    "",
    "x" * 300,
    [],
    [1, 2],
    [0] * 50,
    {},
    {"a": 1},
    "1e400",
    "nan",
]
#: Raw JSON texts that Python's json reads into values no float or int conversion survives.
ODD_RAW = ["1e400", "-1e400", "NaN", "Infinity", "9" * 5000, "-" + "9" * 5000, "1e-400"]


@st.composite
def json_mutated(draw, base: dict, keys: list[str] | None = None) -> bytes:
    """``base`` with some keys set to odd values (some as raw text), then maybe byte-mutated."""
    doc = json.loads(json.dumps(base))
    keys = keys or sorted(doc)
    raw: dict[str, str] = {}
    for _ in range(draw(st.integers(1, 4))):
        key = draw(st.sampled_from(keys))
        if draw(st.booleans()):
            doc[key] = draw(st.sampled_from(ODD_JSON))
        else:
            marker = f"@@RAW{len(raw)}@@"
            raw[marker] = draw(st.sampled_from(ODD_RAW))
            doc[key] = marker
    text = json.dumps(doc)
    for marker, value in raw.items():
        text = text.replace(f'"{marker}"', value)
    data = text.encode()
    if draw(st.integers(0, 4)) == 0:
        data = draw(mutated(data, 2))
    return data


# ---------------------------------------------------------------------- base inputs
def _small_tokenizer() -> list[bytes]:
    return [
        g.kv("tokenizer.ggml.model", g.STRING, "gpt2"),
        g.kv("tokenizer.ggml.tokens", g.ARRAY, (g.STRING, [f"t{i}" for i in range(64)])),
        g.kv("tokenizer.ggml.token_type", g.ARRAY, (g.I32, [1] * 64)),
    ]


def gguf_bases() -> list[bytes]:
    """Real-shaped headers: Llama 3 8B (2 layers), Gemma 2 (sliding), DeepSeek-V2 (MLA)."""
    llama = g.gguf(g.llama_kvs() + _small_tokenizer(), g.llama3_tensors(layers=2, vocab=64))
    gemma = g.gguf(
        g.llama_kvs("gemma2", layers=26)
        + [
            g.kv("gemma2.attention.sliding_window", g.U32, 4096),
            g.kv("gemma2.attention.key_length", g.U32, 256),
        ],
        [
            g.tensor_info("token_embd.weight", (2304, 64)),
            g.tensor_info("blk.0.attn_q.weight", (2304, 2048), 8),
        ],
    )
    deepseek = g.gguf(
        g.llama_kvs("deepseek2", layers=27)[:7]
        + [
            g.kv("general.file_type", g.U32, 1),
            g.kv("deepseek2.attention.kv_lora_rank", g.U32, 512),
            g.kv("deepseek2.rope.dimension_count", g.U32, 64),
            g.kv("deepseek2.attention.key_length_mla", g.U32, 192),
            g.kv("deepseek2.attention.value_length_mla", g.U32, 128),
            g.kv("deepseek2.expert_count", g.U32, 64),
            g.kv("deepseek2.expert_used_count", g.U32, 6),
            g.kv("deepseek2.attention.head_count_kv", g.ARRAY, (g.U32, [16] * 27)),
        ],
        [
            g.tensor_info("token_embd.weight", (4096, 64), 12),
            g.tensor_info("blk.0.attn_kv_a_mqa.weight", (4096, 4096), 12),
        ],
    )
    hybrid = g.gguf(
        g.llama_kvs("nemotron_h", layers=4)[:7]
        + [
            g.kv("nemotron_h.attention.head_count_kv", g.ARRAY, (g.U32, [0, 8, 0, 0])),
            g.kv("nemotron_h.ssm.conv_kernel", g.U32, 4),
            g.kv("nemotron_h.ssm.inner_size", g.U32, 8192),
            g.kv("nemotron_h.ssm.state_size", g.U32, 128),
            g.kv("nemotron_h.ssm.group_count", g.U32, 8),
            g.kv("general.file_type", g.U32, 1),
        ],
        [g.tensor_info("token_embd.weight", (4096, 64))],
    )
    return [llama, gemma, deepseek, hybrid]


KEYS = [
    "general.architecture",
    "llama.block_count",
    "llama.embedding_length",
    "llama.attention.head_count",
    "llama.attention.head_count_kv",
    "llama.attention.key_length",
    "llama.attention.sliding_window",
    "llama.attention.sliding_window_pattern",
    "llama.attention.kv_lora_rank",
    "llama.expert_count",
    "llama.vocab_size",
    "general.file_type",
    "split.count",
    "tokenizer.ggml.tokens",
]


@st.composite
def gguf_hostile(draw) -> bytes:
    """Headers built from scratch: real keys, any value type, extreme values and counts."""
    kvs = [g.kv("general.architecture", g.STRING, draw(st.sampled_from(["llama", "gemma2", "x"])))]
    for _ in range(draw(st.integers(0, 8))):
        key = draw(st.sampled_from(KEYS))
        vtype = draw(
            st.sampled_from([g.U8, g.I32, g.U32, g.U64, g.I64, g.F32, g.BOOL, g.STRING, g.ARRAY])
        )
        if vtype == g.STRING:
            kvs.append(g.kv(key, vtype, draw(st.sampled_from(["32", "", "llama", "x" * 5000]))))
        elif vtype == g.ARRAY:
            etype = draw(st.sampled_from([g.U32, g.I32, g.BOOL, g.STRING]))
            n = draw(st.integers(0, 40))
            items = ["a"] * n if etype == g.STRING else [draw(st.integers(0, 1))] * n
            kvs.append(g.kv(key, vtype, (etype, items)))
        elif vtype == g.F32:
            kvs.append(g.kv(key, vtype, draw(st.floats(width=32, allow_nan=True))))
        elif vtype == g.BOOL:
            kvs.append(g.kv(key, vtype, draw(st.booleans())))
        else:
            bits = {g.U8: 8, g.I32: 31, g.U32: 32, g.U64: 64, g.I64: 63}[vtype]
            low = -(2**bits) if vtype in (g.I32, g.I64) else 0
            kvs.append(g.kv(key, vtype, draw(st.integers(low, 2**bits - 1))))
    tensors = [
        g.tensor_info(
            f"t{i}",
            tuple(draw(st.lists(st.sampled_from([0, 1, 32, 256, 4096, 2**31, 2**40]), max_size=4))),
            draw(st.sampled_from([0, 1, 2, 8, 12, 30, 39, 99])),
        )
        for i in range(draw(st.integers(0, 4)))
    ]
    n_kv = draw(st.sampled_from([None, None, None, 0, 2**20, 2**63]))
    n_t = draw(st.sampled_from([None, None, None, 2**17, 2**63]))
    return g.gguf(kvs, tensors, n_kv=n_kv, n_tensors=n_t)


def safetensors_base() -> dict:
    h = {
        "__metadata__": {"format": "pt"},
        "model.embed_tokens.weight": {
            "dtype": "BF16",
            "shape": [128256, 4096],
            "data_offsets": [0, 1050673152],
        },
        "model.layers.0.self_attn.q_proj.weight": {
            "dtype": "BF16",
            "shape": [4096, 4096],
            "data_offsets": [1050673152, 1084227584],
        },
        "model.layers.0.self_attn.k_proj.weight": {
            "dtype": "BF16",
            "shape": [1024, 4096],
            "data_offsets": [1084227584, 1092616192],
        },
        "model.layers.0.mlp.up_proj.weight": {
            "dtype": "BF16",
            "shape": [14336, 4096],
            "data_offsets": [1092616192, 1210056704],
        },
    }
    return h


def config_bases() -> list[dict]:
    names = [
        "llama-3.1-8b",
        "gemma-2-2b",
        "qwen3-30b-a3b",
        "deepseek-v3",
        "gpt-oss-120b",
        "falcon-7b",
    ]
    return [json.loads((REFERENCE / "models" / n / "config.json").read_text()) for n in names]


CONFIG_KEYS = [
    "num_hidden_layers",
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "intermediate_size",
    "vocab_size",
    "max_position_embeddings",
    "sliding_window",
    "layer_types",
    "num_local_experts",
    "num_experts",
    "n_routed_experts",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "first_k_dense_replace",
    "quantization_config",
    "torch_dtype",
    "text_config",
    "tie_word_embeddings",
    "sliding_window_pattern",
]


# --------------------------------------------------------------------------- checks
#: Signed margins by design ("headroom -2 GiB" = 2 GiB short): not byte figures.
SIGNED = ("usable_bytes", "kv_budget_bytes", "headroom_bytes", "margin_bytes")


def _no_negative(doc, where: str = "$") -> None:
    if where.endswith(SIGNED):
        return
    if isinstance(doc, dict):
        for k, v in doc.items():
            _no_negative(v, f"{where}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            _no_negative(v, f"{where}[{i}]")
    elif isinstance(doc, int | float) and not isinstance(doc, bool):
        if ("bytes" in where or where.endswith("params")) and doc < 0:
            raise Finding(f"negative figure {doc} at {where}")


def check_estimates(imported) -> None:
    """Every engine's estimate of an imported model: refused in one line, or no negative part."""
    from vramdesk.core.estimate import estimate
    from vramdesk.core.model.runtime import Engine, Runtime
    from vramdesk.core.model.workload import Workload

    for engine in ENGINES:
        try:
            b = estimate(
                imported.model,
                imported.weights,
                Workload(context_tokens=1),
                Runtime(engine=Engine.parse(engine, "engine")),
            )
        except InputError:
            continue
        for part in b.parts:
            if part.bytes < 0:
                raise Finding(f"{engine}: negative {part.key} {part.bytes}")
        if b.total_bytes < 0:
            raise Finding(f"{engine}: negative total {b.total_bytes}")


def _load(path: Path) -> str:
    from vramdesk.core.local.importers import load_model

    try:
        imported = load_model(path)
    except InputError:
        return "refused"
    except Exception as exc:  # noqa: BLE001 - the finding
        raise Finding(f"{type(exc).__name__}: {exc}"[:300]) from exc
    check_estimates(imported)
    return "ok"


@contextlib.contextmanager
def _tmp():
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


def read_gguf(data: bytes) -> str:
    with _tmp() as d:
        (d / "m.gguf").write_bytes(data)
        return _load(d / "m.gguf")


def read_safetensors(data: bytes, length_delta: int = 0) -> str:
    with _tmp() as d:
        path = d / "m.safetensors"
        path.write_bytes(struct.pack("<Q", max(0, len(data) + length_delta)) + data + b"\0" * 8)
        return _load(path)


def read_config(data: bytes) -> str:
    with _tmp() as d:
        (d / "config.json").write_bytes(data)
        return _load(d / "config.json")


def read_index(data: bytes) -> str:
    with _tmp() as d:
        (d / "config.json").write_text((REFERENCE / "models/llama-3.1-8b/config.json").read_text())
        (d / "model.safetensors.index.json").write_bytes(data)
        return _load(d)


def read_preset(data: bytes) -> str:
    """The store must never raise while reading: a bad file is set aside and reported."""
    from vramdesk.core.store.presets import PresetStore

    with _tmp() as d:
        (d / "p.json").write_bytes(data)
        try:
            store = PresetStore(d)
            found = store.list()
        except Exception as exc:  # noqa: BLE001 - the finding
            raise Finding(f"{type(exc).__name__}: {exc}"[:300]) from exc
        if found:
            from vramdesk.core.store.presets import scenario_parts

            try:
                scenario_parts(found[0])
            except Exception as exc:  # noqa: BLE001 - a listed preset must load
                raise Finding(f"listed but not loadable: {type(exc).__name__}: {exc}") from exc
            return "ok"
        return "refused"


def read_fake_nvml(data: bytes) -> str:
    from vramdesk.core.local.gpu_info import FAKE_ENV, GpuQueryError
    from vramdesk.core.local.nvml import query_gpus

    with _tmp() as d:
        (d / "gpus.json").write_bytes(data)
        old = os.environ.get(FAKE_ENV)
        os.environ[FAKE_ENV] = str(d / "gpus.json")
        try:
            snapshot = query_gpus(timeout_s=10)
        except GpuQueryError:
            return "refused"
        except Exception as exc:  # noqa: BLE001 - the finding
            raise Finding(f"{type(exc).__name__}: {exc}"[:300]) from exc
        finally:
            if old is None:
                os.environ.pop(FAKE_ENV, None)
            else:
                os.environ[FAKE_ENV] = old
        for gpu in snapshot.gpus:
            if min(gpu.total_bytes, gpu.free_bytes, gpu.used_bytes) < 0:
                raise Finding(f"negative GPU figure {gpu}")
        return "ok"


def read_log(data: bytes) -> str:
    from vramdesk.core.calibrate.logparse import read_log as parse

    with _tmp() as d:
        (d / "engine.log").write_bytes(data)
        try:
            parse(d / "engine.log")
        except InputError:
            return "refused"
        except Exception as exc:  # noqa: BLE001 - the finding
            raise Finding(f"{type(exc).__name__}: {exc}"[:300]) from exc
        return "ok"


def run_cli(argv: list[str], files: dict[str, bytes] | None = None) -> str:
    """``vramdesk argv``: exit 0 (no negative figure in --json), 1, or 2 with one line."""
    from vramdesk.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _tmp() as d:
        argv = [a.replace("@DIR@", str(d)) for a in argv]
        for name, data in (files or {}).items():
            (d / name).write_bytes(data)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(argv)
        except Exception as exc:  # noqa: BLE001 - the finding
            raise Finding(f"{argv}: {type(exc).__name__}: {exc}"[:300]) from exc
    lines = [x for x in err.getvalue().splitlines() if not x.startswith("vramdesk: warning")]
    if rc == 2:
        if len(lines) != 1:
            raise Finding(f"{argv}: exit 2 with {len(lines)} lines: {err.getvalue()[:300]}")
        return "refused"
    if rc not in (0, 1):
        raise Finding(f"{argv}: exit {rc}")
    if rc == 0 and "--json" in argv:
        try:
            _no_negative(json.loads(out.getvalue()))
        except Finding as exc:
            raise Finding(f"{exc} for {argv}") from None
    return "ok" if rc == 0 else "refused"


NUMBERS = [
    "0",
    "1",
    "-1",
    "2",
    "7",
    "32",
    "4096",
    "131072",
    "2147483648",
    "1e400",
    "-1e400",
    "1e9999999",
    "nan",
    "inf",
    "0.5",
    "1.15",
    "0.9",
    "9" * 5000,
    "abc",
    "",
    "1/0",
    "1_000",
    "1,024",
]
PRESETS = [
    "llama-3.1-8b",
    "llama-3.1-405b",
    "qwen2.5-0.5b",
    "deepseek-v3",
    "gpt-oss-120b",
    "gemma-2-2b",
]
OPTIONS = {
    "--context": NUMBERS,
    "--batch": NUMBERS,
    "--prompt-len": NUMBERS,
    "--params-b": NUMBERS,
    "--layers": NUMBERS,
    "--kv-heads": NUMBERS,
    "--head-dim": NUMBERS,
    "--tp": ["1", "2", "3", "8", "0", "-1", "1024", "99999"],
    "--pp": ["1", "2", "0", "1000"],
    "--overhead-factor": NUMBERS,
    "--fixed-gib": NUMBERS,
    "--workspace-fraction": NUMBERS,
    "--util": NUMBERS,
    "--engine": list(ENGINES) + ["tgi", ""],
    "--kv-dtype": ["fp16", "fp8", "q8_0", "q4_0", "int3"],
    "--weights": ["fp16", "q4_k_m", "awq", "int3", "mxfp4"],
    "--block-size": ["16", "0", "none", "7", "1048577"],
    "--shared-prefix": NUMBERS,
    "--chunk": NUMBERS,
}


@st.composite
def cli_argv(draw, commands: tuple[str, ...] = ("estimate",)) -> list[str]:
    """One of ``commands`` with a preset and 0-6 options from the hostile values."""
    command = draw(st.sampled_from(commands))
    argv = [command, "--preset", draw(st.sampled_from(PRESETS))]
    if "--context" not in argv:
        argv += ["--context", draw(st.sampled_from(["1", "4096", "32768"] + NUMBERS[:12]))]
    for option in draw(st.lists(st.sampled_from(sorted(OPTIONS)), max_size=6, unique=True)):
        if option == "--context":
            continue
        argv.append(f"{option}={draw(st.sampled_from(OPTIONS[option]))}")
    if command == "solve":
        argv += ["--vram-gib", draw(st.sampled_from(["24", "80", "0.001", "1e400", "1048576"]))]
    if draw(st.booleans()):
        argv.append("--json")
    return argv
