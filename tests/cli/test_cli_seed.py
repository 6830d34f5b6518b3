"""Every seed figure through the command line's --json (exact integer bytes)."""

import json

import pytest

from tests import seed_cases as sc
from vramdesk.cli import main
from vramdesk.core import GIB


def run_json(capsys, *args):
    assert main(list(args) + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("case_id", ["weights-7b", "weights-13b", "weights-70b"])
def test_weights(capsys, seed_figures, case_id):
    case = seed_figures[case_id]
    for fmt, expected in case["expected_gib"].items():
        out = run_json(capsys, "estimate", *sc.cli_args({**case["inputs"], "weights": fmt}))
        assert sc.close_4dp(out["weights_bytes"], expected)


def test_weights_decimal(capsys, seed_figures):
    case = seed_figures["weights-7b-decimal"]
    out = run_json(capsys, "estimate", *sc.cli_args(case["inputs"]))
    assert out["weights_bytes"] == case["expected_gb"] * 10**9


@pytest.mark.parametrize(
    "case_id",
    [
        "kv-per-token-7b-mha",
        "kv-per-token-70b-gqa8",
        "kv-per-token-gqa8",
        "kv-per-token-mqa",
        "kv-7b-4096-1seq",
        "kv-7b-4096-4seq",
        "kv-7b-4096-32seq",
    ],
)
def test_kv(capsys, seed_figures, case_id):
    case = seed_figures[case_id]
    out = run_json(capsys, "estimate", *sc.cli_args(case["inputs"]))
    if case_id.startswith("kv-per-token"):
        assert out["kv_bytes_per_token"] == case["expected_bytes"]
    if "expected_bytes" in case and "context" in case["inputs"]:
        assert out["kv_cache_bytes"] == case["expected_bytes"]
    if "expected_gib" in case:
        assert out["kv_cache_bytes"] == case["expected_gib"] * GIB
    if "expected_gb" in case:
        assert out["kv_cache_bytes"] / 10**9 == pytest.approx(case["expected_gb"], abs=1e-12)


def test_total_70b(capsys, seed_figures):
    case = seed_figures["total-70b-int4-gqa8-8k-x16"]
    out = run_json(capsys, "estimate", *sc.cli_args(case["inputs"]))
    assert sc.close_4dp(out["total_bytes"], case["expected_gib"])
    assert out["total_bytes"] == sum(
        out[k] for k in ("weights_bytes", "kv_cache_bytes", "activation_bytes", "overhead_bytes")
    )


@pytest.mark.parametrize(
    "case_id", ["max-concurrency-80-8k", "max-concurrency-80-2k", "max-concurrency-80-8k-kvfp8"]
)
def test_max_concurrency(capsys, seed_figures, case_id):
    case = seed_figures[case_id]
    out = run_json(capsys, "solve", *sc.cli_args(case["inputs"]))
    assert out["max_concurrency"] == case["expected"]
    assert out["max_concurrency_exact"] == pytest.approx(case["exact_ratio"], abs=sc.HALF_4DP)
    assert isinstance(out["kv_budget_bytes"], int) and out["fits"] is True


def test_prefill_activation(capsys, seed_figures):
    i = seed_figures["prefill-activation-7b"]["inputs"]
    out = run_json(
        capsys,
        "estimate",
        *sc.cli_args({"context": i["prompt_len"], "batch": i["batch"]}),
        "--hidden",
        str(i["hidden"]),
        "--intermediate",
        str(i["intermediate"]),
        "--prompt-len",
        str(i["prompt_len"]),
        "--live-buffers",
        str(i["live_buffers"]),
    )
    assert out["activation_bytes"] == seed_figures["prefill-activation-7b"]["expected_gib"] * GIB


def test_breakdown_and_fits_tables(capsys, seed_figures):
    fits = seed_figures["fits-table"]
    for row in seed_figures["breakdown-table-ctx4096-x8"]["rows"]:
        params_b, layers, kv = sc.CLASS_SHAPES[row["model"]]
        args = sc.cli_args(
            {
                "params_b": params_b,
                "layers": layers,
                "kv_heads": kv,
                "context": 4096,
                "batch": 8,
                "weights": row["weights"],
            }
        ) + ["--overhead", "workspace"]
        out = run_json(capsys, "estimate", *args)
        assert sc.close_4dp(out["weights_bytes"], row["weights_gib"])
        assert sc.close_4dp(out["kv_cache_bytes"], row["kv_gib"])
        assert sc.close_4dp(out["overhead_bytes"], row["workspace_gib"])
        got = [out["total_bytes"] <= cap * GIB for cap in fits["capacities"]]
        assert got == fits["fits"][f"{row['model']} {row['weights']}"]


def test_kv_scaling_grid(capsys, seed_figures):
    grid = seed_figures["kv-scaling-grid"]["70B_gqa_80x8x128"]
    for context, row in grid.items():
        for batch, expected in zip((1, 8, 32), row, strict=True):
            out = run_json(
                capsys,
                "estimate",
                *sc.cli_args(
                    {
                        "params_b": 70,
                        "layers": 80,
                        "kv_heads": 8,
                        "context": int(context),
                        "batch": batch,
                    }
                ),
            )
            assert out["kv_cache_bytes"] == expected * GIB


def test_solve_lists_the_fits_table_on_every_catalog_gpu(capsys, seed_figures):
    fits = seed_figures["fits-table"]
    for row in seed_figures["breakdown-table-ctx4096-x8"]["rows"]:
        params_b, layers, kv = sc.CLASS_SHAPES[row["model"]]
        args = sc.cli_args(
            {
                "params_b": params_b,
                "layers": layers,
                "kv_heads": kv,
                "context": 4096,
                "batch": 8,
                "weights": row["weights"],
                "vram_gib": 80,
            }
        ) + ["--overhead", "workspace"]
        out = run_json(capsys, "solve", *args)
        by_name = {r["name"]: r for r in out["catalog_fits"]}
        # the source documents' yes/no is the forward question: the total within the card
        got = [by_name[f"Generic {cap} GiB"]["headroom_bytes"] >= 0 for cap in fits["capacities"]]
        assert got == fits["fits"][f"{row['model']} {row['weights']}"]
        assert all(r["total_bytes"] == out["total_bytes"] for r in out["catalog_fits"])
