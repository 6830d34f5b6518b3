"""vramdesk: will this LLM fit in GPU memory under this traffic.

The package has a pure-Python core (:mod:`vramdesk.core`), a Qt window
(:mod:`vramdesk.gui`) and a command line (:mod:`vramdesk.cli`) that share it.
"""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """``__version__``: the installed distribution's version (pyproject.toml is its one source).

    Read on first use, so that starting the window does not import ``importlib.metadata``
    (about 13 ms); ``"0+unknown"`` in a source tree that was never installed.
    """
    if name != "__version__":
        raise AttributeError(f"module 'vramdesk' has no attribute {name!r}")
    # on first use: importlib.metadata only when the version is asked for (see above)
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("vramdesk")
    except PackageNotFoundError:  # a source tree that was never installed
        value = "0+unknown"
    globals()["__version__"] = value
    return value
