"""The container forms of a launch command: ``docker run ... IMAGE args`` and compose (27.2).

:func:`docker_run` finds the image and the arguments after it (reading ``-e`` variables);
:func:`image_engine` tells the engine and version from the image; :func:`compose_service`
reads a compose service's ``image``, ``environment``, ``entrypoint`` and ``command`` without a
YAML library (the few shapes compose files use: a string, a ``[...]`` list, ``- item`` lines,
``KEY: value`` maps, folded text).
"""

from __future__ import annotations

import re
import shlex

from vramdesk.core.errors import InputError

_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: Docker options that take no value (all others take one).
_DOCKER_SWITCHES = {"-d", "--detach", "--rm", "-i", "-t", "-it", "-ti", "--privileged"}
_DOCKER_SWITCHES |= {"--init", "--interactive", "--tty", "-P", "--publish-all"}


def env_pairs(tokens: list[str]) -> dict[str, str]:
    """``NAME=value`` words as a dict (other words are skipped)."""
    return dict(t.split("=", 1) for t in tokens if _ENV.match(t))


def image_engine(image: str) -> tuple[str | None, str | None]:
    """``(engine, version)`` of a container image: ``vllm/vllm-openai:v0.6.4`` -> vLLM 0.6.4.

    The version is read from the engines' own images only (another vendor's tag, such as
    ``rhaiis/vllm-cuda-rhel9:3.2``, numbers its product, not the engine).
    """
    last = image.split("/")[-1]
    name, tag = image.rsplit(":", 1) if ":" in last else (image, "")
    name = name.lower()
    release = re.search(r"(?:^|[^\w.])v?(\d+\.\d+(?:\.\d+)?)", tag)
    build = re.search(r"\bb(\d{3,6})\b", tag)
    for key, engine, own in (
        ("vllm", "vllm", ("vllm/vllm-openai",)),
        ("sglang", "sglang", ("lmsysorg/sglang",)),
        ("llama.cpp", "llama.cpp", ("ggml-org/llama.cpp", "ggerganov/llama.cpp")),
        ("ollama", "ollama", ("ollama/ollama",)),
    ):
        if key in name:
            if not name.endswith(own):
                return engine, None
            if engine == "llama.cpp":
                return engine, f"b{build[1]}" if build else None
            return engine, release[1] if release else None
    return None, None


def docker_run(tokens: list[str], env: dict[str, str]) -> tuple[list[str], str]:
    """The image and the arguments after it; ``-e``/``--env`` variables go into ``env``."""
    i = tokens.index("run") + 1
    while i < len(tokens):
        t = tokens[i]
        if not t.startswith("-"):
            return tokens[i + 1 :], t
        name, eq, value = t.partition("=")
        if name in ("-e", "--env"):
            value = value if eq else (tokens[i + 1] if i + 1 < len(tokens) else "")
            env.update(env_pairs([value]))
            i += 1 if eq else 2
        elif eq or name in _DOCKER_SWITCHES or re.fullmatch(r"-[dit]+", name):
            i += 1
        else:
            i += 2
    raise InputError("command", "a docker run command without an image", "required")


def compose_service(text: str) -> tuple[dict[str, str], list[str], str | None]:
    """``environment``, ``command`` (entrypoint first) and ``image`` of a compose service."""
    env: dict[str, str] = {}
    found: dict[str, list[str]] = {}
    image = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(command|entrypoint|environment|image)\s*:\s*(.*)$", lines[i])
        i += 1
        if not m:
            continue
        indent, key, rest = len(m[1]), m[2], m[3].strip()
        block = []
        while i < len(lines) and (
            not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent
        ):
            block.append(lines[i].strip())
            i += 1
        if key == "image":
            image = _unquote(rest)
            continue
        items = _yaml_items(rest, [b for b in block if b])
        if key == "environment":
            for item in items:
                k, sep, v = item.partition("=") if "=" in item else item.partition(":")
                if sep:
                    env[k.strip()] = _unquote(v.strip())
        else:
            found[key] = items
    return env, found.get("entrypoint", []) + found.get("command", []), image


def _yaml_items(rest: str, block: list[str]) -> list[str]:
    """A compose value as a list of words: ``a b``, ``["a", "b"]``, ``- a`` lines, ``>`` text."""
    if rest.startswith("["):
        return [_unquote(p.strip()) for p in rest.strip("[]").split(",") if p.strip()]
    if rest and rest not in (">", "|", ">-", "|-"):
        return shlex.split(_unquote(rest))
    if block and all(b.startswith("- ") or b == "-" for b in block):
        return [_unquote(b[1:].strip()) for b in block]
    if block and all(re.match(r"^[\w.]+\s*:", b) for b in block):
        return [f"{b.split(':', 1)[0].strip()}={b.split(':', 1)[1].strip()}" for b in block]
    return shlex.split(" ".join(block))


def _unquote(s: str) -> str:
    return s[1:-1] if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"" else s


def shell_words(line: str) -> list[str]:
    """The words of one shell line, as a shell splits them.

    ``;``, ``&&`` and ``|`` are words of their own even when no space surrounds them
    (``cd /app;vllm serve m``); quoted text stays one word (``"a;b"``); ``#`` starts a comment.
    """
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return list(lexer)
