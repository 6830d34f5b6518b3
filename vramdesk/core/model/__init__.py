"""The inputs of an estimate.

ModelSpec and its per-layer description, parameter counting, formats and GGUF recipes,
workload, runtime, and the scenario built from plain options.
"""
