"""Mutation-testing benchmark of the core's formulas (mutmut 3.x).

Run: ``python tests/benchmarks/mutation.py`` (every module group) or
``python tests/benchmarks/mutation.py kv_cache solve`` (some; the groups are
:data:`MODULES`). The groups are mutated in a throw-away copy of the tree, in one mutmut
run, and only the fast tests run against the mutants (:data:`TESTS`, less the timing and
stress tests of :data:`EXCLUDED`). Prints, per group, the mutants killed, the survivors and
the score ``killed / (mutants - equivalent)``, then every survivor's diff.

Survivors that no test can kill, because the mutant computes the same result as the
original (an equivalent mutant), are listed in :data:`EQUIVALENT` with the reason; the
score leaves them out and the report marks them. A survivor that is not listed is a
missing test; a listed mutant that is no longer produced, or that a test now kills, is
reported, so that the list does not rot.

``--sample 05`` runs a fixed fifth of the mutants (those numbered ...0 and ...5) for a quick
score; ``--generate-only`` generates the mutants without running a test (seconds: the
counts per group, and the :data:`EQUIVALENT` entries no longer produced); ``--rev REV``
mutates a past revision (the score before a change). Not a test: a full run (about 6,500
mutants, 2,900 of them in the importers) takes more than an hour on two cores; run some
groups, or a sample (``--max-children`` sets the parallelism, default 2).
Needs ``mutmut`` 3.x (``pip install -e '.[mutation]'``). The harness's own logic (the score,
the selection, the groups) is tested by tests/benchmarks/test_mutation_harness.py, without
mutmut.

It fails loudly rather than print a score that means nothing. Exit status:

* 0: every requested group ran and has its score; the :data:`EQUIVALENT` list is current;
* 1: no score, or not for every group: a group matches no file, the test selection is
  wrong (an unlisted timing test, a stale exclusion) or collects no test, mutmut failed,
  or no mutant (or not every one that should have) ran;
* 2: bad command line;
* 3: every score printed, but an :data:`EQUIVALENT` entry is no longer produced or is
  now killed: update the list.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The module groups under test: group -> glob patterns of the files mutated (mutmut's
#: ``only_mutate``, matched with :func:`fnmatch.fnmatch`, whose ``*`` also matches ``/``).
#: The groups are disjoint, and every pattern matches at least one file
#: (tests/benchmarks/test_mutation_harness.py checks both). ``engines/vllm[./]*`` matches
#: the profile as a module (``engines/vllm.py``) and as a package (``engines/vllm/*.py``),
#: so a split of the file into a package keeps it under test; ``llamacpp`` likewise.
MODULES: dict[str, list[str]] = {
    # per-token KV cache and per-sequence recurrent state, layer by layer
    "kv_cache": ["vramdesk/core/terms/kv_cache.py", "vramdesk/core/terms/state.py"],
    # the estimate and the engine-neutral terms (the neutral profile is in engines_other)
    "estimate": [
        "vramdesk/core/estimate.py",
        "vramdesk/core/terms/weights.py",
        "vramdesk/core/terms/activations.py",
        "vramdesk/core/terms/overhead.py",
    ],
    # the reverse solver (max concurrency / context, smallest TP, fit advisor) and verdict
    "solve": ["vramdesk/core/solve/*.py"],
    "formats": ["vramdesk/core/model/formats.py"],
    # per-layer cache specs, KV cache groups, hybrid pages, blocks, budget
    "engines_vllm": ["vramdesk/core/engines/vllm[./]*"],
    # the per-layer cache loop (cells, SWA, offload), compute buffers
    "engines_llamacpp": ["vramdesk/core/engines/llamacpp[./]*"],
    # the profile interface, the registry, the neutral profile and the other engines
    "engines_other": [
        "vramdesk/core/engines/__init__.py",
        "vramdesk/core/engines/base.py",
        "vramdesk/core/engines/formula.py",
        "vramdesk/core/engines/ollama.py",
        "vramdesk/core/engines/ollama_estimate.py",
        "vramdesk/core/engines/sglang.py",
        "vramdesk/core/engines/transformers.py",
    ],
    # config.json / GGUF / safetensors readers and what they derive from them
    "importers": ["vramdesk/core/local/importers/*.py"],
}

#: Surviving mutants that compute what the original computes (mutant name -> reason).
#: Filled in from the report after each run; every name must belong to a group of
#: :data:`MODULES` (the harness's test checks it), and a name that is no longer produced
#: or no longer survives is reported (exit status 3).
EQUIVALENT: dict[str, str] = {
    # guess = floor(slope) instead of floor((usable - intercept) / slope)
    "vramdesk.core.solve.search.xǁProblemǁmax_concurrency__mutmut_30": (
        "the closed form only seeds largest_fitting's gallop: any guess gives the same answer "
        "(test_largest_fitting_finds_the_edge_from_any_guess), only the count of estimates "
        "differs, and that stays O(log range)"
    ),
    "vramdesk.core.solve.search.xǁProblemǁmax_concurrency__mutmut_25": (
        "the guess again (taken as 1)"
    ),
    "vramdesk.core.solve.search.xǁProblemǁmax_concurrency__mutmut_35": "the guess again (2 for 1)",
    "vramdesk.core.solve.search.xǁProblemǁmax_context__mutmut_65": (
        "max_context's guess (hi_need + lo_need): it only seeds largest_fitting"
    ),
    "vramdesk.core.solve.advisor.x__weight_levers__mutmut_5": (
        "WeightSpec(INT4, group_size=None) is g128 by default: the same spec"
    ),
    "vramdesk.core.engines.vllm.version.x_parse_version__mutmut_15": (
        "an unreadable version is read as the newest, (99,) or (100,): both exceed every "
        "release the profile compares with"
    ),
    "vramdesk.core.engines.llamacpp.compute.x_flash_attention__mutmut_15": (
        "the branch for engines other than llama.cpp and Ollama: only their profiles call it"
    ),
    "vramdesk.core.engines.llamacpp.offload.x_weight_split__mutmut_5": (
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
    "vramdesk.core.engines.formula.xǁFormulaProfileǁneed_at_point__mutmut_10": (
        "swaps the fast path and the general path: both give the same integers at every point "
        "(test_verdict_without_a_breakdown_equals_the_estimates_figures and the need-at-point "
        "tests compare them), only the time differs"
    ),
    "vramdesk.core.engines.formula.xǁFormulaProfileǁneed_at_point__mutmut_20": (
        "inputs the validation refuses reach the fast path, which runs the same checks and "
        "refuses them with the same error"
    ),
    "vramdesk.core.terms.weights.x_weight_groups__mutmut_10": (
        "'and ... or embeddings_unquantized is None' also sends non-GGUF formats to "
        "recipe_groups, which has no recipe for them and returns None; a GGUF file type with "
        "experts_only, the other difference, is a combination no importer or option produces"
    ),
}

#: The tests run against the mutants: the window's take minutes and test no formula.
TESTS = ["tests/core", "tests/cli", "tests/test_readme.py"]

#: pytest's marker expression for the selection: benchmark-marked tests never run.
MARKERS = "not benchmark"

#: Tests of :data:`TESTS` left out of the run against the mutants (a file, or a test as
#: ``file::name``, which takes in all its parameters) -> why. These tests sleep, kill
#: processes, start interpreters, wait on threads or deadlines, or measure time or memory:
#: a mutant that only makes the code slower would fail them by the clock (or by load on a
#: shared machine), which is a timing flake, not a kill, and their processes make every
#: mutant slow to judge. mutmut's own timeout still catches a mutant that hangs.
#: :func:`selection_problems` finds such tests by what they call (:data:`TIMING_CALLS`) and
#: refuses to run while one of them is neither listed here nor outside the selection.
_CHILD = "starts a child interpreter, under a timeout"
EXCLUDED: dict[str, str] = {
    "tests/core/store/test_preset_stress.py": (
        "competing writer processes, SIGKILL at random moments, timed lock waits"
    ),
    "tests/core/local/test_nvml_deadline.py": (
        "NVML deadlines: hung and slow drivers on threads, a hung child interpreter, "
        "wall-clock bounds"
    ),
    "tests/core/local/test_safetensors_limits.py": (
        "each case runs the CLI in a child interpreter and bounds its time and peak memory"
    ),
    "tests/cli/test_cli_hostile.py": (
        "each case runs the CLI in a child interpreter and bounds its time and peak memory"
    ),
    "tests/core/local/test_gguf_read.py::"
    "test_hostile_gguf_refused_in_one_line_quickly_and_in_little_memory": (
        "a child interpreter per hostile header, bounded in time and memory"
    ),
    "tests/core/local/test_gguf_read.py::test_llama3_sized_header_in_bounded_memory": (
        "a child interpreter, bounded in memory"
    ),
    "tests/core/store/test_presets_store.py::test_lock_is_held_while_writing": (
        "waits out a 0.2 s lock timeout"
    ),
    "tests/core/store/test_presets_store.py::test_two_processes_never_lose_a_save": (
        "two writer processes"
    ),
    "tests/core/store/test_presets_store.py::test_poisoned_runtime_preset_on_the_command_line": (
        "runs the CLI in child interpreters, bounded in time and memory"
    ),
    "tests/core/solve/test_solver_search.py::test_saturating_activations_solve_in_milliseconds": (
        "a wall-clock bound on the solver"
    ),
    "tests/core/solve/test_solver_search.py::test_cli_issue_12_item_6_finishes_quickly": (
        "a wall-clock bound on the solver"
    ),
    "tests/core/test_properties.py::test_huge_decimal_exponents_are_refused_at_once": (
        "a wall-clock bound on parsing"
    ),
    "tests/core/engines/test_engines.py::"
    "test_a_fresh_process_gets_each_engines_own_profile": _CHILD,
    "tests/cli/test_cli_startup.py::test_package_metadata_is_read_only_for_version": _CHILD,
    # issue 24: what a fresh command imports, seen in child interpreters
    "tests/cli/test_cli_startup.py::test_an_estimate_imports_no_other_subcommand": _CHILD,
    "tests/cli/test_cli_startup.py::test_help_imports_no_subcommand_and_no_core_module": _CHILD,
    "tests/cli/test_cli_startup.py::test_building_a_parser_imports_no_shutil": _CHILD,
    "tests/core/test_dataclass_code.py::"
    "test_a_command_without_dataclasses_does_not_import_them": _CHILD,
    "tests/cli/test_cli_errors.py::test_bad_input_in_a_real_process": _CHILD,
    "tests/cli/test_gpus.py::test_gpus_without_driver_in_a_real_process": _CHILD,
    "tests/cli/test_gpus.py::test_gpus_json_without_driver_in_a_real_process": _CHILD,
    "tests/cli/test_gpus.py::test_solve_on_local_gpu_without_driver_exits_1": _CHILD,
    "tests/cli/test_gpus.py::test_gpus_hook_file_in_a_real_process": _CHILD,
    "tests/cli/test_gpus.py::test_gpus_hook_error_in_a_real_process": _CHILD,
    # issue 22: refusals measured in child interpreters, kills at chosen points
    "tests/cli/test_cli_not_regular.py::test_a_device_node_is_refused_not_read": _CHILD,
    "tests/cli/test_cli_not_regular.py::test_a_fifo_is_refused_at_once_with_one_line": (
        "a child interpreter per FIFO, bounded in time (a hang is the bug)"
    ),
    "tests/cli/test_cli_number_length.py::test_a_number_too_long_is_refused_in_one_short_line": (
        _CHILD
    ),
    "tests/cli/test_cli_number_length.py::"
    "test_a_preset_file_with_a_huge_number_is_refused_in_our_words": _CHILD,
    "tests/cli/test_cli_number_length.py::test_numbers_of_ordinary_length_still_work": _CHILD,
    "tests/cli/test_cli_printable.py::test_a_model_name_with_escape_codes_is_printed_escaped": (
        _CHILD
    ),
    "tests/cli/test_cli_printable.py::"
    "test_a_newline_in_an_argument_keeps_the_error_on_one_line": _CHILD,
    "tests/cli/test_cli_printable.py::test_a_per_layer_array_of_the_wrong_length_is_refused": (
        _CHILD
    ),
    "tests/cli/test_cli_printable.py::test_gpu_names_with_escape_codes_are_printed_escaped": (
        _CHILD
    ),
    "tests/core/store/test_export_target.py::"
    "test_the_command_line_refuses_a_symlink_in_one_line": _CHILD,
    "tests/core/store/test_rename_kill.py": (
        "a renaming child process SIGKILLed at chosen calls; a reader under a timed lock"
    ),
    "tests/core/local/test_discovery.py::test_the_hf_scan_reads_files_only": _CHILD,
    "tests/core/local/test_gguf_split.py::"
    "test_a_real_1024_part_split_is_summed_exactly_within_a_generous_bound": (
        "a wall-clock bound on reading 1,024 split parts"
    ),
    "tests/core/local/test_hf_cache.py::test_a_scan_takes_a_few_system_calls_per_repo": (
        "a wall-clock bound on a 2,000-repo scan"
    ),
    "tests/cli/test_cli_install_desktop.py::test_installed_entry_validates": (
        "runs desktop-file-validate, a child process with a timeout"
    ),
    "tests/core/local/test_hf_cache_revision.py::test_a_fifo_under_refs_is_a_problem_not_a_hang": (
        "a wall-clock bound (a thread joined with a timeout) on reading a FIFO under refs/"
    ),
}

#: What makes a test a timing or stress test, when its body, a helper or fixture of its own
#: module, or a helper it imports from tests/ uses it: module -> the names used from it
#: (``None``: any). A keyword argument named ``*timeout*`` or ``*deadline*`` whose value is
#: not ``None`` counts too, and so does a Hypothesis ``@given`` without ``deadline=None``.
TIMING_CALLS: dict[str, frozenset[str] | None] = {
    "time": frozenset(
        {"sleep", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "time"}
        | {"time_ns", "process_time", "process_time_ns"}
    ),
    "os": frozenset({"kill", "killpg", "fork", "wait", "waitpid"}),
    "signal": None,
    "subprocess": None,
    "multiprocessing": None,
    "threading": None,
    "concurrent": None,
    "resource": None,
    "tracemalloc": None,
}

#: Lines not mutated: lines that start with a string (the formula text, notes and messages
#: shown to the user, which the CLI's and the window's tests read; a mutant there changes
#: what is printed, not what is computed). String literals are not mutated anywhere either
#: (see :data:`RUN_MUTMUT`): this benchmark scores the arithmetic.
SKIP_LINES = [r"^\s*f?[\"']", r"^\s*\+ f?[\"']", r"^\s*(raise InputError|InputError)\("]

#: mutmut's command line, less its string-literal mutator (``"x"`` -> ``"XXxXX"``): mutmut
#: generates mutants in this process and forks its workers from it, so the change holds.
_NO_STRING_MUTANTS = (
    "import sys, libcst as cst\n"
    "from mutmut.mutation import mutators\n"
    "mutators.mutation_operators[:] = [o for o in mutators.mutation_operators"
    " if o[0] is not cst.BaseString]\n"
)
RUN_MUTMUT = _NO_STRING_MUTANTS + (
    "from mutmut.__main__ import cli\nsys.argv[0] = 'mutmut'\ncli()\n"
)
#: ``--generate-only``: the first steps of ``mutmut run`` (copy, mutate), no test run; the
#: mutants are then listed by ``mutmut results`` as not checked.
GENERATE_MUTANTS = _NO_STRING_MUTANTS + (
    "import os\n"
    "from mutmut import __main__ as m\n"
    "m.set_mutant_under_test('mutant_generation')\n"
    "os.makedirs('mutants', exist_ok=True)\n"
    "m.copy_src_dir()\n"
    "m.copy_also_copy_files()\n"
    "m.setup_source_paths()\n"
    "print(m.create_mutants(int(sys.argv[1])))\n"
)

#: mutmut's statuses, as this benchmark counts them.
KILLED = frozenset({"killed", "timeout", "segfault", "suspicious"})
SURVIVED = frozenset({"survived", "no tests"})
NOT_CHECKED = "not checked"


class HarnessError(RuntimeError):
    """The run cannot give a score that means anything; the message says why."""


class NoMutants(HarnessError, ValueError):
    """A score was asked of no mutant (or only of equivalent ones)."""


# --- the score -------------------------------------------------------------------------


def score(killed: int, mutants: int, equivalent: int = 0) -> float:
    """The mutation score in per cent: ``killed / (mutants - equivalent)``.

    Raises :class:`NoMutants` when no mutant (or only equivalent ones) ran: 0 of 0 is no
    score, and printing 100 % for it would hide a run in which mutmut tested nothing.
    """
    scored = mutants - equivalent
    if mutants <= 0 or scored <= 0:
        raise NoMutants(
            f"no mutant to score ({mutants} mutants, {equivalent} equivalent): "
            "nothing was mutated or nothing ran"
        )
    if not 0 <= killed <= scored:
        raise ValueError(f"{killed} killed of {scored} scored mutants")
    return 100.0 * killed / scored


# --- the module groups -----------------------------------------------------------------


def mutant_files(mutant: str) -> list[str]:
    """The source paths a mutant name can come from.

    ``vramdesk.core.engines.vllm.x_kv_groups__mutmut_3`` -> ``vramdesk/core/engines/vllm.py``
    or ``vramdesk/core/engines/vllm/__init__.py`` (mutmut leaves ``__init__`` out of a
    package's names).
    """
    m = re.match(r"(.+?)\.x(?:_|ǁ)", mutant)
    if not m:
        return []
    base = m.group(1).removesuffix(".__init__").replace(".", "/")
    return [base + ".py", base + "/__init__.py"]


def mutant_function(mutant: str) -> tuple[str | None, str]:
    """``(class, function)`` a mutant name mutates (``class`` None for a module function).

    ``...solver.xǁ_Problemǁmax_concurrency__mutmut_30`` -> ``("Problem", "max_concurrency")``.
    """
    mangled = mutant.partition("__mutmut_")[0].rpartition(".")[2]
    if mangled.startswith("xǁ"):
        _, cls, func = mangled.split("ǁ", 2)
        return cls, func
    return None, mangled.removeprefix("x_")


def group_of_path(path: str) -> list[str]:
    """The groups of :data:`MODULES` whose patterns match ``path`` (at most one)."""
    return [name for name, globs in MODULES.items() if any(fnmatch.fnmatch(path, g) for g in globs)]


def module_of(mutant: str) -> str:
    """The :data:`MODULES` group a mutant belongs to; ``"?"`` when none.

    ``vramdesk.core.terms.weights.x_...`` -> estimate.
    """
    for path in mutant_files(mutant):
        groups = group_of_path(path)
        if groups:
            return groups[0]
    return "?"


def group_files(name: str, root: Path = ROOT) -> list[str]:
    """The files of ``root`` that group ``name``'s patterns match, as mutmut sees them."""
    files = sorted(p.relative_to(root).as_posix() for p in (root / "vramdesk").rglob("*.py"))
    return [f for f in files if any(fnmatch.fnmatch(f, g) for g in MODULES[name])]


def group_problems(names: Iterable[str], root: Path = ROOT) -> list[str]:
    """Patterns of ``names`` that match no file of ``root``, files in two groups."""
    files = sorted(p.relative_to(root).as_posix() for p in (root / "vramdesk").rglob("*.py"))
    problems = []
    for name in names:
        if not group_files(name, root):
            problems.append(f"module group {name!r} matches no file: {MODULES[name]}")
    for f in files:
        groups = group_of_path(f)
        if len(groups) > 1:
            problems.append(f"{f} is in two module groups: {groups}")
    return problems


def in_sample(mutant: str, sample: str | None) -> bool:
    """Whether ``--sample DIGITS`` runs ``mutant`` (every mutant without a sample)."""
    return sample is None or mutant[-1:] in sample


# --- the test selection ----------------------------------------------------------------


def _is_test_file(path: Path) -> bool:
    return path.suffix == ".py" and (path.name.startswith("test_") or path.stem.endswith("_test"))


def test_files(root: Path = ROOT, entries: Iterable[str] = TESTS) -> list[str]:
    """The test files under ``entries`` (folders or files), relative to ``root``."""
    out: set[str] = set()
    for entry in entries:
        path = root / entry
        if path.is_file():
            out.add(entry)
        elif path.is_dir():
            out |= {p.relative_to(root).as_posix() for p in path.rglob("*.py") if _is_test_file(p)}
    return sorted(out)


def is_excluded(nodeid: str) -> bool:
    """Whether :data:`EXCLUDED` leaves the test ``nodeid`` (``file::name[...]``) out."""
    for entry in EXCLUDED:
        if nodeid == entry or nodeid.startswith((entry + "::", entry + "[", entry + "/")):
            return True
    return False


def is_selected(nodeid: str) -> bool:
    """Whether the test ``nodeid`` runs against the mutants (by path; markers aside)."""
    path = nodeid.split("::")[0]
    under = any(path == t or path.startswith(t.rstrip("/") + "/") for t in TESTS)
    return under and not is_excluded(nodeid)


def selection_args() -> list[str]:
    """pytest's arguments for the tests run against the mutants (``TESTS - EXCLUDED``)."""
    args = [*TESTS, "-m", MARKERS]
    for entry in EXCLUDED:
        args.append(f"--deselect={entry}" if "::" in entry else f"--ignore={entry}")
    return args


class _Module:
    """The names one test module defines and what each of them uses (see TIMING_CALLS)."""

    def __init__(self, dotted: str, tree: ast.Module) -> None:
        self.dotted = dotted
        self.imports: dict[str, tuple[str, str | None]] = {}  # local -> (module, name)
        self.defs: dict[str, ast.AST] = {}
        self.settings_ok: set[str] = set()  # names bound to settings(..., deadline=None)
        for node in tree.body:
            if isinstance(node, ast.Import):
                for a in node.names:
                    local = a.asname or a.name.split(".")[0]
                    self.imports[local] = (a.name if a.asname else local, None)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    self.imports[a.asname or a.name] = (node.module, a.name)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.defs[node.name] = node
            elif isinstance(node, ast.Assign) and _no_deadline_settings(
                node.value, self.settings_ok
            ):
                self.settings_ok |= {t.id for t in node.targets if isinstance(t, ast.Name)}

    def uses(self, node: ast.AST) -> tuple[set[str], set[tuple[str, str]]]:
        """``(reasons, dependencies)`` of a test, helper or fixture ``node``.

        The reasons are the timing calls and arguments in ``node`` itself; the dependencies
        are the names it uses, as ``(module, name)``, that may make some: this module's
        helpers and fixtures, tests/conftest.py's fixtures, helpers imported from tests/.
        Of a class, only what runs when it is built counts (not every method).
        """
        if isinstance(node, ast.ClassDef):
            parts = [*node.decorator_list, *node.bases]
            parts += [
                s
                for s in node.body
                if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
                or s.name in ("__init__", "__post_init__", "__enter__", "__exit__")
            ]
        else:
            parts = [node]
        subs = [sub for part in parts for sub in ast.walk(part)]
        imports = dict(self.imports)
        for sub in subs:  # imports inside a function count as well
            if isinstance(sub, ast.Import):
                for a in sub.names:
                    local = a.asname or a.name.split(".")[0]
                    imports[local] = (a.name if a.asname else local, None)
            elif isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
                for a in sub.names:
                    imports[a.asname or a.name] = (sub.module, a.name)
        called = {id(sub.func) for sub in subs if isinstance(sub, ast.Call)}
        reasons: set[str] = set()
        deps: set[tuple[str, str]] = set()
        for sub in subs:
            if isinstance(sub, ast.Attribute) and id(sub) in called:
                chain = _chain(sub)
                if chain and chain[0] in imports:
                    module, name = imports[chain[0]]
                    full = [*module.split("."), *([name] if name else []), *chain[1:]]
                    if _timing(full):
                        reasons.add(".".join(full))
            elif isinstance(sub, ast.Name):
                if sub.id in imports:
                    module, name = imports[sub.id]
                    if name and id(sub) in called and _timing([*module.split("."), name]):
                        reasons.add(f"{module}.{name}")
                    elif name and module.split(".")[0] == "tests":
                        deps.add((module, name))
                elif sub.id in self.defs and sub.id != getattr(node, "name", None):
                    deps.add((self.dotted, sub.id))
            elif isinstance(sub, ast.arg):
                deps.add((self.dotted, sub.arg))
                deps.add(("tests.conftest", sub.arg))
            elif isinstance(sub, ast.keyword) and sub.arg:
                if re.search(r"timeout|deadline", sub.arg) and not _is_none(sub.value):
                    reasons.add(f"{sub.arg}=")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            given = any(
                _chain(d.func if isinstance(d, ast.Call) else d)[-1:] == ["given"]
                for d in node.decorator_list
            )
            ok = any(
                _no_deadline_settings(d, self.settings_ok)
                or (isinstance(d, ast.Name) and d.id in self.settings_ok)
                for d in node.decorator_list
            )
            if given and not ok:
                reasons.add("hypothesis's default deadline (@given without deadline=None)")
        return reasons, deps


def _chain(node: ast.AST) -> list[str]:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return []


def _timing(full: list[str]) -> bool:
    for i in range(len(full), 0, -1):
        module = ".".join(full[:i])
        if module in TIMING_CALLS:
            names = TIMING_CALLS[module]
            return names is None or (i < len(full) and full[i] in names)
    return False


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _no_deadline_settings(node: ast.AST, parents: Iterable[str] = ()) -> bool:
    """Whether ``node`` is ``settings(..., deadline=None)``, or ``settings(PARENT, ...)`` of a
    parent in ``parents`` (names bound to such settings) that sets no other deadline."""
    if not (isinstance(node, ast.Call) and _chain(node.func)[-1:] == ["settings"]):
        return False
    deadline = [k.value for k in node.keywords if k.arg == "deadline"]
    if deadline:
        return _is_none(deadline[0])
    return bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id in parents


def timing_tests(root: Path = ROOT, files: Iterable[str] | None = None) -> dict[str, set[str]]:
    """The timing and stress tests of ``files`` (default: every test file under tests/).

    Maps ``file::name`` (``file::Class::name`` for a method) to what makes it one: a call of
    :data:`TIMING_CALLS`, a timeout or deadline argument, or Hypothesis's default deadline,
    in the test, in a helper or fixture of its module or of tests/conftest.py, or in a
    helper it imports from tests/ (``tests/bounded.py``'s ``run_cli_bounded``...).
    """
    modules: dict[str, _Module] = {}
    for path in sorted((root / "tests").rglob("*.py")):
        rel = path.relative_to(root).with_suffix("")
        dotted = ".".join(rel.parts).removesuffix(".__init__")
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        modules[dotted] = _Module(dotted, tree)

    memo: dict[tuple[str, str], set[str]] = {}

    def reasons_of(key: tuple[str, str]) -> set[str]:
        if key in memo:
            return memo[key]
        memo[key] = set()  # a cycle adds nothing
        module = modules.get(key[0])
        node = module.defs.get(key[1]) if module else None
        if node is None:
            return memo[key]
        found, deps = module.uses(node)
        for dep in deps:
            found |= reasons_of(dep)
        memo[key] = found
        return found

    out: dict[str, set[str]] = {}
    chosen = test_files(root, ["tests"]) if files is None else list(files)
    for rel in chosen:
        dotted = ".".join(Path(rel).with_suffix("").parts)
        module = modules.get(dotted)
        if module is None:
            continue
        for name, node in module.defs.items():
            if isinstance(node, ast.ClassDef) and name.startswith("Test"):
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef) and sub.name.startswith("test"):
                        found, deps = module.uses(sub)
                        for dep in deps:
                            found |= reasons_of(dep)
                        if found:
                            out[f"{rel}::{name}::{sub.name}"] = found
            elif name.startswith("test") and not isinstance(node, ast.ClassDef):
                found = reasons_of((dotted, name))
                if found:
                    out[f"{rel}::{name}"] = set(found)
    return out


