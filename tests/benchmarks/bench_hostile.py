"""Time and peak memory of every hostile file of issue 12, and of a real-sized GGUF header.

    .venv/bin/python tests/benchmarks/bench_hostile.py

Each file goes through the real command line in a child interpreter (tests/bounded.py:
wall seconds of the command, peak RSS growth over the interpreter after its imports).
Then a Llama-3-sized GGUF (128,256 tokens, 280,147 merges, 291 tensors, 8.8 MB of header)
is timed against the same estimate from the bundled preset: issue 11 allows it 150 ms and
30 MiB more. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import json
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import gguf_files as g  # noqa: E402
from tests.bounded import run_cli_bounded  # noqa: E402
from tests.core.local.test_gguf_read import HOSTILE  # noqa: E402

CONFIG = ROOT / "tests/data/reference/models/llama-3.1-8b/config.json"


def _tiny(n: int, prefix: str = "t") -> dict:
    return {
        f"{prefix}{i}": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]} for i in range(n)
    }


def _st(path: Path, entries: dict, claimed: int | None = None) -> None:
    header = json.dumps(entries, separators=(",", ":")).encode()
    path.write_bytes(struct.pack("<Q", claimed or len(header)) + header + b"\0\0")


def _safetensors_cases(top: Path) -> dict[str, list[str]]:
    cases: dict[str, list[str]] = {}
    for sub in ("a", "b", "c", "e"):
        (top / sub).mkdir()
    d = top / "a"
    p = d / "claims-99MB.safetensors"
    _st(p, {}, 99_000_000)
    with p.open("r+b") as fh:
        fh.truncate(99_000_100)
    cases["safetensors header claiming 99 MB"] = ["--config", str(p)]
    d = top / "b"
    p = d / "250k-entries.safetensors"
    _st(p, _tiny(250_000))
    cases["safetensors 250k tiny entries"] = ["--config", str(p)]
    d = top / "c"
    p = d / "140k-tensors.safetensors"
    _st(p, _tiny(140_000))
    cases["safetensors 140k tensors"] = ["--config", str(p)]
    f = d / "index60"
    f.mkdir()
    (f / "config.json").write_text(CONFIG.read_text())
    (f / "model.safetensors.index.json").write_bytes(b"{}")
    with (f / "model.safetensors.index.json").open("r+b") as fh:
        fh.truncate(60_000_000)
    cases["index of 60 MB"] = ["--config", str(f)]
    f = d / "index5m"
    f.mkdir()
    (f / "config.json").write_text(CONFIG.read_text())
    values = ",".join(["1"] * 5_000_000)
    (f / "model.safetensors.index.json").write_text(
        '{"metadata": {"total_size": 1}, "weight_map": [' + values + "]}"
    )
    cases["index of 5 M values"] = ["--config", str(f)]
    f = d / "shards"
    f.mkdir()
    (f / "config.json").write_text(CONFIG.read_text())
    for k in range(24):
        _st(f / f"model-{k:05d}-of-00024.safetensors", _tiny(15_000, f"s{k}."))
    cases["24 shards x 15,000 tensors"] = ["--config", str(f)]
    huge = "9" * 5000
    p = top / "e" / "config.json"
    p.write_text(CONFIG.read_text().replace("4096", huge, 1))
    cases["config.json 5,000-digit int"] = ["--config", str(p)]
    return cases


def _median_wall(argv: list[str], n: int = 7) -> float:
    runs = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "vramdesk", *argv], capture_output=True, cwd=ROOT)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    worst_s = worst_mib = 0.0
    print(f"{'hostile file':<40} {'exit':>4} {'seconds':>8} {'peak RSS +MiB':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        cases: dict[str, list[str]] = {}
        for name, (build, _) in sorted(HOSTILE.items()):
            path = d / f"{name}.gguf"
            path.write_bytes(build())
            cases[f"gguf {name} ({path.stat().st_size:,} B)"] = ["--gguf", str(path)]
        cases.update(_safetensors_cases(d))
        for name, model in cases.items():
            r = run_cli_bounded(["estimate", *model, "--context", "1"], timeout=300)
            worst_s, worst_mib = max(worst_s, r.seconds), max(worst_mib, r.rss_growth_mib)
            print(f"{name[:40]:<40} {r.rc:>4} {r.seconds:>8.3f} {r.rss_growth_mib:>14.1f}")
        print(f"worst: {worst_s:.3f} s, {worst_mib:.1f} MiB peak RSS growth")

        path = d / "llama3.gguf"
        path.write_bytes(g.gguf(g.llama_kvs() + g.llama3_tokenizer(), g.llama3_tensors()))
        base = ["estimate", "--context", "8192"]
        r = run_cli_bounded([*base, "--gguf", str(path)])
        p = run_cli_bounded([*base, "--preset", "llama-3.1-8b"])
        gguf_wall = _median_wall([*base, "--gguf", str(path)])
        preset_wall = _median_wall([*base, "--preset", "llama-3.1-8b"])
        print(
            f"\nLlama-3-sized GGUF ({path.stat().st_size:,} B header): command "
            f"{r.seconds * 1000:.0f} ms vs preset {p.seconds * 1000:.0f} ms in-process; "
            "whole process median "
            f"{gguf_wall * 1000:.0f} ms vs {preset_wall * 1000:.0f} ms "
            f"(+{(gguf_wall - preset_wall) * 1000:.0f} ms); peak RSS growth "
            f"{r.rss_growth_mib:.1f} MiB vs {p.rss_growth_mib:.1f} MiB"
        )


if __name__ == "__main__":
    main()
