"""The target GPU a scenario is checked against, and its form in a scenario preset file.

A scenario preset (``vramdesk/core/store/_preset_file.py``, schema 2) keeps what the user
chose, never a derived capacity: a catalog GPU by name (its budget follows the engine, as
:meth:`vramdesk.core.store.bundled.GpuSpec.capacity_for` says), a custom budget in exact
bytes, or a local GPU by NVML index and which memory (total or free). The file form::

    {"gpu": "H100 80GB"}
    {"capacity_bytes": 85899345920}
    {"local_gpu": 0, "memory": "free"}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.limits import check_int
from vramdesk.core.store import bundled

DEFAULT_GPU = "RTX 4090"
#: Which memory of a local GPU a target reads.
LOCAL_MEMORY = ("total", "free")
#: The keys of each saved form, by target kind.
_SAVED_KEYS = {"gpu": {"gpu"}, "custom": {"capacity_bytes"}, "local": {"local_gpu", "memory"}}


@dataclass(frozen=True, slots=True)
class Target:
    """The GPU the estimate is checked against.

    ``kind`` is ``"gpu"`` (catalog ``name``), ``"custom"`` (``custom_bytes``) or
    ``"local"`` (NVML GPU ``local_index``, its ``which`` = ``"total"`` or ``"free"`` memory).
    """

    kind: str = "gpu"
    name: str = DEFAULT_GPU
    custom_bytes: int = 80 * 2**30
    local_index: int = 0
    which: str = "total"

    def key(self) -> str:
        """The picker key: ``gpu:NAME``, ``custom`` or ``local:INDEX:WHICH``."""
        if self.kind == "gpu":
            return f"gpu:{self.name}"
        if self.kind == "local":
            return f"local:{self.local_index}:{self.which}"
        return "custom"

    def with_key(self, key: str) -> Target:
        """The target a picker key names (see :meth:`key`), other settings kept.

        Raises
        ------
        InputError
            ``gpu``: no catalog GPU of that name.
        """
        kind, _, rest = key.partition(":")
        if kind == "gpu":
            bundled.find_gpu(rest)
            return dataclasses.replace(self, kind="gpu", name=rest)
        if kind == "local":
            index, _, which = rest.partition(":")
            return dataclasses.replace(
                self, kind="local", local_index=int(index), which=which or "total"
            )
        return dataclasses.replace(self, kind="custom")

    def validate(self) -> Target:
        """Check the fields of this target's kind; return ``self``.

        A catalog name is not looked up here: a file naming a GPU the catalog no longer
        has still loads (the name is refused where it is used, with the field named).

        Raises
        ------
        InputError
            ``target``: an unknown kind, an empty name, or an unknown local memory;
            ``budget_bytes``: a custom budget outside ``INT_LIMITS["budget_bytes"]``
            (1 B .. 2^60 B); ``local_gpu``: not a whole number of at least 0.
        """
        if self.kind not in _SAVED_KEYS:
            raise InputError("target", f"unknown target kind {self.kind!r}", "unknown_choice")
        if self.kind == "gpu" and not (isinstance(self.name, str) and self.name.strip()):
            raise InputError("target", "a catalog GPU needs a name", "required")
        if self.kind == "custom":
            check_int("budget_bytes", self.custom_bytes)
        if self.kind == "local":
            if isinstance(self.local_index, bool) or not isinstance(self.local_index, int):
                raise InputError("local_gpu", "must be a whole number", "not_int")
            if self.local_index < 0:
                raise InputError("local_gpu", "must be 0 or more", "too_small")
            if self.which not in LOCAL_MEMORY:
                raise InputError(
                    "target", f"memory must be total or free, got {self.which!r}", "unknown_choice"
                )
        return self

    def shown_name(self) -> str:
        """The target as an export names it: catalog name, ``custom`` or ``local GPU I (which)``.

        Used as the ``target_gpu`` of a breakdown export.
        """
        if self.kind == "gpu":
            return self.name
        if self.kind == "custom":
            return "custom"
        return f"local GPU {self.local_index} ({self.which})"

    def to_saved(self) -> dict[str, Any]:
        """The target as a scenario preset file keeps it (see the module docstring)."""
        if self.kind == "gpu":
            return {"gpu": self.name}
        if self.kind == "custom":
            return {"capacity_bytes": self.custom_bytes}
        return {"local_gpu": self.local_index, "memory": self.which}


def target_from_saved(data: Any) -> Target:
    """The :class:`Target` of a scenario preset file's ``target`` object (not validated).

    Raises
    ------
    InputError
        ``target``: not a JSON object, or not exactly the keys of one form (see the module
        docstring); a value of the wrong type, named by its key.
    """
    if not isinstance(data, dict):
        raise InputError("target", "must be a JSON object", "not_object")
    kind = next((k for k, keys in _SAVED_KEYS.items() if set(data) == keys), None)
    if kind is None:
        raise InputError(
            "target",
            'must be {"gpu": NAME}, {"capacity_bytes": N} or {"local_gpu": I, "memory": '
            f'"total"|"free"}}, got the keys {sorted(data)}',
            "invalid",
        )
    if kind == "gpu":
        if not isinstance(data["gpu"], str):
            raise InputError("gpu", f"must be text, got {data['gpu']!r}", "not_str")
        return Target(kind="gpu", name=data["gpu"])
    if kind == "custom":
        return Target(kind="custom", custom_bytes=data["capacity_bytes"])
    return Target(kind="local", local_index=data["local_gpu"], which=data["memory"])


__all__ = ["DEFAULT_GPU", "LOCAL_MEMORY", "Target", "target_from_saved"]
