"""The engines' own flag spellings and what each means in a vramdesk scenario (issue 27).

One table serves the command line (each spelling is an argparse alias of our option, so
``--help`` shows both) and the launch-command reader (:mod:`vramdesk.core.model.launch`,
which reads a pasted ``vllm serve ...`` into the same options). Each row names our option,
the engine whose spelling it is, and the spelling.

Three engine flags have no one-to-one option of ours, because their meaning differs from the
nearest one; they get their own options, which :func:`context_flags` and
:func:`runtime_flags` turn into ours:

* llama.cpp ``-c/--ctx-size`` is the KV cells of *all* slots (``-np``), not one sequence's
  context (``src/llama-context.cpp``: ``n_ctx_seq = n_ctx / n_seq_max``): ``--ctx-size N``
  gives ``context = N // slots``; ``0`` means the model's trained context
  (``max_position_embeddings``), as in llama.cpp.
* llama.cpp ``-b/--batch-size`` is the logical batch; the physical one is
  ``n_ubatch = min(n_batch, n_ubatch)`` (``src/llama-context.cpp``): ``--n-batch N`` caps
  ``--ubatch``.
* vLLM ``--enable-chunked-prefill`` changes nothing under V1 (always on); under V0 it makes
  the scheduler step ``max_num_batched_tokens`` the V0 default (512; 2048 from 0.7) when
  none is given (``vllm/engine/arg_utils.py``).

``--enable-prefix-caching`` does not change the memory figures (the pool is the same size;
sharing is ``--shared-prefix N``); ``--no-enable-prefix-caching`` with a shared prefix is
refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vramdesk.core.errors import InputError


@dataclass(frozen=True, slots=True)
class Alias:
    """One engine spelling of one of our options.

    Attributes
    ----------
    ours : str
        Our option (``--context``); its argparse ``dest`` is the name without dashes.
    engine : str
        Whose spelling: ``vllm``, ``sglang``, ``llama.cpp`` or ``ollama``.
    spelling : str
        The engine's flag (``--max-model-len``, ``-ngl``); Ollama's parameters and environment
        variables as flags (``num_ctx`` -> ``--num-ctx``, ``OLLAMA_NUM_PARALLEL`` ->
        ``--num-parallel``).
    """

    ours: str
    engine: str
    spelling: str

    @property
    def dest(self) -> str:
        """The argparse ``dest`` of our option (``--kv-dtype`` -> ``kv_dtype``)."""
        return self.ours.lstrip("-").replace("-", "_")


def _rows(ours: str, *pairs: tuple[str, str]) -> list[Alias]:
    return [Alias(ours, engine, spelling) for engine, spelling in pairs]


#: Every engine spelling the command line accepts, by our option.
ALIASES: tuple[Alias, ...] = (
    *_rows(
        "--context",
        ("vllm", "--max-model-len"),
        ("sglang", "--context-length"),
        ("ollama", "--num-ctx"),
    ),
    *_rows("--ctx-size", ("llama.cpp", "-c")),
    *_rows("--batch", ("vllm", "--max-num-seqs"), ("sglang", "--max-running-requests")),
    *_rows("--kv-dtype", ("vllm", "--kv-cache-dtype"), ("ollama", "--kv-cache-type")),
    *_rows("--cache-type-k", ("llama.cpp", "-ctk")),
    *_rows("--cache-type-v", ("llama.cpp", "-ctv")),
    *_rows("--util", ("vllm", "--gpu-memory-utilization")),
    *_rows("--chunk", ("vllm", "--max-num-batched-tokens")),
    *_rows(
        "--tp",
        ("vllm", "--tensor-parallel-size"),
        ("vllm", "-tp"),
        ("sglang", "--tp-size"),
    ),
    *_rows(
        "--pp",
        ("vllm", "--pipeline-parallel-size"),
        ("vllm", "-pp"),
        ("sglang", "--pp-size"),
    ),
    *_rows(
        "--dp",
        ("vllm", "--data-parallel-size"),
        ("vllm", "-dp"),
        ("sglang", "--dp-size"),
    ),
    *_rows("--expert-parallel", ("vllm", "--enable-expert-parallel"), ("vllm", "-ep")),
    *_rows("--language-model-only", ("vllm", "--language-model-only")),
    *_rows("--dcp", ("vllm", "--decode-context-parallel-size"), ("vllm", "-dcp")),
    *_rows("--dp-attention", ("sglang", "--enable-dp-attention")),
    *_rows("--ep-size", ("sglang", "--expert-parallel-size")),
    *_rows(
        "--n-gpu-layers",
        ("llama.cpp", "-ngl"),
        ("llama.cpp", "--gpu-layers"),
        ("ollama", "--num-gpu"),
    ),
    *_rows("--flash-attn", ("llama.cpp", "-fa"), ("ollama", "--flash-attention")),
    *_rows("--ubatch", ("llama.cpp", "-ub"), ("llama.cpp", "--ubatch-size")),
    *_rows("--n-batch", ("llama.cpp", "-b"), ("llama.cpp", "--batch-size")),
    *_rows("--parallel", ("llama.cpp", "-np"), ("ollama", "--num-parallel")),
    *_rows("--kv-unified", ("llama.cpp", "-kvu")),
)

#: Engine flags that are our own spelling too (no alias needed), by engine.
SAME_SPELLING: dict[str, tuple[str, ...]] = {
    "vllm": ("--block-size", "--enable-prefix-caching", "--enable-chunked-prefill"),
    "sglang": ("--mem-fraction-static", "--ep-size"),
    "llama.cpp": (
        "--ctx-size",
        "--n-gpu-layers",
        "--flash-attn",
        "--parallel",
        "--cache-type-k",
        "--cache-type-v",
        "--kv-unified",
        "--swa-full",
    ),
}


def aliases_of(ours: str) -> list[str]:
    """The engine spellings of our option ``ours``, in table order (``--context`` -> ...)."""
    return [a.spelling for a in ALIASES if a.ours == ours]


def on_off(text: str) -> str:
    """Normalize a flash-attention value: ``1``/``true``/``yes`` -> ``on``, ``0``/... -> ``off``.

    Ollama's ``OLLAMA_FLASH_ATTENTION=1`` and llama.cpp's ``-fa on|off|auto`` both read;
    anything else is returned lower-cased (argparse's choices then refuse it).
    """
    key = str(text).strip().lower()
    return {"1": "on", "true": "on", "yes": "on", "0": "off", "false": "off", "no": "off"}.get(
        key, key
    )


def context_flags(opts: dict[str, Any], trained_context: int | None) -> dict[str, Any]:
    """Turn ``--ctx-size`` and ``--enable-chunked-prefill`` into ``context`` and ``chunk``.

    Parameters
    ----------
    opts : dict
        Command-line style options (argparse ``dest`` names); a copy is returned.
    trained_context : int or None
        The model's ``max_position_embeddings`` (for ``--ctx-size 0``).

    Raises
    ------
    InputError
        ``context_tokens``: neither ``--context`` nor ``--ctx-size`` given, or both.
    """
    out = dict(opts)
    ctx_size = out.pop("ctx_size", None)
    if ctx_size is not None:
        if out.get("context") is not None:
            raise InputError(
                "context_tokens",
                "give --context (one sequence) or llama.cpp's -c/--ctx-size (all slots), not both",
                "conflict",
            )
        if ctx_size == 0:  # llama.cpp: -c 0 is the model's trained context
            if not trained_context:
                raise InputError(
                    "context_tokens", "-c 0 needs the model's trained context", "required"
                )
            ctx_size = trained_context
        slots = out.get("parallel") or out.get("batch") or 1
        out["context"] = max(1, ctx_size // slots)
    if out.get("context") is None:
        raise InputError(
            "context_tokens",
            "is required: --context S (or --max-model-len, --context-length, --num-ctx, -c)",
            "required",
        )
    vllm = str(out.get("engine") or "").strip().lower() == "vllm"
    if out.pop("chunked_prefill", None) and vllm and out.get("chunk") is None:
        # on first use: vLLM's version rules load only when the flag is given
        from vramdesk.core.engines.vllm.profile_run import v0_chunked_default
        from vramdesk.core.engines.vllm.version import parse_version

        if parse_version(out.get("engine_version"))[0]:
            out["chunk"] = v0_chunked_default(out.get("engine_version"))
    return out


def runtime_flags(opts: dict[str, Any]) -> dict[str, Any]:
    """Turn ``--n-batch`` into ``ubatch`` and check ``--no-enable-prefix-caching``; a copy.

    Raises
    ------
    InputError
        ``shared_prefix_tokens``: a shared prefix with prefix caching off.
    """
    out = dict(opts)
    n_batch = out.pop("n_batch", None)
    if n_batch is not None:
        # on first use: the llama.cpp defaults load only when -b is given
        from vramdesk.core.engines.llamacpp.kv_cache import DEFAULT_UBATCH

        out["ubatch"] = min(n_batch, out.get("ubatch") or DEFAULT_UBATCH)
    if out.pop("prefix_caching", None) is False and (out.get("shared_prefix") or 0) > 0:
        raise InputError(
            "shared_prefix_tokens",
            "prefix caching is off (--no-enable-prefix-caching): no prefix is shared",
            "conflict",
        )
    return out


def dp_batch(engine: str, opts: dict[str, Any]) -> dict[str, Any]:
    """Our ``batch`` of a per-rank sequence cap with ``D`` data-parallel ranks: ``N * D``.

    vLLM's ``--max-num-seqs N`` caps each DP rank's scheduler (every engine core has its
    own); SGLang's ``--max-running-requests N`` is each replica's without dp-attention and the
    total with it (``model_runner.py``: ``max_running_requests // dp_size`` per attention DP
    rank). ``opts`` is changed in place and returned.
    """
    per_rank = engine == "vllm" or (engine == "sglang" and not opts.get("dp_attention"))
    if per_rank and (opts.get("dp") or 1) > 1 and "batch" in opts:
        opts["batch"] *= opts["dp"]
    return opts
