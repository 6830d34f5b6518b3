"""The Japanese walk: every visible text of the window is Japanese, outside names and units.

The window is built with the Japanese translator installed and each tab shown in turn;
every label, button, group title, tab, menu, combo item, table and tree cell, chart
legend and axis label is collected, and any English word left is a failure. Names that
stay as they are — model and GPU names, config.json field names, engine names, units,
formula symbols — are allowed by :data:`ALLOWED`.
"""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QTableWidget,
    QTabWidget,
    QTreeWidget,
    QWidget,
)

from vramdesk.gui.settings import load_translator

#: Words that are names or units, not English prose.
ALLOWED = {
    # units and number words
    "GiB",
    "GB",
    "MiB",
    "KiB",
    "TiB",
    "bytes",
    "tokens",
    "bpw",
    "TFLOPS",
    "TP",
    "PP",
    # products, engines, formats, vendors
    "vramdesk",
    "vLLM",
    "SGLang",
    "llama",
    "cpp",
    "Ollama",
    "transformers",
    "formula",
    "NVIDIA",
    "GeForce",
    "RTX",
    "H100",
    "H200",
    "A100",
    "HBM3",
    "SXM",
    "PCIe",
    "NVML",
    "CUDA",
    "GPU",
    "GPUs",
    "KV",
    "MLA",
    "GQA",
    "MQA",
    "MHA",
    "MoE",
    "FFN",
    "HF",
    "JSON",
    "CSV",
    "PNG",
    "SVG",
    "Markdown",
    "GGUF",
    "MIT",
    "bf16",
    "fp16",
    "fp32",
    "fp8",
    "int8",
    "int4",
    "nf4",
    "q8_0",
    "q4_0",
    "mxfp4",
    "auto",
    "Llama",
    "Meta",
    "Qwen",
    "Mistral",
    "Mixtral",
    "Gemma",
    "DeepSeek",
    "Phi",
    "Falcon",
    "Yi",
    "Instruct",
    "class",
    "source",
    "documents",
    "oss",
    "gpt",
    "Nemo",
    "Small",
    "hf",
    "mini",
    "it",
    "instruct",
    "Lite",
    "English",
    "NVL",
    "Generic",
    "mix",
    # GPU names of the catalog (issue 25's cards)
    "Ada",
    "Blackwell",
    "PRO",
    "Tesla",
}

#: Symbols of the formulas shown in the figures table (names, like config.json fields).
FORMULA_SYMBOLS = {
    "params",
    "layers",
    "context",
    "batch",
    "weights",
    "kv",
    "activations",
    "factor",
    "fixed",
    "tokens",
    "hidden",
    "intermediate",
    "vocab",
    "logits",
    "buffers",
    "live",
    "in",
    "flight",
    "linear",
    "embeddings",
    "norms",
    "router",
    "fraction",
    "workspace",
    "heads",
    "dim",
    "e",
}

WORD = re.compile(r"[A-Za-z][A-Za-z]{2,}")


def _plain(text: str) -> str:
    """Rich text as the user reads it (tags and entities gone)."""
    if "<" in text and ">" in text:
        from PySide6.QtGui import QTextDocument

        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return text


def _is_formula(text: str) -> bool:
    """A formula line of the figures table: symbols and operators, no parenthesised prose."""
    body = text.lstrip("= ")
    return "(" not in body.replace("(weights", "").replace("(factor", "") and any(
        op in body for op in (" * ", " / ", " + ", " - ")
    )


def english_words(text: str) -> set[str]:
    """English-looking words in ``text``: runs of 3+ Latin letters that are not names."""
    found = set()
    text = _plain(text)
    symbols = FORMULA_SYMBOLS if _is_formula(text) else set()
    for token in re.split(r"[\s,;:()\[\]{}=*/+<>\"'“”·—–|%!?（）：、。]+", text):
        if not token or "_" in token or "." in token or any(ch.isdigit() for ch in token):
            continue  # config.json names, file names (config.json), sizes (8B), versions
        if token.endswith("…"):
            continue  # a shortened name (a preset on a chart tick)
        if token in symbols:
            continue
        for word in WORD.findall(token):
            if word not in ALLOWED and word.lower() not in {a.lower() for a in ALLOWED}:
                found.add(word)
    return found


