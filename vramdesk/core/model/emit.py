"""The launch command that realizes a solved scenario (issue 27.3): ``solve --emit ENGINE``.

The scenario the solver answered, with the solver's concurrency, written in the engine's own
flags, so that pasting it back (:func:`vramdesk.core.model.launch.parse_launch`) gives the
same scenario:

* vLLM: ``vllm serve MODEL --max-model-len C --max-num-seqs N`` (N = the solver's maximum
  concurrency at C), ``--gpu-memory-utilization``, ``--kv-cache-dtype``, TP/PP, block size,
  ``--max-num-batched-tokens``; with data parallelism ``--max-num-seqs`` is one rank's
  (``ceil(N / dp)``), ``--data-parallel-size``, ``--enable-expert-parallel``,
  ``--decode-context-parallel-size``;
* SGLang: ``python -m sglang.launch_server --model-path MODEL --context-length C
  --max-running-requests N``, ``--mem-fraction-static``, ``--kv-cache-dtype``, ``--tp-size``,
  ``--dp-size`` (N each replica's without ``--enable-dp-attention``), ``--ep-size``;
* llama-server: ``-c C*N -np N`` (``-c`` is the cells of all slots), ``-ngl``, ``-fa``,
  ``-ctk``/``-ctv``, ``-ub``, ``-kvu``, ``--swa-full``;
* Ollama: the server's variables (``OLLAMA_CONTEXT_LENGTH``, ``OLLAMA_NUM_PARALLEL``,
  ``OLLAMA_KV_CACHE_TYPE``, ``OLLAMA_FLASH_ATTENTION``) on ``ollama serve``, then ``ollama run
  TAG`` and ``/set parameter`` lines for ``num_gpu``/``num_batch``.

Only what differs from the engine's default is written (fp16 KV is ``auto``; TP 1 is left out).
"""

from __future__ import annotations

import shlex

from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import KVDtype
from vramdesk.core.model.runtime import DEFAULT_BLOCK_SIZE, Engine, Runtime

#: ``--emit`` targets and the engine whose accounting they follow.
EMIT_ENGINES = {
    "vllm": Engine.VLLM,
    "sglang": Engine.SGLANG,
    "llama-server": Engine.LLAMA_CPP,
    "ollama": Engine.OLLAMA,
}


def _kv_flag(kv: KVDtype, target: str) -> str | None:
    """The engine's name of a KV cache dtype, or None for the default (16-bit, ``auto``)."""
    if kv is KVDtype.FP16:
        return None
    if target in ("vllm", "sglang"):
        return {KVDtype.FP8: "fp8_e4m3" if target == "sglang" else "fp8"}.get(kv, kv.label)
    return {KVDtype.FP32: "f32", KVDtype.BF16: "bf16"}.get(kv, kv.label)


def _fraction(value: object) -> str:
    return repr(float(value))  # type: ignore[arg-type]  # 0.85 -> "0.85", read back exactly


def _lines(program: list[str], flags: list[tuple[str, str | None]]) -> str:
    parts = [shlex.join(program)]
    for flag, value in flags:
        parts.append(flag if value is None else f"{flag} {shlex.quote(value)}")
    return " \\\n  ".join(parts)


def emit_command(
    target: str,
    model_ref: str,
    context: int,
    concurrency: int,
    kv_dtype: KVDtype,
    runtime: Runtime,
    chunk: int | None = None,
) -> str:
    """The launch command for ``target`` that realizes the scenario.

    Parameters
    ----------
    target : str
        ``vllm``, ``sglang``, ``llama-server`` or ``ollama``.
    model_ref : str
        What the engine loads: a Hugging Face id, a path, a ``.gguf`` file, an Ollama tag.
    context, concurrency : int
        Tokens per sequence and the sequences served at once (the solver's maximum).
    kv_dtype : KVDtype
        The workload's KV cache dtype.
    runtime : Runtime
        The runtime solved (its engine is ``EMIT_ENGINES[target]``).
    chunk : int or None
        The workload's chunked-prefill size (vLLM ``--max-num-batched-tokens``).

    Raises
    ------
    InputError
        ``emit``: an unknown target, or nothing fits (``concurrency`` below 1).
    """
    if target not in EMIT_ENGINES:
        names = ", ".join(EMIT_ENGINES)
        raise InputError("emit", f"unknown engine {target!r}; known: {names}", "unknown_choice")
    if concurrency < 1:
        raise InputError(
            "emit",
            f"not one sequence of {context:,} tokens fits: no launch command realizes it "
            "(see the advice)",
            "does_not_fit",
        )
    kv = _kv_flag(kv_dtype, target)
    if target == "vllm":
        return _lines(["vllm", "serve", model_ref], _vllm(runtime, context, concurrency, kv, chunk))
    if target == "sglang":
        flags = [("--model-path", model_ref), ("--context-length", str(context))]
        # each replica's cap without dp-attention, the total with it (dp_batch reads it back)
        total = concurrency if runtime.enable_dp_attention else runtime.ranks_batch(concurrency)
        flags.append(("--max-running-requests", str(total)))
        if runtime.mem_fraction_static is not None:
            flags.append(("--mem-fraction-static", _fraction(runtime.mem_fraction_static)))
        if kv:
            flags.append(("--kv-cache-dtype", kv))
        flags += _parallel(runtime, "--tp-size", "--pp-size")
        if runtime.data_parallel_size != 1:
            flags.append(("--dp-size", str(runtime.data_parallel_size)))
        if runtime.enable_dp_attention:
            flags.append(("--enable-dp-attention", None))
        if runtime.ep_size != 1:
            flags.append(("--ep-size", str(runtime.ep_size)))
        return _lines(["python", "-m", "sglang.launch_server"], flags)
    if target == "llama-server":
        return _lines(["llama-server"], _llama(runtime, model_ref, context, concurrency, kv))
    return _ollama(runtime, model_ref, context, concurrency, kv)


