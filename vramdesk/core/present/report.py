"""Plain-text and row views of core results, for the command line.

Formatting only: every number comes from :mod:`vramdesk.core.estimate` and
:mod:`vramdesk.core.solve.solver`.
"""

from __future__ import annotations

from typing import Any

from vramdesk.core.estimate import Breakdown
from vramdesk.core.model.runtime import Engine, engine_options
from vramdesk.core.model.spec import total_params
from vramdesk.core.present.host import host_ram
from vramdesk.core.present.views import catalog_fits
from vramdesk.core.printable import printable
from vramdesk.core.solve.result import SolveResult
from vramdesk.core.solve.solver import min_gpus_text
from vramdesk.core.solve.verdict import TABLE_VERDICT, headline
from vramdesk.core.units import KIB, Unit, format_bytes


def _model_line(sc: Any, b: Breakdown) -> str:
    m = sc.model
    text = f"Model: {printable(m.name or 'custom')}  ({b.params:,} params"
    if b.active_params:
        text += f", {b.active_params:,} active per token"
    text += f"; {m.num_hidden_layers} layers, {m.attention_kind()}"
    if m.num_attention_heads and not m.is_mla:
        text += f" {m.num_attention_heads}/{m.num_key_value_heads} heads"
    if not m.is_mla:
        text += f", head_dim {m.resolved_head_dim}"
    return text + ")"


def breakdown_text(sc: Any, b: Breakdown, unit: Unit = Unit.GIB) -> str:
    """The breakdown as lines: model, each part with its formula, total, KV per token."""
    gpus = f" per GPU ({b.gpus} GPUs)" if b.gpus > 1 else ""
    lines = [
        _model_line(sc, b),
        f"Weights {sc.weights.label()}, KV cache {sc.workload.kv_dtype.label}, "
        f"context {sc.workload.context_tokens:,} x {sc.workload.batch:,} "
        f"{'sequence' if sc.workload.batch == 1 else 'sequences'}, "
        f"engine {b.engine.value}",
        "",
    ]
    for part in b.parts:
        lines.append(
            f"{part.label:<22} {format_bytes(part.bytes, unit):>14}   {part.bytes:>18,} bytes"
        )
        lines.append(f"    = {part.formula}")
        lines.append(f"    = {part.substituted}")
        lines.extend(f"    assumption: {a}" for a in part.assumptions)
    lines.append(
        f"{'Total' + gpus:<22} {format_bytes(b.total_bytes, unit):>14}   {b.total_bytes:>18,} bytes"
    )
    lines.extend(host_lines(b, unit))
    lines.extend(kv_per_token_lines(b))
    lines.extend(f"warning: {w}" for w in b.warnings)
    return "\n".join(lines)


def host_lines(b: Breakdown, unit: Unit = Unit.GIB) -> list[str]:
    """llama.cpp/Ollama: host RAM (weights + KV kept off the GPU) against this machine's RAM.

    :func:`vramdesk.core.present.host.host_ram`; no lines for engines that keep everything
    on the GPU, no comparison when the machine's RAM is unknown.
    """
    host = host_ram(b)
    if host is None:
        return []
    n = host.total_bytes
    lines = [
        f"{'Host RAM (not in total)':<22} {format_bytes(n, unit):>14}   {n:>18,} bytes",
        "    = weights on host + KV cache on host",
        f"    = {host.weights_bytes:,} + {host.kv_bytes:,}",
    ]
    if host.experts_bytes:
        lines.append(f"    of which routed experts: {host.experts_bytes:,} bytes")
    if host.machine_bytes is not None:
        verdict = "fits" if host.fits else "does not fit"
        lines.append(f"    {verdict} this machine's RAM ({format_bytes(host.machine_bytes, unit)})")
    return lines


def _budget_knob(rt: Any) -> str:
    """The engine's own budget knob, as the Budget line shows it (only one it has)."""
    if "gpu_memory_utilization" in engine_options(rt.engine):
        return f", gpu_memory_utilization {float(rt.gpu_memory_utilization):g}"
    if rt.engine is Engine.SGLANG:
        # on first use: an engine's module loads only when that engine is chosen
        from vramdesk.core.engines.sglang import mem_fraction

        return f", mem_fraction_static {float(mem_fraction(rt)):g}"
    return f" ({rt.engine.value} sizes its buffers exactly: no utilization fraction)"


