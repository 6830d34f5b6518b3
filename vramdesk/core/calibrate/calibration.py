"""Calibration: compare an engine's start-up log with vramdesk's prediction, keep its overheads.

``vramdesk calibrate LOGFILE`` parses the log (:mod:`vramdesk.core.calibrate.logparse`),
predicts the same figures for a scenario with the engine's profile (:mod:`vramdesk.core.engines`),
and can save the measured overheads (activation peak, non-torch memory, CUDA graphs, compute
buffer) as a runtime preset: the terms no formula predicts well become inputs, as the engine-case
format's ``given`` figures are.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from vramdesk.core.calibrate.bench import detect
from vramdesk.core.calibrate.bench_run import run_bench
from vramdesk.core.calibrate.identity import model_check_for
from vramdesk.core.calibrate.logparse import ParsedLog, parse_log, read_log_text
from vramdesk.core.engines import profile_for
from vramdesk.core.errors import InputError
from vramdesk.core.estimate import validate_inputs
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.store.serialize import to_dict
from vramdesk.core.units import ceil_div

#: Measured figures a calibrated runtime keeps (log figure name -> Runtime field).
OVERHEADS = {
    "activation_peak_bytes": "activation_peak_bytes",
    "non_torch_bytes": "non_torch_bytes",
    "cuda_graph_bytes": "cuda_graph_bytes",
    "compute_buffer_bytes": "compute_buffer_bytes",
}
#: Figures that describe the run rather than measure memory (shown, never compared).
CONTEXT_FIGURES = (
    "gpu_total_bytes",
    "gpu_memory_utilization",
    "max_model_len",
    "n_ctx",
    "n_ubatch",
    "n_seq_max",
    "flash_attn",
)
#: llama.cpp settings a log states (log figure -> Runtime field), applied when not set.
_LOG_KNOBS = {"n_ubatch": "n_ubatch", "n_seq_max": "n_parallel", "flash_attn": "flash_attn"}


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the comparison: a measured figure, the prediction, their difference.

    ``rel_diff`` is ``(predicted - measured) / |measured|`` (None when either is missing or
    the measured value is 0).
    """

    name: str
    measured: int | Fraction
    predicted: int | Fraction | None
    rel_diff: float | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ints stay exact, fractions become floats."""

        def num(v: int | Fraction | None) -> int | float | None:
            return v if v is None or isinstance(v, int) else float(v)

        return {
            "name": self.name,
            "measured": num(self.measured),
            "predicted": num(self.predicted),
            "rel_diff": self.rel_diff,
        }


def scenario_for_log(
    parsed: ParsedLog, workload: Workload, runtime: Runtime
) -> tuple[Workload, Runtime]:
    """Adjust the workload and runtime to what the log states.

    The engine becomes the detected one when the runtime's is the formula; vLLM's
    ``gpu_memory_utilization`` and ``max_model_len`` (the context) come from the log when it
    prints them; llama.cpp's ``n_ctx`` sets the context of one slot, and its ``n_ubatch``,
    ``n_seq_max`` and ``flash_attn`` fill the runtime's unset knobs; the release the log
    prints fills an unset ``engine_version``. :func:`override_notes` says what was replaced.
    """
    if runtime.engine is Engine.FORMULA and parsed.engine is not None:
        runtime = runtime.replace(engine=parsed.engine)
    if runtime.engine_version is None and parsed.engine_version is not None:
        runtime = runtime.replace(engine_version=parsed.engine_version)
    for name, knob in _LOG_KNOBS.items():
        if parsed.value(name) is not None and getattr(runtime, knob) is None:
            value = parsed.value(name)
            runtime = runtime.replace(**{knob: bool(value) if knob == "flash_attn" else int(value)})
    util = parsed.value("gpu_memory_utilization")
    if util is not None:
        runtime = runtime.replace(gpu_memory_utilization=Fraction(util))
    context = parsed.value("max_model_len")
    if context is None and parsed.value("n_ctx") is not None:
        context = ceil_div(int(parsed.value("n_ctx")), runtime.n_parallel or workload.batch)
    if context is not None:
        workload = workload.replace(context_tokens=int(context))
    return workload, runtime


def override_notes(
    parsed: ParsedLog, opts: dict[str, Any], workload: Workload, runtime: Runtime
) -> list[str]:
    """One line per value the user gave that the log's (:func:`scenario_for_log`) replaces.

    E.g. "using the log's max_model_len 16,000 (you gave --context 8,000)"; also the log's
    ``gpu_memory_utilization`` over ``--util`` and the engine version used when none was given.
    """
    wl, rt = scenario_for_log(parsed, workload, runtime)
    notes = []
    if opts.get("context") and wl.context_tokens != int(opts["context"]):
        src = "max_model_len" if parsed.value("max_model_len") is not None else "n_ctx per slot"
        notes.append(
            f"using the log's {src} {wl.context_tokens:,} (you gave --context {opts['context']:,})"
        )
    if opts.get("util") is not None and rt.gpu_memory_utilization != runtime.gpu_memory_utilization:
        notes.append(
            f"using the log's gpu_memory_utilization {float(rt.gpu_memory_utilization):g} "
            f"(you gave --util {opts['util']})"
        )
    if parsed.engine_version is not None and not opts.get("engine_version"):
        notes.append(f"using the log's engine version {parsed.engine_version}")
    return notes


def compare(
    parsed: ParsedLog,
    model: ModelSpec | None = None,
    weights: WeightSpec | None = None,
    workload: Workload | None = None,
    runtime: Runtime | None = None,
    gpu_total_bytes: int | None = None,
) -> list[Row]:
    """Every parsed figure beside vramdesk's prediction for the scenario (if one is given).

    Parameters
    ----------
    parsed : ParsedLog
        Figures read from the log.
    model, weights, workload, runtime : optional
        The scenario; without a model, the rows carry no prediction.
    gpu_total_bytes : int, optional
        The GPU's total (``--gpu`` / ``--vram-gib``) for logs that print none: with it the
        budget-derived KV figures (KV bytes, blocks, tokens, concurrency) are predicted
        too. The log's own total wins when it prints one.

    Returns
    -------
    list of Row
        In the log's order of figures; predictions from ``profile_for(engine).figures`` with
        the log's GPU total when it printed one.

    Raises
    ------
    InputError
        An invalid scenario field.
    """
    predicted: dict[str, int | Fraction] = {}
    if model is not None:
        workload, runtime = scenario_for_log(parsed, workload or Workload(), runtime or Runtime())

        weights = weights or WeightSpec()
        validate_inputs(model, weights, workload, runtime)
        total = parsed.value("gpu_total_bytes")
        if total is None:
            total = gpu_total_bytes
        predicted = profile_for(runtime.engine).figures(
            model, weights, workload, runtime, gpu_total_bytes=None if total is None else int(total)
        )
    rows = []
    for name, fig in parsed.figures.items():
        guess = None if name in CONTEXT_FIGURES else predicted.get(name)
        diff = (
            None
            if guess is None or fig.value == 0
            else float((Fraction(guess) - fig.value) / abs(fig.value))
        )
        rows.append(Row(name, fig.value, guess, diff))
    return rows


def calibrated_runtime(parsed: ParsedLog, runtime: Runtime | None = None) -> Runtime:
    """``runtime`` with the log's engine, its version (when unset) and measured overheads.

    The version travels with the figures: whether vLLM subtracts the CUDA-graph figure
    depends on the release, and an unset version is read as the newest.

    vLLM V0 logs print the torch peak with the weights included: the activation peak kept is
    ``peak - weights`` when both are printed and no activation line is.

    Raises
    ------
    InputError
        ``log``: the log holds none of the overheads a runtime can keep.
    """
    runtime = runtime or Runtime()
    changes: dict[str, Any] = {
        field: int(parsed.value(name))
        for name, field in OVERHEADS.items()
        if parsed.value(name) is not None
    }
    peak, weights = parsed.value("peak_bytes"), parsed.value("weights_bytes")
    if (
        "activation_peak_bytes" not in changes
        and peak is not None
        and weights is not None
        and peak >= weights
    ):
        changes["activation_peak_bytes"] = int(peak - weights)
    if not changes:
        raise InputError(
            "log",
            "holds no overhead figure to keep (activation peak, non-torch memory, "
            "CUDA graphs or compute buffer)",
            "no_figures",
        )
    if parsed.engine is not None:
        changes["engine"] = parsed.engine
    if runtime.engine_version is None and parsed.engine_version is not None:
        changes["engine_version"] = parsed.engine_version
    return runtime.replace(**changes).validate()


def save_calibration(name: str, runtime: Runtime, *, force: bool = False) -> Path:
    """Save ``runtime`` (engine, engine_version, figures) as a user runtime preset ``name``.

    Uses the preset store (:class:`vramdesk.core.store.presets.PresetStore`, kind ``"runtime"``):
    written atomically under its lock in the config directory (``VRAMDESK_CONFIG_DIR`` or the
    platform's), the name slugged so it cannot leave that directory. An existing runtime
    preset of the same name is replaced only with ``force``: its figures may come from
    another run or release, and merging them would mix runs silently.

    Returns
    -------
    Path
        The preset's file.

    Raises
    ------
    InputError
        ``name``: empty ("is required"), invalid, or taken and ``force`` is false.
    """
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.presets import PresetStore

    if not isinstance(name, str) or not name.strip():
        raise InputError("name", "is required", "required")
    store = PresetStore()
    try:
        return store.save(name, "runtime", {"runtime": to_dict(runtime)}, overwrite=force).path
    except InputError as exc:
        if exc.code != "exists":
            raise
        raise InputError(
            "name",
            f"a runtime preset named {name.strip()!r} already exists; its figures would be "
            "lost: choose another name (or replace it with force)",
            "exists",
            {"name": name.strip()},
        ) from None


def format_rows(rows: list[Row], parsed: ParsedLog) -> str:
    """Format the comparison as text: figure, measured, predicted, difference."""
    if not rows:
        return parsed.describe()
    lines = [parsed.describe(), f"  {'figure':28} {'measured':>18} {'vramdesk':>18} {'diff':>9}"]
    for row in rows:
        diff = "-" if row.rel_diff is None else f"{row.rel_diff * 100:+.2f}%"
        lines.append(
            f"  {row.name:28} {_num(row.measured):>18} {_num(row.predicted):>18} {diff:>9}"
        )
    return "\n".join(lines)


def _num(value: int | Fraction | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, Fraction) and value.denominator != 1:
        return f"{float(value):,.4f}"
    return f"{int(value):,}"


#: Command-line options that name a model (any one of them enables the prediction column).
MODEL_OPTIONS = ("preset", "config", "gguf", "params_b")


def run_calibration(log_path: str | Path, opts: dict[str, Any]) -> dict[str, Any]:
    """``vramdesk calibrate``: parse the log, compare with the scenario, save if asked.

    A benchmark output instead of a log: :func:`vramdesk.core.calibrate.bench_run.run_bench`.

    Parameters
    ----------
    log_path : path
        The start-up log (read size-capped, never executed).
    opts : dict
        Command-line style options (:func:`vramdesk.core.model.scenario.scenario_from_args` names);
        with one of :data:`MODEL_OPTIONS` vramdesk's prediction is shown beside each figure,
        the context defaulting to the log's ``max_model_len`` / ``n_ctx``; ``save`` names the
        runtime preset to write (``force``: replace one of that name).

    Returns
    -------
    dict
        ``{"log", "engine", "summary", "figures": [Row.to_dict()...], "saved": path or None,
        "notes": [the log's values that replaced the user's (:func:`override_notes`)],
        "model_check": :meth:`ModelCheck.to_dict` or None without a model, "warning": the
        one-line warning when the log is about another model, else None}``.

    Raises
    ------
    InputError
        An unreadable log, an invalid scenario option, or ``--save`` with nothing to keep.
    """
    text, truncated = read_log_text(log_path)
    kind = detect(text)
    if kind is not None:
        return run_bench(text, kind, log_path, opts)
    parsed = parse_log(text)
    parsed.truncated = truncated
    scenario = _scenario(parsed, opts) if any(opts.get(k) for k in MODEL_OPTIONS) else None
    total = _budget(parsed, opts, scenario[3]) if scenario else None
    rows = compare(parsed, *scenario, gpu_total_bytes=total) if scenario else compare(parsed)
    notes = override_notes(parsed, opts, scenario[2], scenario[3]) if scenario else []
    check = model_check_for(parsed, scenario[0], opts) if scenario else None
    if scenario and total is not None and parsed.value("gpu_total_bytes") is not None:
        notes.append(
            f"using the log's GPU total {int(parsed.value('gpu_total_bytes')):,} bytes "
            "(the --gpu / --vram-gib budget is not needed)"
        )
    saved = None
    if opts.get("save") is not None:
        kept = calibrated_runtime(parsed, scenario[3] if scenario else None)
        saved = str(save_calibration(opts["save"], kept, force=bool(opts.get("force"))))
        if kept.engine is Engine.VLLM and kept.engine_version is None:
            notes.append(
                "the log prints no vLLM version and none was given: the saved preset is "
                "read as the newest release (give --engine-version)"
            )
    return {
        "log": str(log_path),
        "engine": parsed.engine.value if parsed.engine else None,
        "summary": parsed.describe(),
        "truncated": parsed.truncated,
        "figures": [r.to_dict() for r in rows],
        "saved": saved,
        "notes": notes,
        "model_check": check.to_dict() if check else None,
        "warning": check.warning() if check else None,
        "text": "\n".join([format_rows(rows, parsed), *notes]),
    }


def _budget(parsed: ParsedLog, opts: dict[str, Any], runtime: Runtime) -> int | None:
    """The GPU total of ``--gpu NAME`` / ``--vram-gib V`` (None when neither is given).

    A catalog GPU gives the total the log's engine sees (``GpuSpec.capacity_for``: CUDA's
    total for vLLM and SGLang).

    Raises
    ------
    InputError
        ``budget``: both given; ``gpu``: unknown name; ``vram_gib``: out of range.
    """
    if opts.get("gpu") is None and opts.get("vram_gib") is None:
        return None
    # on first use: the plain-options scenario loads only when a model is given
    from vramdesk.core.model.scenario import budget_from_args

    _, total = budget_from_args({**opts, "engine": runtime.engine.value})
    return total


def _scenario(
    parsed: ParsedLog, opts: dict[str, Any]
) -> tuple[ModelSpec, WeightSpec, Workload, Runtime]:
    # on first use: the plain-options scenario loads only when a model is given
    from vramdesk.core.model.scenario import scenario_from_args

    opts = dict(opts)
    if not opts.get("context"):
        slots = opts.get("batch") or 1
        ctx = parsed.value("max_model_len") or ceil_div(int(parsed.value("n_ctx") or 8192), slots)
        opts["context"] = int(ctx)
    if not opts.get("engine") and parsed.engine is not None:
        opts["engine"] = parsed.engine.value
    if not opts.get("engine_version") and parsed.engine_version is not None:
        opts["engine_version"] = parsed.engine_version  # before the version's defaults apply
    sc = scenario_from_args(opts)
    return sc.model, sc.weights, sc.workload, sc.runtime
