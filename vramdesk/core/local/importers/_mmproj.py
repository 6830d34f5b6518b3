"""A vision projector (``mmproj-*.gguf``): the bytes llama.cpp loads beside the model (27.5).

``llama-server --mmproj FILE`` loads a CLIP-style GGUF (``general.architecture = clip``:
the vision encoder and its projector, ``tools/mtmd/clip.cpp`` ``clip_model_loader``) onto the
GPU next to the language model; its tensors' bytes are read from the header's tensor table
(the same bounded reader as ``--gguf``, :func:`._gguf_read.read_gguf_header`: each tensor's
bytes from its ggml type's block size).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vramdesk.core.errors import InputError
from vramdesk.core.local.importers._gguf_read import read_gguf_header


@dataclass(frozen=True, slots=True)
class Projector:
    """A projector file's header, as sized.

    Attributes
    ----------
    name : str
        The file's name.
    weight_bytes : int
        Sum of its tensors' bytes (exact: the file's tensor table).
    tensors : int
        How many tensors.
    projector_type : str
        ``clip.projector_type`` (``mlp``, ``gemma3``, ``qwen2vl_merger``, ...), or ``""``.
    image_size, patch_size : int or None
        ``clip.vision.image_size`` and ``clip.vision.patch_size`` (pixels).
    """

    name: str
    weight_bytes: int
    tensors: int
    projector_type: str = ""
    image_size: int | None = None
    patch_size: int | None = None


def read_projector(path: str | Path) -> Projector:
    """Read a projector GGUF's header and size its weights.

    Raises
    ------
    InputError
        ``mmproj``: not a CLIP-style projector (another ``general.architecture``, or no
        tensors).
    FileReadError
        ``path``: missing, unreadable or not GGUF (:func:`._gguf_read.read_gguf_header`).
    """
    path = Path(path)
    header = read_gguf_header(path)
    arch = header.meta.get("general.architecture")
    if arch != "clip" or not header.tensors:
        raise InputError(
            "mmproj",
            f"{path.name} is not a vision projector (general.architecture {arch!r}, "
            f"{len(header.tensors)} tensors; llama.cpp's mmproj files are 'clip')",
            "unsupported",
        )

    def number(key: str) -> int | None:
        value = header.meta.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    kind = header.meta.get("clip.projector_type")
    return Projector(
        path.name,
        sum(nbytes for _, _, nbytes, _ in header.tensors),
        len(header.tensors),
        kind if isinstance(kind, str) else "",
        number("clip.vision.image_size"),
        number("clip.vision.patch_size"),
    )


def projector_bytes(path: str | Path) -> int:
    """The weight bytes of the projector at ``path`` (:func:`read_projector`)."""
    return read_projector(path).weight_bytes
