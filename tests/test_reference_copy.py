"""The project's copy of the reference data is complete, and agrees with ../shared/reference.

The copy (tests/data/reference) is what the other tests read, so it must be whole on every
checkout: that is asserted everywhere. The comparison with the original needs ``../shared``
beside the checkout (the workplace's and CI's layout); only that comparison is skipped where
it is absent, and the skip says so.
"""

import json

import pytest

from tests.data.reference_copy import COPY, SHARED, expected_files


def _copied() -> set[str]:
    return {p.relative_to(COPY).as_posix() for p in COPY.rglob("*") if p.is_file()}


def test_copy_is_complete():
    # every model of models.json has its config.json, and nothing else is there
    models = json.loads((COPY / "models.json").read_text(encoding="utf-8"))
    slugs = {m["slug"] for m in models}
    assert len(slugs) == len(models) == 28  # the reference's 28 real configs
    expected = {"seed-figures.json", "models.json", "engine-cases.jsonl"} | {
        f"models/{slug}/config.json" for slug in slugs
    }
    assert _copied() == expected
    # each file parses: a truncated copy would not
    seed = json.loads((COPY / "seed-figures.json").read_text(encoding="utf-8"))
    assert seed["cases"]
    lines = (COPY / "engine-cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines and all(json.loads(line)["id"] for line in lines)
    for slug in slugs:
        config = json.loads((COPY / "models" / slug / "config.json").read_text(encoding="utf-8"))
        assert isinstance(config, dict) and config


@pytest.mark.skipif(
    not SHARED.is_dir(),
    reason=f"{SHARED} is not beside this checkout: the copy is complete "
    "(test_copy_is_complete) but cannot be compared with its original here",
)
def test_copy_agrees_with_shared_reference():
    expected = expected_files(SHARED)
    for rel, text in expected.items():
        path = COPY / rel
        assert path.is_file(), f"missing copy of {rel}: run python tests/data/reference_copy.py"
        assert path.read_text(encoding="utf-8") == text, f"{rel} differs from ../shared/reference"
    assert _copied() == set(expected), "tests/data/reference has files the reference does not"
