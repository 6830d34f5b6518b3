"""The scenario session, driven the way the window drives it, with no Qt (no qtbot here).

The session starts on the window's first-start scenario: Llama-3.1-8B in bf16 at 8,192
tokens of context and 8 sequences, checked against an RTX 4090. Its reference figures,
derived by hand from the preset (presets/models/llama-3.1-8b.json):

* head_dim = hidden_size / num_attention_heads = 4096 / 32 = 128;
* KV bytes per token = 2 (K and V) x 8 KV heads x 128 head_dim x 2 bytes (fp16) x 32
  layers = 131,072;
* KV cache = 131,072 x 8,192 tokens x 8 sequences = 8,589,934,592 (8 GiB);
* weights = 8,030,261,248 params x 16 bits / 8 = 16,060,522,496.
"""

from __future__ import annotations

import pytest

from vramdesk.core.errors import InputError
from vramdesk.core.estimate import estimate
from vramdesk.core.local.gpu_info import GpuInfo, NvmlSnapshot
from vramdesk.core.model.workload import Workload
from vramdesk.core.session import ScenarioSession, Target
from vramdesk.core.store import bundled
from vramdesk.core.units import Unit

GIB = 2**30
KV_PER_TOKEN = 2 * 8 * 128 * 2 * 32  # 131,072: K and V x KV heads x head_dim x fp16 x layers
WEIGHTS = 8_030_261_248 * 16 // 8  # 16,060,522,496
EVENTS = (
    "inputs_changed",
    "breakdown_changed",
    "solve_changed",
    "field_invalid",
    "fields_valid",
    "marks_changed",
    "notes_changed",
    "unit_changed",
    "local_changed",
)


class Recorder:
    """Every event a session emits, in order, with its arguments."""

    def __init__(self, session: ScenarioSession) -> None:
        self.seen: list[tuple] = []
        for name in EVENTS:
            getattr(session, name).connect(lambda *args, _n=name: self.seen.append((_n, *args)))

    def names(self) -> list[str]:
        return [event[0] for event in self.seen]

    def count(self, name: str) -> int:
        return self.names().count(name)

    def args(self, name: str) -> list[tuple]:
        return [event[1:] for event in self.seen if event[0] == name]

    def clear(self) -> None:
        self.seen.clear()


@pytest.fixture
def session() -> ScenarioSession:
    return ScenarioSession()


@pytest.fixture
def events(session) -> Recorder:
    return Recorder(session)


def kv_bytes(session: ScenarioSession) -> int:
    return session.breakdown.kv_cache.bytes


# ------------------------------------------------------------------ the first scenario
def test_first_start_is_llama_3_1_8b_with_its_hand_derived_figures(session):
    assert KV_PER_TOKEN == 131_072
    assert session.preset_name == "Llama-3.1-8B"
    assert session.compute_count == 1
    assert session.problem is None and session.refused == {}
    assert session.breakdown.kv_bytes_per_token == 131_072
    assert kv_bytes(session) == 131_072 * 8192 * 8 == 8 * GIB
    assert session.breakdown.weights.bytes == WEIGHTS == 16_060_522_496
    assert session.target == Target(kind="gpu", name="RTX 4090")
    # the RTX 4090's budget as the catalog gives it, and the solve run against it
    assert session.capacity_bytes() == bundled.find_gpu("RTX 4090").capacity_for(
        session.runtime.engine
    )
    assert session.solve_result is not None
    assert session.solve_result.breakdown is session.breakdown


# ------------------------------------------------------------------ typed text
def test_valid_typed_text_is_committed_and_every_event_fires_once(session, events):
    assert session.set_field("context_tokens", "16,384") is True
    assert session.workload.context_tokens == 16_384
    assert session.value("context_tokens") == 16_384
    assert kv_bytes(session) == 131_072 * 16_384 * 8 == 16 * GIB
    assert session.compute_count == 2
    assert events.names() == [
        "inputs_changed",
        "breakdown_changed",
        "solve_changed",
        "marks_changed",
        "fields_valid",
    ]
    assert events.args("breakdown_changed") == [(session.breakdown,)]
    assert events.args("solve_changed") == [(session.solve_result,)]


