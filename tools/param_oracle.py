"""The independent parameter count: build each config's model on PyTorch's meta device.

A developer tool, not a runtime or test dependency: it needs ``torch`` and ``transformers``,
which vramdesk itself never imports. Install them into a separate environment::

    python3 -m venv .oracle-venv && .oracle-venv/bin/pip install torch transformers
    .oracle-venv/bin/python tools/param_oracle.py            # writes tests/data/param-oracle.json

For every ``*.json`` config of the corpus folders the model is built from the config alone
(``with torch.device("meta")``: shapes, no weights, no download), with the class the config's
``architectures`` names when transformers has it, else ``AutoModelForCausalLM``, else
``AutoModel``. ``trust_remote_code`` is never set: a config whose ``model_type`` transformers
does not know is recorded as not built. The count is ``sum(p.numel())`` over
``model.parameters()``, which yields a tied weight once. ``quantization_config`` is dropped
before building (the oracle counts the unquantized architecture; a quantized checkpoint stores
packed tensors whose element count is not the parameter count), and said so in the note.

``--write-class-defaults`` first writes ``tests/data/configs/class-defaults/<model_type>.json``,
the ``to_dict()`` of the configuration class built with no arguments, for the families in
:data:`CLASS_DEFAULTS` (hybrids whose published ``config.json`` is not in the stored copies of
public repositories this project draws on): the class defaults are the flagship model's shape,
or close to it, by each class's docstring. They are counted like every other corpus file; they
are not published configs, and ``tests/data/configs/oracle/SOURCES.md`` says so.

The output maps each config file (relative to the repository root) to ``params``,
``model_type``, ``architecture`` (the class used), ``buffers`` (the elements of persistent
buffers, which a checkpoint may store but are not parameters) and ``note``, with the
transformers and torch versions at the top.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DIRS = (
    "tests/data/configs",
    "tests/data/configs/oracle",
    "tests/data/configs/class-defaults",
    "tests/data/reference/models",
)
CLASS_DEFAULTS_DIR = ROOT / "tests" / "data" / "configs" / "class-defaults"
#: Families whose configuration class defaults are written by ``--write-class-defaults``:
#: BambaConfig (Bamba-9B's widths, no attention layer by default), GraniteMoeHybridConfig
#: (every layer Mamba-2, 8 experts), Qwen3NextConfig (Qwen3-Next-80B-A3B), Zamba2Config
#: (Zamba2-2.7B's widths with one shared block).
CLASS_DEFAULTS = ("bamba", "granitemoehybrid", "qwen3_next", "zamba2")
OUTPUT = ROOT / "tests" / "data" / "param-oracle.json"


def corpus_files(dirs: list[str]) -> list[Path]:
    """Every config file of the corpus folders (``*.json`` in a folder, ``*/config.json`` below)."""
    found: set[Path] = set()
    for d in dirs:
        folder = ROOT / d
        found.update(p for p in folder.glob("*.json") if p.name != "sources.json")
        found.update(folder.glob("*/config.json"))
    return sorted(found)


def _model_class(transformers: Any, archs: list[str], cfg: Any) -> tuple[Any, str]:
    """The class that ``architectures`` names, else the Auto class that accepts the config."""
    for name in archs:
        cls = getattr(transformers, name, None)
        if cls is not None:
            return cls, name
    for auto in ("AutoModelForCausalLM", "AutoModel"):
        mapping = getattr(transformers, auto)._model_mapping
        if type(cfg) in mapping:
            cls = mapping[type(cfg)]
            return cls, f"{cls.__name__} (via {auto})"
    raise LookupError(f"no transformers class for {type(cfg).__name__}")


def count(path: Path) -> dict[str, Any]:
    """Build one config's model on the meta device and count its parameters."""
    import torch
    import transformers
    from transformers import CONFIG_MAPPING

    raw = json.loads(path.read_text(encoding="utf-8"))
    model_type = str(raw.get("model_type") or "")
    notes = []
    if "quantization_config" in raw:
        raw = {k: v for k, v in raw.items() if k != "quantization_config"}
        notes.append("quantization_config dropped: the unquantized architecture is counted")
    if model_type not in CONFIG_MAPPING:
        return {
            "params": None,
            "model_type": model_type,
            "architecture": None,
            "buffers": None,
            "note": f"model_type {model_type!r} unknown to transformers",
        }
    cfg = CONFIG_MAPPING[model_type].from_dict(raw)
    archs = [a for a in raw.get("architectures") or [] if isinstance(a, str)]
    cls, used = _model_class(transformers, archs, cfg)
    with torch.device("meta"):
        model = cls._from_config(cfg)
    params = sum(p.numel() for p in model.parameters())
    names = {n for n, _ in model.named_buffers()}
    persistent = set(model.state_dict().keys()) & names
    buffers = sum(b.numel() for n, b in model.named_buffers() if n in persistent)
    if getattr(cfg, "tie_word_embeddings", False):
        notes.append("tied embeddings counted once")
    return {
        "params": params,
        "model_type": model_type,
        "architecture": used,
        "buffers": buffers,
        "note": "; ".join(notes),
    }


def write_class_defaults() -> None:
    """Write each :data:`CLASS_DEFAULTS` family's default configuration as a corpus file."""
    from transformers import CONFIG_MAPPING

    CLASS_DEFAULTS_DIR.mkdir(parents=True, exist_ok=True)
    for model_type in CLASS_DEFAULTS:
        config = CONFIG_MAPPING[model_type]().to_dict()
        text = json.dumps(config, indent=2, sort_keys=True) + "\n"
        (CLASS_DEFAULTS_DIR / f"{model_type}.json").write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Count every corpus config and write the oracle file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", default=list(DEFAULT_DIRS))
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--write-class-defaults", action="store_true")
    args = parser.parse_args(argv)
    import torch
    import transformers

    if args.write_class_defaults:
        write_class_defaults()

    out: dict[str, Any] = {}
    for path in corpus_files(args.dirs):
        key = path.relative_to(ROOT).as_posix()
        start = time.monotonic()
        try:
            out[key] = count(path)
        except Exception as exc:  # recorded, not fatal: the test lists it as a difference
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            out[key] = {
                "params": None,
                "model_type": None,
                "architecture": None,
                "buffers": None,
                "note": f"not built: {type(exc).__name__}: {first}",
            }
        print(f"{key}: {out[key]['params']} ({time.monotonic() - start:.1f}s)", file=sys.stderr)
    doc = {"transformers": transformers.__version__, "torch": torch.__version__, "configs": out}
    args.output.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
