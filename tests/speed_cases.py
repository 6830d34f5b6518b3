"""The published speed measurements of ``tests/data/speed-measurements.jsonl``, evaluated.

Each line is one published figure (its URL in ``url``): ``kind`` ``decode`` (tokens/s of one
sequence), ``batched`` (tokens/s of all ``batch`` sequences together) or ``prefill`` (prompt
tokens/s for ``prompt`` tokens), on a catalog GPU, for a bundled model preset (or a model
object), a weight format and an engine. :func:`evaluate` gives our ceiling and expected
figure for the same quantity; the tests and ``tests/benchmarks/bench_speed.py`` read them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.speed import SpeedReport, speed
from vramdesk.core.store.bundled import bundled_model, find_gpu
from vramdesk.core.store.serialize import from_dict
from vramdesk.core.terms.speed_model import SpeedConstants

MEASUREMENTS = Path(__file__).resolve().parent / "data" / "speed-measurements.jsonl"


def measurements() -> list[dict[str, Any]]:
    """Every measurement, in file order."""
    lines = MEASUREMENTS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@dataclass(frozen=True)
class Evaluated:
    """One measurement beside our ceiling and expected figure (tokens/s)."""

    case: dict[str, Any]
    measured: float
    ceiling: float
    expected: float
    report: SpeedReport

    @property
    def ratio(self) -> float:
        """measured / expected."""
        return self.measured / self.expected


def _model(value: Any) -> ModelSpec:
    return bundled_model(value).model if isinstance(value, str) else from_dict(ModelSpec, value)


def report_for(case: dict[str, Any], constants: SpeedConstants | None = None) -> SpeedReport:
    """Our :class:`SpeedReport` for the scenario a measurement ran."""
    model = _model(case["model"])
    weights = WeightSpec(WeightFormat.parse(case["weights"]))
    workload = Workload(
        context_tokens=case["context"], batch=case["batch"], prompt_len=case.get("prompt")
    )
    runtime = Runtime(engine=Engine.parse(case["engine"]))
    breakdown = estimate(model, weights, workload, runtime)
    report = speed(model, weights, workload, runtime, breakdown, find_gpu(case["gpu"]), constants)
    assert isinstance(report, SpeedReport), case["id"]
    return report


def evaluate(case: dict[str, Any], constants: SpeedConstants | None = None) -> Evaluated:
    """The measurement's figure with our ceiling and expected figure of the same quantity."""
    r = report_for(case, constants)
    kind = case["kind"]
    if kind == "decode":
        ceiling, expected = r.decode_ceiling_tokens_per_s, r.decode_tokens_per_s
    elif kind == "batched":
        ceiling, expected = r.aggregate_ceiling_tokens_per_s, r.aggregate_decode_tokens_per_s
    else:
        ceiling, expected = r.prefill_ceiling_tokens_per_s, r.prefill_tokens_per_s
    return Evaluated(case, float(case["tokens_per_s"]), ceiling, expected, r)