def test_refused_text_names_the_field_and_keeps_the_last_valid_figures(session, events):
    before = session.breakdown
    assert session.set_field("num_key_value_heads", "7") is False
    [(field, error)] = events.args("field_invalid")
    assert field == "num_key_value_heads"
    assert isinstance(error, InputError) and error.code == "divisor"
    assert error.reason == "must be a divisor of num_attention_heads (32)"
    assert session.refused == {"num_key_value_heads": error}
    assert session.problem is error
    assert session.typed_text("num_key_value_heads") == "7"
    # nothing was published: the figures are the last valid ones, to the object
    assert events.names() == ["marks_changed", "field_invalid"]
    assert session.breakdown is before and session.compute_count == 1
    assert session.model.num_key_value_heads == 8
    assert session.value("num_key_value_heads") == 8  # the field shows what is in force
    assert session.breakdown.kv_bytes_per_token == 131_072


def test_text_that_is_no_number_is_refused_with_the_cores_reason(session, events):
    assert session.set_field("batch", "eight") is False
    [(field, error)] = events.args("field_invalid")
    assert (field, error.code, error.reason) == (
        "batch",
        "not_int",
        "must be a whole number, got 'eight'",
    )
    assert session.workload.batch == 8 and kv_bytes(session) == 8 * GIB


def test_a_later_valid_edit_clears_the_refusal(session, events):
    session.set_field("num_key_value_heads", "7")
    events.clear()
    assert session.set_field("num_key_value_heads", "4") is True
    assert session.refused == {} and session.problem is None
    assert session.typed_text("num_key_value_heads") is None
    assert events.count("fields_valid") == 1 and events.count("field_invalid") == 0
    # 2 x 4 KV heads x 128 x 2 bytes x 32 layers: half the per-token bytes
    assert session.breakdown.kv_bytes_per_token == 65_536
    assert kv_bytes(session) == 4 * GIB


def test_while_typing_a_refused_text_falls_back_to_the_value_before_the_edit(session, events):
    # typing "1e400" into the context field passes through "1e4", which is valid: the
    # refusal falls back to 8,192 (the value before the edit), not to 10,000
    assert session.set_field("context_tokens", "1e4", commit=False) is True
    assert session.workload.context_tokens == 10_000
    assert kv_bytes(session) == 131_072 * 10_000 * 8
    assert session.set_field("context_tokens", "1e400", commit=False) is False
    assert session.refused["context_tokens"].code == "far_too_large"
    assert session.workload.context_tokens == 8192
    assert kv_bytes(session) == 8 * GIB
    session.commit("context_tokens")  # the field finished editing: still refused, still typed
    assert session.typed_text("context_tokens") == "1e400"
    assert session.workload.context_tokens == 8192


def test_values_refused_alone_are_accepted_together(session):
    # 64 KV heads are refused under 32 query heads; 64 query heads make them valid
    assert session.set_field("num_key_value_heads", "64", commit=False) is False
    assert session.set_field("num_attention_heads", "64") is True
    assert session.refused == {}
    assert (session.model.num_attention_heads, session.model.num_key_value_heads) == (64, 64)
    # head_dim 4096 / 64 = 64: 2 x 64 KV heads x 64 x 2 bytes x 32 layers
    assert session.breakdown.kv_bytes_per_token == 2 * 64 * 64 * 2 * 32 == 524_288


def test_an_edit_that_changes_nothing_computes_nothing(session, events):
    before = session.breakdown
    assert session.set_field("context_tokens", "8,192") is True
    assert session.breakdown is before and session.compute_count == 1
    assert events.names() == ["marks_changed", "fields_valid"]


def test_live_tokens_set_the_concurrency_at_the_context(session):
    assert session.set_field("live_tokens", "32,768") is True
    assert session.workload.batch == 32_768 // 8192 == 4
    assert kv_bytes(session) == 131_072 * 32_768 == 4 * GIB


# ------------------------------------------------------------------ batched updates
def test_update_sets_several_fields_and_computes_once(session, events):
    assert session.update({"context_tokens": "4096", "batch": "2"}) is True
    assert session.compute_count == 2
    assert events.count("inputs_changed") == 1 and events.count("breakdown_changed") == 1
    assert (session.workload.context_tokens, session.workload.batch) == (4096, 2)
    assert kv_bytes(session) == 131_072 * 4096 * 2 == 1 * GIB


