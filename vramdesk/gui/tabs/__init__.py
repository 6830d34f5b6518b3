"""The tabs beside the chart: solver, fits, KV growth, compare."""
