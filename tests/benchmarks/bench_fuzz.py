"""Long fuzz run of every file reader and the command line (issue 12); prints the figures.

    .venv/bin/python tests/benchmarks/bench_fuzz.py [EXAMPLES_PER_TARGET] [SEED]

Same targets as tests/test_fuzz.py (tests/fuzz_targets.py), random inputs from a seed.
For each target: inputs tried, accepted, refused (documented one-line errors),
undocumented exceptions, hangs (over 5 s), negative byte figures, and the slowest input.
``solve`` runs in child processes with a 20 s limit each, since a hung solve cannot be
interrupted in-process. Exit status 1 if anything was found.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import fuzz_targets as f  # noqa: E402

HANG_S = 5.0


def _run(name, strategy, target, examples, seed, unpack=False):
    counts: Counter[str] = Counter()
    findings: list[str] = []
    slowest = [0.0]

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(value):
        counts["tried"] += 1
        start = time.perf_counter()
        try:
            outcome = target(*value) if unpack else target(value)
            counts[outcome] += 1
        except f.Finding as exc:
            text = str(exc)
            counts["negative" if "negative" in text else "exception"] += 1
            if len(findings) < 5:
                findings.append(text[:400])
        took = time.perf_counter() - start
        slowest[0] = max(slowest[0], took)
        if took > HANG_S:
            counts["hang"] += 1

    from hypothesis import seed as hseed

    hseed(seed)(run)()
    c = counts
    print(
        f"{name:<22} tried {c['tried']:>6}  ok {c['ok']:>6}  refused {c['refused']:>6}  "
        f"exceptions {c['exception']:>3}  hangs {c['hang']:>2}  negative {c['negative']:>2}  "
        f"slowest {slowest[0] * 1000:7.1f} ms"
    )
    for text in findings:
        print(f"    finding: {text}")
    return counts["exception"] + counts["hang"] + counts["negative"]


def _solve_child(argv: list[str]) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "vramdesk", *argv],
        capture_output=True,
        text=True,
        timeout=20,
        cwd=ROOT,
    )
    lines = [x for x in proc.stderr.splitlines() if not x.startswith("vramdesk: warning")]
    if "Traceback" in proc.stderr or (proc.returncode == 2 and len(lines) != 1):
        raise f.Finding(f"{argv}: {proc.stderr[-200:]}")
    if proc.returncode == 0 and "--json" in argv:
        try:
            f._no_negative(json.loads(proc.stdout))
        except f.Finding as exc:
            raise f.Finding(f"{exc} for {argv}") from None
    return "ok" if proc.returncode == 0 else "refused"


def _solve(argv: list[str]) -> str:
    try:
        return _solve_child(argv)
    except subprocess.TimeoutExpired:
        raise f.Finding(f"hang over 20 s: {argv}") from None


def main() -> int:
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    case = json.loads((f.REFERENCE / "engine-cases.jsonl").read_text().splitlines()[0])
    preset = {
        "schema_version": 1,
        "kind": "scenario",
        "name": "Fuzz",
        "model": {"num_hidden_layers": 32, "num_key_value_heads": 8, "head_dim": 128},
        "workload": {"context_tokens": 4096, "batch": 2},
        "runtime": {"overhead_factor": "1.15", "gpu_memory_utilization": "0.9"},
    }
    logs = sorted(p.name for p in f.LOGS.iterdir())
    targets = [
        (
            "gguf",
            st.one_of(*[f.mutated(b, 6) for b in f.gguf_bases()], f.gguf_hostile()),
            f.read_gguf,
            False,
        ),
        (
            "safetensors header",
            st.tuples(f.json_mutated(f.safetensors_base()), st.sampled_from([0, 0, -1, 5, 2**20])),
            f.read_safetensors,
            True,
        ),
        (
            "config.json",
            st.one_of(*[f.json_mutated(c, f.CONFIG_KEYS) for c in f.config_bases()]),
            f.read_config,
            False,
        ),
        (
            "safetensors index",
            f.json_mutated({"metadata": {"total_size": 1}, "weight_map": {"a": "m.safetensors"}}),
            f.read_index,
            False,
        ),
        ("preset file", f.json_mutated(preset), f.read_preset, False),
        (
            "fake NVML file",
            f.json_mutated(json.loads((f.ROOT / "data/fake-two-gpus.json").read_text())),
            f.read_fake_nvml,
            False,
        ),
        (
            "validate case",
            f.json_mutated(case).map(lambda d: (["validate", "@DIR@/c.jsonl"], {"c.jsonl": d})),
            f.run_cli,
            True,
        ),
        (
            "engine log",
            st.sampled_from(logs).flatmap(
                lambda n: f.mutated((f.LOGS / n).read_bytes()[:20000], 6)
            ),
            f.read_log,
            False,
        ),
        ("CLI estimate", f.cli_argv(), f.run_cli, False),
    ]
    found = 0
    start = time.perf_counter()
    for name, strategy, target, unpack in targets:
        found += _run(name, strategy, target, examples, seed, unpack)
    solves = max(10, examples // 20)
    found += _run("CLI solve (children)", f.cli_argv(("solve",)), _solve, solves, seed)
    print(f"total {time.perf_counter() - start:.0f} s; findings {found}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
