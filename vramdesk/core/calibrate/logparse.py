"""Figures from an inference engine's start-up log (vLLM, SGLang, llama.cpp, Ollama).

Logs are untrusted text: at most :data:`MAX_LOG_BYTES` are read, each line is cut to
:data:`MAX_LINE_CHARS`, and every pattern is a flat regular expression (no nested
quantifiers), so parsing is linear in the input. Nothing in a log is ever executed.

Units: "GiB"/"MiB" as printed; "GB"/"MB" are read as GiB/MiB, because the engines that
print them (older vLLM weight lines, SGLang, 2023-era llama.cpp) compute binary units
(reference/ENGINE-CASES.md, "Units").

Line formats (as the engines print them; the sources are the logging calls in
vllm/v1/worker/gpu_model_runner.py, gpu_worker.py, vllm/v1/core/kv_cache_utils.py,
vllm/worker/worker.py, sglang/srt/model_executor/model_runner.py, llama.cpp
src/llama-model.cpp, llama-kv-cache*.cpp, llama-context.cpp, and Ollama's
llm/server.go / ml/backend/ggml); tests/data/engine-logs/ holds an excerpt of each.

Longer than 400 lines: one table of line patterns per engine, each a few lines, read side by
side to see which engine prints which figure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from vramdesk.core.files import read_prefix
from vramdesk.core.model.runtime import Engine
from vramdesk.core.units import GIB, MIB, round_half_up

MAX_LOG_BYTES = 16 * MIB
MAX_LINE_CHARS = 4096
_NUM = r"(-?\d{1,9}(?:,\d{3}){0,4}(?:\.\d{1,9})?)"
_UNIT = r"\s?(GiB|GB|MiB|MB|KiB|KB)"
_UNITS = {"gib": GIB, "gb": GIB, "mib": MIB, "mb": MIB, "kib": 1024, "kb": 1024}
_DEVICE = r"(CUDA\d{1,3}|ROCm\d{1,3}|Metal|Vulkan\d{1,3}|SYCL\d{1,3}|RPC\[[^\]]{1,80}\])"


@dataclass(frozen=True, slots=True)
class Figure:
    """One figure read from a log line.

    Attributes
    ----------
    name : str
        ENGINE-CASES.md field name (``weights_bytes``, ``kv_cache_tokens``, ...).
    value : int or Fraction
        Bytes (int), counts (int) or factors (Fraction).
    line : int
        1-based line number of the first line that gave it.
    text : str
        That line, stripped (at most 200 characters).
    """

    name: str
    value: int | Fraction
    line: int
    text: str


@dataclass(slots=True)
class ParsedLog:
    """The result of :func:`parse_log`: the engine and its figures by name."""

    engine: Engine | None
    figures: dict[str, Figure] = field(default_factory=dict)
    truncated: bool = False
    #: The release the log prints (vLLM: "0.11.0", "0.6.4.post1"), or None.
    engine_version: str | None = None
    #: The model the log names (:data:`_MODEL_NAMES`: a Hugging Face id, GGUF ``general.name``
    #: or file), or None.
    model_name: str | None = None
    #: The parameter count llama.cpp prints ("model params = 8.03 B"), or None.
    model_params: int | None = None

    def value(self, name: str) -> int | Fraction | None:
        """Return the value of figure ``name``, or ``None``."""
        fig = self.figures.get(name)
        return None if fig is None else fig.value

    def describe(self) -> str:
        """Summarize in one line (``"no figures found"`` when nothing matched)."""
        if not self.figures:
            return "no figures found: not a vLLM, SGLang, llama.cpp or Ollama start-up log"
        engine = self.engine.value if self.engine else "unknown engine"
        n = len(self.figures)
        model = f" (model {self.model_name})" if self.model_name else ""
        return f"{engine}: {n} figure{'' if n == 1 else 's'}{model}"


def _bytes(number: str, unit: str) -> int:
    return round_half_up(Fraction(number.replace(",", "")) * _UNITS[unit.lower()])


def _count(number: str) -> int:
    return int(Fraction(number.replace(",", "")))


_Handler = Callable[[re.Match[str]], dict[str, int | Fraction]]
_SUMMED = {"kv_cache_bytes_k", "kv_cache_bytes_v", "weights_bytes_host", "kv_buffer"}


#: vLLM's version lines: "vLLM API server version 0.11.0" (``entrypoints/openai/api_server.py``)
#: and "Initializing an LLM engine (v0.6.4.post1)" (``engine/llm_engine.py``).
_VLLM_VERSION = re.compile(
    r"(?:vLLM API server version |LLM engine \(v)(\d{1,4}\.\d{1,4}[\w.+-]{0,40})"
)


#: The lines that name the model, best first (the first match of the best pattern wins):
#: SGLang's ``server_args=ServerArgs(model_path='...')`` (``srt/server_args.py``); vLLM's
#: engine config ``model='...'`` (``engine/llm_engine.py`` / ``v1/engine/core.py``
#: "Initializing a V1 LLM engine ... with config: model=..."), its api_server Namespace
#: ``model_tag='...'`` and "Starting to load model NAME..." (``v1/worker/gpu_model_runner.py``
#: ``load_model``); llama.cpp's GGUF ``general.name`` key as ``llama_model_loader`` dumps it,
#: then the file of "loaded meta data ... from PATH" (``src/llama-model-loader.cpp``).
_MODEL_NAMES = (
    re.compile(r"\bmodel_path='([^']{1,300})'"),
    re.compile(r"\bmodel='([^']{1,300})'"),
    re.compile(r"\bmodel_tag='([^']{1,300})'"),
    re.compile(r"Starting to load model (\S{1,300}?)\.\.\."),
    re.compile(r"general\.name\s{1,60}str\s{0,20}=\s{0,5}(\S[^\r\n]{0,200})"),
    re.compile(r"loaded meta data with .{0,120}? from (\S{1,500}?)(?: \(version|$)"),
)
#: llama.cpp's "model params     = 8.03 B" (``llm_load_print_meta`` / ``print_info``).
_MODEL_PARAMS = re.compile(r"model params\s{0,20}=\s{0,5}(\d{1,6}(?:\.\d{1,6})?) ?([KMBT])\b")
_PARAM_UNITS = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}


def _model_identity(lines: list[str]) -> tuple[str | None, int | None]:
    """The model name (best pattern of :data:`_MODEL_NAMES`) and parameter count a log prints."""
    best: tuple[int, str] | None = None
    params = None
    for line in lines:
        for rank, pattern in enumerate(_MODEL_NAMES):
            if best is not None and rank >= best[0]:
                break
            match = pattern.search(line)
            if match:
                best = (rank, match[1].strip())
                break
        if params is None:
            m = _MODEL_PARAMS.search(line)
            if m:
                params = round_half_up(Fraction(m[1]) * _PARAM_UNITS[m[2]])
    return (best[1] if best else None), params


def _rules() -> list[tuple[Engine, re.Pattern[str], _Handler]]:
    """(engine hint, pattern, handler) for every known line."""
    v, s, g = Engine.VLLM, Engine.SGLANG, Engine.LLAMA_CPP
    B = _bytes
    return [
        # vLLM: "Model loading took 14.9889 GiB and 5.1 seconds";
        # V0: "Loading model weights took 14.9888 GB"
        (
            v,
            re.compile(r"(?:Model loading|Loading model weights) took " + _NUM + _UNIT),
            lambda m: {"weights_bytes": B(m[1], m[2])},
        ),
        (
            v,
            re.compile(
                r"total_gpu_memory \(" + _NUM + _UNIT + r"\) x gpu_memory_utilization \(" + _NUM
            ),
            lambda m: {"gpu_total_bytes": B(m[1], m[2]), "gpu_memory_utilization": Fraction(m[3])},
        ),
        (
            v,
            re.compile(r"total_gpu_memory=" + _NUM + _UNIT),
            lambda m: {"gpu_total_bytes": B(m[1], m[2])},
        ),
        (
            v,
            re.compile(r"model weights take " + _NUM + _UNIT),
            lambda m: {"weights_bytes": B(m[1], m[2])},
        ),
        (
            v,
            re.compile(r"non_torch_memory(?: takes |=)" + _NUM + _UNIT),
            lambda m: {"non_torch_bytes": B(m[1], m[2])},
        ),
        (
            v,
            re.compile(r"activation peak memory takes " + _NUM + _UNIT),
            lambda m: {"activation_peak_bytes": B(m[1], m[2])},
        ),
        (
            v,
            re.compile(r"peak_torch_memory=" + _NUM + _UNIT),
            lambda m: {"peak_bytes": B(m[1], m[2])},
        ),
        (
            v,
            re.compile(
                r"(?:reserved for KV Cache is |kv_cache_size=|Available KV cache memory: )"
                + _NUM
                + _UNIT
            ),
            lambda m: {"kv_cache_bytes": B(m[1], m[2])},
        ),
        (
            v,
            re.compile(r"GPU KV cache size: " + _NUM + r" tokens"),
            lambda m: {"kv_cache_tokens": _count(m[1])},
        ),
        (v, re.compile(r"# GPU blocks: " + _NUM), lambda m: {"num_gpu_blocks": _count(m[1])}),
        (
            v,
            re.compile(r"Maximum concurrency for " + _NUM + r" tokens per request: " + _NUM + r"x"),
            lambda m: {
                "max_model_len": _count(m[1]),
                "max_concurrency": Fraction(m[2].replace(",", "")),
            },
        ),
        (
            v,
            re.compile(r"Graph capturing finished in " + _NUM + r" secs?, took " + _NUM + _UNIT),
            lambda m: {"cuda_graph_bytes": B(m[2], m[3])},
        ),
        # SGLang
        (
            s,
            re.compile(
                r"KV Cache is allocated\. #tokens: "
                + _NUM
                + r", K size: "
                + _NUM
                + _UNIT
                + r", V size: "
                + _NUM
                + _UNIT
            ),
            lambda m: {
                "kv_cache_tokens": _count(m[1]),
                "kv_cache_bytes_k": B(m[2], m[3]),
                "kv_cache_bytes_v": B(m[4], m[5]),
            },
        ),
        (
            s,
            re.compile(r"Load weight end\..{0,300}?mem usage=" + _NUM + _UNIT),
            lambda m: {"weights_bytes": B(m[1], m[2])},
        ),
        (
            s,
            re.compile(r"Capture cuda graph end\..{0,200}?mem usage=" + _NUM + _UNIT),
            lambda m: {"cuda_graph_bytes": B(m[1], m[2])},
        ),
        # llama.cpp
        (
            g,
            re.compile(_DEVICE + r"(?: model)? buffer size =\s{0,20}" + _NUM + _UNIT),
            lambda m: {"weights_bytes": B(m[2], m[3])},
        ),
        (
            g,
            re.compile(
                r"(?:CPU|CPU_Mapped|CUDA_Host|Metal_Mapped)(?: model)? buffer size =\s{0,20}"
                + _NUM
                + _UNIT
            ),
            lambda m: {"weights_bytes_host": B(m[1], m[2])},
        ),
        (
            g,
            re.compile(
                r"(?:KV self size|kv_cache\w{0,20}: size) =\s{0,20}"
                + _NUM
                + _UNIT
                + r"(?: \("
                + _NUM
                + r" cells)?"
            ),
            lambda m: {
                "kv_size": B(m[1], m[2]),
                **({"kv_cells_line": _count(m[3])} if m[3] else {}),
            },
        ),
        (
            g,
            re.compile(
                r"K \(\w{1,10}\):\s{0,20}"
                + _NUM
                + _UNIT
                + r",\s{0,5}V \(\w{1,10}\):\s{0,20}"
                + _NUM
                + _UNIT
            ),
            lambda m: {"kv_cache_bytes_k": B(m[1], m[2]), "kv_cache_bytes_v": B(m[3], m[4])},
        ),
        (
            g,
            re.compile(_DEVICE + r" KV buffer size =\s{0,20}" + _NUM + _UNIT),
            lambda m: {"kv_buffer": B(m[2], m[3])},
        ),
        (
            g,
            re.compile(r"creating non-SWA KV cache, size = " + _NUM + r" cells"),
            lambda m: {"kv_cache_cells": _count(m[1]), "iswa": 1},
        ),
        (
            g,
            re.compile(r"creating\s{1,10}SWA KV cache, size = " + _NUM + r" cells"),
            lambda m: {"kv_cache_cells_swa": _count(m[1])},
        ),
        (g, re.compile(r"\bn_ctx\s{0,10}=\s{0,10}" + _NUM), lambda m: {"n_ctx": _count(m[1])}),
        (
            g,
            re.compile(r"\bn_ubatch\s{0,10}=\s{0,10}" + _NUM),
            lambda m: {"n_ubatch": _count(m[1])},
        ),
        (
            g,
            re.compile(r"\bn_seq_max\s{0,10}=\s{0,10}" + _NUM),
            lambda m: {"n_seq_max": _count(m[1])},
        ),
        (
            g,
            re.compile(r"\bflash_attn\s{0,10}=\s{0,10}([\w >-]{1,24})"),
            lambda m: {
                "flash_attn": int(m[1].split()[-1].lower() in ("1", "true", "on", "enabled"))
            },
        ),
        (
            g,
            re.compile(_DEVICE + r" compute buffer size =\s{0,20}" + _NUM + _UNIT),
            lambda m: {"compute_buffer_bytes": B(m[2], m[3])},
        ),
        (
            g,
            re.compile(r"output buffer size =\s{0,20}" + _NUM + _UNIT),
            lambda m: {"output_buffer_bytes": B(m[1], m[2])},
        ),
    ]


_RULES = _rules()
_OLLAMA = re.compile(r"source=\S{1,80}\.go:\d{1,6}|ollama", re.IGNORECASE)
# Ollama's own figures: msg="model weights" device=CUDA0 size="4.4 GiB"
# (and "kv cache", "compute graph")
_OLLAMA_FIG = re.compile(
    r'msg="(model weights|kv cache|compute graph)" device=(\w{1,20}) size="' + _NUM + _UNIT
)
_OLLAMA_NAMES = {
    "model weights": "weights_bytes",
    "kv cache": "kv_cache_bytes",
    "compute graph": "compute_buffer_bytes",
}


def read_log(path: str | Path) -> ParsedLog:
    """Read and parse a log file (at most :data:`MAX_LOG_BYTES`).

    Raises
    ------
    FileReadError
        ``log``: the file cannot be read.
    """
    text, truncated = read_log_text(path)
    parsed = parse_log(text)
    parsed.truncated = truncated
    return parsed


def read_log_text(path: str | Path) -> tuple[str, bool]:
    """The first :data:`MAX_LOG_BYTES` of a log as text, and whether the file was longer.

    Raises
    ------
    FileReadError
        ``log``: the file cannot be read.
    """
    raw = read_prefix(Path(path), MAX_LOG_BYTES, "log")
    return raw[:MAX_LOG_BYTES].decode("utf-8", errors="replace"), len(raw) > MAX_LOG_BYTES


def parse_log(text: str) -> ParsedLog:
    """Parse start-up log text; never raises on content (garbage gives no figures).

    Returns
    -------
    ParsedLog
        The detected engine (``None`` when no known line matched) and the figures: vLLM
        ``weights_bytes``, ``gpu_total_bytes``, ``gpu_memory_utilization``, ``non_torch_bytes``,
        ``activation_peak_bytes``, ``peak_bytes``, ``kv_cache_bytes``, ``kv_cache_tokens``,
        ``num_gpu_blocks``, ``max_model_len``, ``max_concurrency``, ``cuda_graph_bytes``;
        SGLang ``kv_cache_tokens``, ``kv_cache_bytes_k``/``_v``, ``weights_bytes``; llama.cpp
        and Ollama ``weights_bytes`` (first device), ``weights_bytes_host``, ``kv_cache_bytes``,
        ``kv_cache_bytes_k``/``_v``, ``kv_cache_bytes_full_layers``/``_swa_layers``,
        ``kv_cache_cells``, ``kv_cache_cells_swa``, ``compute_buffer_bytes`` (first device),
        ``output_buffer_bytes``. The first occurrence of a figure wins (multi-rank logs
        repeat lines); K, V and host weights are summed over their lines. ``engine_version``:
        the vLLM release the log prints (:data:`_VLLM_VERSION`); ``model_name`` and
        ``model_params``: the model the log names and llama.cpp's parameter count
        (:data:`_MODEL_NAMES`, :data:`_MODEL_PARAMS`).
    """
    found: dict[str, Figure] = {}
    kv_sizes: list[Figure] = []
    hints: dict[Engine, int] = {}
    ollama, version = False, None
    text = text[:MAX_LOG_BYTES]
    lines = [line[:MAX_LINE_CHARS] for line in text.splitlines()]
    for number, line in enumerate(lines, 1):
        ollama = ollama or bool(_OLLAMA.search(line))
        version = version or (_VLLM_VERSION.search(line) or [None, None])[1]
        for engine, pattern, handler in _RULES:
            match = pattern.search(line)
            if match:
                hints[engine] = hints.get(engine, 0) + 1
                for name, value in handler(match).items():
                    _add(found, kv_sizes, Figure(name, value, number, line.strip()[:200]))
        _ollama_line(line, number, found)
    _finish_llamacpp(found, kv_sizes)
    name, params = _model_identity(lines)
    engine = max(hints, key=hints.get) if hints else None
    if ollama and (engine in (Engine.LLAMA_CPP, None)) and (hints or found):
        engine = Engine.OLLAMA
    return ParsedLog(
        engine,
        {
            k: v
            for k, v in found.items()
            if not k.startswith(("kv_size", "kv_buffer", "iswa", "kv_cells_line"))
        },
        engine_version=version if engine is Engine.VLLM else None,
        model_name=name,
        model_params=params,
    )


def _add(found: dict[str, Figure], kv_sizes: list[Figure], fig: Figure) -> None:
    if fig.name == "kv_size":
        kv_sizes.append(fig)
    if fig.name in _SUMMED and fig.name in found:
        old = found[fig.name]
        found[fig.name] = Figure(fig.name, old.value + fig.value, old.line, old.text)
    else:
        found.setdefault(fig.name, fig)


def _ollama_line(line: str, number: int, found: dict[str, Figure]) -> None:
    match = _OLLAMA_FIG.search(line)
    if match and match[2].upper() != "CPU":
        name = _OLLAMA_NAMES[match[1]]
        found.setdefault(name, Figure(name, _bytes(match[3], match[4]), number, line.strip()[:200]))


def _finish_llamacpp(found: dict[str, Figure], kv_sizes: list[Figure]) -> None:
    """Total KV from the "size =" lines (or device KV buffers); the iSWA halves."""
    if kv_sizes:
        first = kv_sizes[0]
        found.setdefault(
            "kv_cache_bytes",
            Figure("kv_cache_bytes", sum(f.value for f in kv_sizes), first.line, first.text),
        )
        if "iswa" in found and len(kv_sizes) >= 2:
            found["kv_cache_bytes_full_layers"] = Figure(
                "kv_cache_bytes_full_layers", first.value, first.line, first.text
            )
            found["kv_cache_bytes_swa_layers"] = Figure(
                "kv_cache_bytes_swa_layers", kv_sizes[1].value, kv_sizes[1].line, kv_sizes[1].text
            )
    elif "kv_buffer" in found:
        buf = found["kv_buffer"]
        found.setdefault("kv_cache_bytes", Figure("kv_cache_bytes", buf.value, buf.line, buf.text))
    cells = found.get("kv_cells_line")
    if cells is not None and "kv_cache_cells" not in found:
        found["kv_cache_cells"] = Figure("kv_cache_cells", cells.value, cells.line, cells.text)
