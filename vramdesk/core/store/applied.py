"""Applying a user preset: one rule for the window's Load, its model picker and the CLI.

A preset sets every part it holds and leaves the others as they are: a model preset its
model and weight format; a workload or runtime preset that part; a scenario preset its model,
weights, workload, runtime (engine, engine version and every knob) and, from schema 2
(``_preset_file.SCHEMA_VERSION``), its target GPU. :func:`applied_preset` reads what a
preset sets; the window's :meth:`vramdesk.core.session.ScenarioSession.load_preset` loads
it in one computation, wherever the preset was picked (the Model picker or "Load"), and the
command line's :func:`vramdesk.core.model.scenario.scenario_from_args` builds on it, every
flag typed overriding the preset's value of that field.

A scenario saved before schema 2 holds no target. What is assumed then: the target already
chosen stays (the window's GPU; on the command line the ``--gpu``/``--vram-gib`` given, or
none); :attr:`AppliedPreset.lacks_target` is true, and the window says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vramdesk.core.model.target import Target
from vramdesk.core.store.presets import UserPreset, scenario_parts

#: The input parts a preset may hold, in the order the estimate takes them.
INPUT_PARTS = ("model", "weights", "workload", "runtime")


@dataclass(frozen=True, slots=True)
class AppliedPreset:
    """What applying one user preset sets.

    Attributes
    ----------
    name : str
        The preset's name (the model's name in titles while its model is loaded).
    kind : str
        ``model``, ``workload``, ``runtime`` or ``scenario``.
    parts : Mapping[str, Any]
        The input parts it holds, parsed: ``"model"`` (ModelSpec), ``"weights"``
        (WeightSpec), ``"workload"`` (Workload), ``"runtime"`` (Runtime); only those held.
    target : Target or None
        The target GPU it holds (None: none; the one chosen stays).
    """

    name: str
    kind: str
    parts: Mapping[str, Any] = field(default_factory=dict)
    target: Target | None = None

    @property
    def lacks_target(self) -> bool:
        """A scenario saved without a target GPU (schema 1): the target chosen is kept."""
        return self.kind == "scenario" and self.target is None

    def get(self, part: str) -> Any:
        """The part held (``"model"``, ..., ``"runtime"``), None when the preset lacks it."""
        return self.parts.get(part)


def applied_preset(user: UserPreset) -> AppliedPreset:
    """What applying the user preset ``user`` sets (see the module docstring).

    Raises
    ------
    InputError
        A part of the file is invalid (named by its key); a preset read by the store has
        been checked already, so this does not happen for one from ``PresetStore.list``.
    """
    parsed = scenario_parts(user)
    parts = {p: parsed[p] for p in INPUT_PARTS if p in parsed}
    return AppliedPreset(user.name, user.kind, parts, parsed.get("target"))


__all__ = ["INPUT_PARTS", "AppliedPreset", "applied_preset"]
