"""A user's own benchmark output, read and turned into expected-speed constants (issue 25 item 3).

Two formats, as the tools print them:

* ``llama-bench`` (llama.cpp ``tools/llama-bench/llama-bench.cpp``, ``markdown_printer``): a
  table ``| model | size | params | backend | ngl | [n_batch | n_ubatch | fa | ...] | test | t/s |``
  whose ``test`` is ``pp512`` / ``tg128`` (older builds: ``pp 512`` / ``tg 128``) and whose
  ``t/s`` is ``mean ± stdev``.
* vLLM's ``benchmarks/benchmark_serving.py`` / ``vllm bench serve`` summary
  (``vllm/benchmarks/serve.py``, the block under "Serving Benchmark Result"): "Successful
  requests:", "Maximum request concurrency:", "Total input tokens:", "Total generated tokens:",
  "Output token throughput (tok/s):", "Mean/Median TPOT (ms):", "Mean TTFT (ms):" ...

:func:`fit_constants` sets the constants of :mod:`vramdesk.core.terms.speed_model` from them,
on the bytes and FLOPs vramdesk computes for the same model and GPU
(:func:`vramdesk.core.speed.speed`):

* llama.cpp decode (``tgN``): the step time ``t = 1 / (t/s)`` is
  ``fixed_step_s + bytes / (bandwidth_efficiency * bandwidth)``; two or more tg rows of
  different sizes (F16, Q8_0, Q4_0 of one model) fit both by least squares on the line
  ``t = a + b * bytes`` (``bandwidth_efficiency = 1 / (b * bandwidth)``, ``fixed_step_s = a``);
  one row keeps the engine's efficiency and sets ``fixed_step_s = t - bytes / (eff * bw)``.
* llama.cpp prefill (``ppN``): ``N / (t/s)`` is ``steps * (fixed + FLOPs_step / (eff(M) * peak))``
  with ``steps = ceil(N / n_ubatch)``; solved for ``eff(M)``, then ``efficiency_max =
  eff(M) * (M + half_tokens) / M`` (16-bit rows set ``compute_efficiency_max``, quantized rows
  ``quantized_compute_efficiency_max``; the geometric mean when several).
* vLLM: the decode step at concurrency ``B`` is the median TPOT (else ``B / output
  throughput``), with every sequence at its mean context ``input + output / 2``; it sets
  ``bandwidth_efficiency = bytes / (bandwidth * (t - fixed_step_s))``. TTFT is not used:
  under concurrency it includes queueing.

Every fitted value is clamped to (0, 1] (efficiencies) or >= 0 (seconds), and said so.

Longer than 400 lines: the two parsers, the fits and the fitted result share their row and
constant types and are read together (a fit's rows are what the parser gives).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.units import GIB, MIB

#: The lines a vLLM / SGLang serving summary prints (label -> key), as ``serve.py`` words them.
_SERVING = {
    "Successful requests": "successful_requests",
    "Maximum request concurrency": "max_concurrency",
    "Max request concurrency": "max_concurrency",
    "Benchmark duration (s)": "duration_s",
    "Total input tokens": "total_input_tokens",
    "Total generated tokens": "total_output_tokens",
    "Request throughput (req/s)": "request_throughput",
    "Output token throughput (tok/s)": "output_throughput",
    "Total Token throughput (tok/s)": "total_throughput",
    "Mean TTFT (ms)": "mean_ttft_ms",
    "Median TTFT (ms)": "median_ttft_ms",
    "Mean TPOT (ms)": "mean_tpot_ms",
    "Median TPOT (ms)": "median_tpot_ms",
    "Mean ITL (ms)": "mean_itl_ms",
    "Median ITL (ms)": "median_itl_ms",
}
_SERVING_LINE = re.compile(r"^\s{0,40}([A-Za-z][A-Za-z ()/]{2,60}?):\s{0,40}(\S{1,30})\s{0,40}$")
_HEADER = "Serving Benchmark Result"
_TEST = re.compile(r"^(pp|tg)\s?(\d{1,7})$")
_TPS = re.compile(r"^(\d{1,9}(?:\.\d{1,6})?)(?:\s{0,3}±\s{0,3}(\d{1,9}(?:\.\d{1,6})?))?$")
_SIZE = re.compile(r"^(\d{1,9}(?:\.\d{1,6})?)\s?(GiB|MiB|KiB|B)$")
_SIZE_UNITS = {"GiB": GIB, "MiB": MIB, "KiB": 1024, "B": 1}
MAX_BENCH_CHARS = 1_000_000


@dataclass(frozen=True, slots=True)
class BenchRow:
    """One ``llama-bench`` row.

    Attributes
    ----------
    model : str
        The ``model`` column ("llama 7B Q4_0": architecture, size class, GGUF type).
    size_bytes : int
        The ``size`` column, bytes (llama-bench prints GiB / MiB, binary).
    params : float
        The ``params`` column, in units of 10^9.
    backend : str
        CUDA, Vulkan, Metal, ...
    kind : str
        ``pp`` (prompt processing) or ``tg`` (text generation).
    tokens : int
        Its token count (512 of ``pp512``).
    tokens_per_s, stdev : float
        The ``t/s`` column: mean and standard deviation.
    settings : dict
        The other columns (``n_ubatch``, ``fa``, ``nkvo`` ...), as printed.
    """

    model: str
    size_bytes: int
    params: float
    backend: str
    kind: str
    tokens: int
    tokens_per_s: float
    stdev: float
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def weight_type(self) -> str:
        """The GGUF type the model column ends with ("Q4_0", "F16", "Q4_K - Medium" -> Q4_K_M)."""
        parts = self.model.split()
        medium = re.search(r"(Q\d_K) - (Small|Medium|Large)", self.model)
        if medium:
            return f"{medium[1]}_{medium[2][0]}"
        return parts[-1] if parts else ""

    @property
    def label(self) -> str:
        """``tg128 llama 7B Q4_0``."""
        return f"{self.kind}{self.tokens} {self.model}"


@dataclass(frozen=True, slots=True)
class ServingResult:
    """A serving benchmark's summary: the figures by :data:`_SERVING` key (floats)."""

    figures: dict[str, float]

    def get(self, key: str) -> float | None:
        """The figure ``key``, or None."""
        return self.figures.get(key)


