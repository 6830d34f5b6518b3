"""Work around a reference-count bug of PySide6 6.12 on Python 3.11.

PySide6 6.12.0 (shiboken6 6.12.0) on CPython 3.11 releases a reference to ``True``
that it never took on every ``SignalInstance.emit()``, and to ``None`` in many
QVariant conversions (``QComboBox.currentData()``, ``QTableWidgetItem.data()``, ...).
From Python 3.12 these singletons are immortal (PEP 683), so the bug is invisible
there; on 3.11 their counts fall with every emission until the interpreter aborts
("Fatal Python error: bool_dealloc / none_dealloc") after a few thousand edits.

:func:`immortalize_singletons` gives ``None``, ``True`` and ``False`` the effect
PEP 683 gives them: a reference count so large that the lost references never reach
zero. The singletons are never freed in a running interpreter anyway, so this changes
nothing else. It is applied once, when :mod:`vramdesk.gui` is imported.
"""

from __future__ import annotations

import sys

#: References added to each singleton: 2**40, far beyond what any session could lose.
EXTRA_REFERENCES = 1 << 40


def needs_workaround() -> bool:
    """True on CPython before 3.12 (mortal singletons), in a build with the plain object header."""
    return (
        sys.implementation.name == "cpython"
        and sys.version_info < (3, 12)
        and not hasattr(sys, "getobjects")
    )  # Py_TRACE_REFS builds put two pointers first


def immortalize_singletons() -> bool:
    """Add :data:`EXTRA_REFERENCES` to ``None``, ``True`` and ``False`` once; True if applied."""
    if not needs_workaround() or getattr(sys, "_vramdesk_singletons_pinned", False):
        return False
    import ctypes

    for obj in (None, True, False):
        # ob_refcnt is the first field of PyObject (Include/object.h) in non-trace builds
        ctypes.c_ssize_t.from_address(id(obj)).value += EXTRA_REFERENCES
    sys._vramdesk_singletons_pinned = True  # type: ignore[attr-defined]
    return True
