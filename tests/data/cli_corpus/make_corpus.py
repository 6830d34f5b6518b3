"""The CLI corpus: a fixed list of command lines and what each printed.

``tests/cli/test_corpus.py`` runs every command of ``corpus.jsonl`` in-process and requires the
same exit status, standard output and standard error to the byte. It pins every printed figure
across refactors (issue 19: "every figure byte-identical, checked by a corpus of CLI outputs
before and after").

Regenerate only when a figure is meant to change, and say which and why in the commit:

    python tests/data/cli_corpus/make_corpus.py          # rewrite corpus.jsonl
    python tests/data/cli_corpus/make_corpus.py --check  # compare without writing

Commands run from the repository root with an empty config directory and no local model stores.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CORPUS = Path(__file__).resolve().parent / "corpus.jsonl"

MODELS = sorted(p.stem for p in (ROOT / "presets" / "models").glob("*.json"))
ENGINES = ("formula", "vllm", "sglang", "llama.cpp", "ollama", "transformers")
ENGINE_MODELS = (
    "llama-3.1-8b",
    "llama-3.1-70b",
    "qwen3-30b-a3b",
    "gemma-3-27b-it",
    "gemma-2-9b",
    "deepseek-v2-lite",
    "gpt-oss-20b",
    "mixtral-8x7b-v0.1",
    "phi-3-mini-4k-instruct",
    "qwen2.5-7b",
    "mistral-nemo-12b",
    "7b-class",
)
WEIGHTS = (
    "fp32",
    "bf16",
    "fp16",
    "fp8",
    "int8",
    "int4",
    "int4-ideal",
    "nf4",
    "nf4-dq",
    "mxfp4",
    "Q4_0",
    "Q8_0",
    "Q4_K",
    "Q6_K",
    "IQ2_XXS",
    "TQ1_0",
    "Q4_K_M",
    "Q5_K_S",
    "IQ3_M",
    "Q2_K",
)
KV_DTYPES = ("fp16", "bf16", "fp32", "fp8", "int8", "q8_0", "q4_0", "q5_1")
GPUS = ("RTX 4090", "A100 80GB", "H100 80GB", "H200", "L4", "MI300X")


def commands() -> list[list[str]]:
    """Every command line of the corpus, in a fixed order."""
    lines: list[str] = []
    add = lines.append
    for m in MODELS:
        add(f"estimate --preset {m} --context 8192 --batch 4 --json")
        add(f"solve --preset {m} --context 8192 --batch 8 --gpu 'H100 80GB' --json")
    for m in MODELS:  # every preset (a stride would move the picks as presets are added)
        add(f"estimate --preset {m} --context 4096 --batch 2")
        add(f"solve --preset {m} --context 32768 --batch 1 --gpu H200")
    for e in ENGINES:
        for m in ENGINE_MODELS:
            add(f"estimate --preset {m} --context 16384 --batch 4 --engine {e} --json")
            add(
                f"solve --preset {m} --context 8192 --batch 16 --engine {e} --gpu 'A100 80GB'"
                " --json"
            )
    for w in WEIGHTS:
        for m in ("llama-3.1-8b", "qwen3-30b-a3b"):
            add(f"estimate --preset {m} --weights {w} --context 8192 --json")
    for k in KV_DTYPES:
        for e in ("formula", "vllm", "llama.cpp", "sglang"):
            add(
                f"estimate --preset llama-3.1-8b --kv-dtype {k} --context 8192 --batch 8"
                f" --engine {e} --json"
            )
    for g in GPUS:
        add(f"solve --preset llama-3.1-70b --weights int4 --context 8192 --batch 16 --gpu '{g}'")
    for f in ("table", "markdown", "csv", "json"):
        add(f"estimate --preset qwen3-8b --context 8192 --batch 8 --format {f}")
        add(f"solve --preset qwen3-8b --context 8192 --batch 8 --gpu 'RTX 4090' --format {f}")
        add(f"compare llama-3.1-8b qwen3-8b gemma-2-9b chat-8k-x8 'H100 80GB' --format {f}")
    # the speed chart's figures (issue 25): a bandwidth-bound and a compute-bound curve
    add("solve --preset llama-3.1-8b --context 2048 --batch 16 --gpu 'H100 80GB' --speed-curve")
    m8 = "--preset llama-3.1-8b --batch 16"
    add(f"solve {m8} --context 256 --gpu 'H100 80GB' --speed-curve --json")
    add("solve --preset llama-3.1-8b --context 2048 --batch 16 --vram-gib 80 --speed-curve")
    for u in ("GiB", "GB", "MiB"):
        add(f"estimate --preset llama-3.1-70b --context 8192 --batch 16 --units {u}")
    # the workload and runtime knobs
    base = "--preset llama-3.1-8b --context 8192 --batch 8"
    for extra in (
        "--prompt-len 4096",
        "--prompt-len 8192 --chunk 2048",
        "--prompt-len 2048 --live-buffers 6",
        "--tp 2",
        "--tp 4 --pp 2",
        "--block-size none",
        "--block-size 32",
        "--shared-prefix 1000",
        "--overhead workspace",
        "--overhead workspace --workspace-fraction 0.1",
        "--overhead-factor 1.2 --fixed-gib 2",
        "--util 0.8",
        "--engine vllm --engine-version 0.6.0",
        "--engine vllm --engine-version 0.10.0 --util 0.95",
        "--engine sglang --mem-fraction-static 0.8",
        "--engine llama.cpp --n-gpu-layers 20",
        "--engine llama.cpp --flash-attn off --ubatch 256",
        "--engine llama.cpp --parallel 4 --kv-unified",
        "--engine llama.cpp --engine-version b3000",
        "--engine ollama --n-gpu-layers 10 --flash-attn on",
        "--engine llama.cpp --swa-full",
    ):
        add(f"estimate {base} {extra} --json")
        add(f"solve {base} {extra} --gpu 'RTX 4090' --json")
    for m in ("gemma-3-27b-it", "gemma-2-27b", "gpt-oss-120b"):
        add(f"estimate --preset {m} --context 32768 --batch 4 --engine llama.cpp --swa-full --json")
        add(f"estimate --preset {m} --context 32768 --batch 4 --engine vllm --json")
    # the shape given by hand
    add("estimate --params-b 7 --layers 32 --kv-heads 32 --head-dim 128 --context 4096 --batch 8")
    add(
        "estimate --params-b 70 --layers 80 --kv-heads 8 --head-dim 128 --heads 64 --hidden 8192"
        " --intermediate 28672 --vocab 128256 --context 8192 --prompt-len 8192 --json"
    )
    add(
        "solve --params-b 13 --layers 40 --kv-heads 40 --head-dim 128 --context 4096 --batch 8"
        " --vram-gib 48"
    )
    # real config.json files
    configs = sorted((ROOT / "tests" / "data" / "configs").glob("*.json"))
    configs += sorted((ROOT / "tests" / "data" / "reference" / "models").glob("*/config.json"))
    for i, c in enumerate(configs):
        rel = c.relative_to(ROOT).as_posix()
        add(f"estimate --config {rel} --context 8192 --batch 2 --json")
        if i < 12:
            add(
                f"solve --config {rel} --context 16384 --batch 4 --engine vllm"
                " --gpu 'H100 80GB' --json"
            )
    # Llama-4: chunked local attention on 36 of 48 layers, priced by each engine (issue 20)
    scout = "tests/data/configs/oracle/llama-4-scout-17b-16e-instruct.json"
    for engine in ("formula", "vllm", "llama.cpp"):
        add(f"estimate --config {scout} --context 32768 --engine {engine}")
    # compare, validate, calibrate, presets
    add("compare llama-3.1-8b mistral-7b-v0.3 qwen2.5-7b sources-4k-x8")
    add("compare llama-3.1-70b qwen2.5-72b long-128k-x1 H200 --kv-dtype fp8 --engine vllm")
    add("validate tests/data/reference/engine-cases.jsonl --json")
    add("validate tests/data/reference/engine-cases.jsonl")
    for log in sorted((ROOT / "tests" / "data" / "engine-logs").glob("*.log")):
        add(f"calibrate {log.relative_to(ROOT).as_posix()}")
    # a log of another model than the one given: one warning line on stderr, exit 0 (issue 23)
    add("calibrate tests/data/engine-logs/vllm-v1-0.11-llama8b.log --preset qwen3-30b-a3b")
    # a user's own benchmark output fitted into speed constants (issue 25 item 3)
    bench = "tests/data/bench/llama-bench-4766-rtx4090.md"
    add(f"calibrate {bench} --preset llama-2-7b-hf --gpu 'RTX 4090'")
    add("presets list")
    add("presets list --gpus")
    for name in ("llama-3.1-8b", "deepseek-v3", "'H100 80GB'", "chat-8k-x8"):
        add(f"presets show {name}")
    # bad input: exit 2 with one line
    m8 = "--preset llama-3.1-8b --context 8192"
    for bad in (
        "estimate --preset no-such-model --context 8192",
        "estimate --preset llama-3.1-8b --context 0",
        f"estimate {m8} --kv-dtype banana",
        f"estimate {m8} --weights int3",
        f"solve {m8} --engine llama.cpp --util 0.9 --gpu 'H100 80GB'",
        f"solve {m8} --engine vllm --kv-dtype q4_0 --gpu 'H100 80GB'",
        f"solve {m8} --gpu 'No Such GPU'",
        f"estimate {m8} --engine vllm --engine-version banana",
        f"estimate {m8} --engine llama.cpp --tp 2",
        f"estimate {m8} --overhead-factor x",
        "estimate --layers 32 --context 8192",
        "estimate --config tests/data/no-such.json --context 8192",
    ):
        add(bad)
    # issue 27: the engines' spellings, pasted launch commands, --emit, --plan-offload
    add(
        "solve --preset llama-3.1-8b --engine vllm --max-model-len 8192 --max-num-seqs 16 "
        "--gpu-memory-utilization 0.85 --gpu 'H100 80GB' --json"
    )
    add(
        "solve --preset llama-3.1-8b --engine llama.cpp -c 32768 -np 4 -ngl 20 -fa on "
        "-ctk q8_0 -ctv q8_0 --gpu 'RTX 4090' --json"
    )
    add(
        "from-command --preset llama-3.1-8b --gpu 'H100 80GB' 'vllm serve "
        "meta-llama/Llama-3.1-8B-Instruct --max-model-len 16384 --max-num-seqs 32 --api-key k'"
    )
    add(
        "from-command --preset qwen2.5-7b --gpu 'RTX 4090' --json 'OLLAMA_NUM_PARALLEL=2 "
        "OLLAMA_KV_CACHE_TYPE=q8_0 OLLAMA_FLASH_ATTENTION=1 ollama run qwen2.5:7b'"
    )
    add(
        "from-command --preset llama-3.1-8b --vram-gib 24 'llama-server -m "
        "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -c 16384 -np 2 -ngl 99 -fa on --port 8080'"
    )
    add("from-command --vram-gib 80 'vllm serve Qwen/Qwen3-8B'")  # not on this machine
    for target in ("vllm", "sglang", "llama-server", "ollama"):
        add(f"solve {m8} --gpu 'RTX 4090' --emit {target}")
    add(
        "solve --preset llama-3.1-70b --weights Q4_K_M --context 8192 --kv-dtype q8_0 -fa on "
        "--engine llama.cpp --gpu 'RTX 4090' --plan-offload --json"
    )
    add(f"estimate {m8} --kv-d fp8")  # abbreviations are refused
    # issue 25: the speed block of estimate --gpu (dense, MoE, long context, no speed facts)
    for gpu in ("'H100 80GB'", "'RTX 4090'", "'Generic 80 GiB'"):
        add(f"estimate {m8} --batch 1 --gpu {gpu}")
    add(f"estimate {m8} --batch 1 --gpu 'H100 80GB' --json")
    add("estimate --preset qwen3-30b-a3b --context 4096 --batch 4 --gpu 'H100 80GB'")
    add("estimate --preset llama-3.1-8b --context 131072 --batch 4 --gpu H200 --engine vllm")
    add(f"estimate {m8} --batch 1 --gpu 'Generic 80 GiB' --json")
    add(f"estimate {m8} --gpu 'No Such GPU'")
    # issue 23 item 9: one grammar: positionals and flags, a workload preset or CONTEXTxBATCH,
    # a catalog GPU or a size, in every subcommand; estimate with a target gives the verdict
    for line in (
        "estimate llama-3.1-8b chat-8k-x8 'H100 80GB'",
        "estimate --preset llama-3.1-8b --context 8k --batch 8 --gpu 80GiB --json",
        "estimate --preset llama-3.1-8b --workload 8kx8 --vram-gib 24",
        "estimate llama-3.1-8b 8192x8 27GiB",
        "solve llama-3.1-8b 8kx8 80GB",
        "solve --preset llama-3.1-8b --workload long-128k-x1 --context 32k --gpu H200 --json",
        "compare llama-3.1-8b qwen3-8b --context 8k --batch 8 --gpu 'H100 80GB' --weights int4"
        " --engine vllm",
        "compare --preset llama-3.1-8b --preset qwen3-8b --workload chat-8k-x8 --gpu 80GiB"
        " --format csv",
        "estimate --preset llama-3.1-8b --context 8192x8",
        "solve llama-3.1-8b 8192x8 H200 --gpu L4",
        "compare llama-3.1-8b --workload lots",
        "estimate llama-3.1-8b 8192x8 --gpu 0GiB",
        # estimate's CSV and Markdown carry the verdict row when a target is given
        "estimate llama-3.1-8b 8kx8 'H100 80GB' --format csv",
        "estimate llama-3.1-8b 8kx8 27GiB --format markdown",
    ):
        add(line)
    # issue 27.4: routed experts in host RAM (device and host bytes, the advisor's lever)
    q30 = "--preset qwen3-30b-a3b --weights Q4_K_M --context 16384 --engine llama.cpp"
    add(f"estimate {q30} --n-cpu-moe 10")
    add(f"estimate {q30} --cpu-moe --json")
    add(f"solve {q30} --vram-gib 12")
    add(f"solve {q30} --n-cpu-moe 20 --vram-gib 12 --emit llama-server")
    add(
        "from-command --preset qwen3-30b-a3b --vram-gib 8 'llama-server -m "
        "Qwen3-30B-A3B-Q4_K_M.gguf -c 16384 -ngl 99 -ot exps=CPU'"
    )
    # issue 27.5: a vision projector (tests/data/mmproj-tiny-f16.gguf, 96,512 bytes of tensors)
    mm = "tests/data/mmproj-tiny-f16.gguf"
    add(f"estimate --preset gemma-3-27b-it --engine llama.cpp --context 8192 --mmproj {mm}")
    add(
        "from-command --preset gemma-3-27b-it --vram-gib 24 --json 'llama-server -m "
        f"gemma-3-27b-it-Q4_K_M.gguf --mmproj {mm} -c 8192 -ngl 99'"
    )
    # issue 21.2: data, expert and decode-context parallelism per GPU
    v3 = "--preset deepseek-v3 --context 32768 --batch 64"
    add(f"estimate {v3} --engine vllm --tp 8 --json")
    add(f"estimate {v3} --engine vllm -dp 8 -ep --json")
    add(f"estimate {v3} --engine vllm -tp 8 -dcp 8")
    add(f"solve {v3} --engine vllm --gpu H200 --json")
    add(f"solve {v3} --engine vllm --tp 2 --dp 4 --expert-parallel --gpu H200 --emit vllm")
    add(f"solve {v3} --engine sglang --tp 8 --dp 8 --dp-attention --ep-size 8 --gpu H200")
    add(
        "estimate --preset qwen3-30b-a3b --context 8192 --batch 16 --engine vllm "
        "--data-parallel-size 2 --enable-expert-parallel"
    )
    add(
        "from-command --preset qwen3-30b-a3b --gpu 'H100 80GB' 'vllm serve Qwen/Qwen3-30B-A3B "
        "--max-model-len 32768 --max-num-seqs 64 -dp 2 --enable-expert-parallel'"
    )
    add(f"estimate {v3} --engine vllm --tp 8 --dcp 3")  # refused: 3 does not divide TP 8
    # issue 21.8: Ollama's own estimate beside its allocation, on a target
    g27 = "--preset gemma-3-27b-it --context 8192 --batch 1 --engine ollama --engine-version 0.6.2"
    add(f"estimate {g27} --gpu 24GiB")
    add(f"solve {g27} --gpu 24GiB --json")
    return [shlex.split(line) for line in lines]


def run(argv: list[str]) -> dict:
    """Run one command in this process; its exit status and what it printed."""
    from vramdesk.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(list(argv))
    return {"argv": argv, "exit": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}


def isolated_environment(tmp: str) -> None:
    """An empty config directory and no local model stores, as tests/conftest.py sets them."""
    os.environ["VRAMDESK_CONFIG_DIR"] = os.path.join(tmp, "config")
    os.makedirs(os.environ["VRAMDESK_CONFIG_DIR"], exist_ok=True)
    for var in ("HF_HUB_CACHE", "OLLAMA_MODELS", "VRAMDESK_LMSTUDIO_MODELS", "LLAMA_CACHE"):
        os.environ[var] = os.path.join(tmp, "stores", var)
    os.environ["VRAMDESK_MODEL_DIRS"] = ""
    os.environ.pop("VRAMDESK_FAKE_NVML", None)
    os.environ["VRAMDESK_FAKE_HOST_RAM"] = str(64 * 2**30)  # this machine's RAM, pinned
    os.chdir(ROOT)


def main() -> int:
    check = "--check" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        isolated_environment(tmp)
        rows = [run(argv) for argv in commands()]
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
    if check:
        old = CORPUS.read_text(encoding="utf-8")
        same = old == text
        print(f"{len(rows)} commands: {'identical' if same else 'DIFFERENT'}")
        return 0 if same else 1
    CORPUS.write_text(text, encoding="utf-8")
    codes: dict[int, int] = {}
    for r in rows:
        codes[r["exit"]] = codes.get(r["exit"], 0) + 1
    print(f"wrote {len(rows)} commands to {CORPUS.relative_to(ROOT)}; exit statuses {codes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