def parse_llama_bench(text: str) -> list[BenchRow]:
    """Every row of the ``llama-bench`` markdown tables in ``text`` (empty when none).

    Columns are found by their header names, so added columns (``n_batch``, ``fa``, ``nkvo``,
    ``threads``) are kept in ``settings``; a row whose ``test`` is neither ``ppN`` nor ``tgN``
    (``pp4096+tg128``) is skipped.
    """
    rows: list[BenchRow] = []
    header: list[str] | None = None
    for raw in text[:MAX_BENCH_CHARS].splitlines():
        line = raw.strip()
        if not (line.startswith("|") and line.endswith("|")):
            header = None
            continue
        cells = [c.strip() for c in line[1:-1].split("|")]
        if "model" in cells and "test" in cells and "t/s" in cells:
            header = cells
            continue
        if header is None or len(cells) != len(header) or set(line) <= set("|-: "):
            continue
        row = dict(zip(header, cells, strict=True))
        parsed = _bench_row(row)
        if parsed is not None:
            rows.append(parsed)
    return rows


def _bench_row(row: dict[str, str]) -> BenchRow | None:
    test = _TEST.match(row["test"])
    tps = _TPS.match(row["t/s"])
    size = _SIZE.match(row.get("size", ""))
    if not (test and tps and size):
        return None
    params = re.match(r"^(\d{1,9}(?:\.\d{1,6})?)\s?B$", row.get("params", ""))
    known = {"model", "size", "params", "backend", "test", "t/s"}
    return BenchRow(
        model=row["model"],
        size_bytes=round(float(size[1]) * _SIZE_UNITS[size[2]]),
        params=float(params[1]) if params else 0.0,
        backend=row.get("backend", ""),
        kind=test[1],
        tokens=int(test[2]),
        tokens_per_s=float(tps[1]),
        stdev=float(tps[2] or 0),
        settings={k: v for k, v in row.items() if k not in known},
    )


def parse_serving(text: str) -> ServingResult | None:
    """The first serving summary in ``text`` (None when it has no "Serving Benchmark Result").

    "Maximum request concurrency" is printed just above the block by older scripts and
    inside it by newer ones: both are read. Values that are not numbers ("not set", "inf")
    are left out.
    """
    lines = text[:MAX_BENCH_CHARS].splitlines()
    start = next((i for i, line in enumerate(lines) if _HEADER in line), None)
    if start is None:
        return None
    figures: dict[str, float] = {}
    for line in lines[max(0, start - 4) :]:
        if line.startswith("=" * 10) and figures and _HEADER not in line:
            break
        match = _SERVING_LINE.match(line)
        if match and match[1] in _SERVING:
            try:
                value = float(match[2])
            except ValueError:
                continue
            if math.isfinite(value):
                figures.setdefault(_SERVING[match[1]], value)
    return ServingResult(figures)


