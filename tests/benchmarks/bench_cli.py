"""The command line's start-up and ``vramdesk models``, as ratios to same-run baselines (issue 24).

    .venv/bin/python tests/benchmarks/bench_cli.py [--runs N] [--repos N] [--only ROW ...]

Rows (each a whole process, timed from ``fork`` to exit, the two sides interleaved run by run;
the ratio is median over median, the spread each side's min-max; beside the wall-clock ratio,
which the target is on, the ratio of CPU time, user + system from ``wait4``, which moves less
when other work shares the machine):

estimate  ``vramdesk estimate --preset llama-3.1-8b --context 8192 --json`` against
          ``python -c "import json"`` (the same interpreter); target <= 3x.
help      ``vramdesk --help`` against the same baseline; target <= 3x.
models    ``vramdesk models`` over a fake Hugging Face cache of ``--repos`` repos (10,000)
          built in a temporary folder as ``huggingface_hub`` lays it out (``refs/main``, a
          ``snapshots/<commit>/`` of symbolic links into ``blobs/``: config.json,
          generation_config.json, model.safetensors), against a bare ``os.scandir``
          recursion of the same tree in a child of the same interpreter; target <= 2x.

The command runs as a user runs it: the console script ``vramdesk`` beside the interpreter
(else ``-c "from vramdesk.cli import main; ..."``), byte-compiled first (as pip installs it)
and run once before the timed runs (which writes the cache of generated dataclass methods,
:mod:`vramdesk.core._dataclass_code`, as a user's first run does),
with a throw-away config folder and every model store but the fake cache pointed at an empty
folder. Prints one line per row and PASS/FAIL; exits 1 when a row fails. A benchmark: it
asserts nothing in the suite.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: row -> (label, target ratio)
ROWS = {
    "estimate": ("estimate --preset --json / python -c 'import json'", 3.0),
    "help": ("--help / python -c 'import json'", 3.0),
    "models": ("models, fake HF cache / bare os.scandir walk", 2.0),
}

_BARE_WALK = (
    "import os, sys\n"
    "def walk(path):\n"
    "    n = 0\n"
    "    with os.scandir(path) as entries:\n"
    "        for e in entries:\n"
    "            n += 1\n"
    "            if e.is_dir(follow_symlinks=False):\n"
    "                n += walk(e.path)\n"
    "    return n\n"
    "print(walk(sys.argv[1]))\n"
)


_SOURCE: str | None = None  # --source: another checkout's vramdesk instead of the installed one


def _vramdesk() -> list[str]:
    script = Path(sys.executable).with_name("vramdesk")
    if script.is_file() and _SOURCE is None:
        return [str(script)]
    return [sys.executable, "-c", "from vramdesk.cli import main; raise SystemExit(main())"]


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, from ``wait4``) of one child process."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(  # from a neutral folder: `-c` puts the working one first
            argv, env=env, stdout=subprocess.DEVNULL, stderr=err, cwd=tempfile.gettempdir()
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise RuntimeError(f"{argv} exited {proc.returncode}: {err.read()[-2000:]!r}")
    return wall, usage.ru_utime + usage.ru_stime


def build_hf_cache(root: Path, repos: int) -> None:
    """``repos`` model repos laid out as ``huggingface_hub`` downloads them."""
    config = json.dumps(
        {
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "hidden_size": 4096,
            "num_hidden_layers": 32,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "intermediate_size": 14336,
            "vocab_size": 128256,
            "torch_dtype": "bfloat16",
        }
    ).encode()
    for i in range(repos):
        repo = root / f"models--org{i % 97}--model-{i:05d}"
        commit = f"{i:040x}"
        (repo / "refs").mkdir(parents=True)
        (repo / "refs" / "main").write_text(commit)
        blobs, snap = repo / "blobs", repo / "snapshots" / commit
        blobs.mkdir()
        snap.mkdir(parents=True)
        for n, (name, data) in enumerate(
            (
                ("config.json", config),
                ("generation_config.json", b'{"bos_token_id": 1}'),
                ("model.safetensors", b"\0" * (64 + i % 7)),
            )
        ):
            blob = f"{i:032x}{n:032x}"
            (blobs / blob).write_bytes(data)
            os.symlink(f"../../blobs/{blob}", snap / name)


def _env(config_dir: str, empty: str, cache: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # as an installed copy runs: its bytecode and the dataclass methods' cache
    # (vramdesk/core/_dataclass_code.py) written by the first run, the warm-up
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        VRAMDESK_CONFIG_DIR=config_dir,
        XDG_CONFIG_HOME=config_dir,
        HF_HUB_CACHE=cache or empty,
        OLLAMA_MODELS=empty,
        VRAMDESK_LMSTUDIO_MODELS=empty,
        LLAMA_CACHE=empty,
        VRAMDESK_MODEL_DIRS="",
    )
    if _SOURCE is not None:
        env["PYTHONPATH"] = _SOURCE
    return env


def _row(
    row: str, real: list[str], base: list[str], env: dict[str, str], runs: int
) -> tuple[bool, dict]:
    label, target = ROWS[row]
    got, bare = [], []
    _timed(real, env), _timed(base, env)  # warm the page cache on both sides
    for _ in range(runs):  # interleaved
        bare.append(_timed(base, env))
        got.append(_timed(real, env))
    wall = [w for w, _c in got], [w for w, _c in bare]
    cpu = [c for _w, c in got], [c for _w, c in bare]
    ratio = statistics.median(wall[0]) / statistics.median(wall[1])
    cpu_ratio = statistics.median(cpu[0]) / statistics.median(cpu[1])
    ok = ratio <= target

    def ms(values: list[float]) -> str:
        return (
            f"{statistics.median(values) * 1e3:.1f} ms "
            f"[{min(values) * 1e3:.1f}-{max(values) * 1e3:.1f}]"
        )

    print(
        f"{label:<52} wall {ratio:5.2f}x (target <= {target:.0f}x) {'PASS' if ok else 'FAIL'}"
        f"  cpu {cpu_ratio:5.2f}x   vramdesk {ms(wall[0])} cpu {ms(cpu[0])}"
        f"   baseline {ms(wall[1])} cpu {ms(cpu[1])}",
        flush=True,
    )
    return ok, {
        "row": row,
        "ratio": ratio,
        "cpu_ratio": cpu_ratio,
        "real_s": wall[0],
        "base_s": wall[1],
        "real_cpu_s": cpu[0],
        "base_cpu_s": cpu[1],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15, help="runs of each side (default 15)")
    ap.add_argument("--repos", type=int, default=10_000, help="repos in the fake cache")
    ap.add_argument("--only", nargs="+", choices=list(ROWS), help="run these rows only")
    ap.add_argument("--json", help="also write the raw figures to this file")
    ap.add_argument(
        "--source",
        metavar="DIR",
        help="time the vramdesk package of this checkout (e.g. an older commit's, from "
        "'git archive') instead of the installed one, for a before/after",
    )
    opts = ap.parse_args()
    global _SOURCE
    _SOURCE = opts.source and str(Path(opts.source).resolve())
    compileall.compile_dir(str(Path(_SOURCE or ROOT) / "vramdesk"), quiet=1)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} CPUs")
    rows = opts.only or list(ROWS)
    results, ok = [], True
    with tempfile.TemporaryDirectory(prefix="vd-bench-cli-") as tmp:
        config, empty, cache = (Path(tmp) / d for d in ("config", "empty", "hub"))
        for d in (config, empty, cache):
            d.mkdir()
        env = _env(str(config), str(empty))
        baseline = [sys.executable, "-c", "import json"]
        if "estimate" in rows:
            argv = [*_vramdesk(), "estimate", "--preset", "llama-3.1-8b", "--context", "8192"]
            good, r = _row("estimate", [*argv, "--json"], baseline, env, opts.runs)
            ok &= good
            results.append(r)
        if "help" in rows:
            good, r = _row("help", [*_vramdesk(), "--help"], baseline, env, opts.runs)
            ok &= good
            results.append(r)
        if "models" in rows:
            build_hf_cache(cache, opts.repos)
            env = _env(str(config), str(empty), str(cache))
            walk = [sys.executable, "-c", _BARE_WALK, str(cache)]
            runs = max(3, opts.runs // 3)
            good, r = _row("models", [*_vramdesk(), "models"], walk, env, runs)
            ok &= good
            results.append(r)
    if opts.json:
        Path(opts.json).write_text(json.dumps({"load": load, "rows": results}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
