"""Command-line additions: ``models``, ``compare``, and more in ``presets``.

The presets listing's workloads and runtimes, catalog GPUs in ``presets show``, and a
plain refusal of a Hugging Face config given to ``presets import``.

Kept apart from :mod:`vramdesk.cli` so the parser there stays a list of subcommands;
everything here calls core (no Qt).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.units import Unit

#: ``8192x8``, ``8kx8``, ``128k`` (batch 1): context tokens, then concurrent sequences.
_SHAPE = re.compile(r"^\s*(\d+)\s*(k)?\s*(?:[x*]\s*(\d+))?\s*$", re.IGNORECASE)
#: ``80``, ``80GiB``, ``80 GB``, ``24.5gib``.
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(gib|gb)?\s*$", re.IGNORECASE)


def add_format_option(p: argparse.ArgumentParser) -> None:
    """``--format table|markdown|csv|json`` (``--json`` stays as ``--format json``)."""
    from vramdesk.core.present.output import FORMATS

    p.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="table (default), markdown, csv or json; csv/json/markdown carry exact integer bytes",
    )


def output_format(args: argparse.Namespace) -> str:
    """The format asked for: ``--format``, else ``json`` for ``--json``, else ``table``."""
    fmt = getattr(args, "format", None)
    if fmt and getattr(args, "json", False) and fmt != "json":
        raise InputError("format", f"--json and --format {fmt} disagree; give one", "conflict")
    return fmt or ("json" if getattr(args, "json", False) else "table")


def add_parsers(sub: Any, output_options: Any, runtime_options: Any) -> None:
    """Add ``models`` and ``compare`` to the subcommands ``sub``."""
    mod = sub.add_parser(
        "models",
        help="models already on this machine (Hugging Face cache, Ollama, LM Studio, "
        "llama.cpp, --dir folders); offline, headers only",
    )
    mod.add_argument(
        "--dir",
        action="append",
        default=[],
        metavar="DIR",
        help="another folder to look in (repeatable; also $VRAMDESK_MODEL_DIRS)",
    )
    mod.add_argument("--json", action="store_true", help="one JSON object, exact size_bytes")
    mod.set_defaults(handler=cmd_models)
    cmp = sub.add_parser(
        "compare",
        help="several models under one workload: weights, KV cache, activations, "
        "overhead, total, fits",
        description="vramdesk compare A B C ... WORKLOAD [BUDGET]. Models: presets, config "
        "files or folders, .gguf files, or local models (see 'vramdesk models'). WORKLOAD: a "
        "bundled or saved workload preset, or CONTEXTxBATCH (8192x8, 32kx4, 128k). "
        "BUDGET: a catalog GPU ('H100 80GB') or a size (80GiB, 80GB; a bare number is GiB).",
    )
    cmp.add_argument("items", nargs="+", metavar="MODEL ... WORKLOAD [BUDGET]")
    cmp.add_argument("--kv-dtype", metavar="DTYPE", help="KV cache dtype (default: the workload's)")
    runtime_options(cmp.add_argument_group("runtime"))
    output_options(cmp)
    cmp.set_defaults(handler=cmd_compare)


# ------------------------------------------------------------------ models
def cmd_models(args: argparse.Namespace) -> int:
    """``vramdesk models``: what is on this machine (problems on stderr)."""
    import sys

    from vramdesk.core.local.discovery import discover, discovery_json, models_text

    found = discover(args.dir)
    if args.json:
        print(discovery_json(found))
        return 0
    for problem in found.problems:
        print(f"vramdesk: warning: {problem}", file=sys.stderr)
    print(models_text(found))
    return 0


# ------------------------------------------------------------------ compare
def parse_workload(text: str):
    """A workload from a bundled or saved workload preset, or ``CONTEXTxBATCH``.

    Returns
    -------
    vramdesk.core.model.workload.Workload

    Raises
    ------
    InputError
        ``workload``: none of these.
    """
    from vramdesk.core.model.workload import Workload
    from vramdesk.core.store.bundled import _norm, bundled_workloads, presets_dir

    m = _SHAPE.match(text)
    if m:
        context = int(m[1]) * (1024 if m[2] else 1)
        return Workload(context_tokens=context, batch=int(m[3] or 1)).validate()
    stems = [p.stem for p in sorted((presets_dir() / "workloads").glob("*.json"))]
    for stem, (name, workload) in zip(stems, bundled_workloads(), strict=False):
        if _norm(text) in (_norm(stem), _norm(name)):
            return workload
    saved = _saved_part(text, "workload")
    if saved is not None:
        return saved
    names = ", ".join(stems)
    raise InputError(
        "workload",
        f"{text!r} is not a workload: give a workload preset ({names}) or CONTEXTxBATCH "
        "such as 8192x8",
        "unknown_choice",
    )


def _saved_part(name: str, part: str) -> Any:
    from vramdesk.core.store.presets import PresetStore, scenario_parts

    try:
        user = PresetStore().find(name)
    except InputError:
        return None
    return scenario_parts(user).get(part)


def parse_budget(text: str, engine: Any) -> tuple[str, int] | None:
    """``(label, capacity_bytes)`` of a catalog GPU or a size; None when ``text`` is neither.

    A catalog GPU is sized as the engine sees it (:meth:`GpuSpec.capacity_for`).
    """
    from vramdesk.core.store.bundled import find_gpu
    from vramdesk.core.units import gib_to_bytes

    m = _SIZE.match(text)
    if m:
        if (m[2] or "gib").lower() == "gb":
            from fractions import Fraction

            label, n_bytes = f"{m[1]} GB", int(Fraction(m[1]) * 10**9)
        else:
            label, n_bytes = f"{m[1]} GiB", gib_to_bytes(m[1])
        if n_bytes <= 0:
            raise InputError("budget", f"must be a positive size, got {text!r}", "too_small")
        return label, n_bytes
    try:
        gpu = find_gpu(text)
    except InputError:
        return None
    return gpu.capacity_label(engine), gpu.capacity_for(engine)


def cmd_compare(args: argparse.Namespace) -> int:
    """``vramdesk compare A B ... WORKLOAD [BUDGET]``."""
    from vramdesk.core.local.discovery import model_by_name
    from vramdesk.core.model.formats import KVDtype
    from vramdesk.core.model.scenario import runtime_from_args
    from vramdesk.core.present.output import compare_models, comparison_output

    fmt = output_format(args)
    runtime = runtime_from_args(vars(args))
    items = list(args.items)
    budget = parse_budget(items[-1], runtime.engine) if len(items) >= 3 else None
    if budget is not None:
        items.pop()
    if len(items) < 2:
        raise InputError("compare", "give at least one model and a workload", "required")
    workload = parse_workload(items.pop())
    if args.kv_dtype:
        workload = workload.replace(kv_dtype=KVDtype.parse(args.kv_dtype))
    found = None
    models = []
    for name in items:
        if found is None and not Path(name).expanduser().exists():
            found = _discover_once()
        models.append(model_by_name(name, found))
    comp = compare_models(models, workload, runtime, budget)
    print(comparison_output(comp, fmt, Unit.parse(args.units)).rstrip("\n"))
    return 0


def _discover_once():
    from vramdesk.core.local.discovery import discover

    return discover()


# ------------------------------------------------------------------ presets
def preset_list_rows(problems: list[str]) -> list[dict[str, Any]]:
    """Every preset with its kind.

    Bundled and saved models, bundled workloads, and saved workload, runtime and
    scenario presets.
    """
    from vramdesk.core.present.report import preset_rows
    from vramdesk.core.store.bundled import bundled_workloads, presets_dir
    from vramdesk.core.store.presets import PresetStore

    rows = [{"kind": "model", **r} for r in preset_rows(problems)]
    stems = [p.stem for p in sorted((presets_dir() / "workloads").glob("*.json"))]
    for stem, (name, wl) in zip(stems, bundled_workloads(), strict=False):
        rows.append(
            {
                "kind": "workload",
                "slug": stem,
                "name": name,
                "read_only": True,
                "context_tokens": wl.context_tokens,
                "batch": wl.batch,
            }
        )
    store = PresetStore()
    for user in store.list():
        if user.kind != "model":
            rows.append(
                {
                    "kind": user.kind,
                    "slug": user.slug,
                    "name": user.name,
                    "read_only": False,
                    "source": str(user.path),
                }
            )
    problems.extend(p for p in store.problems if p not in problems)
    return rows


def print_preset_rows(rows: list[dict[str, Any]]) -> None:
    """One line per preset: slug, kind, what it holds, bundled or saved, name."""
    for row in rows:
        flag = "bundled" if row["read_only"] else "saved"
        if row["kind"] == "model":
            params = f"{row['params'] / 1e9:,.2f}B" if row["params"] else "?"
            what = f"{params:>9} params  {row['weights']:<8}"
        elif "context_tokens" in row:
            what = f"{row['context_tokens']:>9,} x {row['batch']:<4} sequences"
        else:
            what = " " * 26
        print(f"{row['slug']:<28} {row['kind']:<9} {what} {flag:<8} {row['name']}")


def gpu_detail(name: str) -> dict[str, Any] | None:
    """A catalog GPU as a dict (exact bytes), or None when ``name`` is not one."""
    import dataclasses

    from vramdesk.core.store.bundled import find_gpu

    try:
        gpu = find_gpu(name)
    except InputError:
        return None
    out = {"kind": "gpu", **dataclasses.asdict(gpu)}
    out["memory_gib"] = gpu.memory_bytes / 2**30
    return json.loads(json.dumps(out, default=str))


def refuse_hf_config(path: str) -> None:
    """Refuse, with the right command, a Hugging Face config.json given as a preset file.

    Raises
    ------
    InputError
        ``path``: the file is a JSON object with ``model_type`` or ``architectures`` and
        no ``schema_version`` (a model's config, not a vramdesk preset).
    """
    from vramdesk.core.errors import VramdeskError
    from vramdesk.core.local.importers._files import CONFIG_LIMIT_BYTES, read_json_object

    try:
        doc = read_json_object(Path(path), CONFIG_LIMIT_BYTES, "path")
    except (VramdeskError, OSError):
        return  # the importer reports it in its own words
    if "schema_version" not in doc and ("model_type" in doc or "architectures" in doc):
        raise InputError(
            "path",
            f"{Path(path).name} is a Hugging Face model config, not a vramdesk preset: "
            f"use it directly with 'vramdesk estimate --config {path}' (or File → Import "
            "in the window)",
            "hf_config",
        )