def test_names(root: Path, rel: str) -> list[str]:
    """The test functions of one test file, as ``file::name`` (methods: ``::Class::name``)."""
    tree = ast.parse((root / rel).read_text(encoding="utf-8"))
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name.startswith("test"):
                out.append(f"{rel}::{node.name}")
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            out += [
                f"{rel}::{node.name}::{f.name}"
                for f in node.body
                if isinstance(f, ast.FunctionDef) and f.name.startswith("test")
            ]
    return out


def selection_problems(root: Path = ROOT) -> list[str]:
    """What is wrong with :data:`TESTS` and :data:`EXCLUDED` in the tree at ``root``.

    A selected timing test that is not excluded, an exclusion of a test or file that does
    not exist or lies outside :data:`TESTS`, an exclusion whose prefix also deselects a test
    it does not name (pytest's ``--deselect`` matches prefixes), a selection of no file.
    """
    problems = []
    selected_files = test_files(root)
    if not selected_files:
        problems.append(f"the test selection {TESTS} holds no test file")
    names = {rel: test_names(root, rel) for rel in selected_files}
    for entry in EXCLUDED:
        path = entry.split("::")[0]
        if path not in names:
            where = "outside the selection" if (root / path).exists() else "missing"
            problems.append(f"EXCLUDED names {entry}, which is {where}")
        elif "::" in entry:
            if entry not in names[path]:
                problems.append(f"EXCLUDED names {entry}, which is no test function")
            for other in names[path]:
                if other != entry and other.startswith(entry) and not is_excluded(other):
                    problems.append(f"--deselect={entry} also deselects {other}")
    for nodeid, reasons in sorted(timing_tests(root, selected_files).items()):
        if is_selected(nodeid):
            problems.append(
                f"{nodeid} is a timing or stress test ({', '.join(sorted(reasons))}): "
                "add it to EXCLUDED with the reason"
            )
    return problems


