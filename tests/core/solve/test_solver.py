"""The reverse solver's notes: why the smallest GPU count is "none" (fresh-user finding)."""

from __future__ import annotations

from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.solver import solve


def test_none_up_to_64_says_when_the_heads_stop_the_search():
    from vramdesk.core.store.bundled import find_model

    # Llama-4 Scout (40 attention heads, 8 KV heads) on a 24 GiB card: of the sizes tried
    # (1, 2, 4, ... 64) only 1, 2, 4 and 8 divide 40, and at TP 8 each GPU still holds
    # 108,641,793,536 * 2 / 8 bytes (25.3 GiB) of bf16 weights
    p = find_model("llama-4-scout-17b-16e-instruct")
    r = solve(p.model, p.weights, Workload(context_tokens=8192), Runtime(), 24 * 2**30)
    assert r.min_gpus is None
    assert (
        "smallest GPU count: no tensor-parallel size tried above 8 shards the 40 attention and "
        "8 KV heads evenly, and 8 GPUs are not enough"
    ) in r.notes
