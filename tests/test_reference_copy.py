"""The project's copy of the reference data is complete, and agrees with ../shared/reference.

The copy (tests/data/reference) is what the other tests read, so it must be whole on every
checkout: that is asserted everywhere. The comparison with the original needs ``../shared``
beside the checkout (the workplace's and CI's layout). Under CI (``CI`` set to ``true``, as CI
services set it) a missing ``../shared/reference`` fails the comparison, saying so: a skip there
would pass a run that compared nothing. Only a developer's lone clone (no ``CI``) skips it.
"""

import json
import os

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


def _under_ci() -> bool:
    """Whether this is a CI run: ``CI=true`` (also ``1`` or ``yes``), as CI services set it."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def test_copy_agrees_with_shared_reference():
    if not SHARED.is_dir():
        if _under_ci():
            pytest.fail(
                f"{SHARED} is missing, and CI={os.environ['CI']} says this is a CI run, whose "
                "layout has ../shared beside the checkout: check it out there so that "
                "tests/data/reference is compared with its original (a skip would hide that "
                "nothing was compared)",
                pytrace=False,
            )
        pytest.skip(
            f"{SHARED} is not beside this checkout, and CI is not true (not a CI run): the copy "
            "is complete (test_copy_is_complete) but cannot be compared with its original here"
        )
    expected = expected_files(SHARED)
    for rel, text in expected.items():
        path = COPY / rel
        assert path.is_file(), f"missing copy of {rel}: run python tests/data/reference_copy.py"
        assert path.read_text(encoding="utf-8") == text, f"{rel} differs from ../shared/reference"
    assert _copied() == set(expected), "tests/data/reference has files the reference does not"
