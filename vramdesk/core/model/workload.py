"""The workload: the traffic the model must serve (SPEC §3.3-3.4)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from vramdesk.core.errors import InputError
from vramdesk.core.limits import check_int
from vramdesk.core.model.formats import KVDtype


@dataclass(frozen=True, slots=True)
class Workload:
    """Concurrent sequences and their length.

    Attributes
    ----------
    context_tokens : int
        Tokens per sequence held in the KV cache (prompt + generated; vLLM's
        ``max_model_len`` when sizing for the worst case).
    batch : int
        Concurrent sequences. KV memory is proportional to the live tokens
        ``context_tokens * batch``: 100 requests x 500 tokens take what 5 x 10,000 take.
    kv_dtype : KVDtype
        KV-cache element type (fp16 by default).
    prompt_len : int or None
        Prompt tokens prefilled at once per sequence; ``None`` models no prefill
        (no activation term, as in the source documents' totals).
    chunk_tokens : int or None
        Chunked prefill: tokens in flight per step (vLLM ``max_num_batched_tokens``,
        llama.cpp ``n_ubatch``); replaces ``batch * prompt_len``.
    live_buffers : int
        Activation buffers of ``hidden + intermediate`` width alive at the prefill peak.
        4 is the source article's assumption and must be calibrated by measurement.
    all_logits : bool
        Keep logits for every prefilled position instead of only the last one per sequence.
    """

    context_tokens: int = 8192
    batch: int = 1
    kv_dtype: KVDtype = KVDtype.FP16
    prompt_len: int | None = None
    chunk_tokens: int | None = None
    live_buffers: int = 4
    all_logits: bool = False

    @property
    def live_tokens(self) -> int:
        """Total tokens held in the KV cache, ``context_tokens * batch``."""
        return self.context_tokens * self.batch

    def validate(self) -> Workload:
        """Check every field; return ``self``.

        Raises
        ------
        InputError
            The first invalid field (``context_tokens``, ``batch``, ``prompt_len``, ...).
        """
        check_int("context_tokens", self.context_tokens)
        check_int("batch", self.batch)
        check_int("prompt_len", self.prompt_len, optional=True)
        check_int("chunk_tokens", self.chunk_tokens, optional=True)
        check_int("live_buffers", self.live_buffers)
        if not isinstance(self.kv_dtype, KVDtype):
            raise InputError(
                "kv_dtype", f"must be a KVDtype, got {self.kv_dtype!r}", "unknown_choice"
            )
        if self.prompt_len is not None and self.prompt_len > self.context_tokens:
            raise InputError(
                "prompt_len",
                f"must not exceed context_tokens ({self.context_tokens})",
                "too_large",
                {"max": self.context_tokens},
            )
        return self

    def replace(self, **changes: object) -> Workload:
        """Return a copy with ``changes`` applied (not validated)."""
        return dataclasses.replace(self, **changes)
