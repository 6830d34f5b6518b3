"""``vramdesk calibrate BENCHFILE``: a benchmark output fitted into expected-speed constants.

:func:`run_bench` is what ``calibrate`` does when its file is a ``llama-bench`` table or a
serving benchmark summary instead of a start-up log (:func:`vramdesk.core.calibrate.bench.detect`):
it fits the engine's constants (:mod:`vramdesk.core.calibrate.bench`) for the model and
catalog GPU given, prints each measurement with the expected figure before and after, and its
``--json`` output (or ``--save-speed FILE``) is what ``estimate`` / ``solve --speed-constants
FILE`` read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vramdesk.core.calibrate.bench import (
    BenchFit,
    fit_llama_bench,
    fit_serving,
    parse_llama_bench,
    parse_serving,
)
from vramdesk.core.errors import InputError
from vramdesk.core.files import read_prefix

#: Command-line options that name a model (one is needed to fit).
MODEL_OPTIONS = ("preset", "config", "gguf", "model", "params_b")


def run_bench(text: str, kind: str, path: str | Path, opts: dict[str, Any]) -> dict[str, Any]:
    """Fit the constants of the benchmark ``text`` (``kind``: ``llama-bench`` or ``serving``).

    Parameters
    ----------
    text : str
        The benchmark output.
    kind : str
        What :func:`vramdesk.core.calibrate.bench.detect` said.
    path : path
        Where it was read from (shown).
    opts : dict
        Command-line style options: a model (:data:`MODEL_OPTIONS`), ``gpu`` (a catalog name,
        required), ``weights`` (llama-bench: instead of each row's type), ``engine`` (serving:
        default vllm), ``batch`` (serving: when the summary prints no concurrency),
        ``save_speed`` (a file to write the constants to).

    Returns
    -------
    dict
        ``{"log": path, "benchmark": kind, "fit": BenchFit.to_dict(), "saved": path or None,
        "text": the printed lines}``.

    Raises
    ------
    InputError
        ``preset``: no model given; ``gpu``: none given or unknown; as the fits.
    """
    # on first use: the scenario and catalog load only when a benchmark is fitted
    from vramdesk.core.model.scenario import scenario_from_args
    from vramdesk.core.store.bundled import find_gpu

    if not any(opts.get(k) for k in MODEL_OPTIONS):
        raise InputError(
            "preset",
            f"a {kind} output needs the model it ran (--preset, --config, --gguf or --model)",
            "required",
        )
    if not opts.get("gpu"):
        raise InputError(
            "gpu", f"a {kind} output needs the catalog GPU it ran on (--gpu NAME)", "required"
        )
    gpu = find_gpu(opts["gpu"])
    engine = opts.get("engine") or ("llama.cpp" if kind == "llama-bench" else "vllm")
    sc = scenario_from_args({**opts, "engine": engine, "context": opts.get("context") or 512})
    fit: BenchFit
    if kind == "llama-bench":
        weights = sc.weights if opts.get("weights") else None
        fit = fit_llama_bench(parse_llama_bench(text), sc.model, gpu, weights)
    else:
        result = parse_serving(text)
        assert result is not None  # detect() said "serving"
        fit = fit_serving(result, sc.model, sc.weights, gpu, sc.runtime.engine, opts.get("batch"))
    saved = None
    if opts.get("save_speed"):
        saved = save_constants(opts["save_speed"], fit)
    lines = fit.lines()
    if saved:
        lines.append(f"saved the constants: {saved} (use with --speed-constants)")
    return {
        "log": str(path),
        "benchmark": kind,
        "fit": fit.to_dict(),
        "saved": saved,
        "text": "\n".join(lines),
    }


def save_constants(path: str | Path, fit: BenchFit) -> str:
    """Write ``fit``'s constants as JSON to ``path`` (what ``--speed-constants`` reads).

    Raises
    ------
    FileReadError
        The file cannot be written.
    """
    # on first use: the atomic writer loads only when constants are saved
    from vramdesk.core.store._preset_file import write_json_atomic

    target = Path(path)
    write_json_atomic(target, {"speed_constants": fit.constants_dict()})
    return str(target)


def load_constants(path: str | Path) -> Any:
    """The ``SpeedConstants`` of a file ``--speed-constants`` names (size-capped, JSON).

    Accepts a ``calibrate --json`` output or ``--save-speed`` file, or the constants' fields.

    Raises
    ------
    InputError
        ``speed_constants``: not JSON, or not the constants (named).
    FileReadError
        The file cannot be read.
    """
    # on first use: the constants' reader loads only when a file is given
    from vramdesk.core.calibrate.bench import constants_from_dict

    raw = read_prefix(Path(path), 1 << 20, "speed_constants")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError("speed_constants", f"is not JSON: {exc}", "invalid") from None
    if isinstance(data, dict) and isinstance(data.get("fit"), dict):
        data = data["fit"]
    return constants_from_dict(data)
