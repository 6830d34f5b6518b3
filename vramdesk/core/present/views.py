"""Derived views over the estimate, for the window and for exports (no Qt).

Everything the window shows that is not a field of :class:`Breakdown` or
:class:`SolveResult` comes from here: derived model values, the stacked-bar
layout, the fits table, the KV-growth grid, preset comparisons, and the
CSV / Markdown / JSON renderings of those tables. Each is a thin, pure function
over :func:`vramdesk.core.estimate.estimate`, so the window and the CLI can
never disagree.

Longer than 400 lines: every derived view the window and the exports show, each a small
function over the estimate; the window reads core figures from this one module (an import
contract keeps it off the terms).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.estimate import Breakdown, estimate, validate_inputs
from vramdesk.core.limits import INT_LIMITS, check_int
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import FULL, SLIDING, ModelSpec, count_params, sliding_layer_pattern
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.verdict import TABLE_VERDICT, fit_state
from vramdesk.core.terms.kv_cache import cached_tokens_at, kv_cost_per_kind
from vramdesk.core.units import Unit, ceil_div, format_bytes, to_unit

#: Contexts of the source documents' KV-scaling grid, tokens.
SOURCE_GRID_CONTEXTS = (2048, 8192, 32768, 131072)
#: Concurrencies of the source documents' KV-scaling grid, sequences.
SOURCE_GRID_BATCHES = (1, 8, 32)
#: Named sliding-window layouts offered by the model form (see :func:`sliding_layer_pattern`).
LAYER_PATTERNS = ("none", "all", "alternating", "5:1", "3:1")


@dataclass(frozen=True, slots=True)
class Derived:
    """Read-only values derived from the model by core functions.

    Attributes
    ----------
    head_dim : int or None
        :attr:`ModelSpec.resolved_head_dim` (None when underivable).
    gqa_ratio : float or None
        :attr:`ModelSpec.gqa_ratio`, query heads per KV head.
    attention_kind : str
        ``MHA``, ``GQA``, ``MQA`` or ``MLA``.
    params : int
        Total parameters (``Breakdown.params``).
    params_computed : int or None
        The count from the architecture (:func:`count_params`), None when the shape is incomplete.
    active_params : int or None
        Parameters used per token for MoE models.
    kv_bytes_per_token : int
        KV bytes per token on one GPU, all layers, no window cap.
    live_tokens : int
        ``context_tokens * batch`` (:attr:`Workload.live_tokens`).
    """

    head_dim: int | None
    gqa_ratio: float | None
    attention_kind: str
    params: int
    params_computed: int | None
    active_params: int | None
    kv_bytes_per_token: int
    live_tokens: int
    kv_summary: str = ""


def kv_kind_summary(breakdown: Breakdown) -> str:
    """A compact per-kind KV summary for a model whose layers differ, else ``""``.

    E.g. ``"5 full: 20,480 B/token; 25 sliding (1,024): 204,800 B/token; effective 26,880
    B/token"`` (from :attr:`Breakdown.kv_by_kind`).
    """
    kinds = breakdown.kv_by_kind
    if len(kinds) <= 1 and not any(c.kind != "full_attention" for c in kinds):
        return ""
    names = {
        "full_attention": "full",
        "sliding_attention": "sliding",
        "chunked_attention": "chunked",
        "shared": "shared",
        "recurrent": "recurrent",
        "no_cache": "no cache",
    }
    parts = []
    for c in kinds:
        name = names.get(c.kind, c.kind)
        if c.window:
            name += f" ({c.window:,})"
        parts.append(f"{c.layers} {name}: {c.bytes_per_token:,} B/token")
    eff = breakdown.effective_kv_bytes_per_token
    if eff is not None:
        parts.append(f"effective {eff:,.0f} B/token")
    return "; ".join(parts)


def derived_values(model: ModelSpec, breakdown: Breakdown, workload: Workload) -> Derived:
    """Collect the derived values of ``model`` for display next to the form."""
    try:
        # MLA has no per-head K/V width: hidden/heads (56 for DeepSeek-V3) would mislead
        head_dim: int | None = None if model.is_mla else model.resolved_head_dim
    except InputError:
        head_dim = None
    try:
        computed: int | None = count_params(model).total
    except InputError:
        computed = None
    return Derived(
        head_dim=head_dim,
        gqa_ratio=model.gqa_ratio,
        attention_kind=model.attention_kind(),
        params=breakdown.params,
        params_computed=computed,
        active_params=breakdown.active_params,
        kv_bytes_per_token=breakdown.kv_bytes_per_token,
        live_tokens=workload.live_tokens,
        kv_summary=kv_kind_summary(breakdown),
    )


def describe_layer_pattern(model: ModelSpec) -> str:
    """The named pattern of :data:`LAYER_PATTERNS` that gives ``model``'s layer types.

    Returns ``"none"`` without a sliding window, ``"all"`` when ``layer_types`` is unset
    with a window, the first named pattern that reproduces ``layer_types`` exactly, else
    ``"custom"`` (an explicit per-layer list).
    """
    if model.layer_types is not None and set(model.layer_types) - {FULL, SLIDING}:
        return "custom"  # recurrent or no-cache layers: a per-layer list no pattern names
    if not model.sliding_window:
        return "none"
    if model.layer_types is None:
        return "all"
    for name in LAYER_PATTERNS:
        if sliding_layer_pattern(model.num_hidden_layers, name) == model.layer_types:
            return name
    return "custom"


# ------------------------------------------------------------------ the chart
@dataclass(frozen=True, slots=True)
class Segment:
    """One segment of the stacked bar, in display units."""

    key: str
    label: str
    y0: float
    height: float
    bytes: int


def stacked_segments(breakdown: Breakdown, unit: Unit = Unit.GIB) -> list[Segment]:
    """The four parts stacked bottom-up: each segment starts where the previous one ends.

    Offsets are summed in exact bytes and converted once per segment, so the top of the
    stack equals ``to_unit(breakdown.total_bytes, unit)``.
    """
    out, below = [], 0
    for part in breakdown.parts:
        out.append(
            Segment(
                part.key, part.label, to_unit(below, unit), to_unit(part.bytes, unit), part.bytes
            )
        )
        below += part.bytes
    return out


# ------------------------------------------------------------------ fits table
@dataclass(frozen=True, slots=True)
class FitRow:
    """One GPU of the fits table (bytes per GPU, exact).

    ``verdict`` is the headline's answer on that GPU (``"fits"``, ``"tight"``, ``"no"``);
    ``fits`` is its yes/no (the memory the engine leaves holds the KV cache and activations).
    """

    name: str
    capacity_bytes: int
    total_bytes: int
    headroom_bytes: int
    fits: bool
    verdict: str


def fits_table(
    breakdown: Breakdown, gpus: Iterable[tuple[str, int]], runtime: Runtime
) -> list[FitRow]:
    """The headline's answer for ``breakdown`` on each ``(name, capacity_bytes)``.

    ``headroom = capacity - total`` (negative when the estimated total is over the card); the
    verdict is :func:`vramdesk.core.solve.verdict.fit_state` with ``runtime``'s engine.
    """
    total = breakdown.total_bytes
    out = []
    for name, cap in gpus:
        state = fit_state(breakdown, cap, runtime)
        out.append(FitRow(name, cap, total, cap - total, state != "no", state))
    return out


def catalog_fits(breakdown: Breakdown, runtime: Runtime) -> list[FitRow]:
    """:func:`fits_table` on every catalog GPU, each at the capacity the breakdown's engine sees.

    vLLM and SGLang size their budget from CUDA's total where the catalog knows it
    (:meth:`vramdesk.core.store.bundled.GpuSpec.capacity_for`); other engines from nvidia-smi's.
    """
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.bundled import gpu_catalog

    engine = breakdown.engine
    return fits_table(breakdown, [(g.name, g.capacity_for(engine)) for g in gpu_catalog()], runtime)


# -------------------------------------------------------------------- KV growth
def batch_for_live_tokens(live_tokens: int, context_tokens: int) -> int:
    """Concurrent sequences of ``context_tokens`` that hold at least ``live_tokens`` in all.

    ``ceil(live_tokens / context_tokens)``: capacity planning counts live tokens (100
    requests x 500 tokens take what 5 x 10,000 take, SPEC §3.3), the workload counts
    sequences; the result is rounded up so that the planned tokens always fit in it.

    Raises
    ------
    InputError
        ``live_tokens``: not a positive whole number, or more than ``INT_LIMITS["batch"]``
        sequences of ``context_tokens`` would be needed.
    """
    if isinstance(live_tokens, bool) or not isinstance(live_tokens, int) or live_tokens < 1:
        raise InputError(
            "live_tokens", f"must be a positive whole number, got {live_tokens!r}", "too_small"
        )
    batch = ceil_div(live_tokens, context_tokens)
    max_batch = INT_LIMITS["batch"][1]
    if batch > max_batch:
        limit = max_batch * context_tokens
        raise InputError(
            "live_tokens",
            f"must be at most {limit:,} ({max_batch:,} sequences of {context_tokens:,}), "
            f"got {live_tokens:,}",
            "too_large",
            {"max": limit, "value": live_tokens},
        )
    return batch


def compact_text(text: str, keep: int = 12) -> str:
    """``text`` for a message: kept whole when short, else its ends and its length.

    ``compact_text("9" * 400) == "999999999999…999999999999 (400 characters)"``: a typed
    value quoted in an error must not make the sentence hundreds of characters long.
    """
    if len(text) <= 2 * keep + 1:
        return text
    return f"{text[:keep]}…{text[-keep:]} ({len(text)} characters)"


def shorten(text: str, limit: int = 200) -> str:
    """``text`` cut to at most ``limit`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def growth_contexts(max_context: int, start: int = 512) -> list[int]:
    """Contexts for the KV-growth plot: powers of two from ``start`` up to ``max_context``.

    ``max_context`` itself is appended when it is not a power of two.
    """
    out, ctx = [], start
    while ctx < max_context:
        out.append(ctx)
        ctx *= 2
    out.append(max(max_context, 1))
    return out


def kv_growth(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    contexts: Sequence[int],
    batches: Sequence[int],
) -> dict[int, list[int]]:
    """KV-cache bytes per GPU for each concurrency over ``contexts``.

    Returns
    -------
    dict
        ``{batch: [kv_bytes at contexts[0], ...]}``, each value the ``kv_cache`` part of
        :func:`estimate` with the workload's ``context_tokens`` and ``batch`` replaced
        (prompt length and shared prefix capped at the context).

    Raises
    ------
    InputError
        Invalid inputs, named.
    """
    if runtime.engine is Engine.FORMULA:  # KV is kv_cache_part: the grid in closed form
        return _formula_kv_grid(model, weights, workload, runtime, contexts, batches)
    out: dict[int, list[int]] = {}
    for batch in batches:
        row = []
        for ctx in contexts:
            prompt = None if workload.prompt_len is None else min(workload.prompt_len, ctx)
            wl = workload.replace(context_tokens=ctx, batch=batch, prompt_len=prompt)
            rt = runtime.replace(shared_prefix_tokens=min(runtime.shared_prefix_tokens, ctx))
            row.append(estimate(model, weights, wl, rt).kv_cache.bytes)
        out[batch] = row
    return out


def _formula_kv_grid(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    contexts: Sequence[int],
    batches: Sequence[int],
) -> dict[int, list[int]]:
    """:func:`kv_growth` under the formula profile, without a full estimate per point.

    The KV part is ``sum over layer groups of bytes_per_token(group) * tokens(kind)``
    (:func:`vramdesk.core.terms.kv_cache.kv_cache_part`); the per-token costs depend only on the
    model, the KV dtype and the GPUs (memoised), and ``tokens(kind)`` is
    :func:`vramdesk.core.terms.kv_cache.cached_tokens` at each point. Every context's inputs are
    validated as the estimate would validate them, every batch is range-checked; the bytes
    are those of ``estimate(...).kv_cache.bytes`` exactly (a test compares every point).
    """
    prefix = runtime.shared_prefix_tokens
    if not contexts or not batches:
        return {batch: [] for batch in batches}
    # the inputs at the first point, in full; the others differ only in the context (the
    # prompt and the shared prefix are capped at it, so they stay valid) and the batch
    first, prompt = contexts[0], workload.prompt_len
    validate_inputs(
        model,
        weights,
        workload.replace(
            context_tokens=first,
            batch=batches[0],
            prompt_len=None if prompt is None else min(prompt, first),
        ),
        runtime.replace(shared_prefix_tokens=min(prefix, first)),
    )
    for batch in batches:
        check_int("batch", batch)
    per_token = kv_cost_per_kind(model, workload.kv_dtype, runtime)
    for ctx in contexts:
        check_int("context_tokens", ctx)
    # the tokens each kind caches at each point are cached_tokens_at's (the one home of the
    # rule), which is affine in the batch: every kind caches batch x its per-sequence tokens,
    # less (batch - 1) x the shared prefix on full layers. So the bytes at a context are
    # one + (batch - 1) x step, from the rule at 1 and 2 sequences (a test compares every
    # point with the estimate's); 4,096 points cost 128 calls of the rule, not 4,096
    lines = []
    for ctx in contexts:
        at = [cached_tokens_at(model, runtime, ctx, n) for n in (1, 2)]
        one, two = (sum(b * tokens[kind] for kind, b in per_token) for tokens in at)
        lines.append((one, two - one))
    return {batch: [one + (batch - 1) * step for one, step in lines] for batch in batches}


# -------------------------------------------------------------------- compare
@dataclass(frozen=True, slots=True)
class CompareRow:
    """One preset under the shared workload: its breakdown, or why it has none."""

    name: str
    breakdown: Breakdown | None
    error: str = ""


def compare(
    presets: Iterable[tuple[str, ModelSpec, WeightSpec]], workload: Workload, runtime: Runtime
) -> list[CompareRow]:
    """Estimate each ``(name, model, weights)`` under one workload and runtime.

    A preset the workload is invalid for (for example a TP size that does not divide its
    KV heads) gets ``error`` = the one-line :class:`InputError` instead of a breakdown.
    """
    out = []
    for name, model, weights in presets:
        try:
            out.append(CompareRow(name, estimate(model, weights, workload, runtime)))
        except InputError as exc:
            out.append(CompareRow(name, None, str(exc)))
    return out


# -------------------------------------------------------------------- exports
PART_COLUMNS = ("weights", "kv_cache", "activations", "overhead", "total")

#: What a reader calls each column (display headers, legends); exports keep the keys.
PART_TITLES = {
    "weights": "Weights",
    "kv_cache": "KV cache",
    "activations": "Activations",
    "overhead": "Overhead",
    "total": "Total",
    "state": "Recurrent state",
}


#: Each part's column in exports: the key of ``Breakdown.to_dict`` (the JSON of estimate, solve
#: and compare), so that a column means one thing everywhere (``activation_bytes``).
PART_KEYS = {
    "weights": "weights_bytes",
    "kv_cache": "kv_cache_bytes",
    "state": "state_bytes",
    "activations": "activation_bytes",
    "overhead": "overhead_bytes",
    "total": "total_bytes",
}


def part_columns(rows: Sequence[CompareRow]) -> tuple[str, ...]:
    """:data:`PART_COLUMNS`, with ``state`` after ``kv_cache`` when a row has recurrent layers."""
    if any(r.breakdown is not None and r.breakdown.state is not None for r in rows):
        return ("weights", "kv_cache", "state", "activations", "overhead", "total")
    return PART_COLUMNS


def breakdown_table(
    breakdown: Breakdown, unit: Unit = Unit.GIB
) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the figures table: part, bytes, value in ``unit``, formula, substituted.

    Every number is a plain number (no unit in the cell; the header names it): ``bytes``
    exact, the ``unit`` column :func:`plain_number` (4 decimals).
    """
    header = ["part", "bytes", unit.label, "formula", "substituted"]
    rows = [
        [p.label, str(p.bytes), plain_number(p.bytes, unit), p.formula, p.substituted]
        for p in breakdown.parts
    ]
    total = breakdown.total_bytes
    rows.append(["Total", str(total), plain_number(total, unit), "sum of the parts", ""])
    return header, rows


def comparison_table(
    rows: Sequence[CompareRow],
    unit: Unit = Unit.GIB,
    exact: bool = True,
    fits: Sequence[str | None] | None = None,
) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the comparison, one row per preset.

    ``exact``: each part in exact bytes plus the total in ``unit`` as a plain number
    (:func:`plain_number`), for CSV/JSON-minded exports, under the JSON's names
    (``model``, :data:`PART_KEYS`); otherwise every part formatted in ``unit`` (for display).
    ``fits``: one headline answer per row (``"fits"``, ``"tight"``,
    ``"no"``; None: no verdict), added as a last column ``verdict`` / ``Verdict``.
    """
    columns = part_columns(rows)
    if exact:
        header = ["model"] + [PART_KEYS[k] for k in columns] + [f"total_{unit.label}", "error"]
    else:
        header = ["Model"] + [f"{PART_TITLES[k]} ({unit.label})" for k in columns] + ["Error"]
    out = []
    for row in rows:
        b = row.breakdown
        if b is None:
            out.append([row.name] + [""] * (len(header) - 2) + [row.error])
            continue
        by_key = {p.key: p.bytes for p in b.parts}
        values = [by_key.get(k, 0) for k in columns[:-1]] + [b.total_bytes]
        if exact:
            cells = [str(v) for v in values] + [plain_number(b.total_bytes, unit)]
        else:
            cells = [format_bytes(v, unit) for v in values]
        out.append([row.name] + cells + [""])
    if fits is not None:
        header.append("verdict" if exact else "Verdict")
        for cells, verdict in zip(out, fits, strict=True):
            cells.append("" if verdict is None else TABLE_VERDICT[verdict])
    return header, out


#: First characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: object) -> str:
    """A cell a spreadsheet shows as text: a leading ``'`` before ``= + - @`` (tab, CR).

    A preset named ``=HYPERLINK(...)`` would otherwise become a live formula when the
    export is opened (OWASP, "CSV Injection"). Numbers such as ``-1.5`` are left alone.
    """
    cell = str(text)
    if cell.startswith(_FORMULA_START):
        try:
            float(cell.replace(",", ""))
        except ValueError:
            return "'" + cell
    return cell


def plain_number(n_bytes: int, unit: Unit, digits: int = 4) -> str:
    """``n_bytes`` in ``unit`` as a plain decimal number, no unit and no thousands separator.

    ``plain_number(16_106_127_360, Unit.GIB) == "15.0000"`` (15 x 2**30 bytes): for cells
    of a column whose header already names the unit, so that CSV readers parse a number.
    """
    return f"{to_unit(n_bytes, unit):.{digits}f}"


def to_csv(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """RFC 4180 CSV text (CR LF line ends, quoted where needed), formula-safe (:func:`csv_cell`)."""
    import csv  # on use: exports only, not the window's start-up

    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow([csv_cell(h) for h in header])
    writer.writerows([csv_cell(c) for c in row] for row in rows)
    return buf.getvalue()


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""
    lines = [
        "| " + " | ".join(_md_cell(h) for h in header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def breakdown_json(breakdown: Breakdown) -> str:
    """The breakdown as the CLI's ``--json`` object (exact integer bytes), indented."""
    return json.dumps(breakdown.to_dict(), indent=2)


def comparison_json(rows: Sequence[CompareRow]) -> str:
    """The comparison as a JSON list of ``{"model", "breakdown" | "error"}`` objects.

    ``model`` is the model's name, under the key estimate's and solve's JSON give it.
    """
    data: list[dict[str, Any]] = []
    for row in rows:
        item: dict[str, Any] = {"model": row.name}
        if row.breakdown is None:
            item["error"] = row.error
        else:
            item["breakdown"] = row.breakdown.to_dict()
        data.append(item)
    return json.dumps(data, indent=2)
