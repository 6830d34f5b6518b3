"""The ``VRAMDESK_FAKE_NVML`` debug hook behind :func:`vramdesk.core.local.nvml.query_gpus`.

``error:<kind>`` raises that :class:`~vramdesk.core.local.gpu_info.GpuQueryError`; any other value
is the path of a JSON file in the format of :func:`~vramdesk.core.local.nvml.snapshot_to_dict`.
The file is untrusted: at most :data:`MAX_FAKE_BYTES`, every field type-checked, no
unknown field; a bad file raises ``GpuQueryError`` of kind ``"unknown"`` naming the variable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vramdesk.core.files import NumberTooLongError, loads_json, open_file
from vramdesk.core.local.gpu_info import (
    ERROR_KINDS,
    FAKE_ENV,
    GpuInfo,
    GpuProcess,
    GpuQueryError,
    MigInstance,
    NvmlSnapshot,
)

#: The largest fake file read, bytes.
MAX_FAKE_BYTES = 1 << 20

_INT, _STR = (int,), (str,)
_OPT = type(None)
# field -> (accepted types, required)
_SNAPSHOT = {
    "driver_version": (_STR, True),
    "nvml_version": (_STR, True),
    "cuda_driver_version": ((int, _OPT), False),
    "gpus": ((list,), True),
}
_GPU = {
    "index": (_INT, True),
    "name": (_STR, True),
    "uuid": (_STR, False),
    "total_bytes": (_INT, True),
    "used_bytes": (_INT, True),
    "free_bytes": (_INT, True),
    "reserved_bytes": ((int, _OPT), False),
    "mig_mode": ((bool, _OPT), False),
    "mig_note": ((str, _OPT), False),
    "mig_instances": ((list,), False),
    "processes": ((list,), False),
    "processes_note": ((str, _OPT), False),
    "memory_clock_mhz": ((int, _OPT), False),
    "memory_bus_width_bits": ((int, _OPT), False),
}
_MIG = {
    "index": (_INT, True),
    "uuid": (_STR, False),
    "total_bytes": (_INT, True),
    "used_bytes": (_INT, True),
    "free_bytes": (_INT, True),
}
_PROCESS = {"pid": (_INT, True), "used_bytes": ((int, _OPT), False), "name": ((str, _OPT), False)}


def fake_snapshot(value: str) -> NvmlSnapshot:
    """Return the snapshot (or raise the error) that ``VRAMDESK_FAKE_NVML=value`` asks for.

    Raises
    ------
    GpuQueryError
        The requested kind for ``error:<kind>``; kind ``"unknown"`` for a bad value or file.
    """
    if value.startswith("error:"):
        kind = value.removeprefix("error:").strip()
        if kind not in ERROR_KINDS:
            raise _bad(f"unknown error kind {kind!r} (one of {', '.join(ERROR_KINDS)})")
        raise GpuQueryError(kind)
    return _snapshot(_load(Path(value)))


def _bad(reason: str) -> GpuQueryError:
    return GpuQueryError("unknown", f"{FAKE_ENV}: {reason}")


def _load(path: Path) -> dict[str, Any]:

    try:
        with open_file(path) as f:
            raw = f.read(MAX_FAKE_BYTES + 1)
    except OSError as err:
        raise _bad(f"cannot read {path}: {err.strerror or err}") from None
    if len(raw) > MAX_FAKE_BYTES:
        raise _bad(f"{path} is larger than {MAX_FAKE_BYTES} bytes")
    try:
        return loads_json(raw.decode("utf-8"))
    except NumberTooLongError as err:
        raise _bad(f"{path} holds {err}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise _bad(f"{path} is not JSON: {err}") from None
    except RecursionError:
        raise _bad(f"{path} is nested too deeply") from None
    except ValueError:  # json's own number conversion, should the hooks not be reached
        raise _bad(f"{path} holds a number too long to read") from None


def _checked(
    data: Any, spec: dict[str, tuple[tuple[type, ...], bool]], where: str
) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise _bad(f"{where} must be an object")
    unknown = sorted(set(data) - set(spec))
    if unknown:
        raise _bad(f"{where}: unknown field {unknown[0]!r}")
    for name, (types, required) in spec.items():
        if name not in data:
            if required:
                raise _bad(f"{where}: missing field {name!r}")
            continue
        value = data[name]
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if not ok or (isinstance(value, int) and not isinstance(value, bool) and value < 0):
            raise _bad(f"{where}.{name}: {value!r} is not a valid value")
    return data


def _snapshot(data: Any) -> NvmlSnapshot:
    d = _checked(data, _SNAPSHOT, "snapshot")
    gpus = tuple(_gpu(g, f"gpus[{k}]") for k, g in enumerate(d["gpus"]))
    return NvmlSnapshot(d["driver_version"], d["nvml_version"], d.get("cuda_driver_version"), gpus)


def _gpu(data: Any, where: str) -> GpuInfo:
    d = dict(_checked(data, _GPU, where))
    d["mig_instances"] = tuple(
        MigInstance(**{"uuid": "", **_checked(m, _MIG, f"{where}.mig_instances")})
        for m in d.get("mig_instances", ())
    )
    d["processes"] = tuple(
        GpuProcess(**_checked(p, _PROCESS, f"{where}.processes")) for p in d.get("processes", ())
    )
    d.setdefault("uuid", "")
    if d["used_bytes"] + d["free_bytes"] > d["total_bytes"]:
        raise _bad(f"{where}: used_bytes + free_bytes exceeds total_bytes")
    return GpuInfo(**d)