def detect(text: str) -> str | None:
    """``"llama-bench"``, ``"serving"`` or None: which benchmark output ``text`` holds."""
    if parse_llama_bench(text):
        return "llama-bench"
    serving = parse_serving(text)
    return "serving" if serving is not None and serving.figures else None


@dataclass(frozen=True, slots=True)
class FitPoint:
    """One measurement beside the expected figure before and after the fit (tokens/s).

    ``measured`` is per sequence for decode (``tgN``, vLLM TPOT) and prompt tokens/s for
    prefill; ``ceiling`` is the roofline figure of the same quantity.
    """

    label: str
    measured: float
    before: float
    after: float
    ceiling: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class BenchFit:
    """The constants fitted to a benchmark, and each measurement before and after."""

    source: str
    gpu: str
    before: Any  # SpeedConstants
    after: Any  # SpeedConstants
    points: tuple[FitPoint, ...]
    notes: tuple[str, ...]

    def constants_dict(self) -> dict[str, Any]:
        """The fitted constants as :func:`constants_from_dict` reads them."""
        return dataclasses.asdict(self.after)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the constants before and after, the points, the notes."""
        return {
            "benchmark": self.source,
            "gpu": self.gpu,
            "speed_constants_before": dataclasses.asdict(self.before),
            "speed_constants": self.constants_dict(),
            "points": [p.to_dict() for p in self.points],
            "notes": list(self.notes),
        }

    def lines(self) -> list[str]:
        """The fit as the command line prints it."""
        b, a = self.before, self.after
        out = [
            f"{self.source} on {self.gpu}: expected-speed constants fitted "
            f"({len(self.points)} measurement{'' if len(self.points) == 1 else 's'})",
            f"  {'measurement':<34}{'measured':>10}{'before':>10}{'after':>10}{'ceiling':>10}",
        ]
        for p in self.points:
            out.append(
                f"  {p.label[:34]:<34}{p.measured:>10,.1f}{p.before:>10,.1f}{p.after:>10,.1f}"
                f"{p.ceiling:>10,.1f}  tokens/s"
            )
        out.append(f"  {'constant':<34}{'before':>10}{'after':>10}")
        for name in (
            "bandwidth_efficiency",
            "fixed_step_s",
            "compute_efficiency_max",
            "quantized_compute_efficiency_max",
            "chunk_tokens",
        ):
            out.append(f"  {name:<34}{getattr(b, name):>10.4g}{getattr(a, name):>10.4g}")
        out += [f"  note: {n}" for n in self.notes]
        return out


def constants_from_dict(data: Any) -> Any:
    """A ``SpeedConstants`` from ``data``: its fields, or a calibrate ``--json`` output.

    Raises
    ------
    InputError
        ``speed_constants``: not an object of the constants' fields, or a value out of range.
    """
    # on first use: the speed model loads only when constants are read
    from vramdesk.core.terms.speed_model import SpeedConstants

    if isinstance(data, dict) and isinstance(data.get("speed"), dict):
        data = data["speed"]
    if isinstance(data, dict) and isinstance(data.get("speed_constants"), dict):
        data = data["speed_constants"]
    names = [f.name for f in dataclasses.fields(SpeedConstants)]
    if (
        not isinstance(data, dict)
        or set(data) - set(names)
        or set(names) - {"fitted_on"} - set(data)
    ):
        raise InputError(
            "speed_constants",
            f"must be an object with the fields {', '.join(names)} (a calibrate --json output)",
            "invalid",
        )
    values = {**data, "fitted_on": str(data.get("fitted_on", "a user's file"))}
    for name in (
        "bandwidth_efficiency",
        "compute_efficiency_max",
        "quantized_compute_efficiency_max",
    ):
        v = values[name]
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v <= 1:
            raise InputError("speed_constants", f"{name} must be in (0, 1], got {v!r}", "range")
    for name in ("half_tokens", "chunk_tokens"):
        v = values[name]
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InputError("speed_constants", f"{name} must be a whole number >= 1", "range")
    v = values["fixed_step_s"]
    if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v < 10:
        raise InputError("speed_constants", "fixed_step_s must be in [0, 10) seconds", "range")
    return SpeedConstants(**values)


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _clamp(value: float, name: str, notes: list[str], top: float = 1.0) -> float:
    if value > top:
        notes.append(f"{name} {value:.3g} fitted, kept at {top:g} (a measurement above the model)")
        return top
    if value <= 0:
        notes.append(f"{name} {value:.3g} fitted, kept at 0.01 (a measurement below the model)")
        return 0.01
    return value


def _report(model: Any, weights: Any, workload: Any, engine: Any, gpu: Any, c: Any) -> Any:
    """The speed report for one benchmark scenario (:func:`vramdesk.core.speed.speed`)."""
    # on first use: the estimate and speed model load only when a benchmark is fitted
    from vramdesk.core.estimate import estimate
    from vramdesk.core.model.runtime import Runtime
    from vramdesk.core.speed import SpeedReport, speed

    runtime = Runtime(engine=engine)
    report = speed(model, weights, workload, runtime, estimate(model, weights, workload, runtime),
                   gpu, c)  # fmt: skip
    if not isinstance(report, SpeedReport):
        raise InputError("gpu", report.lines()[0], "no_speed_facts")
    return report


def fit_llama_bench(
    rows: list[BenchRow], model: Any, gpu: Any, weights: Any | None = None
) -> BenchFit:
    """Fit llama.cpp's constants to ``llama-bench`` rows of ``model`` on ``gpu`` (module doc).

    Parameters
    ----------
    rows : list of BenchRow
        The table's ``tgN`` and ``ppN`` rows.
    model : ModelSpec
        The benchmarked model (each row's weight type from its ``model`` column).
    gpu : GpuSpec
        A catalog GPU with bandwidth and peaks.
    weights : WeightSpec, optional
        One weight format for every row instead of the rows' own types.

    Raises
    ------
    InputError
        ``bench``: no tg or pp row; ``weights``: a row's type is unknown; ``gpu``: no speed facts.
    """
    # on first use: the speed model loads only when a benchmark is fitted
    from vramdesk.core.model.formats import WeightFormat, WeightSpec
    from vramdesk.core.model.runtime import Engine
    from vramdesk.core.model.workload import Workload
    from vramdesk.core.terms.speed_model import LLAMA_CPP

    base, notes = LLAMA_CPP, []
    rows = _modelled_rows(rows, model, notes)
    if not rows:
        raise InputError("bench", "holds no llama-bench pp/tg row vramdesk models", "no_figures")

    def scenario(row: BenchRow, c: Any) -> Any:
        w = weights or WeightSpec(WeightFormat.parse(row.weight_type))
        wl = Workload(context_tokens=row.tokens, batch=1, prompt_len=row.tokens)
        return _report(model, w, wl, Engine.LLAMA_CPP, gpu, c)

    ubatch = {int(r.settings["n_ubatch"]) for r in rows if r.settings.get("n_ubatch", "").isdigit()}
    chunk = ubatch.pop() if len(ubatch) == 1 else base.chunk_tokens
    start = dataclasses.replace(base, chunk_tokens=chunk)
    reports = [(r, scenario(r, start)) for r in rows]
    bw = reports[0][1].bandwidth_gb_s * 1e9
    current = start
    for _ in range(8):  # fixed point: decode terms, then compute terms, each with the other's
        step_notes: list[str] = []
        eff, fixed = _fit_decode_rows(reports, current, bw, step_notes)
        tops = _fit_prefill_rows(reports, eff, fixed, current, bw, step_notes)
        current = dataclasses.replace(
            current,
            bandwidth_efficiency=eff,
            fixed_step_s=fixed,
            compute_efficiency_max=_clamp(
                _geomean(tops[False]), "compute_efficiency_max", step_notes
            )
            if tops[False]
            else base.compute_efficiency_max,
            quantized_compute_efficiency_max=_clamp(
                _geomean(tops[True]), "quantized_compute_efficiency_max", step_notes
            )
            if tops[True]
            else base.quantized_compute_efficiency_max,
        )
    notes += step_notes
    after = dataclasses.replace(
        current,
        fitted_on=f"{len(rows)} llama-bench rows on {gpu.name} (vramdesk calibrate)",
    )
    points = []
    for r, rep in reports:
        new = scenario(r, after)
        if r.kind == "tg":
            points.append(
                FitPoint(
                    r.label,
                    r.tokens_per_s,
                    rep.decode_tokens_per_s,
                    new.decode_tokens_per_s,
                    rep.decode_ceiling_tokens_per_s,
                )
            )
        else:
            points.append(
                FitPoint(
                    r.label,
                    r.tokens_per_s,
                    rep.prefill_tokens_per_s,
                    new.prefill_tokens_per_s,
                    rep.prefill_ceiling_tokens_per_s,
                )
            )
    return BenchFit("llama-bench", gpu.name, base, after, tuple(points), tuple(notes))


def _decode_compute_s(rep: Any, c: Any) -> float:
    """Seconds the compute term of ``rep``'s decode step takes under constants ``c``."""
    eff = c.compute_efficiency(rep.decode.tokens, rep.quantized)
    return rep.decode.flops / (eff * rep.peak_tflops * 1e12)


def _fit_decode_rows(
    reports: list[tuple[BenchRow, Any]], c: Any, bw: float, notes: list[str]
) -> tuple[float, float]:
    """``(bandwidth_efficiency, fixed_step_s)`` from the tg rows under constants ``c``.

    Rows whose step is memory-bound fit the line ``t = fixed + bytes / (eff * bw)``; when
    every tg row is compute-bound under ``c``, ``fixed = mean(t - compute)``.
    """
    tg = [(r, rep) for r, rep in reports if r.kind == "tg"]
    memory = [
        (rep.decode.bytes_read, 1 / r.tokens_per_s)
        for r, rep in tg
        if _decode_compute_s(rep, c) < rep.decode.bytes_read / (c.bandwidth_efficiency * bw)
    ]
    if tg and not memory:
        fixed = sum(1 / r.tokens_per_s - _decode_compute_s(rep, c) for r, rep in tg) / len(tg)
        notes.append("every tg row is compute-bound here: bandwidth efficiency kept")
        return c.bandwidth_efficiency, max(0.0, fixed)
    return _fit_decode(memory, c, bw, notes)


def _fit_prefill_rows(
    reports: list[tuple[BenchRow, Any]], eff: float, fixed: float, c: Any, bw: float,
    notes: list[str],
) -> dict[bool, list[float]]:  # fmt: skip
    """Each pp row's ``efficiency_max`` (by quantized or not) given the decode terms."""
    tops: dict[bool, list[float]] = {False: [], True: []}
    for r, rep in reports:
        if r.kind != "pp":
            continue
        steps = max(1, math.ceil(r.tokens / c.chunk_tokens))
        m = min(r.tokens, c.chunk_tokens)
        per_step = r.tokens / r.tokens_per_s / steps - fixed
        if per_step <= rep.prefill.bytes_read / (eff * bw):
            notes.append(f"{r.label}: memory-bound here, sets no compute efficiency")
            continue
        eff_m = rep.prefill.flops / steps / (per_step * rep.peak_tflops * 1e12)
        tops[rep.quantized].append(eff_m * (m + c.half_tokens) / m)
    return tops


def _modelled_rows(rows: list[BenchRow], model: Any, notes: list[str]) -> list[BenchRow]:
    """The rows run as vramdesk models them: every layer on the GPU, the KV cache there too.

    ``nkvo 1`` (KV cache in host memory) and ``ngl`` below the model's layers are left out,
    each with a note.
    """
    kept = []
    for r in rows:
        ngl = r.settings.get("ngl", "")
        if r.settings.get("nkvo", "0") not in ("0", ""):
            notes.append(
                f"{r.label} with nkvo {r.settings['nkvo']} left out (KV cache on the host)"
            )
        elif ngl.isdigit() and int(ngl) < model.num_hidden_layers:
            notes.append(f"{r.label} with ngl {ngl} left out (layers on the host)")
        else:
            kept.append(r)
    return kept


def _fit_decode(
    points: list[tuple[int, float]], base: Any, bw: float, notes: list[str]
) -> tuple[float, float]:
    """``(bandwidth_efficiency, fixed_step_s)`` from ``(bytes, seconds)`` decode steps."""
    if not points:
        notes.append("no tg row: bandwidth efficiency and fixed cost kept")
        return base.bandwidth_efficiency, base.fixed_step_s
    xs = [float(b) for b, _ in points]
    ts = [t for _, t in points]
    if len(points) >= 2 and max(xs) > 1.1 * min(xs):
        mx, mt = sum(xs) / len(xs), sum(ts) / len(ts)
        slope = sum((x - mx) * (t - mt) for x, t in zip(xs, ts, strict=True)) / sum(
            (x - mx) ** 2 for x in xs
        )
        if slope > 0:
            eff = _clamp(1 / (slope * bw), "bandwidth_efficiency", notes)
            fixed = sum(t - x / (eff * bw) for x, t in zip(xs, ts, strict=True)) / len(xs)
            if fixed < 0:
                notes.append(f"fixed_step_s {fixed * 1e3:.3g} ms fitted, kept at 0")
            return eff, max(0.0, fixed)
        notes.append("tg rows do not slow with size: bandwidth efficiency kept")
    eff = base.bandwidth_efficiency
    fixed = sum(t - x / (eff * bw) for x, t in zip(xs, ts, strict=True)) / len(xs)
    if fixed < 0:
        notes.append(f"fixed_step_s {fixed * 1e3:.3g} ms fitted, kept at 0")
    return eff, max(0.0, fixed)


def fit_serving(
    result: ServingResult, model: Any, weights: Any, gpu: Any, engine: Any,
    batch: int | None = None,
) -> BenchFit:  # fmt: skip
    """Fit vLLM's (or SGLang's) bandwidth efficiency to a serving summary (module doc).

    Parameters
    ----------
    result : ServingResult
        The summary: "Total input/generated tokens", "Successful requests", a TPOT or the
        output throughput, and the concurrency.
    model, weights : ModelSpec, WeightSpec
        What was served.
    gpu : GpuSpec
        One catalog GPU (tensor parallelism is not modelled here).
    engine : Engine
        Whose constants are refitted.
    batch : int, optional
        The concurrency when the summary prints none (``--max-num-seqs`` of an unlimited run).

    Raises
    ------
    InputError
        ``bench``: a figure the fit needs is missing; ``batch``: no concurrency known.
    """
    # on first use: the speed model loads only when a benchmark is fitted
    from vramdesk.core.model.workload import Workload
    from vramdesk.core.terms.speed_model import constants_for

    base, notes = constants_for(engine), []
    n = result.get("successful_requests")
    tokens_in, tokens_out = result.get("total_input_tokens"), result.get("total_output_tokens")
    if not n or tokens_in is None or not tokens_out:
        raise InputError(
            "bench",
            "the summary needs 'Successful requests', 'Total input tokens' and "
            "'Total generated tokens'",
            "no_figures",
        )
    concurrency = result.get("max_concurrency")
    b = int(concurrency) if concurrency else batch
    if not b or b < 1:
        raise InputError(
            "batch",
            "the summary prints no 'Maximum request concurrency': give --batch (the server's "
            "--max-num-seqs for an unlimited run)",
            "required",
        )
    if concurrency and batch and batch != int(concurrency):
        notes.append(
            f"using the summary's concurrency {int(concurrency)} (you gave --batch {batch})"
        )
    tpot = result.get("median_tpot_ms") or result.get("mean_tpot_ms")
    if tpot:
        step, how = tpot / 1e3, "median TPOT" if result.get("median_tpot_ms") else "mean TPOT"
    elif result.get("output_throughput"):
        step, how = b / result.get("output_throughput"), f"{b} / output throughput"
        notes.append("no TPOT printed: the step is concurrency / output throughput "
                     "(prefills interleaved with decode are counted in)")  # fmt: skip
    else:
        raise InputError("bench", "the summary has no TPOT and no output throughput", "no_figures")
    context = max(1, round((tokens_in + tokens_out / 2) / n))
    wl = Workload(context_tokens=context, batch=b, prompt_len=max(1, round(tokens_in / n)))
    rep = _report(model, weights, wl, engine, gpu, base)
    if rep.decode_roof.bound != "memory bandwidth":
        notes.append("the step's ceiling is compute-bound: the fitted bandwidth efficiency "
                     "also carries the compute shortfall")  # fmt: skip
    moving = step - base.fixed_step_s
    if moving > 0:
        share = rep.decode.bytes_read / (rep.bandwidth_gb_s * 1e9 * moving)
        eff = _clamp(share, "bandwidth_efficiency", notes)
    else:
        eff = base.bandwidth_efficiency
    notes.append(f"step {step * 1e3:.2f} ms from the {how}, {b} sequences at their mean "
                 f"context {context:,} tokens; TTFT not used (it includes queueing)")  # fmt: skip
    after = dataclasses.replace(
        base, bandwidth_efficiency=eff,
        fitted_on=f"a serving benchmark on {gpu.name} (vramdesk calibrate)",
    )  # fmt: skip
    new = _report(model, weights, wl, engine, gpu, after)
    point = FitPoint(f"decode of {b} sequences, each", 1 / step,
                     rep.decode_tokens_per_s, new.decode_tokens_per_s,
                     rep.decode_ceiling_tokens_per_s)  # fmt: skip
    return BenchFit("serving benchmark", gpu.name, base, after, (point,), tuple(notes))
