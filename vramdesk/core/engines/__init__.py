"""Engine profiles: each engine's own memory accounting.

A profile turns (model, weights, workload, runtime) into a :class:`Breakdown` and
gives the solver its KV budget. :class:`FormulaProfile` is the source documents'
neutral accounting; engine profiles subclass it and override what their engine
does differently, naming the engine source file they follow in their docstrings.
"""

from __future__ import annotations

from vramdesk.core.engines.base import EngineProfile, FormulaProfile
from vramdesk.core.engines.llamacpp import LlamaCppProfile
from vramdesk.core.engines.ollama import OllamaProfile
from vramdesk.core.engines.sglang import SglangProfile
from vramdesk.core.engines.transformers import TransformersProfile
from vramdesk.core.engines.vllm import VllmProfile
from vramdesk.core.runtime import Engine

_PROFILES: dict[Engine, EngineProfile] = {}


def register(profile: EngineProfile) -> EngineProfile:
    """Register ``profile`` for its ``engine``; return it."""
    _PROFILES[profile.engine] = profile
    return profile


def profile_for(engine: Engine) -> EngineProfile:
    """Return the profile of ``engine`` (the formula profile for engines not specialised)."""
    return _PROFILES.get(engine, _PROFILES[Engine.FORMULA])


for _profile in (
    FormulaProfile(),
    VllmProfile(),
    SglangProfile(),
    LlamaCppProfile(),
    OllamaProfile(),
    TransformersProfile(),
):
    register(_profile)


__all__ = ["EngineProfile", "FormulaProfile", "profile_for", "register"]
