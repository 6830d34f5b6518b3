"""One question, one answer (issue 23, item 1): every place that shows a verdict gives the
headline's, for the same scenario.

For each engine, the scenario is walked across both edges of the answer — the capacity at
which the KV budget first holds the workload ("no" -> "tight") and the one at which it is
held with 5 % to spare and a total within the card ("tight" -> "fits") — one byte below, at
and above each edge. At every point the headline of a reverse solve, the compare table's
verdict (``vramdesk compare`` with the capacity as an exact GiB size), the fits table's row,
``solve``'s JSON and :func:`fit_state` must agree.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from fractions import Fraction

import pytest

from vramdesk.cli import main
from vramdesk.core.engines import profile_for
from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import KVDtype
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.scenario import Scenario
from vramdesk.core.model.workload import Workload
from vramdesk.core.present import views
from vramdesk.core.present.output import solve_output
from vramdesk.core.solve.solver import solve
from vramdesk.core.solve.verdict import JSON_VERDICT, fit_state, headline
from vramdesk.core.store.bundled import find_model
from vramdesk.core.units import Unit

ENGINES = {
    Engine.FORMULA: ("llama-3.1-8b", KVDtype.FP16),
    Engine.VLLM: ("qwen3-8b", KVDtype.FP16),
    Engine.SGLANG: ("mistral-7b-v0.3", KVDtype.FP8),
    Engine.LLAMA_CPP: ("gemma-2-9b", KVDtype.Q8_0),
    Engine.OLLAMA: ("llama-3.2-3b", KVDtype.FP16),
    Engine.TRANSFORMERS: ("qwen2.5-7b", KVDtype.FP16),
}


def _edge(lo: int, hi: int, is_past) -> int:
    """The smallest capacity in (lo, hi] at which ``is_past(capacity)`` holds (monotone)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if is_past(mid) else (mid, hi)
    return hi


def _gib_text(n_bytes: int) -> str:
    """``n_bytes`` as an exact decimal GiB (the denominator is 2**30: the decimal ends)."""
    q = Fraction(n_bytes, 2**30)
    whole, rest = divmod(q.numerator, q.denominator)
    digits = ""
    while rest:
        rest *= 10
        digits += str(rest // q.denominator)
        rest %= q.denominator
    return f"{whole}.{digits}GiB" if digits else f"{whole}GiB"


def _cli_json(argv: list[str]) -> dict:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(argv) == 0
    return json.loads(out.getvalue())


@pytest.mark.parametrize("engine", list(ENGINES), ids=lambda e: e.value)
def test_every_place_gives_the_headlines_answer_at_both_edges(engine):
    slug, kv_dtype = ENGINES[engine]
    p = find_model(slug)
    workload = Workload(context_tokens=8192, batch=4, kv_dtype=kv_dtype)
    runtime = Runtime(engine=engine)
    b = estimate(p.model, p.weights, workload, runtime)
    top = 4 * b.total_bytes  # everything fits well there
    first_fit = _edge(0, top, lambda cap: fit_state(b, cap, runtime) != "no")
    first_fits = _edge(first_fit, top, lambda cap: fit_state(b, cap, runtime) == "fits")
    assert first_fit < first_fits  # a tight band exists between the edges
    seen = set()
    for cap in (first_fit - 1, first_fit, first_fit + 1, first_fits - 1, first_fits):
        result = solve(p.model, p.weights, workload, runtime, cap)
        state = headline(result, workload.batch).state
        seen.add(state)
        assert fit_state(b, cap, runtime) == state
        assert views.fits_table(b, [("card", cap)], runtime)[0].verdict == state
        sc = Scenario(p.model, p.weights, workload, runtime)
        solved = json.loads(solve_output(sc, result, "card", "json", Unit.GIB, {}))
        assert solved["verdict"] == JSON_VERDICT[state]
        compared = _cli_json(
            ["compare", slug, "8192x4", _gib_text(cap), "--format", "json", "--engine"]
            + [engine.value, "--kv-dtype", kv_dtype.label]
        )
        assert compared["capacity_bytes"] == cap
        assert compared["models"][0]["verdict"] == JSON_VERDICT[state], (engine, cap)
    assert seen == {"no", "tight", "fits"}
    # the edge is the engine's own budget: at first_fit the need is within the usable memory
    profile = profile_for(engine)
    assert profile.need_bytes(b) <= profile.usable_bytes(b, first_fit, runtime)
    assert profile.need_bytes(b) > profile.usable_bytes(b, first_fit - 1, runtime)


def test_two_budgets_have_two_names_everywhere():
    # issue 23, item 2: Llama-3.1-8B, 8,192 x 8, vLLM, RTX 4090 (24,564 MiB). The headline
    # said "the KV budget is 6.46 GiB" while the solver said "KV budget: 1.65 GiB": the first
    # is the usable memory for KV cache and activations together (what the need, 12.81 GiB
    # of KV cache 8 GiB + activation peak, is compared with), the second what is left of it
    # for the KV cache after the activation peak (vLLM's KV cache size). Both are named
    # apart wherever they are shown.
    from vramdesk.core.present.report import solve_text
    from vramdesk.core.store.bundled import find_gpu
    from vramdesk.core.units import format_bytes

    p = find_model("llama-3.1-8b")
    wl, rt = Workload(context_tokens=8192, batch=8), Runtime(engine=Engine.VLLM)
    cap = find_gpu("RTX 4090").capacity_for(Engine.VLLM)
    r = solve(p.model, p.weights, wl, rt, cap)
    usable, kv_budget = format_bytes(r.usable_bytes), format_bytes(r.kv_budget_bytes)
    assert (usable, kv_budget) == ("6.46 GiB", "1.65 GiB")
    assert r.kv_budget_bytes == r.usable_bytes - r.breakdown.activations.bytes
    said = headline(r, 8).headline.text
    assert f"only {usable} is usable for KV cache and activations" in said
    assert "KV budget" not in said
    text = solve_text(Scenario(p.model, p.weights, wl, rt), r, "RTX 4090")
    assert f"Usable for KV cache and activations: {usable}" in text
    assert f"KV cache budget (the usable memory less the activation peak): {kv_budget}" in text
