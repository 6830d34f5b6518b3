"""The command line's output formats: ``table``, ``markdown``, ``csv`` and ``json``.

``table`` is the readable text of :mod:`vramdesk.core.present.report`; the other three carry
plain numbers a program can read back: byte counts as exact integers, values in a
display unit as plain decimals in a column whose header names the unit
(:func:`vramdesk.core.present.views.plain_number`), verdicts as ``yes``/``no`` (JSON: booleans).
Rows come from :mod:`vramdesk.core.present.views`, the same tables the window exports.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vramdesk.core.errors import InputError
from vramdesk.core.estimate import Breakdown
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.units import Unit, format_bytes

if TYPE_CHECKING:
    from vramdesk.core.present import views

FORMATS = ("table", "markdown", "csv", "json")


def check_format(fmt: str) -> str:
    """``fmt`` if it is one of :data:`FORMATS`.

    Raises
    ------
    InputError
        ``format``: anything else.
    """
    if fmt not in FORMATS:
        raise InputError(
            "format", f"must be one of {', '.join(FORMATS)}, got {fmt!r}", "unknown_choice"
        )
    return fmt


def _views() -> Any:
    """:mod:`vramdesk.core.present.views`, imported when a table is made.

    The JSON of one estimate makes none (issue 24: the module and its verdict imports were
    about 5 ms of a one-estimate process).
    """
    # on first use: the tables load only for the formats and commands that make them
    from vramdesk.core.present import views

    return views


def render(fmt: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table as Markdown or CSV (``fmt`` ``markdown`` / ``csv``)."""
    if fmt == "csv":
        return _views().to_csv(header, rows)
    return _views().to_markdown(header, rows)


def dumps(data: Any) -> str:
    """JSON as the CLI prints it (indented, UTF-8 kept, no NaN)."""
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)


# ------------------------------------------------------------------ estimate
def _speed_dict(speed: Any) -> dict[str, Any]:
    return {} if speed is None else speed.to_dict()


def _with_speed(text: str, speed: Any) -> str:
    """The table text, then the speed block (:mod:`vramdesk.core.speed`) when a GPU was named."""
    return text if speed is None else text.rstrip("\n") + "\n\n" + "\n".join(speed.lines())


#: The facts of the scenario an export of its breakdown carries, in order (``scenario_facts``).
SCENARIO_KEYS = (
    "model",
    "weights",
    "context_tokens",
    "batch",
    "prompt_len",
    "kv_dtype",
    "engine",
    "engine_version",
    "target_gpu",
    "budget_bytes",
)


def scenario_facts(sc: Any, target: tuple[str, int | None] | None = None) -> dict[str, Any]:
    """What a breakdown is of: model, weights, workload, engine and target (:data:`SCENARIO_KEYS`).

    ``sc`` holds ``model``, ``weights``, ``workload`` and ``runtime``; ``target`` is
    ``(GPU name, budget bytes per GPU)`` (the bytes None where none is known), or None when
    no target was given. Values are plain: names and labels as text, counts as ints, None for
    what is not set (no prompt length, no engine version, no target).
    """
    wl, rt = sc.workload, sc.runtime
    gpu, budget = target if target is not None else (None, None)
    return {
        "model": sc.model.name or None,
        "weights": sc.weights.label(),
        "context_tokens": wl.context_tokens,
        "batch": wl.batch,
        "prompt_len": wl.prompt_len,
        "kv_dtype": wl.kv_dtype.label,
        "engine": getattr(rt.engine, "value", str(rt.engine)),
        "engine_version": rt.engine_version or None,
        "target_gpu": gpu,
        "budget_bytes": budget,
    }


def breakdown_export(
    sc: Any,
    b: Breakdown,
    fmt: str,
    unit: Unit,
    target: tuple[str, int | None] | None = None,
    verdict: str | None = None,
) -> str:
    """The breakdown of ``sc`` as CSV, Markdown or JSON, with what it is of (issue 23).

    The same text for the window's exports and ``vramdesk estimate --format``. The facts
    (:func:`scenario_facts`) come first:

    * ``csv``: one ``key,value`` row per fact, an empty row, then the figures table. Rows
      rather than ``#`` comment lines, because a spreadsheet has no comment lines: it shows
      each fact as a labelled pair of cells above the table, where a ``# model: ...`` line
      would be one cell of text; a program skips to the first empty row.
    * ``markdown`` (``md``): a ``| scenario | value |`` table, an empty line, the figures.
    * ``json``: ``model``, ``weights``, ``workload`` (``context_tokens``, ``batch``,
      ``prompt_len``, ``kv_dtype``), ``engine``, ``engine_version``, ``target``
      (``{"gpu", "budget_bytes"}`` or null), then :meth:`Breakdown.to_dict`'s keys.

    Empty cells (CSV, Markdown) and null (JSON) are what is not set. ``verdict`` (``estimate``
    with a target: ``fits``, ``tight`` or ``does_not_fit``, the JSON's word,
    :data:`vramdesk.core.solve.verdict.JSON_VERDICT`) adds a ``verdict`` row after the facts
    in CSV and Markdown; the JSON carries it with the budget (:func:`breakdown_output`).

    Raises
    ------
    InputError
        ``format``: not ``csv``, ``markdown``/``md`` or ``json``.
    """
    facts = scenario_facts(sc, target)
    if fmt == "json":
        return dumps({**_facts_json(facts), **b.to_dict()})
    if fmt not in ("csv", "markdown", "md"):
        raise InputError("format", f"must be csv, markdown or json, got {fmt!r}", "unknown_choice")
    cells = [[key, _cell(value)] for key, value in facts.items()]
    if verdict is not None:
        cells.append(["verdict", verdict])
    views = _views()
    header, rows = views.breakdown_table(b, unit)
    if fmt == "csv":
        return views.to_csv(["scenario", "value"], cells) + "\r\n" + views.to_csv(header, rows)
    return views.to_markdown(["scenario", "value"], cells) + "\n" + views.to_markdown(header, rows)


