"""Error types of the core.

Every validation failure is an :class:`InputError` that names the field by
its Hugging Face ``config.json`` name (or the workload/runtime field name).
The CLI prints ``str(error)`` and exits with status 2; the window marks the
widget bound to ``error.field`` and shows ``error.reason``.
"""

from __future__ import annotations

from typing import Any


class VramdeskError(Exception):
    """Base class of every error vramdesk raises on purpose."""


class InputError(VramdeskError, ValueError):
    """An input value is invalid.

    Parameters
    ----------
    field : str
        The field's name, e.g. ``"num_key_value_heads"`` or ``"context_tokens"``.
    reason : str
        A short English reason, e.g. ``"must be a divisor of num_attention_heads (32)"``.
    code : str, optional
        A stable machine code for the reason (``"positive"``, ``"divisor"``,
        ``"unknown_choice"``, ...) so that a GUI can translate it.
    params : dict, optional
        The values the reason mentions, for translation.
    """

    def __init__(
        self, field: str, reason: str, code: str = "invalid", params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason
        self.code = code
        self.params = dict(params or {})


class UnsupportedModelError(InputError):
    """The architecture has parts the memory model cannot size (e.g. Mamba/SSM layers).

    Raised instead of returning an estimate that would be silently wrong.
    """


class FileReadError(InputError):
    """A file we were asked to read is missing, too large, or not what it claims to be."""


class ImportCancelled(VramdeskError):
    """The user cancelled a file import (the window's Cancel button); nothing was imported."""

    def __init__(
        self, field: str = "path", reason: str = "the import was cancelled", code: str = "cancelled"
    ) -> None:
        super().__init__(reason)
        self.field, self.reason, self.code = field, reason, code