def solve_text(sc: Any, r: SolveResult, budget_label: str, unit: Unit = Unit.GIB) -> str:
    """The reverse solver's answers as lines."""
    rt, wl = sc.runtime, sc.workload
    lines = [
        _model_line(sc, r.breakdown),
        f"Budget: {budget_label} = {format_bytes(r.capacity_bytes, unit)} per GPU"
        f"{_budget_knob(rt)}",
        f"Usable for KV cache and activations: {format_bytes(r.usable_bytes, unit)}",
        f"KV cache budget (the usable memory less the activation peak): "
        f"{format_bytes(r.kv_budget_bytes, unit)} ({r.kv_budget_bytes:,} bytes)",
    ]
    if rt.engine in (Engine.FORMULA, Engine.VLLM):  # the lines vLLM prints, as it would
        lines += r.vllm_lines()
    else:  # no vLLM log lines for another engine: its capacity, in its own unit
        unit_name = "cells" if rt.engine in (Engine.LLAMA_CPP, Engine.OLLAMA) else "tokens"
        lines.append(f"KV cache capacity at this budget: {r.kv_cache_tokens:,} {unit_name}")
    lines.append(
        f"Max concurrency at {wl.context_tokens:,} tokens: {r.max_concurrency:,} "
        f"(exact {float(r.max_concurrency_exact):.4f})"
    )
    limit = {
        "memory": "memory",
        "max_position_embeddings": "max_position_embeddings",
        "limit": "the context limit",
    }[r.max_context_limited_by]
    lines.append(
        f"Max context at {wl.batch:,} concurrent: {r.max_context:,} tokens (limited by {limit})"
    )
    verdict = headline(r, wl.batch, unit)  # the window's headline, word for word
    lines.append(f"Verdict: {verdict.headline.text}")
    lines.append(f"    {verdict.detail.text}")
    lines.append(f"Smallest GPU count (tensor parallel): {min_gpus_text(r, rt.engine)}")
    if r.advice:
        lines.append("What would make it fit (each lever alone, most effective first):")
        lines.extend(f"  {'+' if a.fits else '-'} {a.describe(unit)}" for a in r.advice)
    lines.extend(f"note: {n}" for n in r.notes)
    lines.append(
        f"Estimated total {format_bytes(r.breakdown.total_bytes, unit)} per GPU on every catalog "
        "GPU (headroom: the card less that total; the verdict is the headline's, which asks "
        "the engine's usable memory):"
    )
    rows = catalog_fits(r.breakdown, rt)
    name_w = max([16, *(len(row.name) for row in rows)])  # the widest GPU name sets the column
    for row in rows:
        mark = TABLE_VERDICT[row.verdict]
        lines.append(
            f"  {row.name:<{name_w}} {format_bytes(row.capacity_bytes, unit):>12}  "
            f"headroom {format_bytes(row.headroom_bytes, unit):>12}  {mark}"
        )
    return "\n".join(lines)


def verdict_text(r: SolveResult, budget_label: str, batch: int, unit: Unit = Unit.GIB) -> str:
    """``estimate`` on a target: the headline verdict (:func:`headline`) and its detail line."""
    verdict = headline(r, batch, unit)  # the window's headline, word for word
    return (
        f"Verdict on {budget_label} = {format_bytes(r.capacity_bytes, unit)} per GPU: "
        f"{verdict.headline.text}\n    {verdict.detail.text}"
    )


def preset_rows(problems: list[str] | None = None) -> list[dict[str, Any]]:
    """Bundled and saved model presets as rows (slug, name, params, weights, read_only, source).

    Saved files that could not be read were moved aside by the store; their sentences are
    appended to ``problems`` when given.
    """
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.bundled import bundled_models

    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.presets import PresetStore, model_preset

    store = PresetStore()
    presets = list(bundled_models()) + [model_preset(u) for u in store.list("model")]
    if problems is not None:
        problems.extend(store.problems)
    return [
        {
            "slug": p.slug,
            "name": p.name,
            "params": total_params(p.model),
            "weights": p.weights.label(),
            "read_only": p.read_only,
            "source": p.source,
        }
        for p in presets
    ]


def gpu_rows() -> list[dict[str, Any]]:
    """The GPU catalog as rows (name, memory_mib, memory_bytes, memory_gib, source)."""
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.bundled import gpu_catalog

    return [
        {
            "name": g.name,
            "memory_mib": g.memory_mib,
            "memory_bytes": g.memory_bytes,
            "memory_gib": g.memory_bytes / 2**30,
            "source": g.source,
        }
        for g in gpu_catalog()
    ]


def preset_detail(name: str) -> dict[str, Any]:
    """One model preset (bundled or saved) as a dict: fields, derived values, source.

    Raises
    ------
    InputError
        ``preset``: unknown name.
    """
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.lookup import resolve_model_preset

    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.serialize import to_dict

    p = resolve_model_preset(name)
    m = p.model
    return {
        "slug": p.slug,
        "name": p.name,
        "read_only": p.read_only,
        "hf_repo": p.hf_repo,
        "model": to_dict(m),
        "weights": to_dict(p.weights) or {"format": p.weights.format.label},
        "params": total_params(m),
        "published_params": p.published_params,
        "attention": m.attention_kind(),
        "head_dim": m.resolved_head_dim if not m.is_mla else None,
        "gqa_ratio": m.gqa_ratio,
        "source": p.source,
    }


def kv_per_token_lines(b: Breakdown) -> list[str]:
    """The "KV cache per token" lines as a reader needs them.

    One figure for a uniform model; for models whose layers differ (sliding window, chunked
    local attention, shared, recurrent, encoder) the per-token cost of each kind of layer and
    the effective bytes per token at the estimate's context.
    """
    kinds = b.kv_by_kind
    if len(kinds) <= 1 and not any(c.kind != "full_attention" for c in kinds):
        return [
            f"KV cache per token: {b.kv_bytes_per_token:,} bytes "
            f"({b.kv_bytes_per_token / KIB:g} KiB)"
        ]
    lines = ["KV cache per token, by kind of layer:"]
    for c in kinds:
        text = f"  {c.kind} ({c.layers} layers): {c.bytes_per_token:,} bytes per token"
        if c.window and c.kind == "chunked_attention":
            text += f" for at most {c.window:,} tokens of each sequence (one attention chunk)"
        elif c.window:
            text += f" for the first {c.window:,} tokens of each sequence, then nothing"
        elif c.kind == "shared":
            text += " (they read an earlier layer's cache)"
        elif c.kind == "recurrent":
            text += " (a constant state per sequence instead)"
        lines.append(text)
    eff = b.effective_kv_bytes_per_token
    if eff is not None:
        lines.append(f"  effective at this context: {eff:,.1f} bytes per token")
    return lines