def test_update_with_one_refused_value_keeps_the_accepted_ones(session, events):
    assert session.update({"batch": "2", "context_tokens": "zero"}) is False
    assert list(session.refused) == ["context_tokens"]
    assert session.workload.batch == 2 and session.workload.context_tokens == 8192
    assert events.count("breakdown_changed") == 1 and events.count("field_invalid") == 1
    assert kv_bytes(session) == 131_072 * 8192 * 2


# ------------------------------------------------------------------ loading
def test_loading_a_preset_sets_every_field_and_computes_once(session, events):
    session.set_field("num_key_value_heads", "7")  # a refused text, dropped by the load
    events.clear()
    preset = next(p for p in session.model_presets() if p.name == "Llama-3.1-70B")
    assert session.load_model_preset(preset) is True
    assert session.compute_count == 2
    assert events.names() == [
        "notes_changed",
        "inputs_changed",
        "breakdown_changed",
        "solve_changed",
        "marks_changed",
        "fields_valid",
    ]
    assert session.preset_name == session.model_origin == "Llama-3.1-70B"
    assert session.refused == {} and not session.model_edited()
    assert session.draft("model") == preset.model and session.weights == preset.weights
    assert session.workload == Workload(context_tokens=8192, batch=8)  # kept
    # 70B: 80 layers, 8 KV heads, head_dim 8192 / 64 = 128:
    # 2 x 8 x 128 x 2 bytes x 80 layers = 327,680 bytes per token
    assert session.breakdown.kv_bytes_per_token == 327_680
    assert kv_bytes(session) == 327_680 * 8192 * 8


def test_a_refused_load_keeps_the_last_figures_and_the_target_given(session, events):
    before = session.breakdown
    custom = Target(kind="custom", custom_bytes=48 * GIB)
    assert session.load(workload=Workload(context_tokens=8192, batch=0), target=custom) is False
    [(field, error)] = events.args("field_invalid")
    assert field == "batch" and error.code == "too_small"
    assert session.breakdown is before and session.workload.batch == 8
    assert session.target == custom


def test_editing_a_loaded_model_is_seen_and_the_scenario_saves_what_is_set(session):
    assert not session.model_edited()
    session.set_field("num_hidden_layers", "16")
    assert session.model_edited()
    # 16 layers: half the KV bytes per token
    assert session.breakdown.kv_bytes_per_token == 65_536
    assert session.scenario_dict()["model"]["num_hidden_layers"] == 16


# ------------------------------------------------------------------ units and targets
def test_units_toggle_without_recomputing(session, events):
    before = session.breakdown
    session.set_unit(Unit.GB)
    session.set_unit(Unit.GB)  # no change: no event
    assert session.unit is Unit.GB
    assert events.seen == [("unit_changed", Unit.GB)]
    session.set_unit(Unit.GIB)
    assert events.args("unit_changed") == [(Unit.GB,), (Unit.GIB,)]
    assert session.breakdown is before and session.compute_count == 1


def test_a_catalog_target_solves_against_its_capacity(session, events):
    assert session.set_field("target", "gpu:H100 80GB") is True
    assert session.target.kind == "gpu" and session.target.name == "H100 80GB"
    capacity = bundled.find_gpu("H100 80GB").capacity_for(session.runtime.engine)
    assert session.capacity_bytes() == capacity
    [(result,)] = events.args("solve_changed")
    assert result is session.solve_result and result.breakdown is session.breakdown
    assert kv_bytes(session) == 8 * GIB  # the estimate itself does not depend on the GPU


def test_an_unknown_catalog_gpu_is_refused(session):
    assert session.set_field("target", "gpu:No Such GPU") is False
    assert list(session.refused) == ["target"]
    assert session.target.name == "RTX 4090"


def test_a_custom_capacity_is_exact_bytes_in_the_unit_typed(session):
    assert session.set_field("custom_capacity", ("24", "GiB")) is True
    assert session.target.kind == "custom"
    assert session.capacity_bytes() == session.target.custom_bytes == 24 * 2**30
    assert session.set_field("custom_capacity", ("1,536", "MiB")) is True
    assert session.capacity_bytes() == 1536 * 2**20
    assert session.set_field("custom_capacity", ("0", "GiB")) is False
    assert session.refused["custom_capacity"].code == "too_small"
    assert session.capacity_bytes() == 1536 * 2**20


