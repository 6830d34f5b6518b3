"""Window settings (QSettings in an INI file under the config directory) and the UI language."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QLocale, QSettings, QTranslator

from vramdesk.core.store.bundled import resources_dir
from vramdesk.core.store.presets import ConfigDirError, config_dir, config_path

LANGUAGES = ("system", "en", "ja")


def open_settings() -> QSettings:
    """``<config dir>/settings.ini`` (``VRAMDESK_CONFIG_DIR`` in tests and scripts).

    A configuration directory that cannot be created (a regular file, no permission) does
    not stop the window: the settings then live in memory only, and the preset store
    reports the problem in the window's notice.
    """
    try:
        directory = config_dir()
    except ConfigDirError:
        directory = config_path()
    return QSettings(str(directory / "settings.ini"), QSettings.Format.IniFormat)


def read_json(settings: QSettings, key: str) -> Any:
    """A JSON value stored under ``key``; None when absent or unreadable."""
    raw = settings.value(key)
    if not isinstance(raw, str):
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def write_json(settings: QSettings, key: str, value: Any) -> None:
    """Store ``value`` as JSON text under ``key``."""
    settings.setValue(key, json.dumps(value))


def resolve_language(choice: str, locale: QLocale | None = None) -> str:
    """``"en"`` or ``"ja"``: the choice, or for ``"system"`` the system locale's language."""
    if choice in ("en", "ja"):
        return choice
    name = (locale or QLocale.system()).name()
    return "ja" if name.startswith("ja") else "en"


def load_translator(language: str) -> QTranslator | None:
    """Load the ``language`` translator from ``resources/i18n`` (None for English or no file)."""
    if language == "en":
        return None
    translator = QTranslator()
    if translator.load(str(resources_dir() / "i18n" / f"vramdesk_{language}.qm")):
        return translator
    return None


#: Japanese UI families that ship a real bold face, most preferred first (Noto Sans CJK is
#: Debian's fonts-noto-cjk; IPAGothic, often the system's first choice, has no bold, so
#: bold Japanese text would fall back to the regular weight).
JAPANESE_FAMILIES = (
    "Noto Sans CJK JP",
    "Noto Sans JP",
    "Source Han Sans JP",
    "Source Han Sans",
    "Yu Gothic UI",
    "Meiryo UI",
    "Hiragino Sans",
)


def japanese_ui_family(families: list[str], styles_of: Callable[[str], list[str]]) -> str | None:
    """The first of :data:`JAPANESE_FAMILIES` installed with a bold style, or None.

    ``families`` and ``styles_of`` are ``QFontDatabase.families`` and ``QFontDatabase.styles``
    (passed in, so that the choice can be tested without those fonts).
    """
    installed = set(families)
    for family in JAPANESE_FAMILIES:
        if family in installed and any("bold" in s.lower() for s in styles_of(family)):
            return family
    return None