def collect(work: Path, env: dict[str, str]) -> int:
    """The number of tests the selection collects in ``work``; raises when it is none."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly"]
        + selection_args(),
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    count = sum("::" in line for line in proc.stdout.splitlines())
    if proc.returncode not in (0, 5) or count == 0:
        raise HarnessError(
            f"the test selection collects no test (pytest status {proc.returncode}):\n"
            + _tail(proc.stdout + proc.stderr)
        )
    return count


# --- the run ---------------------------------------------------------------------------


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


def mutmut_config(module_globs: list[str]) -> str:
    """The ``[tool.mutmut]`` table of the throw-away copy's pyproject.toml."""
    return (
        "[tool.mutmut]\n"
        'source_paths = ["vramdesk"]\n'
        f"only_mutate = {json.dumps(module_globs)}\n"
        'also_copy = ["presets", "resources", "README.md"]\n'
        f"pytest_add_cli_args_test_selection = {json.dumps(selection_args())}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "--no-header", "-p", "no:randomly"]\n'
        "use_git_change_detection = false\n"
        "timeout_multiplier = 4.0\n"
        f"do_not_mutate_patterns = {json.dumps(SKIP_LINES)}\n"
    )


def _strip_mutmut(pyproject: str) -> str:
    return re.sub(r"(?ms)^\[tool\.mutmut\].*?(?=^\[|\Z)", "", pyproject)


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def parse_results(text: str) -> dict[str, str]:
    """``mutmut results --all true``: mutant -> status, every mutant generated."""
    statuses = {}
    for line in text.splitlines():
        m = re.match(r"\s*(\S+__mutmut_\d+): (.+)$", line)
        if m:
            statuses[m.group(1)] = m.group(2).strip()
    return statuses


