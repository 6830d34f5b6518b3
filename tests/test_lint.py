"""Lint, format and import contracts run with the tests (issue 13).

``ruff check`` and ``ruff format --check`` over the repository (pyproject.toml's
``[tool.ruff]``), and import-linter's contracts (``[tool.importlinter]``): the core imports
no Qt, window or command-line module, and the engine profiles never import the estimate
that dispatches to them (the cycle issue 13 broke).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_check_is_clean():
    proc = _run(sys.executable, "-m", "ruff", "check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean():
    proc = _run(sys.executable, "-m", "ruff", "format", "--no-cache", "--check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_import_contracts_hold():
    proc = _run(str(BIN / "lint-imports"), "--no-cache")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Contracts: 5 kept, 0 broken." in proc.stdout
