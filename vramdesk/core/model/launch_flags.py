"""Each engine's launch flags: which are read into a scenario, and how (issue 27.2).

A flag is *read* when it changes the memory figures and maps onto one of our options
(:data:`vramdesk.core.model.engine_flags.ALIASES`, plus the model, the version and a few
value conversions); it is *ignored* (named in the answer) when we do not model it: ports, API
keys, sampling, parsers, threads and the rest. To skip an ignored flag's value correctly,
the engines' switches (flags that take no value) are listed here; any other ignored flag takes
the next token as its value unless that token is itself a flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.limits import check_number_text
from vramdesk.core.model.engine_flags import ALIASES, on_off


@dataclass(frozen=True, slots=True)
class Flag:
    """How one engine flag is read.

    Attributes
    ----------
    dest : str
        Our option's ``dest`` (``context``, ``util``), or ``model``.
    kind : str
        ``int`` (a whole number; vLLM also takes ``8k``/``8K``), ``text`` (kept as typed),
        ``on`` (a switch: True, or an optional on/off/true/false value), ``off`` (a switch
        that sets False), ``fa`` (llama.cpp's ``-fa``: alone on, or on/off/auto).
    """

    dest: str
    kind: str = "text"


_INT_DESTS = {"context", "ctx_size", "batch", "chunk", "tp", "pp", "n_gpu_layers", "ubatch"}
_INT_DESTS |= {"n_batch", "parallel", "block_size", "dp", "dcp", "ep_size", "n_cpu_moe"}
#: Our switches among the aliases: read as on/off, never with a number.
_SWITCH_DESTS = {"expert_parallel", "dp_attention", "language_model_only"}


def _from_aliases(engine: str) -> dict[str, Flag]:
    table = {}
    for a in ALIASES:
        if a.engine == engine and not a.spelling.startswith("--num-"):
            kind = "int" if a.dest in _INT_DESTS else "on" if a.dest in _SWITCH_DESTS else "text"
            table[a.spelling] = Flag(a.dest, kind)
    return table


#: Read flags by engine family (``llama.cpp`` also serves ``llama-cli``).
READ: dict[str, dict[str, Flag]] = {
    "vllm": {
        **_from_aliases("vllm"),
        "--model": Flag("model"),
        "--block-size": Flag("block_size", "int"),
        "--enable-prefix-caching": Flag("prefix_caching", "on"),
        "--no-enable-prefix-caching": Flag("prefix_caching", "off"),
        "--enable-chunked-prefill": Flag("chunked_prefill", "on"),
        "--no-enable-chunked-prefill": Flag("chunked_prefill", "off"),
        "--quantization": Flag("quantization"),
        "-q": Flag("quantization"),
    },
    "sglang": {
        **_from_aliases("sglang"),
        "--model-path": Flag("model"),
        "--model": Flag("model"),
        "--tp": Flag("tp", "int"),  # argparse prefix of --tp-size, the usual spelling
        "--dp": Flag("dp", "int"),  # likewise of --dp-size
        "--ep": Flag("ep_size", "int"),  # likewise of --ep-size
        "--ep-size": Flag("ep_size", "int"),
        "--mem-fraction-static": Flag("mem_fraction_static"),
        "--kv-cache-dtype": Flag("kv_dtype"),
        "--quantization": Flag("quantization"),
    },
    "llama.cpp": {
        **_from_aliases("llama.cpp"),
        "-m": Flag("model"),
        "--model": Flag("model"),
        "-hf": Flag("hf_repo"),
        "-hfr": Flag("hf_repo"),
        "--hf-repo": Flag("hf_repo"),
        "--ctx-size": Flag("ctx_size", "int"),
        "--n-gpu-layers": Flag("n_gpu_layers", "int"),
        "--flash-attn": Flag("flash_attn", "fa"),
        "-fa": Flag("flash_attn", "fa"),
        "--parallel": Flag("parallel", "int"),
        "--cache-type-k": Flag("cache_type_k"),
        "--cache-type-v": Flag("cache_type_v"),
        "--kv-unified": Flag("kv_unified", "on"),
        "-kvu": Flag("kv_unified", "on"),
        "--swa-full": Flag("swa_full", "on"),
        "--n-cpu-moe": Flag("n_cpu_moe", "int"),
        "-ncmoe": Flag("n_cpu_moe", "int"),
        "--cpu-moe": Flag("cpu_moe", "on"),
        "-cmoe": Flag("cpu_moe", "on"),
        "--mmproj": Flag("mmproj"),
        "-mm": Flag("mmproj"),
        "-ot": Flag("override_tensor"),
        "--override-tensor": Flag("override_tensor"),
    },
}

#: Switches (no value) among the flags we ignore, by engine family.
SWITCHES: dict[str, set[str]] = {
    "vllm": {
        "--trust-remote-code",
        "--enforce-eager",
        "--disable-log-requests",
        "--disable-log-stats",
        "--enable-auto-tool-choice",
        "--disable-custom-all-reduce",
        "--enable-lora",
        "--disable-frontend-multiprocessing",
        "--enable-reasoning",
        "--no-enable-log-requests",
        "--async-scheduling",
        "--enable-log-requests",
        "--headless",
    },
    "sglang": {
        "--trust-remote-code",
        "--disable-radix-cache",
        "--disable-cuda-graph",
        "--disable-overlap",
        "--disable-overlap-schedule",
        "--enable-metrics",
        "--enable-torch-compile",
        "--enable-p2p-check",
        "--enable-mixed-chunk",
        "--skip-server-warmup",
        "--log-requests",
        "--is-embedding",
    },
    "llama.cpp": {
        "--jinja",
        "--no-mmap",
        "--mlock",
        "-cb",
        "--cont-batching",
        "-nocb",
        "--no-cont-batching",
        "--embedding",
        "--embeddings",
        "--metrics",
        "--no-webui",
        "--verbose",
        "-v",
        "-nkvo",
        "--no-kv-offload",
        "--no-warmup",
        "-cnv",
        "--conversation",
        "-no-cnv",
        "--offline",
        "--context-shift",
        "--no-context-shift",
        "--slots",
        "--props",
        "-fmoe",
        "--mmproj-auto",
        "--no-mmproj",
    },
    "ollama": {"--verbose", "--nowordwrap", "--insecure", "--think", "--hidethinking"},
}

#: Flags that keep weights or the KV cache in host RAM, which we do not model yet: noted
#: (an ``-ot`` that is not one of the expert forms :func:`experts_override` reads, ``-nkvo``).
HOST_OFFLOAD = ("-ot", "--override-tensor", "-nkvo", "--no-kv-offload")

#: Layers probed by :func:`experts_override` (a pattern matching all of them matches any layer).
_PROBE_LAYERS = 1024


def experts_override(value: str) -> tuple[str, int | bool] | None:
    """Read an ``-ot PATTERN=BUFT[,...]`` that keeps routed experts on the CPU, or None.

    llama.cpp (``common/arg.cpp``, ``src/llama-model-loader.cpp``) puts a tensor in buffer
    type ``BUFT`` when ``std::regex_search(PATTERN, name)`` matches its name. Each pattern is
    tried on the expert tensors ``blk.i.ffn_{gate,up,down}_exps.weight`` of layers
    ``0 .. 1023`` and on tensors that are not routed experts (attention, the shared
    ``_shexp`` experts, embeddings): ``("cpu_moe", True)`` when every layer's experts and
    nothing else go to ``CPU`` (``exps=CPU``, ``.ffn_.*_exps.=CPU``); ``("n_cpu_moe", N)`` when
    exactly the first ``N`` layers' do (what ``--n-cpu-moe N`` writes); None for anything
    else (another buffer, a partial layer, other tensors): not modelled.
    """
    patterns = []
    for item in value.split(","):
        pattern, eq, buft = item.partition("=")
        if not eq or buft.strip().upper() != "CPU":
            return None
        try:
            patterns.append(re.compile(pattern))
        except re.error:
            return None

    def on_cpu(name: str) -> bool:
        return any(p.search(name) for p in patterns)

    others = ("token_embd.weight", "output.weight", "blk.0.attn_q.weight")
    others += ("blk.0.ffn_up_shexp.weight", "blk.0.ffn_gate_inp.weight", "blk.0.ffn_down.weight")
    if any(on_cpu(name) for name in others):
        return None
    layers = []
    for i in range(_PROBE_LAYERS):
        hits = {on_cpu(f"blk.{i}.ffn_{t}_exps.weight") for t in ("gate", "up", "down")}
        if len(hits) > 1:  # some of a layer's experts only: not modelled
            return None
        layers.append(hits.pop())
    n = layers.index(False) if False in layers else _PROBE_LAYERS
    if any(layers[n:]):  # not a prefix of layers
        return None
    if n == _PROBE_LAYERS:
        return ("cpu_moe", True)
    return ("n_cpu_moe", n) if n else None


#: Flags read but not modelled that do change memory, so the answer says so rather than
#: listing them among the ignored ones: a weight format or dtype we do not read from the flag
#: (vLLM ``--quantization awq``, ``--dtype float32``), weights kept in host RAM
#: (``--cpu-offload-gb``), SGLang's prefill chunk, llama.cpp's multi-GPU split.
MEMORY_NOT_MODELLED = ("--quantization", "-q", "--dtype", "--cpu-offload-gb", "--swap-space")
MEMORY_NOT_MODELLED += ("--chunked-prefill-size", "-ts", "--tensor-split", "-sm", "--split-mode")


def parse_int(text: str, field: str, human: bool = False) -> int:
    """A whole number as an engine reads it; ``human``: vLLM's ``8k`` (1000s) / ``8K`` (1024s).

    Raises
    ------
    InputError
        ``field``: not a whole number.
    """
    s = check_number_text(field, str(text).strip().replace("_", "").replace(",", ""))
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgG]?)", s) if human else None
    if m and m[2]:
        unit = {"k": 10**3, "m": 10**6, "g": 10**9, "K": 2**10, "M": 2**20, "G": 2**30}[m[2]]
        return int(Fraction(m[1]) * unit)  # exact: a float would lose digits or overflow
    try:
        return int(s)
    except ValueError:
        raise InputError(field, f"must be a whole number, got {text!r}", "not_number") from None


def flag_value(flag: Flag, spelling: str, value: str | None, human: bool) -> Any:
    """The option value of ``flag`` typed as ``spelling`` with ``value`` (None: a switch)."""
    if flag.kind == "off":
        return False
    if flag.kind == "on":
        return value is None or str(value).lower() not in ("false", "0", "off", "no")
    if flag.kind == "fa":
        return "on" if value is None else on_off(value)
    if flag.kind == "int":
        return parse_int(value or "", flag.dest, human)
    return value


def takes_value(flag: Flag, nxt: str | None) -> bool:
    """Whether a read flag consumes the next token ``nxt`` as its value."""
    if flag.kind == "off":
        return False
    if flag.kind in ("on", "fa"):
        choices = ("true", "false", "on", "off", "auto", "1", "0")
        return nxt is not None and nxt.lower() in choices
    return True


def is_flag(token: str) -> bool:
    """A flag, not a value: starts with ``-`` and is not a (negative) number."""
    return token.startswith("-") and len(token) > 1 and not re.fullmatch(r"-\d+(\.\d+)?", token)


def canonical(engine: str, spelling: str) -> str:
    """Our reading of a vLLM/SGLang long flag: ``--max_num_seqs`` and argparse prefixes too.

    A prefix (``--mem-frac``) is read as the one read flag it begins, when it begins only one;
    anything else is returned unchanged.
    """
    if engine not in ("vllm", "sglang") or not spelling.startswith("--"):
        return spelling
    spelling = "--" + spelling[2:].replace("_", "-")
    table = READ[engine]
    if spelling in table or spelling in SWITCHES[engine]:
        return spelling
    starts = [s for s in table if s.startswith(spelling) and len(spelling) >= 6]
    return starts[0] if len(starts) == 1 else spelling