def run_modules(
    names: list[str],
    children: int,
    keep: bool,
    rev: str | None = None,
    sample: str | None = None,
    generate_only: bool = False,
) -> dict:
    """Mutate ``names`` in one temporary copy of the tree (or of ``rev``); return the results.

    One mutmut run for all of them: its clean run and stats pass happen once. With
    ``generate_only``, the mutants are generated and no test runs. Raises
    :class:`HarnessError` when the copy, the selection or mutmut fails.
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
        problems = group_problems(names, work)
        if problems:
            raise HarnessError("\n".join(problems))
        problems = selection_problems(work)
        if problems and not rev:
            raise HarnessError("the test selection is wrong:\n  " + "\n  ".join(problems))
        for p in problems:  # a past revision's tests are what they were
            print(f"warning ({rev}): {p}")
        py = work / "pyproject.toml"
        text = _strip_mutmut(py.read_text(encoding="utf-8"))
        globs = [g for n in names for g in MODULES[n]]
        py.write_text(text + "\n" + mutmut_config(globs), encoding="utf-8")
        env = {**os.environ, "VRAMDESK_BENCH": "", "PYTHONDONTWRITEBYTECODE": "1"}
        env.pop("PYTHONPATH", None)  # the copy, not this checkout, is what runs
        mutmut = [sys.executable, "-m", "mutmut"]
        if generate_only:
            command = [sys.executable, "-c", GENERATE_MUTANTS, str(children)]
        else:
            tests = collect(work, env)
            print(f"selection: {tests} tests; mutating {', '.join(names)}", flush=True)
            command = [sys.executable, "-c", RUN_MUTMUT, "run", "--max-children", str(children)]
            command += [f"*__mutmut_*[{sample}]"] if sample else []
        run = subprocess.run(
            command,
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
        )
        log = _tail(run.stdout, 60) + "\n" + _tail(run.stderr, 60)
        if run.returncode != 0:
            raise HarnessError(f"mutmut run failed (status {run.returncode}):\n{log}")
        results = subprocess.run(
            [*mutmut, "results", "--all", "true"], cwd=work, env=env, capture_output=True, text=True
        )
        if results.returncode != 0:
            raise HarnessError(
                f"mutmut results failed (status {results.returncode}):\n"
                + _tail(results.stdout + results.stderr)
            )
        statuses = parse_results(results.stdout)
        diffs = {}
        for mutant, status in statuses.items():
            if status in SURVIVED:
                diffs[mutant] = subprocess.run(
                    [*mutmut, "show", mutant], cwd=work, env=env, capture_output=True, text=True
                ).stdout
        return {"statuses": statuses, "diffs": diffs, "log": log, "returncode": run.returncode}
    finally:
        if keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


# --- the report ------------------------------------------------------------------------


def tally(name: str, statuses: dict[str, str], sample: str | None = None) -> dict:
    """Group ``name``'s counts from ``statuses`` (every mutant generated -> its status)."""
    mine = {m: s for m, s in statuses.items() if module_of(m) == name}
    checked = {m: s for m, s in mine.items() if s != NOT_CHECKED}
    surv = [m for m, s in checked.items() if s in SURVIVED]
    return {
        "generated": len(mine),
        "mutants": len(checked),
        "killed": sum(s in KILLED for s in checked.values()),
        "equivalent": [m for m in surv if m in EQUIVALENT],
        "survived": [m for m in surv if m not in EQUIVALENT],
        "other": sorted(set(checked.values()) - KILLED - SURVIVED),
        "unchecked": sorted(
            m for m, s in mine.items() if s == NOT_CHECKED and in_sample(m, sample)
        ),
    }