def visible_texts(window) -> list[tuple[str, str]]:
    """(where, text) for every text a user can see in ``window`` right now."""
    out: list[tuple[str, str]] = []

    def add(where: str, text: str) -> None:
        if text and text.strip():
            out.append((where, text))

    for w in window.findChildren(QWidget):
        if not w.isVisibleTo(window):
            continue
        name = f"{type(w).__name__}:{w.objectName()}"
        if isinstance(w, QLabel):
            add(name, w.text())
        elif isinstance(w, QAbstractButton):
            add(name, w.text())
        elif isinstance(w, QGroupBox):
            add(name, w.title())
        elif isinstance(w, QLineEdit):
            add(name, w.placeholderText() if not w.text() else "")
        elif isinstance(w, QComboBox):
            for i in range(w.count()):
                add(f"{name}[{i}]", w.itemText(i))
        elif isinstance(w, QTabWidget):
            for i in range(w.count()):
                add(f"{name}.tab{i}", w.tabText(i))
        elif isinstance(w, QTableWidget):
            for c in range(w.columnCount()):
                item = w.horizontalHeaderItem(c)
                add(f"{name}.header{c}", item.text() if item else "")
            for r in range(w.rowCount()):
                for c in range(w.columnCount()):
                    item = w.item(r, c)
                    add(f"{name}[{r},{c}]", item.text() if item else "")
        elif isinstance(w, QTreeWidget):
            header = w.headerItem()
            for c in range(w.columnCount()):
                add(f"{name}.header{c}", header.text(c))
            for i in range(w.topLevelItemCount()):
                item = w.topLevelItem(i)
                add(f"{name}[{i}]", item.text(0))
                for j in range(item.childCount()):
                    add(f"{name}[{i}.{j}]", item.child(j).text(0))
    for menu in window.menuBar().findChildren(QMenu):
        add(f"menu:{menu.objectName()}", menu.title())
        for action in menu.actions():
            add(f"action:{menu.title()}", action.text())
    for plot in _plots(window):
        item = plot.getPlotItem()
        for axis in ("left", "bottom"):
            add(f"axis:{axis}", item.getAxis(axis).labelText)
            for level in item.getAxis(axis)._tickLevels or []:
                for _pos, text in level:
                    add(f"tick:{axis}", text)
        if item.legend is not None:
            for _sample, label in item.legend.items:
                add("legend", label.text)
    return out


def _plots(window):
    import pyqtgraph as pg

    return window.findChildren(pg.PlotWidget)


@pytest.fixture
def japanese():
    app = QCoreApplication.instance()
    translator = load_translator("ja")
    assert translator is not None
    app.installTranslator(translator)
    yield
    app.removeTranslator(translator)


def test_every_visible_text_is_japanese(japanese, make_main_window, qtbot):
    from tests.gui.conftest import one_gpu_snapshot

    snapshot = one_gpu_snapshot()  # a local GPU: its free line, legend and verdict are shown
    window = make_main_window(show=True, gpu_query=lambda: snapshot)
    qtbot.waitUntil(lambda: window.controller.local_snapshot is snapshot, timeout=5000)
    assert window.verdict.isVisibleTo(window)
    window.resize(1600, 1000)
    window.compare_tab.set_checked(["bundled:7b-class"])
    leftovers = []
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        qtbot.wait(30)
        for where, text in visible_texts(window):
            words = english_words(text)
            if words:
                leftovers.append((where, text, sorted(words)))
    assert not leftovers, "\n".join(
        f"{w}: {t!r} -> {ws}"
        for w, t, ws in dict.fromkeys((w, t, tuple(ws)) for w, t, ws in leftovers)
    )


