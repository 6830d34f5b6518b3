"""The docked panels and the views under the chart: GPUs, local models, presets, verdict."""