def _facts_json(facts: dict[str, Any]) -> dict[str, Any]:
    workload = ("context_tokens", "batch", "prompt_len", "kv_dtype")
    target = None
    if facts["target_gpu"] is not None:
        target = {"gpu": facts["target_gpu"], "budget_bytes": facts["budget_bytes"]}
    return {
        "model": facts["model"],
        "weights": facts["weights"],
        "workload": {k: facts[k] for k in workload},
        "engine": facts["engine"],
        "engine_version": facts["engine_version"],
        "target": target,
    }


def breakdown_output(
    sc: Any,
    b: Breakdown,
    fmt: str,
    unit: Unit,
    speed: Any = None,
    target: tuple[str, int | None] | None = None,
    verdict: tuple[str, Any] | None = None,
) -> str:
    """``vramdesk estimate --format FMT``: the breakdown of scenario ``sc``.

    ``speed`` (``estimate --gpu``): a :class:`~vramdesk.core.speed.SpeedReport` or
    ``SpeedUnavailable``, printed after the table and merged into the JSON; markdown and
    csv carry the breakdown only (no speed figure without its assumptions). ``target``
    (GPU name, budget bytes): the GPU named, carried by csv, markdown and json with the rest
    of the scenario (:func:`breakdown_export`).
    ``verdict`` (``estimate`` with a target): ``(budget label, SolveResult)``; the table
    adds the headline verdict (:func:`vramdesk.core.solve.verdict.headline`), the JSON
    ``budget``, ``capacity_bytes`` and ``verdict`` (``fits``, ``tight``, ``does_not_fit``),
    CSV and Markdown a ``verdict`` row of the same word.
    """
    if fmt == "table":
        # on first use: the plain-text report loads only for the table format
        from vramdesk.core.present.report import breakdown_text, verdict_text

        text = breakdown_text(sc, b, unit)
        if verdict is not None:
            text += "\n" + verdict_text(verdict[1], verdict[0], sc.workload.batch, unit)
        return _with_speed(text, speed)
    word = None
    if verdict is not None:
        # on first use: the verdict loads only for the commands that give one
        from vramdesk.core.solve.verdict import JSON_VERDICT, headline

        word = JSON_VERDICT[headline(verdict[1], sc.workload.batch, unit).state]
    text = breakdown_export(sc, b, fmt, unit, target, None if fmt == "json" else word)
    if fmt == "json":
        judged = {}
        if verdict is not None:
            label, result = verdict
            judged = {"budget": label, "capacity_bytes": result.capacity_bytes, "verdict": word}
        if judged or speed is not None:
            return dumps({**json.loads(text), **judged, **_speed_dict(speed)})
    return text


# ------------------------------------------------------------------ solve
#: Solve rows: (key, where the value is) in the order they are printed.
SOLVE_KEYS = (
    "capacity_bytes",
    "usable_bytes",
    "kv_budget_bytes",
    "kv_cache_tokens",
    "max_concurrency",
    "max_context",
    "max_context_limited_by",
    "verdict",
    "fits",
    "fits_total",
    "min_gpus",
)
BREAKDOWN_KEYS = (
    "weights_bytes",
    "kv_cache_bytes",
    "activation_bytes",
    "overhead_bytes",
    "total_bytes",
)


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value)


