"""Issue 22 item 5: the slow but bounded inputs, timed (medians), before-fix figures quoted.

    .venv/bin/python tests/benchmarks/bench_slow_inputs.py [--runs 5]

Each input is built in a temporary folder (tests/slow_inputs.py) and each command goes
through ``vramdesk.cli.main`` in a fresh child interpreter (tests/bounded.py: the wall
time of the command after its imports). Targets: every input refused or answered within
1 s; ``vramdesk models`` over a 10,000-repo Hugging Face cache within 2 s. Also the
window's edit of the 8,192-layer Ollama shape: the GUI thread's time per edit (the solve
runs on the thread pool since issue 22) and the time until its solve is shown.
Prints one line per row; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import slow_inputs as si  # noqa: E402
from tests.bounded import run_cli_bounded  # noqa: E402

CONFIG = ROOT / "tests/data/reference/models/llama-3.1-8b/config.json"
#: Seconds one command may run (the split of links took minutes before issue 22).
TIMEOUT = 120
#: Issue 22's figures before the fixes (its probe's machine).
BEFORE = {
    "split-links": "431 s",
    "safetensors-131072": "7.4 s",
    "hf-10000": "16-22 s",
    "ollama-8192-solve": "5.2 s",
    "window-edit-8192": "1.4-1.9 s on the GUI thread",
}

_WINDOW = r"""
import os, sys, time
sys.path.insert(0, sys.argv[1])
from PySide6.QtWidgets import QApplication
from PySide6.QtTest import QTest
app = QApplication([])
from vramdesk.core import Engine
from vramdesk.gui.main_window import MainWindow
from vramdesk.gui.settings import open_settings
w = MainWindow(open_settings(), gpu_query=None)
c = w.controller
c.update({"engine": Engine.OLLAMA, "num_hidden_layers": 8192, "n_gpu_layers": 4000})
def settle():  # until the solve is shown (before issue 22 the edit itself solved)
    start = time.perf_counter()
    while getattr(c, "solver", None) is not None and c.solver.busy():
        QTest.qWait(1)
    return time.perf_counter() - start
settle()
edit, shown = [], []
for ctx in (4096, 8192, 2048, 16384, 1024, 6000, 3000):
    t = time.perf_counter()
    c.set_field("context_tokens", ctx)
    edit.append(time.perf_counter() - t)
    shown.append(edit[-1] + settle())
import statistics as st
print(f"{st.median(edit):.3f} {st.median(shown):.3f}")
"""


def _median_cli(argv: list[str], runs: int, env: dict | None = None) -> tuple[float, int, str]:
    try:
        results = [run_cli_bounded(argv, env=env, timeout=TIMEOUT) for _ in range(runs)]
    except subprocess.TimeoutExpired:
        return float("inf"), -1, f"still running after {TIMEOUT} s"
    last = results[-1]
    line = (last.stderr.strip() or last.stdout.strip().splitlines()[0])[:110]
    return statistics.median(r.seconds for r in results), last.rc, line


def main() -> None:
    """Build each input, time it, print a row."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        rows = []
        first = si.split_gguf(top / "links", 1024, how="links", tokenizer=True)
        rows.append(("split-links", ["estimate", "--gguf", str(first), "--context", "1"], None))
        first = si.split_gguf(top / "distinct", 1024)
        rows.append(("split-distinct", ["estimate", "--gguf", str(first), "--context", "1"], None))
        for n in (131_072, 65_536):
            folder = top / f"st{n}"
            folder.mkdir()
            (folder / "config.json").write_bytes(CONFIG.read_bytes())
            si.many_tensors_safetensors(folder / "model.safetensors", n)
            argv = ["estimate", "--config", str(folder), "--context", "1"]
            rows.append((f"safetensors-{n}", argv, None))
        hub = si.hf_cache(top / "hub", 10_000, CONFIG.read_bytes())
        env = {"HF_HUB_CACHE": str(hub), "VRAMDESK_MODEL_DIRS": ""}
        for var in ("OLLAMA_MODELS", "VRAMDESK_LMSTUDIO_MODELS", "LLAMA_CACHE"):
            env[var] = str(top / "none")
        rows.append(("hf-10000", ["models"], env))
        deep = ["solve", "--engine", "ollama", *si.DEEP_SHAPE, "--context", "8192"]
        rows.append(
            ("ollama-8192-solve", [*deep, "--vram-gib", "80", "--n-gpu-layers", "100"], None)
        )
        for name, argv, extra in rows:
            seconds, rc, line = _median_cli(argv, runs, extra)
            before = BEFORE.get(name, "-")
            print(f"{name:22s} median {seconds:7.3f} s  exit {rc}  (before: {before})  {line}")
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", VRAMDESK_CONFIG_DIR=str(top / "cfg"))
        out = subprocess.run(
            [sys.executable, "-c", _WINDOW, str(ROOT)], capture_output=True, text=True, env=env
        )
        edit, shown = out.stdout.split()[-2:] if out.returncode == 0 else ("?", "?")
        print(
            f"{'window-edit-8192':22s} median {float(edit):7.3f} s on the GUI thread, solve shown "
            f"after {float(shown):.3f} s  (before: {BEFORE['window-edit-8192']})"
        )


if __name__ == "__main__":
    main()
