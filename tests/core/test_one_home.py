"""Each rule in one function (issue 13): ceil division, FFN widths, one stage's layers.

Expected values are worked by hand from published config.json shapes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from vramdesk.core import ModelSpec
from vramdesk.core.model.spec import FULL, SLIDING, ffn_width, stage_layers, widest_ffn_matrix
from vramdesk.core.store.bundled import find_model
from vramdesk.core.units import ceil_div, round_up

CORE = Path(__file__).resolve().parents[2] / "vramdesk" / "core"


@pytest.mark.parametrize(
    ("a", "b", "expected"), [(0, 16, 0), (1, 16, 1), (16, 16, 1), (17, 16, 2), (2047, 16, 128)]
)
def test_ceil_div(a, b, expected):
    assert ceil_div(a, b) == expected
    assert round_up(a, b) == expected * b


def test_ffn_width_dense_and_moe():
    # Llama-3.1-8B: intermediate_size 14,336 (dense)
    assert ffn_width(find_model("llama-3.1-8b").model) == 14_336
    # Qwen3-30B-A3B has intermediate_size 6,144 in its config: it is used as given
    assert ffn_width(find_model("qwen3-30b-a3b").model) == 6_144
    # a pure-MoE shape without intermediate_size: 8 experts of 768 active -> 6,144
    moe = ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=4,
        head_dim=128,
        num_local_experts=128,
        num_experts_per_tok=8,
        moe_intermediate_size=768,
        params=10**9,
    )
    assert ffn_width(moe) == 6_144
    # the largest single matrix is one expert's (768), not the 8 a token activates
    assert widest_ffn_matrix(moe) == 768
    # DeepSeek-V3: dense 18,432 vs expert 2,048 -> 18,432
    assert widest_ffn_matrix(find_model("deepseek-v3").model) == 18_432


def test_stage_layers_uneven_and_by_kind():
    # 32 layers over PP 3: ceil(32 / 3) = 11 layers in the largest stage
    assert len(stage_layers(find_model("llama-3.1-8b").model, 3)) == 11
    # 4 layers S F S F over PP 2: both stages hold 2 layers, 1 full each -> the first
    m = ModelSpec(
        num_hidden_layers=6,
        num_key_value_heads=1,
        head_dim=64,
        sliding_window=128,
        layer_types=(SLIDING, FULL, SLIDING, SLIDING, FULL, FULL),
        params=10**9,
    )
    # stages S F S | S F F: the second holds 2 full layers, the KV-heaviest
    assert [x.kind for x in stage_layers(m, 2)] == [SLIDING, FULL, FULL]


def _inline_ceil_divisions(path: Path) -> list[int]:
    """Lines of ``-(-a // b)`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.BinOp)
        and isinstance(node.operand.op, ast.FloorDiv)
        and isinstance(node.operand.left, ast.UnaryOp)
    ]


def test_ceiling_division_has_one_home():
    found = {
        str(p.relative_to(CORE)): lines
        for p in CORE.rglob("*.py")
        if p.name != "units.py" and (lines := _inline_ceil_divisions(p))
    }
    assert found == {}, f"use vramdesk.core.units.ceil_div: {found}"
