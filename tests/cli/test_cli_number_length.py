"""Issue 22 item 4: every number's length is checked before it is converted.

Before the fix ``compare MODEL <5,000 digits>`` ended in Python's "Exceeds the limit (4300
digits) for integer string conversion" traceback (exit 1), and a 5,000-digit
``--overhead-factor`` was echoed back in a 5,059-character line. Now every number (flags,
compare's positionals, typed fields, JSON values in files) longer than
``MAX_NUMBER_CHARS`` is refused in one short line naming the field, before ``int()`` or
``Fraction()`` sees it.
"""

from __future__ import annotations

import json

import pytest

from tests.bounded import assert_one_line_refusal, run_cli_bounded
from vramdesk.core.errors import InputError

HUGE = "9" * 5000
#: Over our limit, under Python's: only the length check refuses it.
LONG = "7" * 101  # MAX_NUMBER_CHARS + 1
MODEL = ["--preset", "llama-3.1-8b"]


@pytest.mark.parametrize(
    "argv,field",
    [
        (["compare", "llama-3.1-8b", HUGE], "workload:"),
        (["compare", "llama-3.1-8b", HUGE + "x8"], "workload:"),
        (["compare", "llama-3.1-8b", "8192x" + HUGE], "workload:"),
        (["compare", "llama-3.1-8b", "8192x8", HUGE + "GB"], "gpu:"),
        (["compare", "llama-3.1-8b", "8192x8", "1." + HUGE + "GiB"], "gpu:"),
        (["estimate", *MODEL, "--context", "8192", "--gpu", HUGE + "GiB"], "gpu:"),
        (["estimate", *MODEL, "--context", HUGE], "--context:"),
        (["estimate", *MODEL, "--context", "8192", "--batch", LONG], "--batch:"),
        (["solve", *MODEL, "--context", "8192", "--vram-gib", HUGE], "--vram-gib:"),
        (
            [
                "estimate",
                "--params-b",
                LONG,
                "--layers",
                "2",
                "--kv-heads",
                "1",
                "--head-dim",
                "8",
                "--context",
                "8",
            ],
            "--params-b:",
        ),
        (["estimate", *MODEL, "--context", "8192", "--overhead-factor", HUGE], "overhead_factor:"),
        (
            ["estimate", *MODEL, "--context", "8192", "--util", "0." + HUGE],
            "gpu_memory_utilization:",
        ),
        (["estimate", *MODEL, "--context", "8192", "--fixed-gib", LONG], "fixed_overhead_gib:"),
    ],
)
def test_a_number_too_long_is_refused_in_one_short_line(argv, field, tmp_path):
    result = run_cli_bounded(argv, env={"VRAMDESK_CONFIG_DIR": str(tmp_path)})
    line = assert_one_line_refusal(result, field, "characters long, more than any number takes")
    assert len(line) < 200, len(line)  # the 5,000 digits are not echoed
    assert "int_max_str_digits" not in result.stderr


def test_numbers_of_ordinary_length_still_work(tmp_path):
    result = run_cli_bounded(
        ["compare", "llama-3.1-8b", "8192x8", "80GiB", "--format", "json"],
        env={"VRAMDESK_CONFIG_DIR": str(tmp_path)},
    )
    assert result.rc == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["capacity_bytes"] == 80 * 2**30 == 85_899_345_920
    assert out["models"][0]["breakdown"]["kv_cache_bytes"] == 2 * 8 * 128 * 2 * 32 * 8192 * 8


def test_a_json_number_too_long_is_refused_before_conversion(tmp_path):
    # 101 digits: Python would convert it; the hook refuses it by its length first
    from vramdesk.core.errors import FileReadError
    from vramdesk.core.local.importers import load_model

    config = tmp_path / "config.json"
    config.write_text('{"model_type": "llama", "num_hidden_layers": ' + LONG + "}")
    with pytest.raises(FileReadError, match="a number of 101 characters") as err:
        load_model(config)
    assert err.value.field == "config"


def test_a_preset_file_with_a_huge_number_is_refused_in_our_words(tmp_path):
    doc = tmp_path / "w.json"
    doc.write_text(
        '{"schema_version": 1, "kind": "workload", "name": "W", '
        '"workload": {"context_tokens": ' + HUGE + ', "batch": 1}}'
    )
    result = run_cli_bounded(
        ["presets", "import", str(doc)], env={"VRAMDESK_CONFIG_DIR": str(tmp_path / "c")}
    )
    assert_one_line_refusal(result, "path:", "cannot be imported", "a number of 5,000 characters")
    assert "int_max_str_digits" not in result.stderr


@pytest.mark.parametrize("typed", [HUGE, "1." + HUGE, "0." + "0" * 200 + "1"])
def test_a_typed_field_refuses_a_long_number_by_its_length(typed):
    from vramdesk.core.fields import parse_int_text, parse_real_text

    for parse in (parse_int_text, parse_real_text):
        with pytest.raises(InputError) as err:
            parse("context_tokens", typed)
        assert (err.value.field, err.value.code) == ("context_tokens", "too_long")


def test_to_fraction_refuses_a_long_text_before_fraction_sees_it():
    from vramdesk.core.units import to_fraction

    with pytest.raises(ValueError, match="a number of 5,002 characters"):
        to_fraction("0." + HUGE)
    assert to_fraction("1.15") * 20 == 23
