"""Turn seed-figures.json inputs into core inputs and into CLI arguments.

Shared by the core and CLI seed tests so both read the same data file and
build the same scenario. Tolerance for a figure printed to 4 decimals: half a
unit of the last digit.
"""

from __future__ import annotations

from fractions import Fraction

from vramdesk.core import (
    GB,
    GIB,
    KVDtype,
    ModelSpec,
    OverheadForm,
    Runtime,
    WeightFormat,
    WeightSpec,
    Workload,
)

HALF_4DP = 0.00005  # half of the last printed digit of a 4-decimal figure
CLASS_SHAPES = {
    "7B": (7, 32, 32),
    "13B": (13, 40, 40),
    "70B": (70, 80, 8),
}  # params_b, layers, kv_heads


def close_4dp(value_bytes: int, expected: float, unit: int = GIB) -> bool:
    return abs(value_bytes / unit - expected) <= HALF_4DP


def model(inputs: dict) -> ModelSpec:
    return ModelSpec(
        num_hidden_layers=inputs.get("layers", 32),
        num_key_value_heads=inputs.get("kv_heads", 32),
        head_dim=inputs.get("head_dim", 128),
        num_attention_heads=inputs.get("heads"),
        params=round(Fraction(str(inputs.get("params_b", 7))) * 10**9),
        hidden_size=inputs.get("hidden"),
        intermediate_size=inputs.get("intermediate"),
    )


def workload(inputs: dict, **extra) -> Workload:
    kv = KVDtype.parse(inputs.get("kv_dtype", "fp16"))
    return Workload(
        context_tokens=inputs.get("context", 1), batch=inputs.get("batch", 1), kv_dtype=kv, **extra
    )


def runtime(inputs: dict, **extra) -> Runtime:
    rt = Runtime(**extra)
    if "util" in inputs:
        rt = rt.replace(gpu_memory_utilization=Fraction(str(inputs["util"])))
    if "fixed_gib" in inputs:
        rt = rt.replace(fixed_overhead_bytes=round(Fraction(str(inputs["fixed_gib"])) * GIB))
    if "overhead_factor" in inputs:
        rt = rt.replace(overhead_factor=Fraction(str(inputs["overhead_factor"])))
    return rt


#: The source documents' "int4" is the idealized 0.5 byte per parameter on every tensor;
#: vramdesk's ``int4`` is the real AWQ/GPTQ layout (g128 scales, 16-bit embeddings), so the
#: seed figures use the named idealized format ``int4-ideal`` (issue 9).
SEED_FORMATS = {"int4": "int4-ideal"}


def seed_format(fmt: str) -> str:
    """The vramdesk format name of a seed case's ``weights`` (``int4`` -> ``int4-ideal``)."""
    return SEED_FORMATS.get(fmt, fmt)


def weights(fmt: str) -> WeightSpec:
    return WeightSpec(WeightFormat.parse(seed_format(fmt)))


def class_model(name: str) -> ModelSpec:
    params_b, layers, kv = CLASS_SHAPES[name]
    return ModelSpec(
        num_hidden_layers=layers, num_key_value_heads=kv, head_dim=128, params=params_b * 10**9
    )


def workspace_runtime() -> Runtime:
    return Runtime(overhead=OverheadForm.WORKSPACE, workspace_fraction=Fraction(5, 100))


def cli_args(inputs: dict) -> list[str]:
    """``vramdesk estimate``/``solve`` model and workload options for a seed case's inputs."""
    args = [
        "--params-b",
        str(inputs.get("params_b", 7)),
        "--layers",
        str(inputs.get("layers", 32)),
        "--kv-heads",
        str(inputs.get("kv_heads", 32)),
        "--head-dim",
        str(inputs.get("head_dim", 128)),
        "--context",
        str(inputs.get("context", 1)),
        "--batch",
        str(inputs.get("batch", 1)),
        "--kv-dtype",
        inputs.get("kv_dtype", "fp16"),
    ]
    for key, flag in (
        ("heads", "--heads"),
        ("weights", "--weights"),
        ("util", "--util"),
        ("fixed_gib", "--fixed-gib"),
        ("overhead_factor", "--overhead-factor"),
        ("vram_gib", "--vram-gib"),
    ):
        if key in inputs:
            value = seed_format(inputs[key]) if key == "weights" else inputs[key]
            args += [flag, str(value)]
    return args


__all__ = [
    "GB",
    "GIB",
    "HALF_4DP",
    "class_model",
    "cli_args",
    "close_4dp",
    "model",
    "runtime",
    "seed_format",
    "weights",
    "workload",
    "workspace_runtime",
]
