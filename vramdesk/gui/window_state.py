"""Remembering the window between runs: geometry, unit, the last scenario and target (QSettings)."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow

from vramdesk.core.errors import InputError
from vramdesk.core.store.serialize import TYPES, from_dict
from vramdesk.core.units import Unit
from vramdesk.gui.forms.fields import Target, capacity_bytes_of
from vramdesk.gui.settings import read_json, write_json

#: ``window`` below is the main window (its controller, form column, geometry and
#: ``show_message``), typed as its Qt base so that this module does not import it back.


def save_session(window: QMainWindow, settings: QSettings) -> None:
    """Store geometry, docks, open form sections, unit, last valid scenario, pattern and target."""
    c = window.controller
    settings.setValue("window/geometry", window.saveGeometry())
    settings.setValue("window/state", window.saveState())
    write_json(settings, "window/open_sections", window.form_column.open_sections())
    settings.setValue("unit", c.unit.label)
    write_json(settings, "scenario", {"parts": c.scenario_dict(), "name": c.preset_name})
    t = c.target
    write_json(settings, "target", {"key": t.key(), "custom_bytes": t.custom_bytes})
    settings.sync()


def restore_session(window: QMainWindow, settings: QSettings) -> None:
    """Restore what :func:`save_session` stored; anything unreadable is skipped and reported.

    The scenario and the target are restored in one computation; a target that cannot be
    restored (a GPU no longer in the catalog, a capacity out of range) leaves the default in
    its place, and a scenario the core refuses keeps the restored target.
    """
    geometry = settings.value("window/geometry")
    if isinstance(geometry, QByteArray) and window.restoreGeometry(geometry):
        window.restoreState(settings.value("window/state", QByteArray()))
        # saved on another screen (larger, or unplugged since): brought inside this one
        window.place_on(window.available_geometry())
    else:
        window.place_on(window.available_geometry(), first=True)
    sections = read_json(settings, "window/open_sections")
    if isinstance(sections, list):
        window.form_column.set_open_sections(str(s) for s in sections)
    c = window.controller
    try:
        c.set_unit(Unit.parse(str(settings.value("unit", "GiB"))))
    except ValueError:
        pass
    problems: list[str] = []
    parts, name = _scenario_parts(_saved(settings, "scenario", problems), problems)
    target = _target(c.target, _saved(settings, "target", problems), problems)
    if parts or target != c.target:
        c.load_scenario(parts, name=name, target=target)  # one computation for both
    if problems:
        window.show_message(window.tr("Last session not restored: {0}").format("; ".join(problems)))


def _saved(settings: QSettings, key: str, problems: list[str]) -> dict | None:
    """The JSON object saved under ``key``; None when none was saved or it is unreadable."""
    data = read_json(settings, key)
    if isinstance(data, dict):
        return data
    if settings.contains(key):
        problems.append(f"{key}: not a JSON object")
    return None


def _scenario_parts(data: dict | None, problems: list[str]) -> tuple[dict[str, object], str | None]:
    """The saved scenario's parts and name ({} when there are none or they are unreadable)."""
    if data is None or not isinstance(data.get("parts"), dict):
        return {}, None
    try:
        parts = {k: from_dict(TYPES[k], v, what=k) for k, v in data["parts"].items() if k in TYPES}
    except InputError as exc:
        problems.append(str(exc))
        return {}, None
    return parts, str(data.get("name") or "")


def _target(current: Target, data: dict | None, problems: list[str]) -> Target:
    """``current`` with the saved custom capacity and catalog GPU applied, where valid.

    A local GPU is not restored (it may be gone); the custom capacity is kept for the
    custom entry whatever the target kind is.
    """
    if data is None:
        return current
    target = current
    custom = data.get("custom_bytes")
    if isinstance(custom, int) and not isinstance(custom, bool):
        try:
            target = dataclasses.replace(target, custom_bytes=capacity_bytes_of(custom, "B"))
        except InputError as exc:
            problems.append(str(exc))
    key = data.get("key")
    if isinstance(key, str) and not key.startswith("local:"):
        try:
            target = target.with_key(key)
        except InputError as exc:
            problems.append(str(exc))
    return target