def stale_equivalents(names: Iterable[str], statuses: dict[str, str]) -> list[str]:
    """The :data:`EQUIVALENT` entries of groups ``names`` that the run contradicts."""
    out = []
    for mutant in EQUIVALENT:
        if module_of(mutant) not in names:
            continue
        status = statuses.get(mutant)
        if status is None:
            out.append(f"{mutant}: listed as equivalent but not produced any more")
        elif status in KILLED:
            out.append(f"{mutant}: listed as equivalent but {status} now")
    return out


def summarise(name: str, result: dict, sample: str | None = None) -> dict:
    """Print the group's report; return its :func:`tally` (``score`` None without one)."""
    t = tally(name, result["statuses"], sample)
    try:
        t["score"] = score(t["killed"], t["mutants"], len(t["equivalent"]))
    except NoMutants as err:
        t["score"] = None
        print(f"{name:<16} NO SCORE: {err} ({t['generated']} generated)")
        return t
    if t["unchecked"]:
        t["score"] = None
        print(
            f"{name:<16} NO SCORE: {len(t['unchecked'])} mutants that should have run did not, "
            f"e.g. {t['unchecked'][0]}"
        )
        return t
    print(
        f"{name:<16} mutants {t['mutants']:5d}  killed {t['killed']:5d}  "
        f"equivalent {len(t['equivalent']):4d}  survived {len(t['survived']):4d}  "
        f"score {t['score']:6.2f} %" + (f"  (other statuses: {t['other']})" if t["other"] else "")
    )
    for m in t["equivalent"]:
        print(f"  equivalent {m}: {EQUIVALENT[m]}")
    for m in t["survived"]:
        print(f"  SURVIVED {m}\n" + _indent(result["diffs"].get(m, "")))
    return t


