"""Import a model from local files: ``config.json``, a model folder, safetensors or GGUF headers.

Only headers and small JSON files are read, each under a size limit; no code from the
model is ever executed (no ``trust_remote_code``). Every inference is recorded in
:attr:`ImportedModel.notes`.
"""

from vramdesk.core.errors import FileReadError, ImportCancelled, UnsupportedModelError
from vramdesk.core.files import Monitor
from vramdesk.core.local.importers._config import ImportedModel, model_from_config
from vramdesk.core.local.importers._load import load_model

__all__ = [
    "FileReadError",
    "ImportCancelled",
    "ImportedModel",
    "Monitor",
    "UnsupportedModelError",
    "load_model",
    "model_from_config",
]
