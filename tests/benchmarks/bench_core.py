"""Benchmark of the core: how long one estimate and one solve take.

Run: ``python tests/benchmarks/bench_core.py``. Prints the median of repeated runs
and the ratio to a baseline measured in the same run (the bare KV formula
``2 * layers * kv_heads * head_dim * e * tokens`` in plain Python), so that the
numbers compare across machines. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import statistics
import time

from vramdesk.core import KVDtype, Runtime, WeightFormat, WeightSpec, Workload, estimate, solve
from vramdesk.core.store.bundled import find_model
from vramdesk.core.units import GIB


def _median_seconds(fn, repeat: int = 7, number: int = 50) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) / number)
    return statistics.median(runs)


def _bare_kv(layers: int, kv_heads: int, head_dim: int, e: int, tokens: int) -> int:
    return 2 * layers * kv_heads * head_dim * e * tokens


def main() -> None:
    """Print medians and ratios for a dense, a sliding-window and an MoE model."""
    shape = (80, 8, 128, 2, 8192 * 16)
    baseline = _median_seconds(lambda: _bare_kv(*shape), number=20000)
    print(f"baseline (bare KV formula): {baseline * 1e6:.3f} us")
    for name in ("70b-class", "llama-3.1-70b", "gemma-2-27b", "qwen3-30b-a3b", "deepseek-v3"):
        try:
            preset = find_model(name)
        except Exception:  # noqa: BLE001 - preset not bundled in this checkout
            continue
        wl = Workload(context_tokens=8192, batch=16, kv_dtype=KVDtype.FP16, prompt_len=2048)
        w, rt = WeightSpec(WeightFormat.INT4), Runtime()
        est = _median_seconds(lambda: estimate(preset.model, w, wl, rt))
        sol = _median_seconds(lambda: solve(preset.model, w, wl, rt, 80 * GIB), number=3)
        print(
            f"{name:<16} estimate {est * 1e6:9.1f} us ({est / baseline:8.0f}x baseline)   "
            f"solve {sol * 1e3:8.2f} ms ({sol / est:6.0f} estimates)"
        )


if __name__ == "__main__":
    main()
