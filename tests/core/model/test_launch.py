"""Pasted launch commands read into our options (issue 27.2).

``tests/data/launch-commands.jsonl`` holds real commands copied from engine docs, recipes and
issue threads (each with its source address; a few are marked "adapted" where a document
gives variables or placeholders rather than one command line), with what each must read: the
engine, the version, the model, our options, and the flags we do not model, by name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramdesk.core.errors import InputError
from vramdesk.core.model.launch import parse_launch
from vramdesk.core.model.launch_flags import parse_int

DATA = Path(__file__).resolve().parents[2] / "data" / "launch-commands.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line]


def test_the_data_file_has_twenty_real_commands_with_sources():
    assert len(ROWS) >= 20
    assert all(r["source"].startswith("https://") for r in ROWS)
    engines = {r["expected"]["engine"] for r in ROWS}
    assert engines == {"vllm", "sglang", "llama.cpp", "ollama"}
    forms = [r["command"] for r in ROWS]
    assert any("docker run" in c for c in forms) and any("podman run" in c for c in forms)
    assert any("command:" in c for c in forms) and any("OLLAMA_" in c for c in forms)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["command"][:60].replace("\n", " "))
def test_a_real_command_reads_as_expected(row):
    got = parse_launch(row["command"]).to_dict()
    got.pop("read")
    assert got == row["expected"]


def test_read_flags_are_named_as_typed():
    launch = parse_launch(
        "vllm serve m --max_num_seqs 4 --gpu-memory-utilization=0.8 -tp 2 --api-key k"
    )
    assert launch.read == ["--max_num_seqs", "--gpu-memory-utilization", "-tp"]
    assert launch.ignored == ["--api-key"]
    assert launch.options == {"batch": 4, "util": "0.8", "tp": 2}


def test_vllm_reads_human_readable_numbers():
    assert parse_int("130k", "context", human=True) == 130_000
    assert parse_int("128K", "context", human=True) == 131_072
    assert parse_int("1,024", "context") == 1024
    with pytest.raises(InputError, match="context: must be a whole number"):
        parse_int("lots", "context")


def test_a_vllm_v0_environment_and_an_image_tag_give_the_version():
    launch = parse_launch(
        "docker run -e VLLM_USE_V1=0 --gpus all vllm/vllm-openai:v0.8.4 --model m"
    )
    assert (launch.engine, launch.engine_version, launch.model) == ("vllm", "V0 0.8.4", "m")
    launch = parse_launch(
        "docker run --gpus all ghcr.io/ggml-org/llama.cpp:server-cuda-b5000 -m x.gguf -c 2048"
    )
    assert (launch.engine, launch.engine_version, launch.options) == (
        "llama.cpp",
        "b5000",
        {"ctx_size": 2048},
    )


def test_docker_switches_combined_do_not_swallow_the_image():
    launch = parse_launch("docker run -itd --name v --gpus all vllm/vllm-openai:v0.9.1 --model m")
    assert (launch.engine, launch.engine_version, launch.model) == ("vllm", "0.9.1", "m")


def test_a_compose_command_with_an_entrypoint_of_its_own():
    text = (
        "services:\n  sglang:\n    image: lmsysorg/sglang:v0.4.6\n"
        "    entrypoint: python3 -m sglang.launch_server\n"
        "    command: --model-path Qwen/Qwen3-8B --tp 2 --context-length 32768\n"
        "    environment:\n      SGLANG_LOG_LEVEL: info\n"
    )
    launch = parse_launch(text)
    assert (launch.engine, launch.engine_version, launch.model) == (
        "sglang",
        "0.4.6",
        "Qwen/Qwen3-8B",
    )
    assert launch.options == {"tp": 2, "context": 32768}
    assert launch.ignored == ["SGLANG_LOG_LEVEL"]


def test_ollama_modelfile_parameters_and_the_run_flags():
    launch = parse_launch(
        "ollama run --verbose --keepalive 10m qwen3:8b 'hi'\nPARAMETER num_gpu 20"
    )
    assert launch.model == "qwen3:8b"
    assert launch.options == {"n_gpu_layers": 20}
    assert launch.ignored == ["--verbose", "--keepalive"]


@pytest.mark.parametrize(
    "text",
    ["", "ls -la", "docker run --rm", "vllm serve m --max-model-len", "echo 'unclosed"],
)
def test_what_is_not_a_launch_command_is_refused_by_field(text):
    with pytest.raises(InputError) as err:
        parse_launch(text)
    assert err.value.field in ("command", "context")


def test_command_separators_without_spaces_split_as_a_shell_splits_them():
    # found in review: shlex.split kept "/app;" and "m&&echo" as words, so the first command
    # was refused and the second read the model as "m&&echo"
    assert parse_launch("cd /app;vllm serve m --max-model-len 8k").options["context"] == 8000
    launch = parse_launch("cd /app;vllm serve m&&echo 'a;b'")
    assert (launch.engine, launch.model) == ("vllm", "m")


def test_a_number_too_long_for_any_flag_is_refused_not_overflowed():
    # found in review: 400 digits and a k suffix went through float() to OverflowError
    with pytest.raises(InputError) as err:
        parse_launch("vllm serve m --max-model-len " + "9" * 400 + "k")
    assert err.value.field == "context" and "characters long" in err.value.reason


def test_data_parallel_caps_are_per_rank():
    # vLLM: --max-num-seqs caps each of the -dp engine cores, 8 x 4 = 32 sequences served;
    # SGLang: --max-running-requests is each replica's without dp-attention (16 x 2) and the
    # total with it (model_runner.py: max_running_requests // dp_size per attention rank)
    vllm = parse_launch("vllm serve m --max-num-seqs 8 -dp 4 -ep -dcp 2 -tp 2").options
    assert vllm["batch"] == 32
    assert (vllm["dp"], vllm["expert_parallel"], vllm["dcp"]) == (4, True, 2)
    sgl = "python -m sglang.launch_server --model-path m --max-running-requests 16 --dp 2"
    assert parse_launch(sgl).options["batch"] == 32
    both = parse_launch(sgl + " --enable-dp-attention --tp 2 --ep 2").options
    assert (both["batch"], both["dp_attention"], both["ep_size"]) == (16, True, 2)
