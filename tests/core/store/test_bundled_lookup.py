"""A bundled preset looked up by name builds that one preset only (issue 24)."""

import json

import pytest

from vramdesk.core.errors import InputError
from vramdesk.core.store import bundled


def _norm(text):
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _first_match_of_all(name):
    # the rule as it was: build every preset, in name order, first slug or name that matches
    key = _norm(name)
    for p in bundled.bundled_models():
        if key in (_norm(p.slug), _norm(p.name)):
            return p
    return None


def test_one_lookup_builds_one_preset():
    bundled.bundled_model.cache_clear()
    bundled.bundled_models.cache_clear()
    preset = bundled.find_model("Llama-3.1-8B")
    assert preset.slug == "llama-3.1-8b"
    assert bundled.bundled_model.cache_info().currsize == 1


@pytest.mark.parametrize(
    "name", ["llama-3.1-8b", "Llama 3.1 8B", "LLAMA31-8B", "qwen3-30b-a3b", "Qwen3-30B-A3B"]
)
def test_the_match_is_the_one_of_building_them_all(name):
    assert bundled.find_model(name) == _first_match_of_all(name)


def test_every_slug_and_every_name_finds_its_own_preset():
    folder = bundled.presets_dir() / "models"
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert bundled.find_model(path.stem).slug == path.stem
        name = data.get("name") or data["model"].get("name")
        if name:
            assert bundled.find_model(name) == _first_match_of_all(name)


def test_unknown_name_still_lists_close_slugs():
    with pytest.raises(InputError) as err:
        bundled.find_model("llama-3.1")
    assert "did you mean llama-3.1-405b, llama-3.1-70b, llama-3.1-8b?" in str(err.value)
