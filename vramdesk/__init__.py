"""vramdesk: will this LLM fit in GPU memory under this traffic?

The package has a pure-Python core (:mod:`vramdesk.core`), a Qt window
(:mod:`vramdesk.gui`) and a command line (:mod:`vramdesk.cli`) that share it.
"""

__version__ = "0.1.0"
