"""Mutation-testing benchmark of the core's formulas (mutmut).

Run: ``python tests/benchmarks/mutation.py`` (every module) or
``python tests/benchmarks/mutation.py kv_cache solve`` (some). The modules are mutated in a
throw-away copy of the tree, in one mutmut run, and only the fast tests run against the
mutants (``tests/core`` and ``tests/cli``; the window's tests take minutes and test
no formula). Prints, per module, the mutants killed, the survivors and the score
``killed / (mutants - equivalent)``, then every survivor's diff.

Survivors that no test can kill, because the mutant computes the same result as the
original (an equivalent mutant), are listed in :data:`EQUIVALENT` with the reason; the
score leaves them out and the report marks them. A survivor that is not listed is a
missing test.

``--sample 05`` runs a fixed fifth of the mutants (those numbered ...0 and ...5) for a quick
score; ``--rev REV`` mutates a past revision (the score before a change). Not a test: a full
run takes about an hour on two cores (``--max-children`` sets the
parallelism, default 2). Needs ``mutmut`` (``pip install mutmut``; 3.x).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The modules under test, as mutmut name their mutants (``vramdesk.core.terms.kv_cache``...).
MODULES = {
    "kv_cache": ["vramdesk/core/terms/kv_cache.py"],
    # the neutral profile's terms moved from estimate.py to formula.py (issue 13)
    "estimate": ["vramdesk/core/estimate.py", "vramdesk/core/terms/formula.py"],
    "solve": ["vramdesk/core/solve/solver.py"],
    "formats": ["vramdesk/core/model/formats.py"],
    "engines": ["vramdesk/core/engines/*"],
}

#: Surviving mutants that compute what the original computes (mutant name -> reason).
#: Filled in from the report after each run; a name here that no longer survives is
#: reported so that the list does not rot.
EQUIVALENT: dict[str, str] = {
    # guess = floor(slope) instead of floor((usable - intercept) / slope)
    "vramdesk.core.solve.solver.xǁ_Problemǁmax_concurrency__mutmut_30": (
        "the closed form only seeds largest_fitting's gallop: any guess gives the same answer "
        "(test_largest_fitting_finds_the_edge_from_any_guess), only the count of estimates "
        "differs, and that stays O(log range)"
    ),
    "vramdesk.core.solve.solver.xǁ_Problemǁmax_concurrency__mutmut_25": (
        "the guess again (taken as 1)"
    ),
    "vramdesk.core.solve.solver.xǁ_Problemǁmax_concurrency__mutmut_35": "the guess again (2 for 1)",
    "vramdesk.core.solve.solver.xǁ_Problemǁmax_context__mutmut_65": (
        "max_context's guess (hi_need + lo_need): it only seeds largest_fitting"
    ),
    "vramdesk.core.solve.solver.x__weight_levers__mutmut_5": (
        "WeightSpec(INT4, group_size=None) is g128 by default: the same spec"
    ),
    "vramdesk.core.engines.vllm.x_parse_version__mutmut_15": (
        "an unreadable version is read as the newest, (99,) or (100,): both exceed every "
        "release the profile compares with"
    ),
    "vramdesk.core.engines.llamacpp.x_flash_attention__mutmut_15": (
        "the branch for engines other than llama.cpp and Ollama: only their profiles call it"
    ),
    "vramdesk.core.engines.llamacpp.x_kv_bytes_per_cell__mutmut_25": (
        "a layer without a cache of its own has rows (0, 0): adding it adds 0 bytes"
    ),
    "vramdesk.core.engines.llamacpp.x_weight_split__mutmut_5": (
        "llama.cpp refuses pipeline_parallel_size > 1 before this runs: PP is already 1"
    ),
    "vramdesk.core.terms.kv_cache.x_kv_cache_part__mutmut_45": (
        "(1, 0) for (0, 0) when no layer caches: the row text is then never shown (the "
        "formula is '0 (no layer keeps a per-token KV cache)')"
    ),
    "vramdesk.core.engines.sglang.xǁSglangProfileǁcapacity_figures__mutmut_25": (
        "max(1, pool) // cell for max(0, pool) // cell: a cell is at least 2 bytes, so 1 // "
        "cell is 0 tokens as well"
    ),
    "vramdesk.core.engines.transformers.xǁTransformersProfileǁestimate__mutmut_5": (
        "transformers refuses shared_prefix_tokens (its option group) before this runs"
    ),
    "vramdesk.core.engines.base.xǁFormulaProfileǁneed_at_point__mutmut_10": (
        "swaps the fast path and the general path: both give the same integers at every point "
        "(test_verdict_without_a_breakdown_equals_the_estimates_figures and the need-at-point "
        "tests compare them), only the time differs"
    ),
    "vramdesk.core.engines.base.xǁFormulaProfileǁneed_at_point__mutmut_20": (
        "inputs the validation refuses reach the fast path, which runs the same checks and "
        "refuses them with the same error"
    ),
    "vramdesk.core.terms.formula.x_weight_groups__mutmut_10": (
        "'and ... or embeddings_unquantized is None' also sends non-GGUF formats to "
        "recipe_groups, which has no recipe for them and returns None; a GGUF file type with "
        "experts_only, the other difference, is a combination no importer or option produces"
    ),
}

#: The fast tests: the window's take minutes and test no formula.
TESTS = ["tests/core", "tests/cli"]

#: Lines not mutated: lines that start with a string (the formula text, notes and messages
#: shown to the user, which the CLI's and the window's tests read; a mutant there changes
#: what is printed, not what is computed). String literals are not mutated anywhere either
#: (see :data:`RUN_MUTMUT`): this benchmark scores the arithmetic.
SKIP_LINES = [r"^\s*f?[\"']", r"^\s*\+ f?[\"']", r"^\s*(raise InputError|InputError)\("]

#: mutmut's command line, less its string-literal mutator (``"x"`` -> ``"XXxXX"``): mutmut
#: generates mutants in this process and forks its workers from it, so the change holds.
RUN_MUTMUT = (
    "import sys, libcst as cst\n"
    "from mutmut.mutation import mutators\n"
    "mutators.mutation_operators[:] = [o for o in mutators.mutation_operators"
    " if o[0] is not cst.BaseString]\n"
    "from mutmut.__main__ import cli\n"
    "sys.argv[0] = 'mutmut'\n"
    "cli()\n"
)


def _copy_tree(dest: Path) -> None:
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    for name in files:
        src = ROOT / name
        if not src.is_file():
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)


def _config(module_globs: list[str], children: int) -> str:
    tests = ", ".join(f'"{t}"' for t in TESTS)
    return (
        "[tool.mutmut]\n"
        'source_paths = ["vramdesk"]\n'
        f"only_mutate = {json.dumps(module_globs)}\n"
        'also_copy = ["presets", "resources", "README.md"]\n'
        f"pytest_add_cli_args_test_selection = [{tests}]\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-x", "-q", "--no-header",'
        ' "-p", "no:randomly"]\n'
        "use_git_change_detection = false\n"
        "timeout_multiplier = 4.0\n"
        f"do_not_mutate_patterns = {json.dumps(SKIP_LINES)}\n"
        f"# max_children = {children}\n"
    )


def _strip_mutmut(pyproject: str) -> str:
    return re.sub(r"(?ms)^\[tool\.mutmut\].*?(?=^\[|\Z)", "", pyproject)


def module_of(mutant: str) -> str:
    """The :data:`MODULES` key a mutant belongs to.

    ``vramdesk.core.terms.formula.x_...`` -> estimate.
    """
    for name, globs in MODULES.items():
        for glob in globs:
            dotted = glob.removesuffix(".py").removesuffix("/*").replace("/", ".")
            if mutant.startswith(dotted + "."):
                return name
    return "?"


def run_modules(
    names: list[str], children: int, keep: bool, rev: str | None = None, sample: str | None = None
) -> dict:
    """Mutate ``names`` in one temporary copy of the tree (or of ``rev``); return the results.

    One mutmut run for all of them: its clean run and coverage pass happen once.
    """
    work = Path(tempfile.mkdtemp(prefix="vramdesk-mut-"))
    try:
        if rev:
            archive = subprocess.run(
                ["git", "archive", rev], cwd=ROOT, capture_output=True, check=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
        else:
            _copy_tree(work)
        py = work / "pyproject.toml"
        text = _strip_mutmut(py.read_text(encoding="utf-8"))
        globs = [g for n in names for g in MODULES[n]]
        py.write_text(text + "\n" + _config(globs, children), encoding="utf-8")
        env = {**os.environ, "VRAMDESK_BENCH": "", "PYTHONDONTWRITEBYTECODE": "1"}
        mutmut = [sys.executable, "-m", "mutmut"]
        run = subprocess.run(
            [
                sys.executable,
                "-c",
                RUN_MUTMUT,
                "run",
                "--max-children",
                str(children),
                *([f"*__mutmut_*[{sample}]"] if sample else []),
            ],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
        )
        results = subprocess.run(
            [*mutmut, "results", "--all", "true"],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
        ).stdout
        statuses: dict[str, str] = {}
        for line in results.splitlines():
            m = re.match(r"\s*(\S+): (.+)$", line)
            if m and m.group(2).strip() != "not checked":  # outside the sample
                statuses[m.group(1)] = m.group(2).strip()
        diffs = {}
        for mutant, status in statuses.items():
            if status in ("survived", "no tests"):
                diffs[mutant] = subprocess.run(
                    [*mutmut, "show", mutant], cwd=work, env=env, capture_output=True, text=True
                ).stdout
        return {
            "statuses": statuses,
            "diffs": diffs,
            "log": run.stdout[-2000:] + run.stderr[-2000:],
            "returncode": run.returncode,
        }
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def summarise(name: str, result: dict) -> tuple[int, int, int, int]:
    """Return ``(mutants, killed, equivalent, survived)`` and print the module's report."""
    statuses = {m: s for m, s in result["statuses"].items() if module_of(m) == name}
    killed = sum(s in ("killed", "timeout", "segfault", "suspicious") for s in statuses.values())
    surv = [m for m, s in statuses.items() if s in ("survived", "no tests")]
    equiv = [m for m in surv if m in EQUIVALENT]
    live = [m for m in surv if m not in EQUIVALENT]
    other = {s for s in statuses.values()} - {
        "killed",
        "timeout",
        "segfault",
        "suspicious",
        "survived",
        "no tests",
    }
    total = len(statuses)
    denom = total - len(equiv)
    score = 100.0 * killed / denom if denom else 100.0
    print(
        f"{name:<10} mutants {total:5d}  killed {killed:5d}  "
        f"equivalent {len(equiv):4d}  survived {len(live):4d}  score {score:6.2f} %"
        + (f"  (other statuses: {sorted(other)})" if other else "")
    )
    if not statuses:
        print("  mutmut produced no results:\n" + result["log"])
    for m in equiv:
        print(f"  equivalent {m}: {EQUIVALENT[m]}")
    for m in live:
        print(f"  SURVIVED {m}\n" + _indent(result["diffs"].get(m, "")))
    return total, killed, len(equiv), len(live)


