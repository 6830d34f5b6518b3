"""Test set-up shared by every test.

* Qt runs offscreen unless the caller chose a platform (no X server needed in CI), and
  paints on the painting thread as the window does (``vramdesk.gui.app.serial_raster``).
* Every test gets its own empty config directory (``VRAMDESK_CONFIG_DIR``), so no test
  touches the user's real presets or settings.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")  # = vramdesk.gui.app.SERIAL_RASTER_ENV

DATA = Path(__file__).resolve().parent / "data"
REFERENCE = DATA / "reference"


@pytest.fixture(autouse=True)
def _fresh_config_dir(tmp_path, monkeypatch):
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("VRAMDESK_CONFIG_DIR", str(config))
    return config


@pytest.fixture(autouse=True)
def _no_local_model_stores(tmp_path, monkeypatch):
    """Point every local model store (HF cache, Ollama, LM Studio, llama.cpp) at empty
    folders, so that no test reads the machine's real models (tests/local_stores.py)."""
    for var, name in (
        ("HF_HUB_CACHE", "no-hf"),
        ("OLLAMA_MODELS", "no-ollama"),
        ("VRAMDESK_LMSTUDIO_MODELS", "no-lmstudio"),
        ("LLAMA_CACHE", "no-llama.cpp"),
    ):
        monkeypatch.setenv(var, str(tmp_path / "stores" / name))
    monkeypatch.setenv("VRAMDESK_MODEL_DIRS", "")
    # this machine's RAM, pinned (the host-RAM check of llama.cpp's breakdown reads it)
    monkeypatch.setenv("VRAMDESK_FAKE_HOST_RAM", str(64 * 2**30))


@pytest.fixture
def config_dir(_fresh_config_dir):
    """The per-test config directory (``VRAMDESK_CONFIG_DIR``)."""
    return _fresh_config_dir


@pytest.fixture(scope="session")
def seed_figures():
    """The cases of seed-figures.json by id (the project's copy)."""
    data = json.loads((REFERENCE / "seed-figures.json").read_text(encoding="utf-8"))
    return {case["id"]: case for case in data["cases"]}


@pytest.fixture(scope="session")
def reference_models():
    """models.json entries (the project's copy)."""
    return json.loads((REFERENCE / "models.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def llama8():
    """The bundled Llama-3.1-8B preset, the model most hand derivations use.

    config.json: 32 layers, 32 heads and 8 KV heads of head_dim 128, hidden 4,096,
    intermediate 14,336, vocab 128,256, untied; 8,030,261,248 parameters (bf16).
    """
    from vramdesk.core.store.bundled import find_model

    return find_model("llama-3.1-8b")
