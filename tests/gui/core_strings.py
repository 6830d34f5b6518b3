"""Every fixed text the core hands the window (for the translation tables and their test)."""

from __future__ import annotations

import functools
import itertools
import re


def part_labels() -> set[str]:
    """Labels of breakdown parts over bundled presets x engines x overhead forms."""
    return _scan()[0]


def notes() -> set[str]:
    """Prose the parts and warnings carry, with their numbers taken out (``tr_note``).

    Assumptions, warnings, and formula or substituted lines that hold words in
    parentheses (``0 (no prefill modelled)``); pure formulas are symbols and stay.
    """
    return _scan()[1]


@functools.cache
def _scan() -> tuple[set[str], set[str]]:
    from vramdesk.core.errors import InputError
    from vramdesk.core.estimate import estimate
    from vramdesk.core.model.runtime import Engine, OverheadForm, Runtime
    from vramdesk.core.model.workload import Workload
    from vramdesk.core.store.bundled import bundled_models
    from vramdesk.gui.core_text import number_template

    labels: set[str] = set()
    prose: set[str] = set()
    presets = list(bundled_models())
    # Llama-4's chunked local attention: no bundled preset has it (its config copy lacks the
    # vision tower's config, so no exact count), but an imported Llama-4 shows these notes
    from pathlib import Path
    from types import SimpleNamespace

    from vramdesk.core.local.importers import load_model

    oracle = Path(__file__).resolve().parents[1] / "data" / "configs" / "oracle"
    llama4 = load_model(oracle / "llama-4-scout-17b-16e-instruct.json")
    presets.append(SimpleNamespace(model=llama4.model, weights=llama4.weights))
    shapes = [
        Workload(context_tokens=4096, batch=2),
        Workload(context_tokens=8192, batch=8, prompt_len=1024),
        Workload(context_tokens=200_000, batch=1),
    ]
    runtimes = [
        Runtime(engine=engine, overhead=form)
        for engine, form in itertools.product(Engine, OverheadForm)
    ]
    # llama.cpp's experts in host RAM and a vision projector (issue 27.4, 27.5)
    runtimes += [
        Runtime(engine=Engine.LLAMA_CPP, cpu_moe=True, mmproj_bytes=2**20),
        Runtime(engine=Engine.LLAMA_CPP, n_cpu_moe=4),
        Runtime(engine=Engine.LLAMA_CPP, n_gpu_layers=8),
        Runtime(engine=Engine.VLLM, language_model_only=True),  # issue 20: towers left out
    ]
    for preset, runtime, wl in itertools.product(presets, runtimes, shapes):
        try:
            b = estimate(preset.model, preset.weights, wl, runtime)
        except InputError:
            continue
        labels.update(p.label for p in b.parts)
        for p in b.parts:
            for line in (p.formula, p.substituted):
                if re.search(r"\((?:[A-Za-z.'/]+ )+[A-Za-z.'/]+\)", line):  # words in (): prose
                    prose.add(number_template(line)[0])
            prose.update(number_template(a)[0] for a in p.assumptions)
        prose.update(number_template(w)[0] for w in b.warnings)
    from vramdesk.core.local.budget import fits_now

    for needed in (1, 3 * 2**30):  # the local-GPU verdict: fits, and short
        prose.add(number_template(fits_now(needed, 2**30).text)[0])
    prose.update(_speed_notes())
    prose.update(_solve_notes(presets))
    from vramdesk.core.model.mtp import mtp_note
    from vramdesk.core.model.spec import ModelSpec

    # MTP layers whose layout the count does not know (Nemotron-3): no bundled preset has them
    prose.add(number_template(mtp_note(ModelSpec(num_nextn_predict_layers=1)))[0])
    return labels, prose


def _speed_notes() -> set[str]:
    """The speed figures' assumptions (``SpeedReport.assumptions``), numbers taken out.

    Every catalog GPU with speed facts x a 16-bit, fp8, int4 and mxfp4 model (each compute
    dtype a ceiling names) x each engine's constants, dense and MoE.
    """
    from vramdesk.core.errors import InputError
    from vramdesk.core.estimate import estimate
    from vramdesk.core.model.formats import WeightFormat, WeightSpec
    from vramdesk.core.model.runtime import Engine, Runtime
    from vramdesk.core.model.workload import Workload
    from vramdesk.core.speed import SpeedReport, speed
    from vramdesk.core.store.bundled import bundled_model, gpu_catalog
    from vramdesk.gui.core_text import number_template

    out: set[str] = set()
    wl = Workload(context_tokens=4096, batch=2)
    formats = [WeightSpec(f) for f in (WeightFormat.BF16, WeightFormat.FP8)]
    formats += [WeightSpec(WeightFormat.INT4), WeightSpec(WeightFormat.MXFP4)]
    for slug in ("llama-3.1-8b", "qwen3-30b-a3b"):
        model = bundled_model(slug).model
        for engine, weights in itertools.product((Engine.LLAMA_CPP, Engine.VLLM), formats):
            rt = Runtime(engine=engine)
            try:
                b = estimate(model, weights, wl, rt)
            except InputError:  # mxfp4 on a dense model: refused
                continue
            for gpu in gpu_catalog():
                r = speed(model, weights, wl, rt, b, gpu)
                if isinstance(r, SpeedReport):
                    out.update(number_template(a)[0] for a in r.assumptions())
    return out


def _solve_notes(presets: list) -> set[str]:
    """The reverse solver's notes (the solver pane shows them) of every preset and engine."""
    from vramdesk.core.errors import InputError
    from vramdesk.core.model.runtime import Engine, Runtime
    from vramdesk.core.model.workload import Workload
    from vramdesk.core.solve.solver import solve
    from vramdesk.gui.core_text import number_template

    out: set[str] = set()
    for preset, engine in itertools.product(presets, Engine):
        for capacity in (24 * 2**30, 80 * 2**30):
            try:
                r = solve(
                    preset.model,
                    preset.weights,
                    Workload(8192, 4),
                    Runtime(engine=engine),
                    capacity,
                )
            except InputError:
                continue
            out.update(number_template(n)[0] for n in r.notes)
    return out


def core_strings() -> list[str]:
    """Templates, titles, labels and messages the window translates in context ``Core``."""
    from vramdesk.core.local.gpu_info import ERROR_MESSAGES
    from vramdesk.core.present.views import PART_TITLES
    from vramdesk.core.solve.sentence import LEVER_TITLES, LIMIT_TITLES, TEMPLATES

    fixed = [
        *TEMPLATES.values(),
        *LEVER_TITLES.values(),
        *LIMIT_TITLES.values(),
        *PART_TITLES.values(),
        *sorted(part_labels()),
        *ERROR_MESSAGES.values(),
        *sorted(notes()),
    ]
    return list(dict.fromkeys(fixed))
