r"""Read a pasted launch command into vramdesk's options (issue 27.2); pure Python.

Longer than 400 lines: one reader for every engine's command form (each engine's flag loop,
its environment variables and Ollama's parameter lines share the token walk and ``Launch``).

Understood forms:

* ``vllm serve MODEL [flags]`` and ``python -m vllm.entrypoints.openai.api_server --model M``;
* ``python -m sglang.launch_server --model-path M [flags]`` (and ``sglang serve``);
* ``llama-server``/``llama-cli`` (also ``./build/bin/llama-server``, the old ``server``/``main``)
  with ``-m FILE`` or ``-hf REPO[:QUANT]``, and ``LLAMA_ARG_*`` variables;
* ``ollama run TAG`` (or ``ollama serve``) with ``OLLAMA_*`` variables in front, and
  ``/set parameter NAME VALUE`` or Modelfile ``PARAMETER NAME VALUE`` lines;
* ``docker run [options] IMAGE [args]`` (``podman`` too): ``-e`` variables are read, the image
  names the engine (``vllm/vllm-openai:v0.6.4`` -> vLLM 0.6.4) when the arguments do not;
* a compose service: ``image:``, ``environment:`` and ``command:`` (a string or a list).

Variables in front (``A=1 B=2 cmd``, ``export A=1``) are read, lines joined at a trailing ``\``,
``&&``/``;`` separate commands (the engine's is read). A :class:`Launch`'s ``options`` are the
command line's option names (:func:`vramdesk.core.model.scenario.scenario_from_args`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.model.engine_flags import dp_batch
from vramdesk.core.model.launch_flags import (
    HOST_OFFLOAD,
    MEMORY_NOT_MODELLED,
    READ,
    SWITCHES,
    Flag,
    canonical,
    experts_override,
    flag_value,
    is_flag,
    parse_int,
    takes_value,
)
from vramdesk.core.model.launch_forms import (
    compose_service,
    docker_run,
    env_pairs,
    image_engine,
    shell_words,
)

#: The most text read from a pasted command (a compose file fits many times over).
MAX_COMMAND_CHARS = 100_000
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_LLAMA_BINARIES = {"llama-server", "llama-cli", "server", "main", "llama-run"}
#: Ollama's variables and model parameters that we read, as our options.
OLLAMA_ENV = {
    "OLLAMA_NUM_PARALLEL": Flag("parallel", "int"),
    "OLLAMA_KV_CACHE_TYPE": Flag("kv_dtype"),
    "OLLAMA_FLASH_ATTENTION": Flag("flash_attn", "fa"),
    "OLLAMA_CONTEXT_LENGTH": Flag("context", "int"),
}
OLLAMA_PARAMETERS = {
    "num_ctx": Flag("context", "int"),
    "num_gpu": Flag("n_gpu_layers", "int"),
    "num_batch": Flag("ubatch", "int"),
}
#: llama-server's ``LLAMA_ARG_*`` variables that we read, as its own flags.
LLAMA_ENV = {
    "LLAMA_ARG_CTX_SIZE": "--ctx-size",
    "LLAMA_ARG_N_GPU_LAYERS": "--n-gpu-layers",
    "LLAMA_ARG_FLASH_ATTN": "--flash-attn",
    "LLAMA_ARG_N_PARALLEL": "--parallel",
    "LLAMA_ARG_BATCH": "--batch-size",
    "LLAMA_ARG_UBATCH": "--ubatch-size",
    "LLAMA_ARG_CACHE_TYPE_K": "--cache-type-k",
    "LLAMA_ARG_CACHE_TYPE_V": "--cache-type-v",
    "LLAMA_ARG_MODEL": "--model",
    "LLAMA_ARG_HF_REPO": "--hf-repo",
    "LLAMA_ARG_KV_UNIFIED": "--kv-unified",
    "LLAMA_ARG_N_CPU_MOE": "--n-cpu-moe",
    "LLAMA_ARG_CPU_MOE": "--cpu-moe",
    "LLAMA_ARG_MMPROJ": "--mmproj",
}


@dataclass(slots=True)
class Launch:
    """A launch command, read.

    Attributes
    ----------
    engine : str
        ``vllm``, ``sglang``, ``llama.cpp`` or ``ollama``.
    engine_version : str or None
        From a docker image tag (``v0.6.4`` -> ``0.6.4``; ``VLLM_USE_V1=0`` -> ``V0 ...``).
    model : str or None
        The model as written: a path, a Hugging Face id (``-hf`` keeps ``:QUANT``), a tag.
    options : dict
        Our command line's options (``dest`` names) with the values the command gives.
    read : list of str
        The flags and variables read into ``options``, as typed.
    ignored : list of str
        The flags and variables that we do not model, as typed (the answer names them).
    """

    engine: str
    engine_version: str | None = None
    model: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return {
            "engine": self.engine,
            "engine_version": self.engine_version,
            "model": self.model,
            "options": dict(self.options),
            "read": list(self.read),
            "ignored": list(self.ignored),
        }


def parse_launch(text: str) -> Launch:
    """Read ``text`` (one pasted command, a shell snippet, or a compose service).

    Raises
    ------
    InputError
        ``command``: empty, too long, not shell syntax, or no engine command found.
    """
    if len(text) > MAX_COMMAND_CHARS:
        raise InputError("command", f"is longer than {MAX_COMMAND_CHARS:,} characters", "too_big")
    if re.search(r"^\s*(command|image|entrypoint)\s*:", text, re.MULTILINE):
        env, tokens, image = compose_service(text)
        return _read(tokens, env, image)
    env: dict[str, str] = {}
    params: list[tuple[str, str]] = []
    segments: list[list[str]] = []
    joined = re.sub(r"\\\r?\n|\^\r?\n|`\r?\n", " ", text)
    for line in joined.splitlines():
        line = re.sub(r"^\s*(\$|#|>>>|PS [^>]*>)\s+", "", line) if line.strip() else line
        m = re.match(r"^\s*(?:/set\s+parameter|PARAMETER)\s+(\w+)\s+(\S+)", line, re.IGNORECASE)
        if m:
            params.append((m[1].lower(), m[2]))
            continue
        try:
            tokens = shell_words(line)
        except ValueError as exc:
            raise InputError(
                "command", f"cannot split it as a shell line: {exc}", "bad_syntax"
            ) from None
        segments.extend(_split_commands(tokens))
    chosen = []
    for seg in segments:
        if seg and seg[0] in ("export", "set") and all(_ENV.match(t) for t in seg[1:]):
            env.update(env_pairs(seg[1:]))
        elif _engine_of(_strip_env(seg)[1]) is not None:
            chosen.append(seg)
    if not chosen:
        raise InputError(
            "command",
            "no vllm, sglang, llama-server/llama-cli, ollama or docker command found",
            "unknown_choice",
        )
    lead, rest = _strip_env(chosen[0])
    launch = _read(rest, {**env, **lead}, None)
    for seg in chosen[1:]:  # Ollama: the server's variables, then "ollama run TAG"
        lead, rest = _strip_env(seg)
        if launch.engine == "ollama" and _engine_of(rest) == "ollama":
            more = _read(rest, {**env, **lead}, None)
            launch.model = launch.model or more.model
            launch.options.update(more.options)
            launch.read += more.read
            launch.ignored += more.ignored
    for name, value in params:
        _ollama_parameter(launch, name, value)
    return _canonical(launch)


def _canonical(launch: Launch) -> Launch:
    """One reading of what two spellings say alike (the emitted commands read back the same).

    llama.cpp and Ollama: the slots ``-np N`` are the sequences served at once (``batch``);
    llama.cpp's ``-ctk T -ctv T`` is one KV cache type, ``kv_dtype`` T; vLLM: :func:`dp_batch`.
    """
    opts = dp_batch(launch.engine, launch.options)
    if launch.engine in ("llama.cpp", "ollama") and "parallel" in opts:
        opts.setdefault("batch", opts["parallel"])
    k, v = opts.get("cache_type_k"), opts.get("cache_type_v")
    if k is not None and k == v and "kv_dtype" not in opts:
        opts["kv_dtype"] = opts.pop("cache_type_k")
        del opts["cache_type_v"]
    return launch


def _split_commands(tokens: list[str]) -> list[list[str]]:
    out, cur = [], []
    for t in tokens:
        if t in ("&&", ";", "||", "|", "&"):
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    out.append(cur)
    return [c for c in out if c]


def _strip_env(tokens: list[str]) -> tuple[dict[str, str], list[str]]:
    """Variables in front of a command (``A=1 env B=2 sudo -E cmd``) and the command."""
    env: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if _ENV.match(t):
            env.update(env_pairs([t]))
        elif t in ("env", "sudo", "nohup", "exec", "time", "-E", "uv", "run") or t == "uvx":
            pass
        else:
            break
        i += 1
    return env, tokens[i:]


def _program(token: str) -> str:
    return PurePath(token.replace("\\", "/")).name.lower().removesuffix(".exe")


def _engine_of(tokens: list[str]) -> str | None:
    """The engine a command starts (``vllm``, ``docker`` for a container run, ...), or None."""
    if not tokens:
        return None
    prog = _program(tokens[0])
    if prog in ("docker", "podman", "nerdctl") and "run" in tokens[1:3]:
        return "docker"
    if prog == "vllm" and tokens[1:2] == ["serve"]:
        return "vllm"
    if prog == "sglang" and tokens[1:2] == ["serve"]:
        return "sglang"
    if prog == "ollama" and tokens[1:2] in (["run"], ["serve"], ["start"]):
        return "ollama"
    if prog in _LLAMA_BINARIES:
        pathlike = tokens[0].startswith(".") or "/" in tokens[0] or "\\" in tokens[0]
        return "llama.cpp" if prog.startswith("llama") or pathlike else None
    if re.fullmatch(r"python[\d.]*", prog) and "-m" in tokens[1:3]:
        module = tokens[tokens.index("-m") + 1] if tokens.index("-m") + 1 < len(tokens) else ""
        if module.startswith("vllm.entrypoints"):
            return "vllm"
        if module.startswith("sglang.launch_server"):
            return "sglang"
    return None


def _read(tokens: list[str], env: dict[str, str], image: str | None) -> Launch:
    """Read one command's tokens (with its variables, and a container image if any)."""
    kind = _engine_of(tokens)
    version = None
    if kind == "docker":
        tokens, image = docker_run(tokens, env)
        kind = _engine_of(tokens)
    if image:
        from_image, version = image_engine(image)
        kind = kind or from_image
        if kind is None:
            raise InputError("command", f"cannot tell the engine of image {image!r}", "unknown")
        if _engine_of(tokens) is None:  # the image's entrypoint takes the arguments
            tokens = {
                "vllm": ["vllm", "serve"],
                "sglang": ["sglang", "serve"],
                "ollama": ["ollama", "serve"],
            }.get(kind, ["llama-server"]) + tokens
    if kind is None:
        raise InputError("command", "no engine command found", "unknown_choice")
    launch = Launch(kind, version)
    if kind == "ollama":
        _read_ollama(launch, tokens, env)
    else:
        _read_flags(launch, tokens, env)
    return launch


