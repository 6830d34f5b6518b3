"""vramdesk: will this LLM fit in GPU memory under this traffic?

The package has a pure-Python core (:mod:`vramdesk.core`), a Qt window
(:mod:`vramdesk.gui`) and a command line (:mod:`vramdesk.cli`) that share it.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    #: The installed distribution's version (pyproject.toml is its one source).
    __version__ = version("vramdesk")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