def _snapshot(free_bytes: int) -> NvmlSnapshot:
    gpu = GpuInfo(
        index=0,
        name="NVIDIA H100 80GB HBM3",
        uuid="GPU-0",
        total_bytes=80 * GIB,
        used_bytes=80 * GIB - free_bytes,
        free_bytes=free_bytes,
    )
    return NvmlSnapshot("550.54", "12.550", 12040, (gpu,))


def test_a_local_target_waits_for_a_snapshot_then_recomputes(session, events):
    assert session.set_field("target", "local:0:free") is True
    assert session.capacity_bytes() is None and session.solve_result is None
    assert session.local_free_bytes() is None and session.local_verdict() is None
    events.clear()
    session.set_local_snapshot(_snapshot(30 * GIB))
    assert events.names()[0] == "local_changed" and events.count("solve_changed") == 1
    assert session.capacity_bytes() == session.local_free_bytes() == 30 * GIB
    assert session.solve_result is not None
    # 16,060,522,496 weights + 8 GiB of KV + overhead (x 1.15 - 1, + 1 GiB): 27.4 GiB
    total = session.breakdown.total_bytes
    assert total == WEIGHTS + 8 * GIB + session.breakdown.overhead.bytes == 29_421_767_476
    verdict = session.local_verdict()
    assert verdict.fits is True and verdict.margin_bytes == 30 * GIB - total == 2_790_487_244
    session.set_local_snapshot(_snapshot(24 * GIB))  # someone else took 6 GiB meanwhile
    assert session.capacity_bytes() == 24 * GIB
    verdict = session.local_verdict()
    assert verdict.fits is False and verdict.margin_bytes == 24 * GIB - total
    # the panel polls every 2 s: the same reading again (or no driver, None, again) changes
    # nothing and announces nothing, so the window does not redraw for it
    events.clear()
    session.set_local_snapshot(_snapshot(24 * GIB))
    assert events.names() == []
    session.set_local_snapshot(None)
    session.set_local_snapshot(None)
    assert events.names().count("local_changed") == 1


def test_a_deferred_session_asks_for_the_solve_and_drops_a_stale_one():
    # issue 22: the window solves off its GUI thread; the session publishes the breakdown at
    # once, asks for the solve, and takes only the result of the latest request
    from vramdesk.core.solve.solver import solve

    session = ScenarioSession(defer_solve=True)
    asked: list[tuple] = []
    shown: list[object] = []
    session.solve_requested.connect(asked.append)
    session.solve_changed.connect(shown.append)
    first = session.pending_job
    assert first is not None and session.solve_result is None
    session.set_field("context_tokens", 4096)
    session.set_field("context_tokens", 2048)
    assert len(asked) == 2 and asked[-1] is session.pending_job
    inputs, capacity = asked[-1]
    assert inputs[2].context_tokens == 2048 and capacity == session.capacity_bytes()
    assert session.breakdown.kv_cache.bytes == estimate(*inputs).kv_cache.bytes
    assert not session.deliver_solve(asked[0], solve(*asked[0][0], asked[0][1]))  # stale
    assert shown == [] and session.solve_pending
    result = solve(inputs[0], inputs[1], inputs[2], inputs[3], capacity)
    assert session.deliver_solve(asked[-1], result)
    assert shown == [result] and session.solve_result is result and not session.solve_pending
    plain = ScenarioSession()  # the CLI's and the core's: solved in place, nothing asked
    assert plain.pending_job is None and plain.solve_result is not None


def test_context_is_read_with_the_command_lines_token_grammar(session):
    from vramdesk.core.fields import parse_tokens_text

    # the window's field and --context share one parser: "32k" is 32 x 1,024 = 32,768
    assert session.set_field("context_tokens", "32k")
    assert session.workload.context_tokens == 32 * 1024 == parse_tokens_text("context", "32k")
    assert not session.set_field("context_tokens", "")  # still required
    assert session.problem is not None and session.problem.field == "context_tokens"