def _args_after(tokens: list[str], engine: str) -> list[str]:
    if tokens and _program(tokens[0]) in ("vllm", "sglang", "ollama"):
        return tokens[2:]
    if tokens and re.fullmatch(r"python[\d.]*", _program(tokens[0])):
        return tokens[tokens.index("-m") + 2 :]
    return tokens[1:]


def _read_flags(launch: Launch, tokens: list[str], env: dict[str, str]) -> None:
    engine = launch.engine
    args = _args_after(tokens, engine)
    if engine == "llama.cpp":  # LLAMA_ARG_* first: the command line overrides them
        pre = []
        for name, value in env.items():
            if name in LLAMA_ENV:
                pre += [LLAMA_ENV[name], value]
        args = pre + args
    _read_env(launch, env)
    table = READ[engine]
    human = engine == "vllm"
    i = 0
    while i < len(args):
        tok = args[i]
        if not is_flag(tok):
            if engine in ("vllm", "sglang") and launch.model is None:
                launch.model = tok  # vllm serve MODEL
            else:
                launch.ignored.append(tok)
            i += 1
            continue
        name, eq, inline = tok.partition("=")
        spelling = canonical(engine, name)
        nxt = args[i + 1] if i + 1 < len(args) else None
        flag = table.get(spelling)
        if flag is None:
            switch = spelling in SWITCHES.get(engine, set())
            takes = not eq and not switch and nxt is not None and not is_flag(nxt)
            launch.ignored.append(name)
            i += 2 if takes else 1
            continue
        if eq:
            value = inline
            i += 1
        elif takes_value(flag, nxt):
            value = nxt
            i += 2
        elif flag.kind in ("on", "off", "fa"):
            value = None
            i += 1
        else:
            raise InputError("command", f"{name} needs a value", "required")
        _set(launch, flag, name, value, human)


