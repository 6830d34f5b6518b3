"""The command line speaks one grammar (issue 23, item 9).

Every subcommand of ``estimate``, ``solve`` and ``compare`` takes every accepted spelling of the
model, the workload and the target, and each gives the scenario of the canonical spelling
(``--preset llama-3.1-8b --context 8192 --batch 8 --vram-gib 80``); refused spellings exit 2
with one line naming the flag and the reason.

Independent figures the canonical scenario must print (formula engine, Llama-3.1-8B: 32
layers, 8 KV heads, head_dim 128, fp16 KV; vramdesk/core/terms/kv_cache.py, README "Check it
by hand"): KV cache = 2 * 8 * 128 * 2 bytes * 32 layers * 8,192 tokens * 8 sequences =
8,589,934,592 bytes; the target 80 GiB = 80 * 2**30 = 85,899,345,920 bytes; the H100 80GB
catalog entry is nvidia-smi's 81,559 MiB = 85,520,809,984 bytes (formula engine).
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tests.export_parsing import read_csv, read_markdown
from vramdesk.cli import main

KV_8192_X8 = 2 * 8 * 128 * 2 * 32 * 8192 * 8
GIB_80 = 80 * 2**30
H100_BYTES = 81_559 * 2**20

#: Each spelling of the workload 8,192 tokens x 8 sequences: (positionals, flags).
WORKLOADS = {
    "--context 8192 --batch 8": ([], ["--context", "8192", "--batch", "8"]),
    "--context 8k": ([], ["--context", "8k", "--batch", "8"]),
    "--context 8K": ([], ["--context", "8K", "--batch", "8"]),
    "--context 8,192": ([], ["--context", "8,192", "--batch", "8"]),
    "--max-model-len --max-num-seqs": ([], ["--max-model-len", "8192", "--max-num-seqs", "8"]),
    "--workload 8192x8": ([], ["--workload", "8192x8"]),
    "--workload 8kx8": ([], ["--workload", "8kx8"]),
    "--workload 8K*8": ([], ["--workload", "8K*8"]),
    "--workload chat-8k-x8": ([], ["--workload", "chat-8k-x8"]),
    "--workload preset name": ([], ["--workload", "Chat: 8k context x 8 concurrent"]),
    "--workload overridden": (
        [],
        ["--workload", "long-128k-x1", "--context", "8k", "--batch", "8"],
    ),
    "WORKLOAD 8192x8": (["8192x8"], []),
    "WORKLOAD 8kx8": (["8kx8"], []),
    "WORKLOAD chat-8k-x8": (["chat-8k-x8"], []),
    "WORKLOAD overridden": (["4096x2"], ["--context", "8192", "--batch", "8"]),
}

#: Each spelling of an 80 GiB target: (positionals, flags).
SIZES = {
    "--vram-gib 80": ([], ["--vram-gib", "80"]),
    "--gpu 80GiB": ([], ["--gpu", "80GiB"]),
    "--gpu '80 GiB'": ([], ["--gpu", "80 GiB"]),
    "--gpu 80gib": ([], ["--gpu", "80gib"]),
    "--gpu 80": ([], ["--gpu", "80"]),
    "--gpu 81920MiB": ([], ["--gpu", "81920MiB"]),
    "--gpu 85899345920B": ([], ["--gpu", "85899345920B"]),
    "TARGET 80GiB": (["80GiB"], []),
    "TARGET 80": (["80"], []),
}

#: Each spelling of the catalog GPU H100 80GB: (positionals, flags).
GPUS = {
    "--gpu 'H100 80GB'": ([], ["--gpu", "H100 80GB"]),
    "--gpu h100-80gb": ([], ["--gpu", "h100-80gb"]),
    "TARGET 'H100 80GB'": (["H100 80GB"], []),
}

#: Each spelling of the model: (positionals, flags); compare gets a second model either way.
MODELS = {
    "--preset": ([], ["--preset", "llama-3.1-8b"]),
    "MODEL": (["llama-3.1-8b"], []),
}

CANON_WORKLOAD = WORKLOADS["--context 8192 --batch 8"]


def _argv(sub: str, model, workload, target) -> list[str]:
    """The command line: positionals in their order (MODEL, WORKLOAD, TARGET), then flags."""
    models = model
    if sub == "compare":  # two models, in the same form
        models = (
            (model[0] + ["qwen3-8b"], model[1])
            if model[0]
            else ([], model[1] + ["--preset", "qwen3-8b"])
        )
    positionals = models[0] + workload[0] + target[0]
    return [sub, *positionals, *models[1], *workload[1], *target[1], "--json"]


def _run(capsys, argv: list[str]) -> dict:
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, (argv, out.err)
    return json.loads(out.out)


def _scenario(sub: str, data: dict) -> object:
    """What must be equal between two spellings: every figure, the labels left out."""
    if sub == "compare":
        return (
            data["capacity_bytes"],
            [(m["model"], m["breakdown"], m["verdict"]) for m in data["models"]],
        )
    return {k: v for k, v in data.items() if k != "budget"}


SUBCOMMANDS = ("estimate", "solve", "compare")


@pytest.fixture(scope="module")
def canonical():
    """The canonical spelling's output of each subcommand, on 80 GiB and on H100 80GB."""
    out = {}
    for sub in SUBCOMMANDS:
        for name, target in (("size", SIZES["--vram-gib 80"]), ("gpu", GPUS["--gpu 'H100 80GB'"])):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                assert main(_argv(sub, MODELS["--preset"], CANON_WORKLOAD, target)) == 0
            out[sub, name] = json.loads(buf.getvalue())
    return out


