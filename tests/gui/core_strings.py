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
    presets = bundled_models()
    shapes = [
        Workload(context_tokens=4096, batch=2),
        Workload(context_tokens=8192, batch=8, prompt_len=1024),
        Workload(context_tokens=200_000, batch=1),
    ]
    for preset, engine, form, wl in itertools.product(presets, Engine, OverheadForm, shapes):
        try:
            b = estimate(preset.model, preset.weights, wl, Runtime(engine=engine, overhead=form))
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
    return labels, prose


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
