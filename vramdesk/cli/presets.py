"""``vramdesk presets``: list, show, save, import and export presets.

The listing holds models, workloads and runtimes, bundled and saved; ``show`` also takes a
catalog GPU; ``save`` keeps a scenario with its target GPU; ``import`` refuses a Hugging Face
config.json with the command that reads it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from vramdesk.cli import _grammar
from vramdesk.cli._options import add_model_options, add_target_options, add_workload_options
from vramdesk.cli._parser import EXIT_OK, Parser, print_json, say, warn
from vramdesk.core.errors import InputError


def add_parser(sub: Any) -> None:
    """Add ``presets`` and its own subcommands to the subcommands ``sub``."""
    pre = sub.add_parser("presets", help="bundled and saved presets")
    psub = pre.add_subparsers(dest="presets_command", parser_class=Parser, required=True)
    lst = psub.add_parser(
        "list", help="list presets (models, workloads, runtimes; bundled and saved) or GPUs"
    )
    lst.add_argument("--gpus", action="store_true", help="list the GPU catalog instead")
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(handler=run_list)
    show = psub.add_parser("show", help="show one model preset or catalog GPU")
    show.add_argument("name")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=run_show)
    imp = psub.add_parser("import", help="import a preset file into the config directory")
    imp.add_argument("path", help="preset file ('-': standard input)")
    imp.set_defaults(handler=run_import)
    save = psub.add_parser(
        "save",
        help="save a scenario (model, weights, workload, engine and runtime, target GPU) as a "
        "preset, as the window's 'Save scenario…' does",
    )
    save.add_argument("name", help="the preset's name")
    _grammar.add_positionals(save, many=False)  # estimate's words: MODEL WORKLOAD TARGET
    add_model_options(save)
    add_workload_options(save)
    add_target_options(save, "saved with the scenario (optional)")
    save.add_argument("--force", action="store_true", help="replace a scenario of that name")
    save.set_defaults(handler=run_save)
    exp = psub.add_parser("export", help="export a saved preset to a file")
    exp.add_argument("name")
    exp.add_argument("path")
    exp.set_defaults(handler=run_export)


def run_list(args: argparse.Namespace) -> int:
    """List presets, or the GPU catalog."""
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.present.report import gpu_rows

    problems: list[str] = []
    rows = gpu_rows() if args.gpus else preset_list_rows(problems)
    for problem in problems:
        warn(f"warning: {problem}")
    if args.json:
        print_json(rows)
        return EXIT_OK
    name_w = max([16, *(len(row.get("name", "")) for row in rows)])
    for row in rows:
        if args.gpus:
            say(
                f"{row['name']:<{name_w}} {row['memory_mib']:>7,} MiB  "
                f"{row['memory_gib']:>7.2f} GiB  {row['source']}"
            )
    if not args.gpus:
        print_preset_rows(rows)
    return EXIT_OK


def run_show(args: argparse.Namespace) -> int:
    """Show one preset or catalog GPU."""
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.present.report import preset_detail

    try:
        detail = preset_detail(args.name)
    except InputError:
        detail = gpu_detail(args.name)
        if detail is None:
            raise
    if args.json:
        print_json(detail)
    else:
        for key, value in detail.items():
            say(f"{key}: {json.dumps(value) if isinstance(value, dict | list) else value}")
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    """Import a preset file into the config directory."""
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.store.presets import import_preset

    raw = None
    if args.path == "-":  # standard input is read once: the check and the import share it
        # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
        from vramdesk.core.store._preset_file import read_limited

        raw = read_limited(Path("-"))  # at most 1 MiB + 1 byte; a larger one is refused
    refuse_hf_config(args.path, raw)
    user = import_preset(args.path, raw=raw)
    say(f"imported {user.kind} preset {user.name!r} as {user.slug} ({user.path})")
    return EXIT_OK


def run_save(args: argparse.Namespace) -> int:
    """Save the scenario the options describe (and its target GPU) as a scenario preset."""
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.model.scenario import scenario_from_args, target_from_args, with_saved_target
    from vramdesk.core.store.bundled import find_model
    from vramdesk.core.store.presets import PresetStore
    from vramdesk.core.store.serialize import scenario_to_dict

    try:
        find_model(args.name)
    except InputError:
        pass  # no bundled model of that name: the name is free
    else:  # --preset NAME finds the bundled model first, so the scenario could not be loaded
        raise InputError(
            "name",
            f"{args.name!r} is a bundled model preset's name: --preset {args.name} would load "
            "the bundled model, not this scenario; choose another name",
            "conflict",
        )
    models, opts = _grammar.split(args, many=False)  # as estimate reads them
    opts = {**opts, "name": models[0] if models else None}  # MODEL, not the preset's name
    opts = with_saved_target(opts)  # re-saving a saved scenario keeps its target
    sc = scenario_from_args(opts)
    data = scenario_to_dict(sc.model, sc.weights, sc.workload, sc.runtime)
    target = target_from_args(_grammar.saved_form(opts))  # a size is kept in exact bytes
    if target is not None:
        data["target"] = target.to_saved()
    user = PresetStore().save(args.name, "scenario", data, overwrite=args.force)
    say(f"saved scenario preset {user.name!r} as {user.slug} ({user.path})")
    return EXIT_OK


def run_export(args: argparse.Namespace) -> int:
    """Export a saved preset to a file."""
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.store.presets import PresetStoreError, export_preset

    try:
        path = export_preset(args.name, args.path)
    except PresetStoreError as exc:  # the target path is the user's input
        raise InputError("path", str(exc), "unwritable") from None
    say(f"exported {args.name} to {path}")
    return EXIT_OK


def preset_list_rows(problems: list[str]) -> list[dict[str, Any]]:
    """Every preset with its kind.

    Bundled and saved models, bundled workloads, and saved workload, runtime and
    scenario presets.
    """
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
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
    """One line per preset: slug, kind, what it holds, bundled or saved, name.

    Each column is as wide as its widest cell (at least the widths of a short list), so a
    long slug or weight label never pushes the columns after it out of line.
    """
    whats = []
    for row in rows:
        if row["kind"] == "model":
            params = f"{row['params'] / 1e9:,.2f}B" if row["params"] else "?"
            whats.append(f"{params:>9} params  {row['weights']}")
        elif "context_tokens" in row:
            batch = row["batch"]
            seqs = f"{batch:,} {'sequence' if batch == 1 else 'sequences'}"
            whats.append(f"{row['context_tokens']:>9,} x {seqs}")
        else:
            whats.append("")
    slug_w = max([28, *(len(r["slug"]) for r in rows)])
    what_w = max([26, *(len(w) for w in whats)])
    for row, what in zip(rows, whats, strict=True):
        flag = "bundled" if row["read_only"] else "saved"
        say(f"{row['slug']:<{slug_w}} {row['kind']:<9} {what:<{what_w}} {flag:<8} {row['name']}")


def gpu_detail(name: str) -> dict[str, Any] | None:
    """A catalog GPU as a dict (exact bytes), or None when ``name`` is not one."""
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    import dataclasses

    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.store.bundled import find_gpu

    try:
        gpu = find_gpu(name)
    except InputError:
        return None
    out = {"kind": "gpu", **dataclasses.asdict(gpu)}
    out["memory_gib"] = gpu.memory_bytes / 2**30
    return json.loads(json.dumps(out, default=str))


def refuse_hf_config(path: str, raw: bytes | None = None) -> None:
    """Refuse, with the right command, a Hugging Face config.json given as a preset file.

    Raises
    ------
    InputError
        ``path``: the file is a JSON object with ``model_type`` or ``architectures`` and
        no ``schema_version`` (a model's config, not a vramdesk preset).
    """
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.errors import VramdeskError
    from vramdesk.core.files import CONFIG_LIMIT_BYTES, parse_json, read_json_object

    try:
        if raw is None:
            doc = read_json_object(Path(path), CONFIG_LIMIT_BYTES, "path")
        else:  # standard input, already read
            doc = parse_json(raw, "standard input", "path")
    except (VramdeskError, OSError):
        return  # the importer reports it in its own words
    if not isinstance(doc, dict):
        return
    if "schema_version" not in doc and ("model_type" in doc or "architectures" in doc):
        raise InputError(
            "path",
            f"{'standard input' if raw is not None else Path(path).name} is a Hugging Face "
            "model config, not a vramdesk preset: "
            f"use it directly with 'vramdesk estimate --config {path}' (or File → Import "
            "in the window)",
            "hf_config",
        )