def test_the_canonical_scenario_has_the_hand_figures(canonical):
    for sub in ("estimate", "solve"):
        data = canonical[sub, "size"]
        assert data["kv_cache_bytes"] == KV_8192_X8 == 8_589_934_592
        assert data["capacity_bytes"] == GIB_80
        assert canonical[sub, "gpu"]["capacity_bytes"] == H100_BYTES
    compared = canonical["compare", "size"]
    assert compared["capacity_bytes"] == GIB_80
    assert compared["models"][0]["breakdown"]["kv_cache_bytes"] == KV_8192_X8


@pytest.mark.parametrize("sub", SUBCOMMANDS)
@pytest.mark.parametrize("model", MODELS, ids=str)
@pytest.mark.parametrize("workload", WORKLOADS, ids=str)
def test_every_workload_spelling_gives_the_canonical_scenario(
    capsys, canonical, sub, model, workload
):
    data = _run(capsys, _argv(sub, MODELS[model], WORKLOADS[workload], SIZES["--vram-gib 80"]))
    assert _scenario(sub, data) == _scenario(sub, canonical[sub, "size"])


@pytest.mark.parametrize("sub", SUBCOMMANDS)
@pytest.mark.parametrize("target", [*SIZES, *GPUS], ids=str)
def test_every_target_spelling_gives_the_canonical_scenario(capsys, canonical, sub, target):
    spelled = SIZES.get(target) or GPUS[target]
    data = _run(capsys, _argv(sub, MODELS["MODEL"], WORKLOADS["WORKLOAD 8192x8"], spelled))
    want = canonical[sub, "size" if target in SIZES else "gpu"]
    assert _scenario(sub, data) == _scenario(sub, want)


def test_a_target_in_gb_is_its_decimal_bytes(capsys):
    # 80 GB = 80 * 10**9 bytes = 74.50580596923828125 GiB exactly (80 * 5**9 / 2**21)
    by_size = _run(capsys, ["solve", "llama-3.1-8b", "8192x8", "--gpu", "80GB", "--json"])
    by_gib = _run(
        capsys, ["solve", "llama-3.1-8b", "8192x8", "--vram-gib", "74.50580596923828125", "--json"]
    )
    assert by_size["capacity_bytes"] == by_gib["capacity_bytes"] == 80 * 10**9
    assert by_size["budget"] == "80 GB"


@pytest.mark.parametrize(
    ("gpu", "verdict"),
    [("H200", "fits"), ("27GiB", "tight"), ("RTX 4090", "does_not_fit")],
)
def test_estimate_on_a_target_gives_the_headline_verdict_of_solve(capsys, gpu, verdict):
    # Llama-3.1-8B bf16 (14.96 GiB of weights), 8,192 x 8 fp16 (8 GiB of KV), formula engine
    # (usable = capacity x 0.9 - 1 GiB fixed - weights; total 27.40 GiB with the 1.15
    # multiplier): the RTX 4090's 23.99 x 0.9 - 1 - 14.96 = 5.63 GiB is short of 8 GiB;
    # 27 GiB leaves 27 x 0.9 - 1 - 14.96 = 8.34 GiB, enough, but the total is over the card
    argv = ["llama-3.1-8b", "8192x8", gpu]
    estimated = _run(capsys, ["estimate", *argv, "--json"])
    solved = _run(capsys, ["solve", *argv, "--json"])
    assert estimated["verdict"] == solved["verdict"] == verdict
    assert estimated["capacity_bytes"] == solved["capacity_bytes"]
    assert main(["estimate", *argv]) == 0
    text = capsys.readouterr().out
    headline = {"fits": "Fits: ", "tight": "Tight: ", "does_not_fit": "Does not fit: "}[verdict]
    assert f"\nVerdict on {solved['budget']} = " in text and f" per GPU: {headline}" in text
    # CSV and Markdown carry the same word as a row of the facts (read back with the
    # standard csv reader, tests/export_parsing.py), the figures table unchanged
    for fmt, read in (("csv", read_csv), ("markdown", read_markdown)):
        assert main(["estimate", *argv, "--format", fmt]) == 0
        facts, table = read(capsys.readouterr().out)
        assert facts["verdict"] == verdict
        assert int(facts["budget_bytes"]) == solved["capacity_bytes"]
        assert main(["estimate", "llama-3.1-8b", "8192x8", "--format", fmt]) == 0
        untargeted, same_table = read(capsys.readouterr().out)
        assert "verdict" not in untargeted and same_table == table