def _set(launch: Launch, flag: Flag, name: str, value: str | None, human: bool) -> None:
    if flag.dest == "model":
        launch.model = value
    elif flag.dest == "hf_repo":
        launch.model = value
    elif flag.dest == "override_tensor":
        read = experts_override(str(value))
        if read is None:  # not an expert form we model: noted as kept in host RAM
            launch.ignored.append(name)
            return
        launch.options[read[0]] = read[1]
    elif flag.dest == "quantization":
        q = str(value).lower()
        if q in ("fp8", "bitsandbytes"):
            launch.options["weights"] = {"fp8": "fp8", "bitsandbytes": "nf4"}[q]
        else:  # awq, gptq, ...: the checkpoint's own format says it
            launch.ignored.append(name)
            return
    else:
        launch.options[flag.dest] = flag_value(flag, name, value, human)
    launch.read.append(name)


def _read_env(launch: Launch, env: dict[str, str]) -> None:
    for name, value in env.items():
        if launch.engine == "vllm" and name == "VLLM_USE_V1" and value.strip() == "0":
            launch.engine_version = f"V0 {launch.engine_version or ''}".strip()
            launch.read.append(name)
        elif launch.engine == "llama.cpp" and name in LLAMA_ENV:
            continue  # read as flags
        elif launch.engine == "ollama" and name in OLLAMA_ENV:
            flag = OLLAMA_ENV[name]
            launch.options[flag.dest] = flag_value(flag, name, value, False)
            launch.read.append(name)
        elif name.startswith(("VLLM_", "SGLANG_", "OLLAMA_", "LLAMA_ARG_", "GGML_")):
            launch.ignored.append(name)


