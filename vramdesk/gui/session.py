"""Remembering the window between runs: geometry, unit, the last scenario and target (QSettings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings

from vramdesk.core.errors import InputError
from vramdesk.core.serialize import TYPES, from_dict
from vramdesk.core.units import Unit
from vramdesk.gui.fields import Target
from vramdesk.gui.settings import read_json, write_json

if TYPE_CHECKING:
    from vramdesk.gui.main_window import MainWindow


def save_session(window: MainWindow, settings: QSettings) -> None:
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


def restore_session(window: MainWindow, settings: QSettings) -> None:
    """Restore what :func:`save_session` stored; anything unreadable is skipped and reported."""
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
    parts, name = _scenario_parts(window, read_json(settings, "scenario"))
    fields = _target_fields(window, read_json(settings, "target"))
    if parts or fields:
        c.load_scenario(parts, name=name, fields=fields)  # one computation for both


def _scenario_parts(window: MainWindow, data: object) -> tuple[dict[str, object], str | None]:
    """The saved scenario's parts and name ({} when none was saved or it is unreadable)."""
    if not isinstance(data, dict) or not isinstance(data.get("parts"), dict):
        return {}, None
    try:
        parts = {k: from_dict(TYPES[k], v, what=k) for k, v in data["parts"].items() if k in TYPES}
    except InputError as exc:
        window.show_message(window.tr("Last session not restored: {0}").format(exc))
        return {}, None
    return parts, str(data.get("name") or "")


def _target_fields(window: MainWindow, data: object) -> dict[str, object]:
    """The saved target as controller fields.

    A local GPU is not restored (it may be gone); a catalog GPU no longer in the catalog is
    reported in the status bar and left out.
    """
    if not isinstance(data, dict):
        return {}
    fields: dict[str, object] = {}
    custom = data.get("custom_bytes")
    if isinstance(custom, int) and custom > 0:
        fields["custom_capacity"] = (custom, "B")
    key = data.get("key")
    if isinstance(key, str) and not key.startswith("local:"):
        try:
            Target().with_key(key)
        except InputError as exc:
            window.show_message(window.tr("Last target not restored: {0}").format(exc))
        else:
            fields["target"] = key
    return fields
