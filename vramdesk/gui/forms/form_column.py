"""The left column: the everyday inputs together at the top, the details in sections that open.

The forms (:class:`~vramdesk.gui.forms.binding.BoundForm`) build every input; this module only moves
widgets. The rows people change first (model, weight format, context, concurrency, KV cache
dtype, engine, tensor parallel, target GPU) are taken out of their forms into one "Scenario"
group at the top. What stays in each form (the architecture filled by presets and imports,
quantization details, prefill, engine knobs) is hidden behind a toggle at the top of that form,
opened on demand and opened by itself when one of its fields is refused. Every input keeps its
``objectName`` (its field name) and stays in its form's ``fields``: binding is unchanged.
Every refusal is said in one strip under the scrolling fields (:meth:`FormColumn.show_errors`).

Longer than 400 lines: one widget, the column, with its three parts (the Scenario group, the
sections that open, the error strip) and the widths they need; the row wrapping is in
row_wrap.py.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QLabel,
    QLayoutItem,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from vramdesk.gui.forms.binding import BoundForm, refusals, show_error_lines
from vramdesk.gui.forms.row_wrap import RowWrap
from vramdesk.gui.theme import tint

#: Characters a choice box is wide enough for (the open list shows whole entries).
COMBO_CHARACTERS = 16

#: The everyday inputs, in the order shown at the top: (form key, field name).
ESSENTIALS = (
    ("weights", "format"),
    ("workload", "context_tokens"),
    ("workload", "batch"),
    ("workload", "kv_dtype"),
    ("runtime", "engine"),
    ("runtime", "tensor_parallel_size"),
    ("target", "target"),
    ("target", "custom_capacity"),
)


def _row_of(layout: QFormLayout, widget: QWidget) -> int:
    """The row of ``layout`` holding ``widget`` or the container it sits in (-1: none)."""
    while widget is not None:
        row, _role = layout.getWidgetPosition(widget)
        if row >= 0:
            return row
        widget = widget.parentWidget()
    return -1


def _widget(item: QLayoutItem | None) -> QWidget | None:
    return None if item is None else item.widget()


def _fit_list_to_entries(combo: QComboBox) -> None:
    """Keep the open list of ``combo`` as wide as its longest entry, as entries change."""

    def fit(*_args: object) -> None:
        view = combo.view()
        scroll_bar = view.verticalScrollBar().sizeHint().width()
        view.setMinimumWidth(view.sizeHintForColumn(0) + scroll_bar)

    model = combo.model()
    for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset, model.dataChanged):
        signal.connect(fit)
    fit()


def _tooltip_is_current_text(combo: QComboBox) -> None:
    """The chosen entry's whole text as the tooltip (a narrow box may elide it).

    Stored as the ``hint`` too, which binding restores when a refusal's mark is cleared.
    """

    def show(text: str) -> None:
        combo.setProperty("hint", text)
        if not combo.property("invalid"):
            combo.setToolTip(text)

    combo.currentTextChanged.connect(show)
    show(combo.currentText())


class DetailsToggle:
    """Show or hide every row of ``form`` but its error line and this toggle.

    Parameters
    ----------
    form : BoundForm
        The form whose remaining rows are the details.
    text : str
        The toggle's text (it says what opens).
    name : str
        The toggle button's objectName.
    """

    def __init__(self, form: BoundForm, text: str, name: str) -> None:
        self.form = form
        self.button = QToolButton()
        self.button.setObjectName(name)
        self.button.setText(text)
        self.button.setCheckable(True)
        self.button.setAutoRaise(True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.button.toggled.connect(self._apply)
        form.layout_.insertRow(0, self.button)
        self._rows: tuple[int, list[int]] | None = None  # (row count, rows) last found
        self._apply(False)

    def rows(self) -> list[int]:
        """Rows that open and close: all but the toggle and the form's error line.

        Found again only when the form's row count changed (rows are added, never replaced).
        """
        layout, keep = self.form.layout_, {self.button, self.form.error_label}
        if self._rows is not None and self._rows[0] == layout.rowCount():
            return self._rows[1]
        roles = (
            QFormLayout.ItemRole.LabelRole,
            QFormLayout.ItemRole.FieldRole,
            QFormLayout.ItemRole.SpanningRole,
        )
        rows = []
        for row in range(layout.rowCount()):
            widgets = {_widget(layout.itemAt(row, role)) for role in roles}
            if not widgets & keep:
                rows.append(row)
        self._rows = (layout.rowCount(), rows)
        return rows

    def is_open(self) -> bool:
        """Whether the details are shown."""
        return self.button.isChecked()

    def set_open(self, shown: bool) -> None:
        """Open or close the details."""
        self.button.setChecked(shown)
        self._apply(shown)

    def _apply(self, shown: bool) -> None:
        arrow = Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        self.button.setArrowType(arrow)
        for row in self.rows():
            self.form.layout_.setRowVisible(row, shown)


class ScenarioGroup(QGroupBox):
    """The "Scenario" group: the everyday inputs, each still bound by (and owned by) its form.

    ``fields`` and :meth:`choices` answer for the widgets shown here, as a form's do, so code
    that walks up from a widget to the group holding it finds what it would find in the form.
    """

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self.fields: dict[str, QWidget] = {}
        self.owners: dict[str, BoundForm] = {}

    def choices(self, name: str) -> list[object]:
        """The values of choice field ``name`` (from the form that binds it)."""
        return self.owners[name].choices(name)


class FormColumn(QScrollArea):
    """The scrolling left column: the "Scenario" group, then each form with its details closed.

    Parameters
    ----------
    forms : dict of str to BoundForm
        ``model``, ``weights``, ``workload``, ``runtime`` and ``target`` forms, built.
    """

    def __init__(self, forms: dict[str, BoundForm], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("forms")
        self.forms = forms
        self.controller = forms["model"].controller
        self.essentials = ScenarioGroup(self.tr("Scenario"))
        self.essentials.setObjectName("essentials")
        self.essential_layout = QFormLayout(self.essentials)
        self.essential_layout.setFieldGrowthPolicy(
            QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow
        )
        self._build_error_strip()
        self._take_model_picker(forms["model"])
        relabel = {
            "format": self.tr("Weight format"),
            "target": self.tr("Target GPU"),
        }
        for key, name in ESSENTIALS:
            self._take(forms[key], forms[key].fields[name], relabel.get(name))
        self.essential_widgets = {name: forms[key].fields[name] for key, name in ESSENTIALS}
        self.essentials.fields.update(self.essential_widgets)
        self.essentials.owners.update({name: forms[key] for key, name in ESSENTIALS})
        texts = {
            "model": self.tr("Architecture (filled by presets and imports)"),
            "weights": self.tr("Quantization details"),
            "workload": self.tr("Prefill, activations and live tokens"),
            "runtime": self.tr("Engine memory settings and overhead"),
        }
        self.toggles = {
            key: DetailsToggle(forms[key], text, f"{key}_details") for key, text in texts.items()
        }
        self._narrow_widgets()
        self._tab_in_reading_order()
        # the target form has nothing left to show: both its inputs are in the Scenario group
        forms["target"].hide()
        column = QWidget()
        column.setObjectName("form_column")
        layout = QVBoxLayout(column)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.essentials)
        for key in ("model", "weights", "workload", "runtime", "target"):
            layout.addWidget(forms[key])
        layout.addStretch(1)
        self.setWidget(column)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.controller.fieldInvalid.connect(self._on_invalid)
        self.controller.marksChanged.connect(self.show_errors)
        self.controller.fieldsValid.connect(self.show_errors)

    # ------------------------------------------------------------ building
    def _build_error_strip(self) -> None:
        """Every refusal, one a line, in a strip under the scrolling fields (:attr:`panel`).

        Under them, not among them: a line appearing above the fields moved every field below
        it while the user typed, and one line per form showed only one of two refusals
        (issue 23, item 10). The strip takes its height from the viewport's bottom.
        """
        self.error_label = QLabel()
        self.error_label.setObjectName("essentials_error")
        self.error_label.setWordWrap(True)
        self.error_label.setContentsMargins(6, 2, 6, 4)
        tint(self.error_label, "error")
        self.error_label.hide()
        for form in self.forms.values():
            form.inline_errors = False
            form.error_label.hide()
        #: The scrolling fields over the error strip: what the window's inputs dock holds.
        self.panel = QWidget()
        self.panel.setObjectName("inputs_panel")
        layout = QVBoxLayout(self.panel)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self, 1)
        layout.addWidget(self.error_label)

    def _take_model_picker(self, form: BoundForm) -> None:
        picker = getattr(form, "preset_box", None)
        button = getattr(form, "import_button", None)
        if picker is not None:
            row = picker.parentWidget()
            if row is not form and not row.objectName():
                row.setObjectName("preset_row")
            self._take(form, picker, self.tr("Model"))
        if button is not None:
            self._take(form, button, None)

    def _take(self, form: BoundForm, widget: QWidget, label_text: str | None) -> None:
        """Move the row holding ``widget`` from ``form`` into the Scenario group."""
        row = _row_of(form.layout_, widget)
        if row < 0:
            return
        taken = form.layout_.takeRow(row)
        label, field = _widget(taken.labelItem), _widget(taken.fieldItem)
        if field is None:
            return
        if label is None:
            self.essential_layout.addRow(field)
            return
        if label_text is not None and isinstance(label, QLabel):
            label.setText(label_text)
        self.essential_layout.addRow(label, field)

    def _tab_in_reading_order(self) -> None:
        """Tab walks the Scenario group top to bottom (the rows were moved in from the forms)."""
        layout, chain = self.essential_layout, []
        roles = (QFormLayout.ItemRole.FieldRole, QFormLayout.ItemRole.SpanningRole)
        for row in range(layout.rowCount()):
            for role in roles:
                widget = _widget(layout.itemAt(row, role))
                if widget is None:
                    continue
                inner = widget.layout()
                parts = (
                    [widget]
                    if inner is None
                    else [inner.itemAt(i).widget() for i in range(inner.count())]
                )
                chain += [
                    w for w in parts if w is not None and w.focusPolicy() & Qt.FocusPolicy.TabFocus
                ]
        for first, second in zip(chain, chain[1:], strict=False):
            QWidget.setTabOrder(first, second)

    def _narrow_widgets(self) -> None:
        """Let long texts wrap or elide, so no choice or derived value sets the column's width.

        A combo box's list still opens as wide as its longest entry; the chosen entry's full
        text is in the tooltip.
        """
        for form in [*self.forms.values(), self.essentials]:
            # a row too narrow for label and field puts the field under its label, and a form
            # too narrow for its widest label beside its widest field puts every field under
            form.layout().setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
            RowWrap(form)
            for combo in form.findChildren(QComboBox):
                combo.setSizeAdjustPolicy(
                    QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
                )
                longest = max((len(combo.itemText(i)) for i in range(combo.count())), default=0)
                combo.setMinimumContentsLength(min(COMBO_CHARACTERS, max(longest, 3)))
                _fit_list_to_entries(combo)
                _tooltip_is_current_text(combo)
            for label in form.findChildren(QLabel):
                if label.property("derived"):
                    label.setWordWrap(True)

    # ------------------------------------------------------------- state
    def open_widths(self) -> tuple[int, int]:
        """(required, preferred) width of the column with every section open.

        Required: the least width at which opening a section never clips it. Preferred: the
        width at which every open section shows each label beside its field. Measured in one
        pass (the sections are opened, measured and closed again).
        """
        was = {key: t.is_open() for key, t in self.toggles.items()}
        for toggle in self.toggles.values():
            toggle.set_open(True)
        for form in self.forms.values():  # layouts post their change: take it in now
            form.layout_.invalidate()
            form.updateGeometry()
        self.widget().layout().invalidate()
        minimum, preferred = self.widget().minimumSizeHint(), self.widget().sizeHint()
        for key, toggle in self.toggles.items():
            toggle.set_open(was[key])
        frame = self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()
        return minimum.width() + frame, preferred.width() + frame

    def toggle_for(self, widget: QWidget) -> DetailsToggle | None:
        """The toggle of the section holding ``widget`` (None: it is an everyday input)."""
        for key, toggle in self.toggles.items():
            if self.forms[key].isAncestorOf(widget):
                return toggle
        return None

    def open_sections(self) -> list[str]:
        """Keys of the forms whose details are open."""
        return [key for key, toggle in self.toggles.items() if toggle.is_open()]

    def set_open_sections(self, keys: Iterable[str]) -> None:
        """Open the details of the forms named in ``keys``, close the others."""
        wanted = set(keys)
        for key, toggle in self.toggles.items():
            toggle.set_open(key in wanted)

    def _on_invalid(self, field: str, reason: str) -> None:
        """A refused detail: open its section and scroll to it (the strip says why)."""
        for key, form in self.forms.items():
            widget = form.widget_for(field)
            if widget is None:
                continue
            if widget not in self.essential_widgets.values():
                if key in self.toggles:
                    self.toggles[key].set_open(True)
                self.ensureWidgetVisible(widget)
            return

    def show_errors(self, *_args: object) -> None:
        """Say every refusal in force under the fields (each field is marked where it is)."""
        lines = [
            self._labelled(names, text)
            for names, text in refusals(self.controller)
            if any(form.widget_for(n) is not None for form in self.forms.values() for n in names)
        ]
        if lines:
            show_error_lines(self.error_label, lines)
        self.error_label.setVisible(bool(lines))
        self._fit_strip()

    def label_for(self, name: str) -> str | None:
        """The row label of the field ``name`` in any of the column's forms, or None."""
        return next(filter(None, (form.label_for(name) for form in self.forms.values())), None)

    def _labelled(self, names: tuple[str, ...], text: str) -> str:
        """``text`` led by the field's label as the window shows it, its config name after.

        ``context_tokens: must be ...`` reads ``Context (tokens per sequence) (context_tokens):
        must be ...``: a user finds the row by its label, an engineer the name the CLI says.
        """
        for name in names:
            label = self.label_for(name)
            if label and text.startswith(f"{name}: "):
                return f"{label} ({name}){text[len(name) :]}"
        return text

    def _fit_strip(self) -> None:
        """The strip as tall as its wrapped lines at the column's width.

        The dock's layout asks a label for its height only once, not for its width.
        """
        label = self.error_label
        if not label.isHidden():
            label.setMinimumHeight(label.heightForWidth(max(1, self.width())))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        """A new width wraps the error strip's lines anew."""
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit_strip()
