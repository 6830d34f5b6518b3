"""Make and check the project's copy of ``../shared/reference`` under ``tests/data/reference``.

The copy keeps numbers and config fields and leaves the prose (notes, sources,
explanations) behind, so that a clone without ``../shared`` still tests itself.
Run ``python tests/data/reference_copy.py`` to refresh the copy; the test
``tests/test_reference_copy.py`` checks that it still agrees with the original.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
COPY = HERE / "reference"
#: ``../shared/reference`` beside the checkout (the layout of the workplace and of CI).
SHARED = HERE.parents[2] / "shared" / "reference"

PROSE_KEYS = {
    "about",
    "note",
    "notes",
    "source",
    "config_source",
    "true_params_source",
    "true_params_definition",
    "printed",
    "printed_total",
}


def strip_prose(value):
    """Drop prose keys recursively; keep numbers, names and config fields."""
    if isinstance(value, dict):
        return {k: strip_prose(v) for k, v in value.items() if k not in PROSE_KEYS}
    if isinstance(value, list):
        return [strip_prose(v) for v in value]
    return value


def expected_files(shared: Path) -> dict[str, str]:
    """The copy's files (relative path -> text) as built from ``shared``."""
    out = {}
    seed = json.loads((shared / "seed-figures.json").read_text(encoding="utf-8"))
    out["seed-figures.json"] = json.dumps(strip_prose(seed), indent=1, sort_keys=True) + "\n"
    models = json.loads((shared / "models.json").read_text(encoding="utf-8"))
    out["models.json"] = json.dumps(strip_prose(models), indent=1, sort_keys=True) + "\n"
    lines = []
    for line in (shared / "engine-cases.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            lines.append(json.dumps(strip_prose(json.loads(line)), sort_keys=True))
    out["engine-cases.jsonl"] = "\n".join(lines) + "\n"
    for cfg in sorted((shared / "models").glob("*/config.json")):
        rel = f"models/{cfg.parent.name}/config.json"
        out[rel] = (
            json.dumps(json.loads(cfg.read_text(encoding="utf-8")), indent=1, sort_keys=True) + "\n"
        )
    return out


def write_copy(shared: Path = SHARED, dest: Path = COPY) -> None:
    """Rewrite the copy from ``shared``."""
    for rel, text in expected_files(shared).items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write_copy()
    print(f"wrote {COPY}")
