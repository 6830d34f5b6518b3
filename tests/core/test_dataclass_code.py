"""The cache of dataclass-generated methods (vramdesk/core/_dataclass_code.py, issue 24).

What it must keep: a class made through the cache is the class ``dataclasses`` makes (the same
methods, signatures and annotations, behaving the same), other packages' classes never go
through it, and a missing or corrupt file only means compiling again.
"""

import dataclasses
import inspect
import marshal
import subprocess
import sys
import types

import pytest

from vramdesk.core import _dataclass_code as dc


def _make(module_name, body):
    # a class body defined in a fresh module called module_name, then made a frozen dataclass
    module = types.ModuleType(module_name)
    sys.modules[module_name] = module
    try:
        exec(body, module.__dict__)  # noqa: S102 - the test's own class text
        return dataclasses.dataclass(frozen=True, slots=True)(module.C)
    finally:
        del sys.modules[module_name]


BODY = (
    "from typing import Optional\n"
    "class C:\n"
    "    a: int\n"
    "    b: 'Optional[str]' = None\n"
    "    c: float = 1.5\n"
)


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setattr(dc, "_PATH", str(tmp_path / "dataclass-code.bin"))
    monkeypatch.setattr(dc, "_codes", {})
    monkeypatch.setattr(dc, "_added", 0)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert dataclasses.exec is dc._exec  # installed by importing vramdesk.core
    return tmp_path / "dataclass-code.bin"


def _same_class(ours, theirs):
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
        assert inspect.signature(getattr(ours, name)) == inspect.signature(getattr(theirs, name))
        assert getattr(ours, name).__annotations__ == getattr(theirs, name).__annotations__, name
    x, y = ours(1, "z"), theirs(1, "z")
    assert repr(x) == repr(y).replace("theirs", "vramdesk.fake")
    assert x == ours(1, "z") and x != ours(2) and hash(x) == hash(ours(1, "z"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.a = 3
    assert ours.__slots__ == theirs.__slots__


def test_a_cached_class_is_the_class_dataclasses_makes(cache):
    theirs = _make("theirs", BODY)  # not a vramdesk module: the builtin exec
    assert dc._added == 0
    ours = _make("vramdesk.fake", BODY)  # compiled, and kept
    assert dc._added > 0
    _same_class(ours, theirs)
    # the annotations are objects, not text: the cache compiles without this module's
    # `from __future__ import annotations` (dont_inherit), as dataclasses' own exec does
    assert ours.__init__.__annotations__["a"] is int


def test_the_file_written_at_exit_is_read_back_and_used(cache, monkeypatch):
    _make("vramdesk.fake", BODY)
    dc._save()
    stored = marshal.loads(cache.read_bytes())
    assert set(stored) == set(dc._codes) and stored
    monkeypatch.setattr(dc, "_codes", dc._load(str(cache)))
    monkeypatch.setattr(dc, "_added", 0)

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled although cached")

    monkeypatch.setattr(dc, "compile", no_compile, raising=False)
    ours = _make("vramdesk.fake", BODY)
    assert dc._added == 0
    _same_class(ours, _make("theirs", BODY))


@pytest.mark.parametrize("content", [b"", b"\x00garbage", marshal.dumps([1, 2]), b"\xe3" * 9])
def test_an_unreadable_file_is_compiled_past(cache, content):
    cache.write_bytes(content)
    assert dc._load(str(cache)) == {}
    _same_class(_make("vramdesk.fake", BODY), _make("theirs", BODY))


def test_nothing_is_written_when_bytecode_is_not(cache, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    _make("vramdesk.fake", BODY)
    dc._save()
    assert not cache.exists()


def test_a_command_without_dataclasses_does_not_import_them():
    # the cache is installed by vramdesk.core, but patches dataclasses only once imported
    code = (
        "import sys, vramdesk.core.errors\n"
        "print('dataclasses' in sys.modules)\n"
        "import dataclasses\n"
        "print(dataclasses.exec.__module__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert proc.stdout.split() == ["False", "vramdesk.core._dataclass_code"], proc.stderr
