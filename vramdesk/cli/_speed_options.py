"""``--speed-constants``: the option ``estimate`` and ``solve`` share for calibrated speed.

Kept apart from :mod:`vramdesk.cli._options` (the model, workload and target flags) because
it concerns the speed block only, and loads its reader only when a file is given.
"""

from __future__ import annotations

from typing import Any


def add_speed_constants_option(p: Any) -> None:
    """``--speed-constants FILE``: the expected-speed constants of ``vramdesk calibrate BENCH``."""
    p.add_argument(
        "--speed-constants",
        metavar="FILE",
        help="with --gpu: expected speed from your own fit (the --json or --save-speed "
        "output of 'vramdesk calibrate' on a llama-bench table or serving benchmark)",
    )


def speed_constants(args: Any) -> Any:
    """The constants ``--speed-constants`` names, or None (the engine's)."""
    path = getattr(args, "speed_constants", None)
    if not path:
        return None
    # on first use: the reader loads only when a file is given
    from vramdesk.core.calibrate.bench_run import load_constants

    return load_constants(path)