def _indent(text: str) -> str:
    return "\n".join("      " + line for line in text.strip().splitlines() if line.strip())


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print per-module scores and the survivors."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"some of {', '.join(MODULES)} (default all)")
    parser.add_argument("--rev", help="mutate this git revision instead of the working tree")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the temporary trees")
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    parser.add_argument(
        "--sample",
        metavar="DIGITS",
        help="run only the mutants whose number ends in one of DIGITS ('05': a fixed 20 %% "
        "sample spread over every function); default: every mutant",
    )
    args = parser.parse_args(argv)
    unknown = set(args.modules) - set(MODULES)
    if unknown:
        parser.error(f"unknown module(s) {sorted(unknown)}; choose from {list(MODULES)}")
    names = args.modules or list(MODULES)
    result = run_modules(names, args.max_children, args.keep, args.rev, args.sample)
    raw = [result]
    rows = [summarise(name, result) for name in names]
    total = sum(r[0] for r in rows)
    killed = sum(r[1] for r in rows)
    equiv = sum(r[2] for r in rows)
    score = 100.0 * killed / (total - equiv) if total - equiv else 100.0
    print(f"{'all':<10} mutants {total:5d}  killed {killed:5d}  score {score:6.2f} %")
    stale = [m for m in EQUIVALENT if not any(m in r["statuses"] for r in raw)]
    if stale and not args.modules and not args.sample:
        print("listed as equivalent but not produced any more: " + ", ".join(stale))
    if args.json:
        args.json.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
