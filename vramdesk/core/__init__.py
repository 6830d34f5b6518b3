"""The vramdesk core: pure Python, no Qt.

Inputs are frozen dataclasses (:class:`ModelSpec`, :class:`WeightSpec`,
:class:`Workload`, :class:`Runtime`); :func:`estimate` gives a :class:`Breakdown`
and :func:`solve` a :class:`SolveResult`. Bytes are exact ints throughout.
"""

from vramdesk.core.errors import FileReadError, InputError, UnsupportedModelError, VramdeskError
from vramdesk.core.estimate import Breakdown, Part, estimate, kv_bytes_per_token
from vramdesk.core.model.formats import KVDtype, WeightFormat, WeightSpec, group_quant_bits
from vramdesk.core.model.runtime import Engine, MlaCache, OverheadForm, Runtime
from vramdesk.core.model.spec import (
    ModelSpec,
    ParamCount,
    count_params,
    sliding_layer_pattern,
    total_params,
)
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.advisor import Advice
from vramdesk.core.solve.result import SolveResult, vllm_style_lines
from vramdesk.core.solve.solver import fits_on, solve
from vramdesk.core.units import GB, GIB, MIB, Unit, format_bytes

__all__ = [
    "GB",
    "GIB",
    "MIB",
    "Advice",
    "Breakdown",
    "Engine",
    "FileReadError",
    "InputError",
    "KVDtype",
    "MlaCache",
    "ModelSpec",
    "OverheadForm",
    "ParamCount",
    "Part",
    "Runtime",
    "SolveResult",
    "Unit",
    "UnsupportedModelError",
    "VramdeskError",
    "WeightFormat",
    "WeightSpec",
    "Workload",
    "count_params",
    "estimate",
    "fits_on",
    "format_bytes",
    "group_quant_bits",
    "kv_bytes_per_token",
    "sliding_layer_pattern",
    "solve",
    "total_params",
    "vllm_style_lines",
]
