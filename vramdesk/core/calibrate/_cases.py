"""Reading engine-case records ("vramdesk-engine-case/1") and turning them into inputs.

The private half of :mod:`vramdesk.core.calibrate.validate`: the file is untrusted, so its size,
line length and number of cases are capped, and each error names the file and line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.estimate import validate_inputs
from vramdesk.core.files import NumberTooLongError, loads_json, read_prefix
from vramdesk.core.model.formats import KVDtype, WeightFormat, WeightSpec
from vramdesk.core.model.runtime import (
    DEFAULT_BLOCK_SIZE,
    Engine,
    MlaCache,
    Runtime,
    engine_options,
)
from vramdesk.core.model.spec import ModelSpec, sliding_layer_pattern
from vramdesk.core.model.workload import Workload
from vramdesk.core.units import MIB, ceil_div, to_fraction

SCHEMA = "vramdesk-engine-case/1"
MAX_FILE_BYTES = 16 * MIB
MAX_LINE_CHARS = 256 * 1024
MAX_CASES = 10_000
#: Reported fields a predictor may take as runtime inputs, and the Runtime field each fills.
GIVEN_RUNTIME = {
    "activation_peak_bytes": "activation_peak_bytes",
    "non_torch_bytes": "non_torch_bytes",
    "cuda_graph_bytes": "cuda_graph_bytes",
    "peak_bytes": "profiled_peak_bytes",
    "weights_bytes": "loaded_weights_bytes",
    "compute_buffer_bytes": "compute_buffer_bytes",
}
#: Reported KV figures a predictor may build on: each feeds every figure derived from it,
#: in any direction (bytes -> blocks -> tokens -> concurrency, and back).
GIVEN_COUNTS = ("kv_cache_tokens", "num_gpu_blocks", "kv_cache_bytes")
#: Sizes and totals that must be positive integers when present (not null).
_POSITIVE_INTS = ("params", "gpu.count", "gpu.total_bytes_per_gpu", "weights.file_bytes")
_MODEL_ALIASES = {"n_routed_experts": "num_local_experts", "num_experts": "num_local_experts"}
_MODEL_IGNORED = {"rope_dim", "partial_rotary_factor", "sliding_window_pattern"}


@dataclass(frozen=True)
class CaseInputs:
    """One case turned into prediction inputs."""

    model: ModelSpec
    weights: WeightSpec | None
    workload: Workload
    runtime: Runtime
    gpu_total_bytes: int | None
    counts: dict[str, int] = field(default_factory=dict)


# ------------------------------------------------------------------------ reading
def read_cases(path: str | Path) -> list[dict[str, Any]]:
    """Read a cases file: one JSON object per non-blank line, schema checked.

    Raises
    ------
    InputError
        Field ``cases``: missing, too large or not UTF-8; field ``<file>:<line>``: a line that
        is too long, not JSON, not an object, of another schema, or a duplicate ``id``.
    """
    p = Path(path)
    raw = read_prefix(p, MAX_FILE_BYTES, "cases")
    if len(raw) > MAX_FILE_BYTES:
        raise InputError("cases", f"{p} is larger than {MAX_FILE_BYTES // MIB} MiB", "too_large")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("cases", f"{p} is not UTF-8 text", "not_text") from None
    return parse_cases(text, p.name)


def parse_cases(text: str, name: str = "cases") -> list[dict[str, Any]]:
    """Parse the text of a cases file (see :func:`read_cases`)."""
    records, ids = [], set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        record = _parse_line(line, where)
        if record["id"] in ids:
            raise InputError(where, f"duplicate id {record['id']!r}", "duplicate")
        ids.add(record["id"])
        records.append(record)
        if len(records) > MAX_CASES:
            raise InputError(where, f"more than {MAX_CASES} cases", "too_large")
    if not records:
        raise InputError("cases", f"{name} holds no cases", "empty")
    return records


def _parse_line(line: str, where: str) -> dict[str, Any]:
    if len(line) > MAX_LINE_CHARS:
        raise InputError(where, f"line longer than {MAX_LINE_CHARS} characters", "too_long")

    try:
        record = loads_json(line)
    except NumberTooLongError as exc:
        raise InputError(where, f"holds {exc}", "too_long") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(
            where, f"not valid JSON ({getattr(exc, 'msg', 'too deeply nested')})", "not_json"
        ) from None
    except ValueError:  # json's own number conversion, should the hooks not be reached
        raise InputError(where, "holds a number too long to read", "not_json") from None
    if not isinstance(record, dict):
        raise InputError(where, "must be a JSON object", "not_object")
    if record.get("schema") != SCHEMA:
        raise InputError(
            where, f"schema must be {SCHEMA!r}, got {record.get('schema')!r}", "schema"
        )
    for key, kind in (
        ("id", str),
        ("engine", str),
        ("model", dict),
        ("weights", dict),
        ("runtime", dict),
        ("gpu", dict),
        ("reported", dict),
        ("given", list),
        ("check", dict),
    ):
        if not isinstance(record.get(key), kind):
            raise InputError(where, f"{key} must be a {kind.__name__}", "invalid")
    for key in ("engine_version", "engine_variant", "model_id"):
        if record.get(key) is not None and not isinstance(record[key], str):
            raise InputError(where, f"{key} must be text or null, got {record[key]!r}", "invalid")
    check_numbers(record, where)
    return record


def _numbers(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Yield ``(dotted path, number)`` for every number nested in ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _numbers(item, f"{path}[{i}]")
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield path, value


def check_numbers(record: dict[str, Any], where: str) -> None:
    """Check every number of a case: finite; sizes and totals positive; tolerances >= 0.

    Python's ``json`` reads ``NaN``, ``Infinity`` and ``1e999``; they would propagate into
    the report (and make ``--json`` invalid), so they are refused here.

    Raises
    ------
    InputError
        Field ``<file>:<line>: <dotted path>``, e.g. ``cases.jsonl:3: gpu.total_bytes_per_gpu``
        with "must be positive, got -1".
    """
    for path, value in _numbers(record, ""):
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"{where}: {path}", f"must be finite, got {value}", "not_finite")
    for path in _POSITIVE_INTS:
        head, _, tail = path.partition(".")
        value = record.get(head) if not tail else record[head].get(tail)
        if value is not None and (not _is_int(value) or value <= 0):
            raise InputError(
                f"{where}: {path}", f"must be a positive integer, got {value!r}", "not_positive"
            )
    for name, check in record["check"].items():
        tol = check.get("tolerance_rel") if isinstance(check, dict) else None
        if not isinstance(check, dict) or (tol is not None and not _non_negative(tol)):
            got = tol if isinstance(check, dict) else check
            raise InputError(
                f"{where}: check.{name}.tolerance_rel",
                f"must be a number >= 0, got {got!r}",
                "invalid",
            )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _non_negative(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


# ------------------------------------------------------------------------ inputs
def model_from_case(model: dict[str, Any], params: int | None) -> ModelSpec:
    """Build a :class:`ModelSpec` from a case's ``model`` object (config.json names).

    Raises
    ------
    InputError
        An unknown key, or a value of the wrong type (via :meth:`ModelSpec.validate`).
    """
    fields = set(ModelSpec.__dataclass_fields__)
    kwargs: dict[str, Any] = {"params": params}
    for key, value in model.items():
        key = _MODEL_ALIASES.get(key, key)
        if key in _MODEL_IGNORED:
            continue
        if key not in fields:
            raise InputError(key, "is not a model field vramdesk knows", "unknown_key")
        kwargs[key] = tuple(value) if key == "layer_types" and isinstance(value, list) else value
    if "num_key_value_heads" not in kwargs and model.get("kv_lora_rank"):
        kwargs["num_key_value_heads"] = model.get("num_attention_heads") or 1
    pattern = model.get("sliding_window_pattern")
    if isinstance(pattern, int) and pattern > 1 and "layer_types" not in kwargs:
        kwargs["layer_types"] = sliding_layer_pattern(
            model["num_hidden_layers"], f"{pattern - 1}:1"
        )
    return ModelSpec(**kwargs)


def weights_from_case(fmt: str) -> WeightSpec | None:
    """Map ``weights.format`` to a :class:`WeightSpec`; ``None`` when it has no exact size.

    ``w8a8-int8`` / ``int8`` / ``fp8``: per-channel 8-bit (vLLM's accounting); ``bnb-int8`` and
    ``bnb-nf4`` keep 16-bit embeddings; ``mxfp4`` quantizes the experts only; ``gguf:MXFP4_MOE``
    is llama.cpp's file type of that name (experts MXFP4, the other tensors Q8_0).
    """
    key = str(fmt).strip().lower()
    if key in ("bnb-int8", "bnb-nf4"):
        return WeightSpec(WeightFormat.parse(key), embeddings_unquantized=True)
    try:
        return WeightSpec(WeightFormat.parse(key))
    except InputError:
        return None


def _kv_dtype(runtime: dict[str, Any]) -> KVDtype:
    text = runtime.get("kv_cache_dtype") or runtime.get("cache_type_k") or "fp16"
    return KVDtype.parse(text, "kv_cache_dtype")


def workload_from_case(runtime: dict[str, Any]) -> Workload:
    """Context per sequence (``max_model_len`` or ``n_ctx / n_parallel``) and slots."""
    slots = int(runtime.get("n_parallel") or 1)
    if runtime.get("max_model_len"):
        context = int(runtime["max_model_len"])
    elif runtime.get("n_ctx"):
        context = ceil_div(int(runtime["n_ctx"]), slots)
    else:
        context = Workload().context_tokens
    return Workload(context_tokens=context, batch=slots, kv_dtype=_kv_dtype(runtime))


def runtime_from_case(record: dict[str, Any], given: dict[str, int]) -> Runtime:
    """Build a :class:`Runtime` from a case's engine, runtime keys and given figures."""
    # on first use: an engine's module loads only when that engine is chosen
    from vramdesk.core.engines.vllm.version import default_gpu_memory_utilization

    rt, engine = record["runtime"], Engine.parse(record["engine"])
    util = rt.get("gpu_memory_utilization")
    has = set(engine_options(engine))
    kwargs: dict[str, Any] = {
        "engine": engine,
        "engine_version": record.get("engine_version"),
        "tensor_parallel_size": int(rt.get("tensor_parallel_size") or 1),
        "pipeline_parallel_size": int(rt.get("pipeline_parallel_size") or 1),
        "mla_cache": MlaCache(rt.get("mla_cache", "latent")),
    }
    if "gpu_memory_utilization" in has:  # the engine's own option groups only
        kwargs["gpu_memory_utilization"] = (
            to_fraction(util)
            if util is not None
            else default_gpu_memory_utilization(record.get("engine_version"))
        )
    if "block_size" in has:
        kwargs["block_size"] = int(rt.get("block_size") or DEFAULT_BLOCK_SIZE)
    for key in ("max_num_batched_tokens", "n_ubatch", "n_parallel", "n_gpu_layers"):
        if rt.get(key) is not None:
            kwargs[key] = int(rt[key])
    for key in ("flash_attn", "swa_full", "kv_unified"):
        if rt.get(key) is not None:
            kwargs[key] = bool(rt[key])
    for key in ("cache_type_k", "cache_type_v"):
        if rt.get(key):
            kwargs[key] = KVDtype.parse(rt[key], key)
    if rt.get("mem_fraction_static") is not None:
        kwargs["mem_fraction_static"] = to_fraction(rt["mem_fraction_static"])
    kwargs.update({GIVEN_RUNTIME[k]: v for k, v in given.items() if k in GIVEN_RUNTIME})
    return Runtime(**kwargs)


def case_inputs(record: dict[str, Any], *, with_given: bool) -> CaseInputs:
    """Build the prediction inputs of one case, with or without its ``given`` figures.

    Raises
    ------
    InputError
        A field of the case that vramdesk cannot use, named by its key.
    """
    given = {
        k: record["reported"][k] for k in record["given"] if with_given and k in record["reported"]
    }
    model = model_from_case(record["model"], record.get("params"))
    runtime = runtime_from_case(record, given)
    weights = weights_from_case(record["weights"].get("format", ""))
    inputs = CaseInputs(
        model,
        weights,
        workload_from_case(record["runtime"]),
        runtime,
        record["gpu"].get("total_bytes_per_gpu"),
        {k: given[k] for k in GIVEN_COUNTS if k in given},
    )
    validate_inputs(model, weights or WeightSpec(), inputs.workload, runtime)
    return inputs
