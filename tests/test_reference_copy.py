"""The project's copy of the reference data still agrees with ../shared/reference."""

import pytest

from tests.data.reference_copy import COPY, SHARED, expected_files


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/reference is not beside this checkout")
def test_copy_agrees_with_shared_reference():
    expected = expected_files(SHARED)
    for rel, text in expected.items():
        path = COPY / rel
        assert path.is_file(), f"missing copy of {rel}: run python tests/data/reference_copy.py"
        assert path.read_text(encoding="utf-8") == text, f"{rel} differs from ../shared/reference"
    copied = {p.relative_to(COPY).as_posix() for p in COPY.rglob("*") if p.is_file()}
    assert copied == set(expected), "tests/data/reference has files the reference does not"


def test_copy_is_present():
    assert (COPY / "seed-figures.json").is_file()
    assert len(list((COPY / "models").glob("*/config.json"))) == 28