def test_estimate_without_a_target_has_no_verdict(capsys):
    data = _run(capsys, ["estimate", "llama-3.1-8b", "8192x8", "--json"])
    assert "verdict" not in data and "capacity_bytes" not in data


def test_compare_takes_estimates_weight_and_engine_flags(capsys):
    flags = ["--weights", "int4", "--engine", "vllm", "--kv-dtype", "fp8", "--prompt-len", "2048"]
    target = ["--gpu", "H100 80GB", "--json"]
    compared = _run(capsys, ["compare", "llama-3.1-8b", "qwen3-8b", "8192x8", *target, *flags])
    for item, preset in zip(compared["models"], ("llama-3.1-8b", "qwen3-8b"), strict=True):
        alone = _run(capsys, ["estimate", preset, "8192x8", *target, *flags])
        assert "4.25" in alone["formulas"]["weights"]["formula"] and alone["engine"] == "vllm"
        assert item["breakdown"] == {k: alone[k] for k in item["breakdown"]}
        assert item["verdict"] == alone["verdict"]
    assert compared["capacity_bytes"] == alone["capacity_bytes"]  # vLLM: CUDA's total
    # fp8 KV: 1 byte per element, half the fp16 figure (8,192 is a whole number of blocks)
    assert compared["models"][0]["breakdown"]["kv_cache_bytes"] == KV_8192_X8 // 2


def test_the_same_column_names_everywhere(capsys):
    # the breakdown keys of estimate's and solve's JSON name compare's CSV columns
    estimated = _run(capsys, ["estimate", "llama-3.1-8b", "8192x8", "--json"])
    assert main(["compare", "llama-3.1-8b", "qwen3-8b", "8192x8", "80GiB", "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert header[0] == "model" and "model" in estimated
    assert [h for h in header if h.endswith("_bytes")] == [
        "weights_bytes",
        "kv_cache_bytes",
        "activation_bytes",
        "overhead_bytes",
        "total_bytes",
    ]
    assert all(h in estimated for h in header if h.endswith("_bytes"))
    compared = _run(capsys, ["compare", "llama-3.1-8b", "qwen3-8b", "8192x8", "--json"])
    assert compared["models"][0]["model"] == estimated["model"] == "Llama-3.1-8B"


M8 = ["--preset", "llama-3.1-8b"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["estimate", *M8, "--context", "8192x8"], "argument --context: '8192x8' is a context"),
        (["solve", *M8, "--context", "8q", "H200"], "argument --context: must be a whole number"),
        (["compare", "llama-3.1-8b", "--context", "eight"], "argument --context: must be a whole"),
        (["estimate", *M8, "--workload", "chat-99"], "workload: 'chat-99' is not a workload"),
        (["compare", "llama-3.1-8b", "--workload", "lots"], "workload: 'lots' is not a workload"),
        (["solve", *M8, "--workload", "0x8", "H200"], "context_tokens: must be positive"),
        # a typed zero batch is refused, never read as the default 1 (fresh-user trial)
        (["estimate", *M8, "--workload", "8192x0"], "batch: must be positive, got 0"),
        (["compare", "llama-3.1-8b", "8kx0"], "batch: must be positive, got 0"),
        (["estimate", *M8, "8192x8", "--gpu", "No Such GPU"], "gpu: unknown GPU 'No Such GPU'"),
        (["solve", *M8, "8192x8", "--gpu", "0GiB"], "gpu: must be positive, got 0 GiB"),
        (["compare", "llama-3.1-8b", "8192x8", "--gpu=-3GB"], "gpu: unknown GPU '-3GB'"),
        (["solve", *M8, "8192x8", "H200", "--gpu", "L4"], "gpu: give the target once"),
        (["estimate", *M8, "8192x8", "--workload", "8kx8"], "workload: give the workload once"),
        (["solve", *M8, "8192x8", "--gpu", "L4", "--vram-gib", "8"], "budget: give exactly one"),
        (["solve", *M8, "8192x8"], "budget: give exactly one target"),
        (["estimate", "llama-3.1-8b", "qwen3-8b", "8192x8"], "model: 'qwen3-8b' is not a"),
        (["estimate", *M8, "qwen3-8b", "8192x8"], "model: 'qwen3-8b' is not a workload"),
        (["compare", "8192x8"], "give at least one model and a workload"),
        (["estimate", *M8, "--batch", "8x", "--context", "8k"], "argument --batch: must be a"),
        (["estimate", *M8, "--cont", "8192"], "unrecognized arguments: --cont"),  # no prefixes
    ],
)
def test_refused_spellings_exit_2_with_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("vramdesk: error: ") and err.count("\n") == 1
    assert message in err, err
