"""Our speed ceilings and expected figures against published measurements (issue 25).

    .venv/bin/python tests/benchmarks/bench_speed.py          # the table, the band, the spread
    .venv/bin/python tests/benchmarks/bench_speed.py --fit    # refit the expected-speed constants

For every measurement of ``tests/data/speed-measurements.jsonl`` (each with its URL) it prints
the measured figure, our ceiling, our expected figure, measured / ceiling and measured /
expected; then, per engine and in all, the geometric mean and spread of measured / expected
and the band that holds every measurement. ``--fit`` searches a grid of the constants of
:mod:`vramdesk.core.terms.speed_model` for the least sum of squared log ratios, per engine
(llama.cpp on its measurements; vLLM on its own, few, with llama.cpp's compute terms), and
prints them to paste into that module. A benchmark: it prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.speed_cases import evaluate, measurements, report_for  # noqa: E402
from vramdesk.core.terms.speed_model import (  # noqa: E402
    LLAMA_CPP,
    VLLM,
    SpeedConstants,
    expected_prefill_s,
    expected_step_s,
)

ENGINE_CONSTANTS = {"llama.cpp": LLAMA_CPP, "vllm": VLLM}


def table() -> None:
    """Print every measurement beside our figures, then the band and spread per engine."""
    rows = [evaluate(c) for c in measurements()]
    head = f"{'id':<38} {'gpu':<13} {'kind':<8} {'measured':>9} {'ceiling':>9} {'expected':>9}"
    print(head + f" {'m/ceil':>7} {'m/exp':>6}")
    for e in rows:
        c = e.case
        print(
            f"{c['id']:<38} {c['gpu']:<13} {c['kind']:<8} {e.measured:>9,.1f} {e.ceiling:>9,.1f}"
            f" {e.expected:>9,.1f} {e.measured / e.ceiling:>7.2f} {e.ratio:>6.2f}"
        )
    groups = {"all": rows}
    for e in rows:
        groups.setdefault(f"{e.case['engine']} {e.case['kind']}", []).append(e)
    print("\nmeasured / expected (geometric mean, spread = geometric std factor, band = min-max):")
    for name, group in sorted(groups.items()):
        logs = [math.log(e.ratio) for e in group]
        mean = math.exp(statistics.fmean(logs))
        spread = math.exp(statistics.pstdev(logs)) if len(logs) > 1 else 1.0
        lo, hi = min(e.ratio for e in group), max(e.ratio for e in group)
        print(
            f"  {name:<20} n={len(group):<3} mean {mean:.2f}  spread x{spread:.2f}  "
            f"band {lo:.2f}-{hi:.2f}"
        )
    worst = max(e.measured / e.ceiling for e in rows)
    print(f"highest measured / ceiling: {worst:.2f} (a ceiling is never below a measurement)")


def _loss(points: list, c: SpeedConstants) -> float:
    total = 0.0
    for case, r in points:
        if case["kind"] == "prefill":
            t = expected_prefill_s(r.prefill, r.bandwidth_gb_s, r.peak_tflops, c, r.quantized)
            expected = r.prompt_tokens / t
        else:
            t = expected_step_s(r.decode, r.bandwidth_gb_s, r.peak_tflops, c, r.quantized)
            expected = (r.batch if case["kind"] == "batched" else 1) / t
        total += math.log(case["tokens_per_s"] / expected) ** 2
    return total


def fit() -> None:
    """Grid-search the constants per engine and print them."""
    cases = measurements()
    for engine, base in ENGINE_CONSTANTS.items():
        points = [(c, report_for(c, base)) for c in cases if c["engine"] == engine]
        if engine == "llama.cpp":
            grid = itertools.product(
                [x / 100 for x in range(60, 101, 5)],  # bandwidth efficiency
                [x / 4000 for x in range(0, 17)],  # fixed step, 0-4 ms by 0.25
                [x / 100 for x in range(20, 81, 5)],  # 16-bit compute efficiency
                [x / 100 for x in range(5, 51, 5)],  # quantized compute efficiency
                [1, 2, 4, 8, 16, 32],
            )
        else:  # few points: only the memory terms are fitted, the compute terms are llama.cpp's
            grid = (
                (
                    bw,
                    fx,
                    LLAMA_CPP.compute_efficiency_max,
                    LLAMA_CPP.quantized_compute_efficiency_max,
                    LLAMA_CPP.half_tokens,
                )
                for bw in [x / 100 for x in range(50, 101, 5)]
                for fx in [x / 4000 for x in range(0, 17)]
            )
        best = min(
            (
                _loss(
                    points,
                    dataclasses.replace(
                        base,
                        bandwidth_efficiency=bw,
                        fixed_step_s=fx,
                        compute_efficiency_max=ce,
                        quantized_compute_efficiency_max=cq,
                        half_tokens=h,
                    ),
                ),
                (bw, fx, ce, cq, h),
            )
            for bw, fx, ce, cq, h in grid
        )
        loss, (bw, fx, ce, cq, h) = best
        rms = math.exp(math.sqrt(loss / len(points)))
        print(
            f"{engine}: n={len(points)} bandwidth_efficiency={bw}, fixed_step_s={fx}, "
            f"compute_efficiency_max={ce}, quantized_compute_efficiency_max={cq}, "
            f"half_tokens={h}  (rms factor x{rms:.2f})"
        )


def main() -> None:
    """Parse ``--fit`` and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="refit the constants")
    if parser.parse_args().fit:
        fit()
    else:
        table()


if __name__ == "__main__":
    main()
