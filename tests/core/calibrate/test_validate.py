"""`vramdesk validate`: every shared engine case, with its given figures, within tolerance.

The cases are read from tests/data/reference/engine-cases.jsonl; no number of them is
written here.
"""

import json

import pytest

from tests.conftest import REFERENCE
from vramdesk.core.calibrate.validate import (
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    SCHEMA,
    case_report,
    format_report,
    parse_cases,
    read_cases,
    rel_error,
    validate_cases,
)
from vramdesk.core.errors import InputError

CASES_FILE = REFERENCE / "engine-cases.jsonl"
RECORDS = {r["id"]: r for r in read_cases(CASES_FILE)}


@pytest.mark.parametrize("case_id", sorted(RECORDS))
def test_case_checks_within_tolerance_with_given(case_id):
    record = RECORDS[case_id]
    report = case_report(record)
    for name, check in record["check"].items():
        fig = report["figures"][name]
        assert fig["predicted_with_given"] is not None, name
        assert fig["rel_error_with_given"] <= check["tolerance_rel"], (name, fig)
        assert fig["within_tolerance"] is True


@pytest.mark.parametrize("case_id", sorted(RECORDS))
def test_exact_engine_rules_reproduce_expected(case_id):
    # KV bytes per token and llama.cpp buffers are exact: where the reference recomputation is an
    # integer byte count of a KV figure, the prediction equals it (vLLM budgets are the exception:
    # the case's expected value rounds util x total differently, by 1 byte).
    record = RECORDS[case_id]
    report = case_report(record)
    for name, check in record["check"].items():
        if (
            name.startswith("kv_cache_bytes")
            and record["engine"] != "vllm"
            or name == "kv_cache_cells"
        ):
            assert report["figures"][name]["predicted_with_given"] == check["expected"], name


def test_summary_counts_every_check():
    report = validate_cases(list(RECORDS.values()))
    total = sum(len(r["check"]) for r in RECORDS.values())
    assert report["summary"]["checks"] == {"passed": total, "total": total}
    assert json.loads(json.dumps(report))["cases"][0]["id"] == next(iter(RECORDS))
    text = format_report(report)
    assert f"checks within tolerance (with given): {total}/{total}" in text


def test_predicting_everything_reports_vllm_targets():
    targets = validate_cases(list(RECORDS.values()))["summary"]["targets"]
    weights = targets["vllm_weights_within_2pct"]
    # every vLLM case that reports weights without giving them is predictable and within 2 %
    assert weights["within"] == weights["of_reported"] == weights["predicted"] > 0
    capacity = targets["vllm_kv_capacity_within_10pct"]
    assert capacity["within"] == capacity["predicted"] > 0


def _line(**changes):
    record = dict(next(iter(RECORDS.values())))
    record.update(changes)
    return json.dumps(record)


def test_other_schema_rejected_naming_the_line():
    text = _line() + "\n\n" + _line(id="b", schema="vramdesk-engine-case/2")
    with pytest.raises(InputError) as err:
        parse_cases(text, "x.jsonl")
    assert err.value.field == "x.jsonl:3"
    assert "vramdesk-engine-case/1" in err.value.reason


@pytest.mark.parametrize(
    "text, code",
    [
        ("{not json", "not_json"),
        ("[1, 2]", "not_object"),
        ("x" * (MAX_LINE_CHARS + 1), "too_long"),
        ("[" * 50000 + "]" * 50000, "not_json"),  # nesting deeper than the parser allows
    ],
)
def test_bad_lines_rejected(text, code):
    with pytest.raises(InputError) as err:
        parse_cases(text, "c.jsonl")
    assert (err.value.field, err.value.code) == ("c.jsonl:1", code)


def _set(record, path, value):
    *heads, last = path.split(".")
    target = record
    for head in heads:
        target = target[head]
    target[last] = value


def _check_path():
    return f"check.{next(iter(next(iter(RECORDS.values()))['check']))}.tolerance_rel"


@pytest.mark.parametrize(
    "path, value, reason",
    [
        ("CHECK", float("nan"), "must be finite, got nan"),
        ("CHECK", -0.01, "must be a number >= 0, got -0.01"),
        ("gpu.total_bytes_per_gpu", -1, "must be a positive integer, got -1"),
        ("gpu.total_bytes_per_gpu", 0, "must be a positive integer, got 0"),
        ("params", 1.5, "must be a positive integer, got 1.5"),
        ("runtime.gpu_memory_utilization", float("inf"), "must be finite, got inf"),
        ("reported.weights_bytes", float("-inf"), "must be finite, got -inf"),
    ],
)
def test_every_number_checked_naming_file_line_and_field(path, value, reason):
    # json.dumps writes NaN / Infinity, which json.loads reads back: the case must refuse them
    path = _check_path() if path == "CHECK" else path
    record = json.loads(_line())
    _set(record, path, value)
    with pytest.raises(InputError) as err:
        parse_cases("\n\n" + json.dumps(record), "cases.jsonl")
    assert str(err.value) == f"cases.jsonl:3: {path}: {reason}"


def test_duplicate_id_and_missing_fields_rejected():
    with pytest.raises(InputError, match="duplicate id"):
        parse_cases(_line() + "\n" + _line())
    with pytest.raises(InputError, match="model must be a dict"):
        parse_cases(json.dumps({"schema": SCHEMA, "id": "a", "engine": "vllm", "model": []}))
    with pytest.raises(InputError, match="no cases"):
        parse_cases("\n \n")


def test_unknown_engine_and_model_key_name_the_case():
    bad = json.loads(_line(id="q", engine="tgi"))
    with pytest.raises(InputError) as err:
        validate_cases([bad])
    assert err.value.field == "q: engine"
    bad = json.loads(_line(id="m"))
    bad["model"] = {**bad["model"], "n_wizards": 3}
    with pytest.raises(InputError, match="m: n_wizards"):
        validate_cases([bad])


def test_file_size_capped(tmp_path):
    big = tmp_path / "big.jsonl"
    big.write_bytes(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(InputError, match="larger than"):
        read_cases(big)
    with pytest.raises(InputError, match="does not exist"):
        read_cases(tmp_path / "missing.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="not UTF-8"):
        read_cases(tmp_path / "bin.jsonl")


def test_rel_error_of_zero_reported():
    # ENGINE-CASES.md: a reported 0 must be predicted exactly
    assert rel_error(0, 0) == 0.0
    assert rel_error(1, 0) == float("inf")
    assert rel_error(None, 5) is None
    assert rel_error(-90, -100) == pytest.approx(0.1)


def test_zero_reported_with_nonzero_prediction_fails_and_stays_json():
    # ENGINE-CASES.md: a reported 0 needs an exact 0; the iSWA case predicts 18 MiB of SWA cache
    record = json.loads(json.dumps(RECORDS["llamacpp-gpt-oss-20b-iswa-131k-rtx3070"]))
    record["reported"]["kv_cache_bytes_swa_layers"] = 0
    fig = case_report(record)["figures"]["kv_cache_bytes_swa_layers"]
    assert fig["within_tolerance"] is False and fig["zero_reported_mismatch"] is True
    assert fig["rel_error_with_given"] is None
    json.dumps(validate_cases([record]), allow_nan=False)
