"""Every fixed text the core hands the window (for the translation tables and their test)."""

from __future__ import annotations

import itertools


def part_labels() -> set[str]:
    """Labels of breakdown parts over bundled presets x engines x overhead forms."""
    from vramdesk.core.bundled import bundled_models
    from vramdesk.core.errors import InputError
    from vramdesk.core.estimate import estimate
    from vramdesk.core.runtime import Engine, OverheadForm, Runtime
    from vramdesk.core.workload import Workload

    labels = set()
    presets = bundled_models()
    for preset, engine, form in itertools.product(presets, Engine, OverheadForm):
        try:
            b = estimate(
                preset.model,
                preset.weights,
                Workload(context_tokens=4096, batch=2),
                Runtime(engine=engine, overhead=form),
            )
        except InputError:
            continue
        labels.update(p.label for p in b.parts)
    return labels


def core_strings() -> list[str]:
    """Templates, titles, labels and messages the window translates in context ``Core``."""
    from vramdesk.core.nvml import ERROR_MESSAGES
    from vramdesk.core.verdict import LEVER_TITLES, LIMIT_TITLES, TEMPLATES
    from vramdesk.core.views import PART_TITLES

    fixed = [
        *TEMPLATES.values(),
        *LEVER_TITLES.values(),
        *LIMIT_TITLES.values(),
        *PART_TITLES.values(),
        *sorted(part_labels()),
        *ERROR_MESSAGES.values(),
    ]
    return list(dict.fromkeys(fixed))