def test_every_core_string_is_marked_for_translation():
    from tests.gui.core_strings import core_strings
    from vramdesk.gui.core_text import MARKED

    missing = [s for s in core_strings() if s not in MARKED]
    fix = "run python tools/gen_core_text.py, then tools/update_translations.sh: "
    assert not missing, fix + repr(missing)


def test_notes_are_translated_with_their_numbers_kept(japanese):
    from vramdesk.gui.core_text import number_template, tr_note

    note = (
        "factor 1.15 covers allocator fragmentation; fixed 1 GiB covers the CUDA context "
        "and workspaces"
    )
    assert number_template(note) == (
        "factor {0} covers allocator fragmentation; fixed {1} GiB covers the CUDA context "
        "and workspaces",
        ["1.15", "1"],
    )
    assert (
        tr_note(note)
        == "係数 1.15 はアロケーターの断片化分、固定 1 GiB は CUDA コンテキストとワークスペース分"
    )
    assert number_template("Q4_K uses fp8 at 8,192 cells")[1] == ["8,192"]  # names keep digits
    assert tr_note("a note nobody translated (3 GiB)") == "a note nobody translated (3 GiB)"


def test_refusals_typed_into_fields_are_explained_in_japanese(japanese, make_main_window, qtbot):
    from tests.gui.keyboard import type_text

    window = make_main_window(show=True)
    fields = {n: w for f in window.forms for n, w in f.fields.items()}
    cases = [
        ("params", "1e400", "params: 大きすぎます（入力値 1e400）"),
        ("num_hidden_layers", "-5", "num_hidden_layers: 1 以上にしてください（入力値 -5）"),
        ("overhead_factor", "0.5", "overhead_factor: 1 から 10 の範囲にしてください（入力値 0.5）"),
        ("context_tokens", "", "context_tokens: 入力が必要です"),
    ]
    for name, typed, expected in cases:
        type_text(qtbot, fields[name], typed)
        assert fields[name].toolTip() == expected
        type_text(qtbot, fields[name], {"params": "8e9", "num_hidden_layers": "32"}.get(name, "2"))


def test_japanese_ui_prefers_a_family_with_a_real_bold_face():
    from vramdesk.gui.settings import japanese_ui_family

    styles = {
        "IPAGothic": ["Regular"],  # the usual fontconfig pick for Japanese: no bold
        "Noto Sans CJK JP": ["Regular", "Bold"],
        "Noto Sans JP": ["Regular"],
    }
    families = list(styles)
    assert japanese_ui_family(families, styles.__getitem__) == "Noto Sans CJK JP"
    styles["Noto Sans CJK JP"] = ["Regular"]  # no bold anywhere: leave the system's choice
    assert japanese_ui_family(families, styles.__getitem__) is None


@pytest.mark.parametrize("n", [1, 3550])
def test_max_concurrency_is_japanese_in_every_plural_form(japanese, n):
    # the solver pane's two English sources (singular and plural, vramdesk/gui/tabs/solver.py
    # SolverTab._sequences), each a numerus message: Japanese has one form for every n
    for source in (
        "{0} sequence of {1:,} tokens (exact {2:.4f})",
        "{0} sequences of {1:,} tokens (exact {2:.4f})",
    ):
        text = QCoreApplication.translate("SolverTab", source, "", n)
        assert (
            text.format(f"{n:,}", 8192, 1.25)
            == f"8,192 トークンを {n:,} シーケンス（厳密値 1.2500）"
        )


def test_the_solver_panes_notes_are_japanese(japanese, make_main_window, qtbot, solved):
    from vramdesk.core.store.bundled import find_model

    # a hybrid: the solver pane notes its recurrent state per sequence
    window = make_main_window(show=True)
    c = window.controller
    c.session.load_model_preset(find_model("qwen3.5-9b"))
    solved(window)
    text = window.solver_tab.notes.text()
    assert "再帰層: コンテキストに関係なく 1 シーケンスあたり" in text, text
    assert "recurrent layers" not in text
