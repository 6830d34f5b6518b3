"""The vramdesk core: pure Python, no Qt.

Inputs are frozen dataclasses (:class:`ModelSpec`, :class:`WeightSpec`,
:class:`Workload`, :class:`Runtime`); :func:`estimate` gives a :class:`Breakdown`
and :func:`solve` a :class:`SolveResult`. Bytes are exact ints throughout.

Importing this package loads none of them: each name is imported from its module on first use
(:pep:`562`), so that a command that needs the error types alone (``vramdesk --help``, whose
parser imports :mod:`vramdesk.core.errors` and so this package) does not load the estimate,
the engines and the solver (about 45 ms, issue 24).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from vramdesk.core import _dataclass_code

# the methods dataclasses generates for vramdesk's classes, compiled once (issue 24)
_dataclass_code.install()

if TYPE_CHECKING:
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

#: name -> the module that defines it (each loaded on first use, see the module docstring)
_WHERE = {
    "FileReadError": "vramdesk.core.errors",
    "InputError": "vramdesk.core.errors",
    "UnsupportedModelError": "vramdesk.core.errors",
    "VramdeskError": "vramdesk.core.errors",
    "Breakdown": "vramdesk.core.estimate",
    "Part": "vramdesk.core.estimate",
    "estimate": "vramdesk.core.estimate",
    "kv_bytes_per_token": "vramdesk.core.estimate",
    "KVDtype": "vramdesk.core.model.formats",
    "WeightFormat": "vramdesk.core.model.formats",
    "WeightSpec": "vramdesk.core.model.formats",
    "group_quant_bits": "vramdesk.core.model.formats",
    "Engine": "vramdesk.core.model.runtime",
    "MlaCache": "vramdesk.core.model.runtime",
    "OverheadForm": "vramdesk.core.model.runtime",
    "Runtime": "vramdesk.core.model.runtime",
    "ModelSpec": "vramdesk.core.model.spec",
    "ParamCount": "vramdesk.core.model.spec",
    "count_params": "vramdesk.core.model.spec",
    "sliding_layer_pattern": "vramdesk.core.model.spec",
    "total_params": "vramdesk.core.model.spec",
    "Workload": "vramdesk.core.model.workload",
    "Advice": "vramdesk.core.solve.advisor",
    "SolveResult": "vramdesk.core.solve.result",
    "vllm_style_lines": "vramdesk.core.solve.result",
    "fits_on": "vramdesk.core.solve.solver",
    "solve": "vramdesk.core.solve.solver",
    "GB": "vramdesk.core.units",
    "GIB": "vramdesk.core.units",
    "MIB": "vramdesk.core.units",
    "Unit": "vramdesk.core.units",
    "format_bytes": "vramdesk.core.units",
}


class _Package(types.ModuleType):
    """The package, whose ``estimate`` and ``solve`` name the functions, never the submodules.

    Importing a submodule sets it as an attribute of its package; the functions re-exported
    here share two submodules' names. Imported eagerly, the function came last and won; here it
    is loaded on first use, so the submodule is kept from taking its name.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("estimate", "solve") and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    """The public name ``name``, imported from its module on first use and kept here."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'vramdesk.core' has no attribute {name!r}")
    # on first use: each name loads its own module only (see the module docstring)
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


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