def _parallel(runtime: Runtime, tp: str, pp: str) -> list[tuple[str, str | None]]:
    flags: list[tuple[str, str | None]] = []
    if runtime.tensor_parallel_size != 1:
        flags.append((tp, str(runtime.tensor_parallel_size)))
    if runtime.pipeline_parallel_size != 1:
        flags.append((pp, str(runtime.pipeline_parallel_size)))
    return flags


def _vllm(
    runtime: Runtime, context: int, concurrency: int, kv: str | None, chunk: int | None
) -> list[tuple[str, str | None]]:
    # max_num_seqs is each DP rank's (every engine core has its own scheduler)
    flags: list[tuple[str, str | None]] = [
        ("--max-model-len", str(context)),
        ("--max-num-seqs", str(runtime.ranks_batch(concurrency))),
        ("--gpu-memory-utilization", _fraction(runtime.gpu_memory_utilization)),
    ]
    if kv:
        flags.append(("--kv-cache-dtype", kv))
    flags += _parallel(runtime, "--tensor-parallel-size", "--pipeline-parallel-size")
    if runtime.data_parallel_size != 1:
        flags.append(("--data-parallel-size", str(runtime.data_parallel_size)))
    if runtime.enable_expert_parallel:
        flags.append(("--enable-expert-parallel", None))
    if runtime.language_model_only:
        flags.append(("--language-model-only", None))
    if runtime.decode_context_parallel_size != 1:
        flags.append(("--decode-context-parallel-size", str(runtime.decode_context_parallel_size)))
    if runtime.block_size not in (None, DEFAULT_BLOCK_SIZE):
        flags.append(("--block-size", str(runtime.block_size)))
    if chunk is not None:
        flags.append(("--max-num-batched-tokens", str(chunk)))
    return flags


def _llama(
    runtime: Runtime, model_ref: str, context: int, concurrency: int, kv: str | None
) -> list[tuple[str, str | None]]:
    source = "-m" if model_ref.lower().endswith(".gguf") or "/" not in model_ref else "-hf"
    if model_ref.startswith((".", "/", "~")) or "\\" in model_ref:
        source = "-m"
    flags: list[tuple[str, str | None]] = [(source, model_ref)]
    flags += [("-c", str(context * concurrency)), ("-np", str(concurrency))]
    if runtime.n_gpu_layers is not None:
        flags.append(("-ngl", str(runtime.n_gpu_layers)))
    if runtime.cpu_moe:
        flags.append(("--cpu-moe", None))
    elif runtime.n_cpu_moe:
        flags.append(("--n-cpu-moe", str(runtime.n_cpu_moe)))
    if runtime.flash_attn is not None:
        flags.append(("-fa", "on" if runtime.flash_attn else "off"))
    k = _kv_flag(runtime.cache_type_k, "llama-server") if runtime.cache_type_k else kv
    v = _kv_flag(runtime.cache_type_v, "llama-server") if runtime.cache_type_v else kv
    if k:
        flags.append(("-ctk", k))
    if v:
        flags.append(("-ctv", v))
    if runtime.n_ubatch is not None:
        flags.append(("-ub", str(runtime.n_ubatch)))
    if runtime.kv_unified:
        flags.append(("-kvu", None))
    if runtime.swa_full:
        flags.append(("--swa-full", None))
    return flags


def _ollama(runtime: Runtime, tag: str, context: int, concurrency: int, kv: str | None) -> str:
    env = [f"OLLAMA_CONTEXT_LENGTH={context}", f"OLLAMA_NUM_PARALLEL={concurrency}"]
    if kv:
        env.append(f"OLLAMA_KV_CACHE_TYPE={kv}")
    if runtime.flash_attn is not None:
        env.append(f"OLLAMA_FLASH_ATTENTION={1 if runtime.flash_attn else 0}")
    lines = [" ".join([*env, "ollama", "serve"]), shlex.join(["ollama", "run", tag])]
    if runtime.n_gpu_layers is not None:
        lines.append(f"/set parameter num_gpu {runtime.n_gpu_layers}")
    if runtime.n_ubatch is not None:
        lines.append(f"/set parameter num_batch {runtime.n_ubatch}")
    return "\n".join(lines)