def solve_output(
    sc: Any, result: Any, label: str, fmt: str, unit: Unit, extra: dict, speed: Any = None
) -> str:
    """``vramdesk solve --format FMT``: one ``quantity, value`` row per answer.

    ``extra`` is merged into the JSON object (the budget label, the catalog fits); ``speed``
    (a ``--gpu``) as in :func:`breakdown_output`. Every format carries ``verdict``, the
    window's headline answer (``fits``, ``tight``, ``does_not_fit``;
    :func:`vramdesk.core.solve.verdict.headline`).
    """
    if fmt == "table":
        # on first use: the plain-text report loads only for the table format
        from vramdesk.core.present.report import solve_text

        return _with_speed(solve_text(sc, result, label, unit), speed)  # its own headline
    # on first use: the verdict loads only for the commands that give one
    from vramdesk.core.solve.verdict import JSON_VERDICT, headline

    verdict = JSON_VERDICT[headline(result, sc.workload.batch, unit).state]
    if fmt == "json":
        data = {
            "model": sc.model.name,
            **result.breakdown.to_dict(),
            **result.to_dict(),
            "verdict": verdict,
        }
        return dumps({**data, **_speed_dict(speed), **extra})
    data = {**result.breakdown.to_dict(), **result.to_dict(), "verdict": verdict}
    rows = [["model", sc.model.name or ""], ["budget", label]]
    keys = list(BREAKDOWN_KEYS)
    if data.get("state_bytes"):  # recurrent (SSM) layers: their per-sequence state
        keys.insert(keys.index("kv_cache_bytes") + 1, "state_bytes")
    rows += [[k, _cell(data[k])] for k in (*keys, *SOLVE_KEYS)]
    return render(fmt, ["quantity", "value"], rows)


# ------------------------------------------------------------------ compare
@dataclass(frozen=True, slots=True)
class Comparison:
    """Models under one workload and runtime, with a verdict each when a budget is given.

    Attributes
    ----------
    rows : list of views.CompareRow
        One per model, in the order given.
    verdicts : list of str or None
        :func:`vramdesk.core.solve.verdict.fit_state` per row, ``"fits"``, ``"tight"`` or
        ``"no"`` (None: no budget or no breakdown): the window's headline answer.
    budget_label : str or None
        What the budget is ("H100 80GB ...", "80 GiB").
    capacity_bytes : int or None
        The budget per GPU, exact.
    """

    rows: list[views.CompareRow]
    verdicts: list[str | None]
    budget_label: str | None
    capacity_bytes: int | None


def compare_models(
    models: Sequence[tuple[str, ModelSpec, WeightSpec]],
    workload: Workload,
    runtime: Runtime,
    budget: tuple[str, int] | None = None,
) -> Comparison:
    """Estimate each model under ``workload`` and ``runtime``; judge each on ``budget``.

    The verdict is :func:`vramdesk.core.solve.verdict.fit_state`, the window's headline
    answer (fits / tight / does not fit).
    """
    # on first use: the verdict loads only for the commands that give one
    from vramdesk.core.solve.verdict import fit_state

    rows = _views().compare(models, workload, runtime)
    label, capacity = budget if budget else (None, None)
    verdicts = [
        None
        if capacity is None or r.breakdown is None
        else fit_state(r.breakdown, capacity, runtime)
        for r in rows
    ]
    return Comparison(rows, verdicts, label, capacity)


def comparison_output(comp: Comparison, fmt: str, unit: Unit) -> str:
    """``vramdesk compare --format FMT``.

    ``table``: parts in ``unit``; ``markdown``/``csv``: exact bytes per part plus the total
    in ``unit`` as a plain number (:func:`views.comparison_table` exact mode); ``json``:
    ``{"budget", "capacity_bytes", "models": [{"model", "breakdown" | "error", "fits",
    "verdict"}]}`` with ``verdict`` ``"fits"``, ``"tight"`` or ``"does_not_fit"`` and ``fits``
    its yes/no (the usable memory holds the workload: fits or tight).
    """
    # on first use: the verdict loads only for the commands that give one
    from vramdesk.core.solve.verdict import JSON_VERDICT

    fits = comp.verdicts if comp.capacity_bytes is not None else None
    if fmt == "json":
        items = json.loads(_views().comparison_json(comp.rows))
        for item, verdict in zip(items, comp.verdicts, strict=True):
            item["fits"] = None if verdict is None else verdict != "no"
            item["verdict"] = None if verdict is None else JSON_VERDICT[verdict]
        return dumps(
            {"budget": comp.budget_label, "capacity_bytes": comp.capacity_bytes, "models": items}
        )
    if fmt == "table":
        header, rows = _views().comparison_table(comp.rows, unit, exact=False, fits=fits)
        errors = header.index("Error")
        if not any(row[errors] for row in rows):  # no column of blanks (as the window)
            header.pop(errors)
            rows = [row[:errors] + row[errors + 1 :] for row in rows]
        text = _aligned(header, rows)
        if comp.budget_label is not None:
            cap = format_bytes(comp.capacity_bytes, unit)
            text += f"\nVerdict on {comp.budget_label} = {cap} per GPU, as the window's headline:"
            text += " the KV cache and activations within what the engine leaves for them"
            text += " (tight: little to spare, or the estimated total over the card)."
        return text
    header, rows = _views().comparison_table(comp.rows, unit, exact=True, fits=fits)
    return render(fmt, header, rows)


def _aligned(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    cols = list(zip(header, *rows, strict=True))
    widths = [max(len(c) for c in col) for col in cols]
    lines = []
    for row in (header, *rows):
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
