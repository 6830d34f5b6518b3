"""Engine profiles: each engine's own memory accounting.

A profile turns (model, weights, workload, runtime) into a :class:`Breakdown` and
gives the solver its KV budget. :class:`FormulaProfile` is the source documents'
neutral accounting; engine profiles subclass it and override what their engine
does differently, naming the engine source file they follow in their docstrings.
"""

from __future__ import annotations

import importlib

from vramdesk.core.engines.base import EngineProfile
from vramdesk.core.engines.formula import FormulaProfile
from vramdesk.core.model.runtime import Engine

_PROFILES: dict[Engine, EngineProfile] = {Engine.FORMULA: FormulaProfile()}


def register(profile: EngineProfile) -> EngineProfile:
    """Register ``profile`` for its ``engine``; return it."""
    _PROFILES[profile.engine] = profile
    return profile


def profile_for(engine: Engine) -> EngineProfile:
    """Return the profile of ``engine`` (the formula profile for engines not specialised)."""
    profile = _PROFILES.get(engine)
    if profile is None:
        _register_engine(engine)
        profile = _PROFILES.get(engine, _PROFILES[Engine.FORMULA])
    return profile


#: engine -> (module, class) of its profile, imported on first use: a window that sizes
#: with one engine need not load the others (issue 11). No import cycle needs it: the
#: profiles never import vramdesk.core.estimate (an import-linter contract, issue 13).
_LAZY = {
    Engine.VLLM: ("vllm", "VllmProfile"),
    Engine.SGLANG: ("sglang", "SglangProfile"),
    Engine.LLAMA_CPP: ("llamacpp", "LlamaCppProfile"),
    Engine.OLLAMA: ("ollama", "OllamaProfile"),
    Engine.TRANSFORMERS: ("transformers", "TransformersProfile"),
}


def _register_engine(engine: Engine) -> None:
    """Import and register the profile of ``engine`` (nothing for an unknown engine)."""
    if engine not in _LAZY:
        return
    module, cls = _LAZY[engine]
    mod = importlib.import_module(f"vramdesk.core.engines.{module}")
    register(getattr(mod, cls)())


def _register_engines() -> None:
    """Register every engine profile now."""
    for engine in _LAZY:
        if engine not in _PROFILES:
            _register_engine(engine)


__all__ = ["EngineProfile", "FormulaProfile", "profile_for", "register"]
