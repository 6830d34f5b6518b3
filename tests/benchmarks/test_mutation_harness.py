"""The mutation benchmark's own logic (tests/benchmarks/mutation.py), without mutmut.

The score refuses a run that scored nothing, the exit status says when a run gave no score
or a stale equivalent list, the tests run against the mutants leave out the timing and
stress tests, every module group matches files (and the vLLM and llama.cpp groups match
the profiles as modules and as packages), and every equivalent mutant names a function
of a configured group. None of this starts mutmut: that is the benchmark itself.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import tomllib
from pathlib import Path

import pytest

from tests.benchmarks import mutation as mut

ROOT = Path(__file__).resolve().parents[2]

# --- the score and the exit status -----------------------------------------------------


def test_score_refuses_zero_mutants():
    with pytest.raises(mut.NoMutants):
        mut.score(0, 0)
    with pytest.raises(mut.NoMutants):  # only equivalent ones: nothing to score either
        mut.score(0, 3, 3)
    with pytest.raises(ValueError):
        mut.score(5, 4)
    assert mut.score(3, 4) == 75.0
    assert mut.score(3, 4, 1) == 100.0


def _result(statuses, diffs=None):
    return {"statuses": statuses, "diffs": diffs or {}, "log": "(log)", "returncode": 0}


def _fake_run(monkeypatch, result):
    calls = []

    def run_modules(names, children, keep, rev=None, sample=None, generate_only=False):
        calls.append((names, sample))
        if isinstance(result, Exception):
            raise result
        return result

    monkeypatch.setattr(mut, "run_modules", run_modules)
    return calls


F = "vramdesk.core.model.formats.x_bytes_per_param__mutmut_"


def test_a_run_with_no_mutant_gives_no_score_and_fails(monkeypatch, capsys):
    _fake_run(monkeypatch, _result({}))
    assert mut.main(["formats"]) == 1
    out, err = capsys.readouterr()
    assert "NO SCORE" in out and not re.search(r"score +[0-9]", out)
    assert "no score for formats" in err


def test_a_run_where_nothing_was_checked_fails(monkeypatch, capsys):
    _fake_run(monkeypatch, _result({F + "1": "not checked", F + "2": "not checked"}))
    assert mut.main(["formats"]) == 1
    assert "NO SCORE" in capsys.readouterr().out


def test_a_group_without_mutants_fails_even_when_another_scored(monkeypatch, capsys):
    _fake_run(monkeypatch, _result({F + "1": "killed"}))
    assert mut.main(["formats", "kv_cache"]) == 1
    out, err = capsys.readouterr()
    assert "score 100.00 %" in out and "no score for kv_cache" in err


def test_mutants_of_the_sample_that_did_not_run_fail_the_run(monkeypatch, capsys):
    _fake_run(monkeypatch, _result({F + "10": "killed", F + "15": "not checked"}))
    assert mut.main(["formats", "--sample", "05"]) == 1
    assert "should have run did not" in capsys.readouterr().out


def test_mutmut_failing_gives_no_score(monkeypatch, capsys):
    _fake_run(monkeypatch, mut.HarnessError("mutmut run failed (status 1)"))
    assert mut.main(["formats"]) == 1
    out, err = capsys.readouterr()
    assert "score" not in out and "mutmut run failed" in err and "no score" in err


def test_a_good_run_prints_its_scores(monkeypatch, capsys):
    statuses = {F + "1": "killed", F + "2": "timeout", F + "3": "survived", F + "4": "not checked"}
    calls = _fake_run(monkeypatch, _result(statuses, {F + "3": "--- the diff"}))
    assert mut.main(["formats", "--sample", "123"]) == 0
    out = capsys.readouterr().out
    assert calls == [(["formats"], "123")]
    assert "mutants     3  killed     2" in out and "score  66.67 %" in out
    assert "SURVIVED " + F + "3" in out and "--- the diff" in out


def test_an_equivalent_mutant_killed_or_gone_is_reported(monkeypatch, capsys):
    listed = [m for m in mut.EQUIVALENT if mut.module_of(m) == "solve"]
    statuses = {listed[0]: "killed"}
    _fake_run(monkeypatch, _result(statuses))
    assert mut.main(["solve"]) == 3
    out = capsys.readouterr().out
    assert f"STALE {listed[0]}: listed as equivalent but killed now" in out
    assert f"STALE {listed[1]}: listed as equivalent but not produced any more" in out


def test_an_equivalent_mutant_outside_the_sample_is_not_stale():
    listed = [m for m in mut.EQUIVALENT if mut.module_of(m) == "solve"]
    assert mut.stale_equivalents(["solve"], dict.fromkeys(listed, "not checked")) == []
    assert mut.stale_equivalents(["solve"], dict.fromkeys(listed, "survived")) == []
    assert mut.stale_equivalents(["formats"], {}) == []  # no entry of that group


def test_generate_only_reports_groups_without_mutants_and_gone_entries(monkeypatch, capsys):
    _fake_run(monkeypatch, _result({F + "1": "not checked"}))
    assert mut.main(["formats", "--generate-only"]) == 0
    assert "formats          generated     1" in capsys.readouterr().out
    assert mut.main(["formats", "kv_cache", "--generate-only"]) == 1
    assert "no mutant for kv_cache" in capsys.readouterr().err
    listed = [m for m in mut.EQUIVALENT if mut.module_of(m) == "solve"]
    _fake_run(monkeypatch, _result(dict.fromkeys(listed[1:], "not checked")))
    assert mut.main(["solve", "--generate-only"]) == 3
    assert f"STALE {listed[0]}: listed as equivalent but not produced" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["nope"], ["--sample", "0*"], ["--max-children", "0"]])
def test_bad_command_lines_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as err:
        mut.main(argv)
    assert err.value.code == 2


def test_mutmut_results_are_parsed_with_every_status():
    text = (
        "    vramdesk.core.solve.solver.x_f__mutmut_1: killed\n"
        "    vramdesk.core.solve.solver.xǁAǁg__mutmut_12: no tests\n"
        "    vramdesk.core.solve.solver.x_f__mutmut_2: not checked\n"
        "Running stats... done\n"
    )
    assert mut.parse_results(text) == {
        "vramdesk.core.solve.solver.x_f__mutmut_1": "killed",
        "vramdesk.core.solve.solver.xǁAǁg__mutmut_12": "no tests",
        "vramdesk.core.solve.solver.x_f__mutmut_2": "not checked",
    }
    assert mut.in_sample("x_f__mutmut_15", "05") and not mut.in_sample("x_f__mutmut_12", "05")
    assert mut.in_sample("x_f__mutmut_12", None)


# --- the module groups -----------------------------------------------------------------


@pytest.mark.parametrize("group", sorted(mut.MODULES))
def test_every_glob_matches_a_file(group):
    files = [p.relative_to(ROOT).as_posix() for p in (ROOT / "vramdesk").rglob("*.py")]
    for glob in mut.MODULES[group]:
        assert glob.endswith((".py", "*")), glob  # mutmut's only_mutate accepts no other
        assert [f for f in files if fnmatch.fnmatch(f, glob)], f"{group}: {glob} matches nothing"


def test_the_groups_are_disjoint_and_match_files():
    assert mut.group_problems(mut.MODULES) == []


def test_the_parts_of_issue_19_are_mutated():
    expect = {
        "vramdesk/core/terms/kv_cache.py": "kv_cache",
        "vramdesk/core/engines/vllm/kv_cache_interface.py": "engines_vllm",
        "vramdesk/core/engines/vllm/kv_cache_utils.py": "engines_vllm",
        "vramdesk/core/engines/llamacpp/kv_cache.py": "engines_llamacpp",
        "vramdesk/core/solve/solver.py": "solve",
        "vramdesk/core/local/importers/_gguf.py": "importers",
        "vramdesk/core/local/importers/_config.py": "importers",
        "vramdesk/core/local/importers/_safetensors.py": "importers",
        "vramdesk/core/model/formats.py": "formats",
        "vramdesk/core/estimate.py": "estimate",
    }
    for path, group in expect.items():
        assert (ROOT / path).is_file(), path
        assert mut.group_of_path(path) == [group], path
    # every engine module is in one engines_* group: a new engine is not left out unseen
    for path in (ROOT / "vramdesk/core/engines").rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        assert [g for g in mut.group_of_path(rel) if g.startswith("engines_")], rel


@pytest.mark.parametrize("engine", ["vllm", "llamacpp"])
def test_engine_groups_match_the_profile_as_module_and_as_package(engine):
    group = f"engines_{engine}"
    base = f"vramdesk/core/engines/{engine}"
    for path in (f"{base}.py", f"{base}/__init__.py", f"{base}/kv_specs.py", f"{base}/a/b.py"):
        assert mut.group_of_path(path) == [group], path
    for path in (f"{base}x.py", "vramdesk/core/engines/base.py", f"vramdesk/core/{engine}.py"):
        assert group not in mut.group_of_path(path), path
    # mutant names of both layouts find the group (mutmut drops a package's __init__)
    assert mut.module_of(f"vramdesk.core.engines.{engine}.x_f__mutmut_1") == group
    assert mut.module_of(f"vramdesk.core.engines.{engine}._specs.xǁAǁf__mutmut_1") == group
    assert mut.module_of("vramdesk.core.engines.x_register__mutmut_2") == "engines_other"
    assert mut.module_of("vramdesk.core.units.x_f__mutmut_1") == "?"


def test_the_mutmut_config_is_valid_toml_with_the_selection():
    globs = [g for gs in mut.MODULES.values() for g in gs]
    config = tomllib.loads(mut.mutmut_config(globs))["tool"]["mutmut"]
    assert config["only_mutate"] == globs
    assert config["pytest_add_cli_args_test_selection"] == mut.selection_args()
    assert config["source_paths"] == ["vramdesk"]


# --- the equivalent mutants ------------------------------------------------------------


@pytest.mark.parametrize("mutant", sorted(mut.EQUIVALENT))
def test_equivalent_mutants_name_a_function_of_a_configured_group(mutant):
    assert mut.module_of(mutant) in mut.MODULES, mutant
    files = [ROOT / p for p in mut.mutant_files(mutant) if (ROOT / p).is_file()]
    assert files, f"{mutant}: no such module"
    cls, func = mut.mutant_function(mutant)
    tree = ast.parse(files[0].read_text(encoding="utf-8"))
    scope = tree.body
    if cls is not None:
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
        assert classes, f"{mutant}: no class {cls} in {files[0]}"
        scope = classes[0].body
    assert any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == func for n in scope
    ), f"{mutant}: no function {func} in {files[0]}"
    assert mut.EQUIVALENT[mutant].strip(), "each entry says why"


def test_mutant_names_split_into_class_and_function():
    assert mut.mutant_function("a.b.xǁ_Problemǁmax_concurrency__mutmut_30") == (
        "_Problem",
        "max_concurrency",
    )
    assert mut.mutant_function("a.b.x_parse_version__mutmut_15") == (None, "parse_version")
    assert mut.mutant_files("vramdesk.core.solve.solver.x_f__mutmut_1") == [
        "vramdesk/core/solve/solver.py",
        "vramdesk/core/solve/solver/__init__.py",
    ]


# --- the test selection ----------------------------------------------------------------


def test_the_selection_has_no_problem():
    assert mut.selection_problems() == []


def test_the_selection_leaves_out_the_timing_tests():
    for path in (
        "tests/core/store/test_preset_stress.py",
        "tests/core/local/test_nvml_deadline.py",
        "tests/test_lint.py",
        "tests/test_fuzz.py",
        "tests/cli/test_cli_hostile.py",
        "tests/core/local/test_safetensors_limits.py",
    ):
        names = mut.test_names(ROOT, path)
        assert names, path
        assert not [n for n in names if mut.is_selected(n)], path
    found = mut.timing_tests()
    for nodeid in (
        "tests/core/store/test_preset_stress.py::test_kill_mid_save_loses_nothing_and_strays_are_cleaned",
        "tests/core/local/test_nvml_deadline.py::test_hung_driver_is_given_up_after_the_deadline",
        "tests/test_lint.py::test_ruff_check_is_clean",
        "tests/core/solve/test_solver_search.py::test_saturating_activations_solve_in_milliseconds",
        "tests/cli/test_cli_startup.py::test_package_metadata_is_read_only_for_version",
        # through tests/bounded.py's run_cli_bounded, imported inside the test
        "tests/core/store/test_presets_store.py::test_poisoned_runtime_preset_on_the_command_line",
    ):
        assert nodeid in found, nodeid
    assert not [n for n in found if mut.is_selected(n)]
    # and the formula tests still run against the mutants
    assert mut.is_selected("tests/core/terms/test_kv_cache.py::test_anything")
    assert mut.is_selected(
        "tests/core/solve/test_solver_search.py::test_smallest_tp_called_on_its_own"
    )
    assert not mut.is_selected("tests/gui/test_app.py::test_anything")
    assert not mut.is_selected("tests/benchmarks/test_mutation_harness.py::test_anything")


def test_the_selection_arguments_exclude_benchmarks_and_the_list():
    args = mut.selection_args()
    assert args[args.index("-m") + 1] == "not benchmark"
    for entry in mut.EXCLUDED:
        assert (f"--deselect={entry}" if "::" in entry else f"--ignore={entry}") in args
    assert all(mut.EXCLUDED[e].strip() for e in mut.EXCLUDED), "each entry says why"


SCANNED = """
import subprocess
import time
from threading import Event