def _read_ollama(launch: Launch, tokens: list[str], env: dict[str, str]) -> None:
    _read_env(launch, env)
    args = tokens[2:]
    i = 0
    while i < len(args):
        tok = args[i]
        if is_flag(tok):
            takes = tok not in SWITCHES["ollama"] and "=" not in tok
            launch.ignored.append(tok.partition("=")[0])
            i += 2 if takes else 1
            continue
        if tokens[1] == "run" and launch.model is None:
            launch.model = tok
        i += 1  # the prompt after the tag changes nothing


def _ollama_parameter(launch: Launch, name: str, value: str) -> None:
    flag = OLLAMA_PARAMETERS.get(name)
    if flag is None:
        launch.ignored.append(name)
        return
    launch.options[flag.dest] = flag_value(flag, name, value, False)
    launch.read.append(name)


def host_offload_flags(launch: Launch) -> list[str]:
    """The ignored flags that keep weights in host RAM (``--n-cpu-moe``, ``-ot``): not modelled."""
    return [f for f in launch.ignored if f in HOST_OFFLOAD]


def memory_flags_not_modelled(launch: Launch) -> list[str]:
    """The ignored flags that change memory all the same (:data:`MEMORY_NOT_MODELLED`)."""
    return [f for f in launch.ignored if f in MEMORY_NOT_MODELLED]


__all__ = ["Launch", "host_offload_flags", "memory_flags_not_modelled", "parse_int", "parse_launch"]
