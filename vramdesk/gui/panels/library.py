"""The user's preset library as the window sees it: the core store plus change signals.

:class:`PresetLibrary` wraps :class:`vramdesk.core.store.presets.PresetStore` (the files,
locking and corrupt-file handling live there) and loads presets into the
:class:`ScenarioController`. It is a non-widget QObject like the controller, so
widgets still never call the core themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from vramdesk.core.store import presets
from vramdesk.core.store.applied import applied_preset
from vramdesk.core.store.bundled import ModelPreset, bundled_model, bundled_model_index
from vramdesk.gui.controller import ScenarioController

#: What each kind of preset stores from the current inputs (and the target GPU).
KIND_PARTS = {
    "model": ("model", "weights"),
    "workload": ("workload",),
    "runtime": ("runtime",),
    "scenario": ("model", "weights", "workload", "runtime", "target"),
}


class PresetLibrary(QObject):
    """User presets (saved, renamed, deleted, imported, exported) and the bundled models."""

    presetsChanged = Signal()
    problemsFound = Signal(list)
    #: A sentence for the status bar about a preset just applied (what it assumed).
    notice = Signal(str)

    def __init__(self, controller: ScenarioController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.store = presets.PresetStore()
        #: Every problem sentence seen since start (files moved aside), for the window to report.
        self.all_problems: list[str] = []

    def take_problems(self) -> list[str]:
        """Sentences about files moved aside since the last call (and clear them)."""
        found, self.store.problems[:] = list(self.store.problems), []
        self.all_problems.extend(found)
        return found

    def _changed(self) -> None:
        problems = self.take_problems()
        if problems:
            self.problemsFound.emit(problems)
        self.presetsChanged.emit()

    # ------------------------------------------------------------- reading
    def user_presets(self, kind: str | None = None) -> list[presets.UserPreset]:
        """Loadable user presets (of ``kind``), sorted by name."""
        found = self.store.list(kind)
        problems = self.take_problems()
        if problems:
            self.problemsFound.emit(problems)
        return found

    def model_choices(self) -> list[tuple[str, ModelPreset]]:
        """Every model the picker offers: ``("bundled:slug" | "user:slug", preset)``, built."""
        return [
            (key, preset if preset is not None else bundled_model(key.partition(":")[2]))
            for key, _name, _source, preset in self.model_entries()
        ]

    def model_entries(self) -> list[tuple[str, str, str, ModelPreset | None]]:
        """``(key, name, source, preset)`` of every model the picker offers, in its order.

        ``preset`` is None for a bundled preset: those are listed from their files unparsed
        (issue 11: the picker is filled at start-up) and built by :meth:`model_by_key`; the
        user's, read from the store anyway, come parsed.
        """
        out: list[tuple[str, str, str, ModelPreset | None]] = [
            (f"bundled:{slug}", name, source, None) for slug, name, source in bundled_model_index()
        ]
        for user in self.user_presets():
            if "model" in user.data:
                preset = presets.model_preset(user)
                out.append((f"user:{user.slug}", preset.name, preset.source, preset))
        return out

    def model_by_key(self, key: str) -> ModelPreset:
        """The model preset of a picker key (only that preset is read and built).

        Raises
        ------
        KeyError
            No bundled preset of that slug, or not a picker key.
        InputError
            ``preset``: no such user preset (deleted since the list was filled), or it holds
            no model.
        """
        kind, _, slug = key.partition(":")
        if kind == "bundled":
            return bundled_model(slug)
        if kind == "user":
            return presets.model_preset(self.store.get(slug))
        raise KeyError(key)

    # ------------------------------------------------------------- loading
    def load(self, slug: str) -> bool:
        """Apply a user preset: every part it holds and its target GPU (computes once).

        :meth:`vramdesk.core.session.ScenarioSession.load_preset`, the same for "Load" and
        for a saved preset picked in the Model picker. A scenario saved without a target
        GPU keeps the target chosen, and :attr:`notice` says so.
        """
        user = self.store.get(slug)
        preset = applied_preset(user)
        origin = self.tr("{0} (saved)").format(user.name)
        ok = self.controller.load_preset(preset, origin=origin)
        if preset.lacks_target:
            self.notice.emit(
                self.tr(
                    "“{0}” was saved without a target GPU (by an older vramdesk): the target "
                    "GPU chosen is kept"
                ).format(user.name)
            )
        elif preset.target is not None and self.controller.target != preset.target:
            self.notice.emit(
                self.tr(
                    "“{0}” names the GPU {1}, which the catalog does not have: the target "
                    "GPU chosen is kept"
                ).format(user.name, preset.target.name)
            )
        return ok

    def load_model_key(self, key: str) -> bool:
        """Load what a picker key names; computes once.

        A bundled preset: its model and weight format. A saved one (``user:SLUG``): all it
        holds, as :meth:`load` (a scenario's workload, runtime and target too).
        """
        kind, _, slug = key.partition(":")
        if kind == "user":
            return self.load(slug)
        return self.controller.load_model_preset(self.model_by_key(key))

    # ------------------------------------------------------------- writing
    def current_data(self, kind: str) -> dict[str, Any]:
        """The current (last valid) inputs that a preset of ``kind`` stores."""
        c = self.controller
        values = {
            "model": c.model,
            "weights": c.weights,
            "workload": c.workload,
            "runtime": c.runtime,
            "target": c.target,
        }
        return {part: presets.encode_part(part, values[part]) for part in KIND_PARTS[kind]}

    def save(self, name: str, kind: str) -> presets.UserPreset:
        """Save the current inputs as a ``kind`` preset ``name`` (replacing one of that name)."""
        user = self.store.save(name, kind, self.current_data(kind))
        self._changed()
        return user

    def rename(self, slug: str, new_name: str) -> presets.UserPreset:
        """Rename a user preset."""
        user = self.store.rename(slug, new_name)
        self._changed()
        return user

    def delete(self, slug: str) -> None:
        """Delete a user preset."""
        self.store.delete(slug)
        self._changed()

    def import_file(self, path: Path) -> presets.UserPreset:
        """Copy a preset file into the library."""
        user = self.store.import_file(Path(path))
        self._changed()
        return user

    def export(self, slug: str, path: Path) -> Path:
        """Write a user preset to ``path``."""
        return self.store.export(slug, Path(path))
