"""Help menu (About, the formulas), jargon tooltips, and the formulas shared with the README."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QDialog, QFormLayout, QLabel, QTextBrowser

from vramdesk.core.present.how_computed import HOW_COMPUTED
from vramdesk.gui.forms.glossary import EXPLANATIONS

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _help_actions(window):
    menu = next(a.menu() for a in window.menuBar().actions() if a.menu() and a.text() == "&Help")
    return {a.objectName(): a for a in menu.actions() if a.objectName()}


def _open_dialog(qtbot, action, name):
    action.trigger()
    dialogs = [w for w in QApplication.topLevelWidgets() if w.objectName() == name]
    assert len(dialogs) == 1 and isinstance(dialogs[0], QDialog)
    dialog = dialogs[0]
    qtbot.waitExposed(dialog)
    return dialog


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_about_gives_the_package_version_and_licence(make_main_window, qtbot):
    window = make_main_window()
    dialog = _open_dialog(qtbot, _help_actions(window)["help_about"], "about_dialog")
    text = dialog.findChild(QLabel, "about_text").text()
    assert f"vramdesk {PYPROJECT['version']}" in text  # pyproject.toml: the one source
    assert PYPROJECT["license"] == "MIT" and "Licence: MIT" in text
    # the licence file's path (a source checkout: the repository's LICENSE)
    assert f"Licence text: {ROOT / 'LICENSE'}" in text
    # Qt for Python is LGPL: named, with where its licence is
    assert "Qt for Python" in text and "GNU LGPL 3.0" in text
    assert '<a href="https://www.qt.io/licensing/">https://www.qt.io/licensing/</a>' in text
    dialog.close()
    qtbot.waitUntil(lambda: not dialog.isVisible())


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_the_formulas_dialog_shows_the_readme_table(make_main_window, qtbot):
    window = make_main_window()
    dialog = _open_dialog(qtbot, _help_actions(window)["help_formulas"], "formulas_dialog")
    shown = dialog.findChild(QTextBrowser, "formulas_text").toPlainText()
    # the table's cells, rendered (Markdown code marks gone): KV heads, not query heads
    assert "2 * kv_heads * head_dim * e" in shown
    assert "sum over layers of per_token(layer) * tokens_cached(kind)" in shown
    assert "GiB = 2^30, GB = 10^9" in shown and "|" not in shown  # a table, not raw Markdown
    screen = window.screen().availableGeometry()
    assert dialog.width() <= screen.width() and dialog.height() <= screen.height()
    dialog.close()


def test_the_readme_holds_the_formulas_text_verbatim():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## How the numbers are computed") :]
    assert section.split("\n", 2)[2].startswith(HOW_COMPUTED)


@pytest.mark.parametrize(
    "label_text,words",
    [
        ("Live activation buffers", "prefill peak"),
        ("Dense leading layers", "first_k_dense_replace"),
        ("Overhead form", "multiplier"),
        ("KV heads (num_key_value_heads)", "GQA"),
        ("KV block size (tokens)", "Paged attention"),
    ],
)
def test_jargon_labels_explain_themselves(make_main_window, label_text, words):
    window = make_main_window()
    [label] = [w for w in window.findChildren(QLabel) if w.text() == label_text]
    assert words in label.toolTip()


def test_every_explained_field_has_its_explanation_on_its_label(make_main_window):
    window = make_main_window()
    fields = {n: w for f in window.forms for n, w in f.fields.items()}
    fields["preset_box"] = window.model_form.preset_box
    explained = [n for n in EXPLANATIONS if n in fields]
    assert len(explained) == len(EXPLANATIONS)  # no explanation of a field that is not there
    for name in explained:
        widget = fields[name]
        node, label = widget, None
        while label is None and node.parentWidget() is not None:
            layout = node.parentWidget().layout()
            if isinstance(layout, QFormLayout):
                label = layout.labelForField(node)
            node = node.parentWidget()
        assert label is not None and label.toolTip() == EXPLANATIONS[name], name
        assert widget.accessibleDescription() == EXPLANATIONS[name]
