"""Whether an engine log is about the model shown (issue 23 item 7).

A start-up log names its model (:attr:`ParsedLog.model_name`: a Hugging Face id such as
``meta-llama/Llama-3.1-8B-Instruct``, a GGUF ``general.name`` such as ``Meta-Llama-3-8B-Instruct``
or a file such as ``gpt-oss-20b-mxfp4.gguf``) and llama.cpp prints its parameter count. Comparing
a log of one model with the prediction for another gives differences that mean nothing ("+279 %
weights"), so :func:`check_model` says when they differ and which bundled preset matches the log.

Names are compared after :func:`name_key`: lower case, the organisation and directories dropped,
the file extension, quantization and fine-tune suffixes (``instruct``, ``chat``, ``it``, ``base``,
``hf``, ``q4_k_m``, ``awq`` ...) dropped, then the letters and digits joined; two names match when
one key ends with the other (``metallama318b`` ends with ``llama318b``), so "Meta-Llama-3.1-8B" is
Llama-3.1-8B but Llama-3-8B is not. A parameter count more than :data:`PARAMS_TOLERANCE` from
the shown model's also counts as another model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from vramdesk.core.calibrate.logparse import ParsedLog
from vramdesk.core.model.spec import ModelSpec, total_params

#: Parameter counts further apart than this share (|log - shown| / shown) are other models.
PARAMS_TOLERANCE = 0.05
#: Words that name a variant or a file format of the same weights, not another model.
_NOISE = {
    "instruct", "chat", "it", "base", "hf", "gguf", "pt", "sft", "awq", "gptq", "fp8", "fp16",
    "bf16", "f16", "f32", "int4", "int8", "mxfp4", "nvfp4", "w4a16", "w8a8", "exl2",
    "safetensors", "latest", "k", "m", "s", "l", "xl", "xs", "xxs", "ud",
}  # fmt: skip
#: Quantization words (q4, iq3, f16, 4bit) and release dates (2407, 2507: YYMM).
_QUANT = re.compile(r"^(?:i?q\d{1,2}|f\d{2}|bf\d{2}|\d{1,2}bit|2[3-9][01]\d)$")


def name_key(name: str) -> str:
    """The comparable key of a model name (see the module docstring); "" for an empty name.

    ``meta-llama/Llama-3.1-8B-Instruct`` -> ``llama318b``; ``Meta-Llama-3-8B-Instruct`` ->
    ``metallama38b``; ``/models/gpt-oss-20b-mxfp4.gguf`` -> ``gptoss20b``.
    """
    text = name.strip()
    if "/" in text or "\\" in text:
        parts = PureWindowsPath(text).parts if "\\" in text else PurePosixPath(text).parts
        text = parts[-1] if parts else ""
    text = re.sub(r"\.(gguf|bin|safetensors)$", "", text, flags=re.IGNORECASE)
    words = re.findall(r"[a-z0-9]+", text.lower())
    kept = [w for w in words if w not in _NOISE and not _QUANT.match(w)]
    return "".join(kept)


def names_match(a: str, b: str) -> bool:
    """Whether two model names are the same model (one :func:`name_key` ends with the other)."""
    ka, kb = name_key(a), name_key(b)
    if not ka or not kb:
        return False
    return ka.endswith(kb) or kb.endswith(ka)


@dataclass(frozen=True, slots=True)
class ModelCheck:
    """The log's model beside the shown one.

    Attributes
    ----------
    log_model : str or None
        The name the log prints.
    log_params : int or None
        The parameter count the log prints (llama.cpp).
    shown : str
        The shown model's name.
    mismatch : bool
        The log is about another model (names differ, or parameters beyond 5 %).
    reason : str
        Why, in words ("" when they match or nothing can be told).
    preset : str or None
        The slug of the bundled model preset the log's name matches, if any.
    """

    log_model: str | None
    log_params: int | None
    shown: str
    mismatch: bool
    reason: str
    preset: str | None

    def warning(self) -> str | None:
        """One line for the command line's stderr / the window's message (None: no mismatch)."""
        if not self.mismatch:
            return None
        load = f"; load it with --preset {self.preset}" if self.preset else ""
        return (
            f"warning: the log is about {self.log_model or 'another model'}, not {self.shown} "
            f"({self.reason}): its differences compare two models{load}"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "log_model": self.log_model,
            "log_params": self.log_params,
            "shown_model": self.shown,
            "mismatch": self.mismatch,
            "reason": self.reason,
            "matching_preset": self.preset,
        }


def check_model(parsed: ParsedLog, model: ModelSpec, ids: tuple[str, ...] = ()) -> ModelCheck:
    """Compare the model ``parsed`` names with the shown ``model`` (and its other ``ids``).

    Parameters
    ----------
    parsed : ParsedLog
        The log (its ``model_name``, ``model_params``).
    model : ModelSpec
        The model the prediction is for: its ``name`` and parameter count
        (:func:`vramdesk.core.model.spec.total_params`).
    ids : tuple of str
        Other names of the shown model: its preset slug and name, its Hugging Face id.

    Returns
    -------
    ModelCheck
        ``mismatch`` when the log names a model none of the shown names match, or its
        parameter count is more than :data:`PARAMS_TOLERANCE` from the shown model's; no
        mismatch when the log names no model and prints no count.
    """
    names = tuple(n for n in (model.name, *ids) if n)
    reasons = []
    if parsed.model_name and names and not any(names_match(parsed.model_name, n) for n in names):
        reasons.append("another name")
    if parsed.model_params:
        shown_params = total_params(model)
        if shown_params and abs(parsed.model_params - shown_params) > (
            PARAMS_TOLERANCE * shown_params
        ):
            reasons.append(
                f"{parsed.model_params / 1e9:.2f} B parameters, not {shown_params / 1e9:.2f} B"
            )
    preset = matching_preset(parsed.model_name) if reasons and parsed.model_name else None
    return ModelCheck(
        parsed.model_name,
        parsed.model_params,
        model.name or (ids[0] if ids else "the model shown"),
        bool(reasons),
        "; ".join(reasons),
        preset,
    )


def matching_preset(name: str | None) -> str | None:
    """The slug of the bundled model preset named ``name`` (slug, name or Hugging Face id).

    The longest matching key wins, so ``Llama-3.1-8B-Instruct`` finds ``llama-3.1-8b`` and not
    a shorter name it happens to end with. None when no preset matches.
    """
    if not name:
        return None
    # on first use: the bundled presets load only when a log names a model
    from vramdesk.core.store.bundled import bundled_models

    key = name_key(name)
    best: tuple[int, str] | None = None
    for p in bundled_models():
        for candidate in (p.slug, p.name, p.hf_repo):
            k = name_key(candidate) if candidate else ""
            if k and key.endswith(k) and (best is None or len(k) > best[0]):
                best = (len(k), p.slug)
    return best[1] if best else None


def matching_local(name: str | None, models: Sequence[Any]) -> Any | None:
    """The first model found on this machine whose name matches ``name`` (:func:`names_match`).

    ``models`` are :class:`vramdesk.core.local.discovery.LocalModel` (their ``name``: a repo id,
    an Ollama tag, a file path); None when ``name`` is empty or none matches.
    """
    if not name:
        return None
    return next((m for m in models if names_match(name, m.name)), None)


def model_check_for(parsed: ParsedLog, model: ModelSpec, opts: dict[str, Any]) -> ModelCheck:
    """:func:`vramdesk.core.calibrate.identity.check_model` with the names ``opts`` give.

    ``--preset NAME``: the bundled preset's slug, name and Hugging Face id count as the
    shown model's names too (a user preset: its name).
    """
    ids: list[str] = []
    name = opts.get("preset")
    if name:
        ids.append(str(name))
        # on first use: the bundled presets load only when a preset names the model
        from vramdesk.core.store.bundled import bundled_models

        key = str(name).strip().lower()
        for p in bundled_models():
            if key in (p.slug.lower(), p.name.lower()):
                ids += [p.slug, p.name, p.hf_repo]
    return check_model(parsed, model, tuple(i for i in ids if i))