import pytest
from hypothesis import given, settings

from tests.helpers import run_child, pure_helper

OK = settings(deadline=None)


def _wait():
    time.sleep(0.1)


@pytest.fixture
def hung():
    return Event()


def test_plain():
    assert pure_helper() == 1


def test_sleeps_through_a_helper():
    _wait()


def test_uses_a_threaded_fixture(hung):
    pass


def test_runs_a_child():
    run_child()


def test_imports_inside():
    from tests.helpers import run_child as r
    r()


def test_deadline_argument():
    query(timeout_s=5)


def test_annotation_only_is_not_timing():
    x: subprocess.CompletedProcess | None = None


@given(st.integers())
def test_default_deadline(n):
    pass


@settings(OK, max_examples=3)
@given(st.integers())
def test_no_deadline(n):
    pass


class TestGroup:
    def test_method_times(self):
        time.perf_counter()
"""

HELPERS = """
import subprocess


def run_child():
    return subprocess.run(["true"])


def pure_helper():
    return 1
"""


def test_the_scanner_finds_timing_tests_through_helpers_and_fixtures(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_scanned.py").write_text(SCANNED, encoding="utf-8")
    (tmp_path / "tests/helpers.py").write_text(HELPERS, encoding="utf-8")
    found = mut.timing_tests(tmp_path)
    f = "tests/test_scanned.py::"
    assert {k.removeprefix(f): v for k, v in found.items()} == {
        "test_sleeps_through_a_helper": {"time.sleep"},
        "test_uses_a_threaded_fixture": {"threading.Event"},
        "test_runs_a_child": {"subprocess.run"},
        "test_imports_inside": {"subprocess.run"},
        "test_deadline_argument": {"timeout_s="},
        "test_default_deadline": {"hypothesis's default deadline (@given without deadline=None)"},
        "TestGroup::test_method_times": {"time.perf_counter"},
    }