def report_generated(names: list[str], statuses: dict[str, str]) -> int:
    """``--generate-only``'s report: mutants per group; 1 if a group has none, 3 if an
    :data:`EQUIVALENT` entry is no longer produced, else 0."""
    empty = []
    for name in names:
        count = sum(module_of(m) == name for m in statuses)
        print(f"{name:<16} generated {count:5d}" + ("  NO MUTANT" if not count else ""))
        if not count:
            empty.append(name)
    print(f"{'all':<16} generated {len(statuses):5d}")
    stale = stale_equivalents(names, statuses)
    for line in stale:
        print("STALE " + line)
    if empty:
        print(f"mutation benchmark failed: no mutant for {', '.join(empty)}", file=sys.stderr)
        return 1
    return 3 if stale else 0


def _indent(text: str) -> str:
    return "\n".join("      " + line for line in text.strip().splitlines() if line.strip())


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print per-group scores and the survivors; return the exit status."""
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
    parser.add_argument(
        "--generate-only",
        action="store_true",
        help="generate the mutants and run no test: count them per group and report "
        "EQUIVALENT entries no longer produced (seconds, not an hour)",
    )
    args = parser.parse_args(argv)
    unknown = set(args.modules) - set(MODULES)
    if unknown:
        parser.error(f"unknown module(s) {sorted(unknown)}; choose from {list(MODULES)}")
    if args.sample is not None and not re.fullmatch(r"[0-9]+", args.sample):
        parser.error(f"--sample takes digits, not {args.sample!r}")
    if args.max_children < 1:
        parser.error("--max-children must be at least 1")
    names = list(dict.fromkeys(args.modules)) or list(MODULES)
    try:
        result = run_modules(
            names, args.max_children, args.keep, args.rev, args.sample, args.generate_only
        )
    except HarnessError as err:
        print(f"mutation benchmark failed, no score:\n{err}", file=sys.stderr)
        return 1
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    if args.generate_only:
        return report_generated(names, result["statuses"])
    outside = sorted(m for m in result["statuses"] if module_of(m) not in MODULES)
    if outside:
        print(f"mutants outside every group ({len(outside)}), e.g. {outside[0]}", file=sys.stderr)
    rows = [summarise(name, result, args.sample) for name in names]
    if any(r["score"] is None for r in rows):
        print(
            "mutation benchmark failed: no score for "
            + ", ".join(n for n, r in zip(names, rows, strict=True) if r["score"] is None)
            + "\n"
            + result["log"],
            file=sys.stderr,
        )
        return 1
    total = sum(r["mutants"] for r in rows)
    killed = sum(r["killed"] for r in rows)
    equiv = sum(len(r["equivalent"]) for r in rows)
    print(
        f"{'all':<16} mutants {total:5d}  killed {killed:5d}  "
        f"score {score(killed, total, equiv):6.2f} %"
        + (f"  (sample: numbers ending in {args.sample})" if args.sample else "")
    )
    stale = stale_equivalents(names, result["statuses"])
    for line in stale:
        print("STALE " + line)
    return 3 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
