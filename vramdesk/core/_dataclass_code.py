"""The methods ``dataclasses`` generates for vramdesk's classes, compiled once and kept on disk.

``@dataclass`` writes the source text of each class's ``__init__``, ``__repr__``, ``__eq__``,
``__hash__`` (and, frozen, ``__setattr__`` / ``__delattr__``) and runs it by ``exec`` when the class
is defined: CPython 3.11 and 3.12 parse and compile every one of them at every start
(``Lib/dataclasses.py``, ``_create_fn``). For one ``vramdesk estimate`` that was about a quarter
of the whole process (callgrind: 94 M of 356 M instructions in ``PyRun_StringFlags``, issue 24),
and it is the same text every time. A ``.pyc`` caches a module's own code, never this.

:func:`install` hands ``dataclasses`` an ``exec`` that, for source text run in a vramdesk
module's namespace, runs the code object compiled from that exact text, from a cache file
beside the package's bytecode (``vramdesk/core/__pycache__/dataclass-code.<cache tag>.bin``, a
``marshal`` of ``{text: code}``), and compiles and adds the texts it has not seen. It changes no
class: ``exec(text, g, ns)`` and ``exec(compile(text, "<string>", "exec", dont_inherit=True), g,
ns)`` are the same call (``dataclasses`` has no ``__future__`` flags to inherit). Every other
module's dataclasses get the builtin ``exec`` untouched. A text is its own key, so a changed
class is a new entry, never a stale one. The file is trusted as the ``.pyc`` files beside it
are; one that cannot be read or written is ignored (the methods are then compiled as before),
and none is written under ``PYTHONDONTWRITEBYTECODE``.
"""

# No ``from __future__ import annotations`` here: ``exec`` of a text inherits the calling
# frame's future flags, and the methods' annotations must stay objects, as dataclasses' own
# ``exec`` leaves them.
import atexit
import builtins
import marshal
import os
import sys
from importlib.machinery import PathFinder
from types import CodeType, ModuleType
from typing import Any

#: Entries beyond which the file starts again empty (vramdesk has about 200 methods).
MAX_ENTRIES = 4000

_PATH = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "__pycache__",
    f"dataclass-code.{sys.implementation.cache_tag}.bin",
)
_codes: dict[str, CodeType] = {}
_added = 0
_installed = False


def _load(path: str) -> dict[str, CodeType]:
    try:
        with open(path, "rb") as fh:
            data = marshal.loads(fh.read())  # one read: marshal.load reads item by item
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict) or len(data) > MAX_ENTRIES:
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, CodeType)}


def _save() -> None:
    """Write the texts compiled in this process beside those read (atomically; errors dropped)."""
    if not _added or sys.dont_write_bytecode:
        return
    tmp = f"{_PATH}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(_PATH), exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(marshal.dumps({**_load(_PATH), **_codes}))
        os.replace(tmp, _PATH)
    except (OSError, ValueError):
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:  # noqa: A002
    """``exec`` as ``dataclasses`` calls it, from the cache for text run in a vramdesk module."""
    global _added
    if (
        not isinstance(source, str)
        or not isinstance(globals, dict)
        or not str(globals.get("__name__", "")).startswith("vramdesk.")
    ):
        builtins.exec(source, globals, locals)
        return
    code = _codes.get(source)
    if code is None:
        code = compile(source, "<string>", "exec", dont_inherit=True)
        if len(_codes) < MAX_ENTRIES:
            _codes[source] = code
            _added += 1
    builtins.exec(code, globals, locals)


def _patch(module: ModuleType) -> None:
    module.exec = _exec  # type: ignore[attr-defined]  # a module global shadows the builtin
    _codes.update(_load(_PATH))
    atexit.register(_save)


class _WhenImported:
    """A ``sys.meta_path`` finder that patches ``dataclasses`` once it is imported.

    So that a command that defines no dataclass (``vramdesk --help``) does not import it (and
    ``inspect``, about 47 M instructions) for the sake of this cache.
    """

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> Any:
        if name != "dataclasses":
            return None
        sys.meta_path.remove(_WhenImported)
        spec = PathFinder.find_spec(name, path)
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if run is None:  # not a plain source module: leave it as it is
            return spec

        def exec_module(module: ModuleType) -> None:
            run(module)
            _patch(module)

        loader.exec_module = exec_module  # type: ignore[union-attr]  # this loader only
        return spec


def install() -> None:
    """Give ``dataclasses`` the cached ``exec``, now or when it is imported (once).

    At exit, the texts compiled in this process are added to the file.
    """
    global _installed
    if _installed:
        return
    _installed = True
    if "dataclasses" in sys.modules:
        _patch(sys.modules["dataclasses"])
    else:
        sys.meta_path.insert(0, _WhenImported)  # type: ignore[arg-type]  # a finder class
