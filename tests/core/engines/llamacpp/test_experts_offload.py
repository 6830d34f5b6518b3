"""Routed experts in host RAM: ``--n-cpu-moe N``, ``--cpu-moe`` and ``-ot exps=CPU`` (issue 27.4).

Hand derivation for Qwen3-30B-A3B (48 layers, hidden 2048, 128 experts of width 768, gated)
as a Q4_K_M file (``src/llama-quant.cpp`` ``llama_tensor_get_type_impl``):

* one layer's experts: gate + up ``2 * 2048 * 768 * 128 = 402,653,184`` params at Q4_K
  (144 bytes per 256 = 4.5 bits) = 226,492,416 bytes; down ``2048 * 768 * 128 = 201,326,592``
  params at Q6_K (210 bytes per 256 = 6.5625 bits) = 165,150,720 bytes on the layers
  ``use_more_bits`` picks (``i < 6 or i >= 42 or (i - 6) % 3 == 2``), else Q4_K =
  113,246,208 bytes: a layer is 391,643,136 (Q6_K down) or 339,738,624 bytes (Q4_K down).
* ``--n-cpu-moe 10`` (``common/arg.cpp``: ``blk\\.i\\.ffn_(up|down|gate)..._exps`` -> CPU for
  i < 10): layers 0-5 and 8 have a Q6_K down (7 layers), 6, 7, 9 a Q4_K one (3 layers):
  ``7 * 391,643,136 + 3 * 339,738,624 = 3,760,717,824`` bytes move to the host.
* ``-ot exps=CPU``: 24 layers of each kind (0-5, 42-47 and 12 of 6-41):
  ``24 * (391,643,136 + 339,738,624) = 17,553,162,240`` bytes.
* KV stays with its layer (all 48 offloaded): unchanged; the compute buffer gains one layer's
  experts (the scheduler's copy for a 512-token ubatch, ``ggml-cuda.cu`` ``offload_op``):
  the largest, 391,643,136 bytes.
"""

from __future__ import annotations

import pytest

from vramdesk.cli import main
from vramdesk.core.errors import InputError
from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.launch import parse_launch
from vramdesk.core.model.launch_flags import experts_override
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.offload import min_n_cpu_moe
from vramdesk.core.solve.solver import solve
from vramdesk.core.store.lookup import resolve_model_preset
from vramdesk.core.units import GIB

Q6_LAYER, Q4_LAYER = 391_643_136, 339_738_624
NCMOE_10 = 7 * Q6_LAYER + 3 * Q4_LAYER
ALL_EXPERTS = 24 * (Q6_LAYER + Q4_LAYER)


def _inputs(name="qwen3-30b-a3b", fmt="Q4_K_M"):
    return (
        resolve_model_preset(name).model,
        WeightSpec(WeightFormat.parse(fmt)),
        Workload(context_tokens=8192, batch=1),
    )


def _bd(**rt):
    model, weights, workload = _inputs()
    return estimate(model, weights, workload, Runtime(engine=Engine.LLAMA_CPP, **rt))


def test_hand_derived_layer_sizes_add_up():
    assert NCMOE_10 == 3_760_717_824
    assert ALL_EXPERTS == 17_553_162_240
    assert 402_653_184 * 9 // 16 + 201_326_592 * 210 // 256 == Q6_LAYER
    assert 402_653_184 * 9 // 16 + 201_326_592 * 9 // 16 == Q4_LAYER


@pytest.mark.parametrize(
    ("rt", "moved"),
    [
        ({"n_cpu_moe": 10}, NCMOE_10),
        ({"cpu_moe": True}, ALL_EXPERTS),
        ({"n_cpu_moe": 48}, ALL_EXPERTS),
    ],
)
def test_device_and_host_bytes_of_the_experts_kept_on_the_host(rt, moved):
    base, bd = _bd(), _bd(**rt)
    assert base.weights.bytes - bd.weights.bytes == moved
    assert bd.extras["weights_bytes_host"] - base.extras["weights_bytes_host"] == moved
    assert bd.extras["experts_bytes_host"] == moved
    assert bd.kv_cache.bytes == base.kv_cache.bytes  # KV stays with its (offloaded) layer
    assert bd.activations.bytes - base.activations.bytes == Q6_LAYER  # one layer copied
    assert bd.extras["host_bytes"] == bd.extras["weights_bytes_host"]  # no KV on the host
    # the input embedding (token_embd, Q4_K: 151,936 * 2048 * 4.5 / 8) was on the host already
    assert base.extras["weights_bytes_host"] == 151_936 * 2048 * 9 // 16


def test_only_offloaded_layers_move_their_experts():
    # -ngl 20: layers 28-47 on the GPU; --n-cpu-moe 30 moves layers 28 (Q4_K down: (28-6) % 3
    # is 1) and 29 (Q6_K down); layers 0-27 were on the host whole already
    base, bd = _bd(n_gpu_layers=20), _bd(n_gpu_layers=20, n_cpu_moe=30)
    assert base.weights.bytes - bd.weights.bytes == Q4_LAYER + Q6_LAYER
    assert (
        bd.extras["weights_bytes_host"] - base.extras["weights_bytes_host"] == Q4_LAYER + Q6_LAYER
    )


def test_small_ubatch_copies_nothing_and_dense_models_move_nothing():
    assert _bd(n_ubatch=16, cpu_moe=True).activations.bytes == _bd(n_ubatch=16).activations.bytes
    model, weights, workload = _inputs("llama-3.1-8b")
    rt = Runtime(engine=Engine.LLAMA_CPP)
    flagged = estimate(model, weights, workload, rt.replace(cpu_moe=True))
    plain = estimate(model, weights, workload, rt)
    # every figure equal; only the weights' notes add that the flag has no effect (below)
    assert flagged.to_dict()["total_bytes"] == plain.to_dict()["total_bytes"]
    assert [p.bytes for p in flagged.parts] == [p.bytes for p in plain.parts]


def test_ollama_has_no_experts_override():
    model, weights, workload = _inputs()
    with pytest.raises(InputError, match="n_cpu_moe: Ollama has no --n-cpu-moe"):
        estimate(model, weights, workload, Runtime(engine=Engine.OLLAMA, n_cpu_moe=4))


@pytest.mark.parametrize("gib", [4, 8, 12, 16])
def test_smallest_n_cpu_moe_fits_and_one_fewer_does_not(gib):
    model, weights, workload = _inputs()
    rt, cap = Runtime(engine=Engine.LLAMA_CPP), gib * GIB

    def fits(n):
        bd = estimate(model, weights, workload, rt.replace(n_cpu_moe=n or None))
        return bd.total_bytes <= cap

    n = min_n_cpu_moe(model, weights, workload, rt, cap)
    assert n is not None and 0 < n <= model.num_hidden_layers
    assert fits(n) and not fits(n - 1)
    assert n == next(k for k in range(model.num_hidden_layers + 1) if fits(k))  # linear scan


def test_nothing_fits_none_and_the_advisor_offers_the_lever():
    model, weights, workload = _inputs()
    rt = Runtime(engine=Engine.LLAMA_CPP)
    assert min_n_cpu_moe(model, weights, workload, rt, GIB // 2) is None
    with pytest.raises(InputError, match="engine: vllm has no --n-cpu-moe"):
        min_n_cpu_moe(model, weights, workload, Runtime(engine=Engine.VLLM), GIB)
    n = min_n_cpu_moe(model, weights, workload, rt, 12 * GIB)
    levers = {a.lever: a for a in solve(model, weights, workload, rt, 12 * GIB).advice}
    assert levers["n_cpu_moe"].value == n and levers["n_cpu_moe"].fits
    assert levers["n_cpu_moe"].text.startswith(f"Keep the experts of {n} layers on the CPU")


@pytest.mark.parametrize(
    ("value", "read"),
    [
        ("exps=CPU", ("cpu_moe", True)),
        (r".ffn_.*_exps.=CPU", ("cpu_moe", True)),
        (r"\.ffn_(up|down|gate)_exps=cpu", ("cpu_moe", True)),
        (r"blk\.(0|1|2)\.ffn_.*_exps=CPU", ("n_cpu_moe", 3)),
        (r"blk\.[0-9]\.ffn_(up|down|gate)_exps=CPU", ("n_cpu_moe", 10)),
        (r".ffn_(up|down)_exps.=CPU", None),  # the gate stays: not modelled
        (r"blk\.(5|6)\.ffn_.*_exps=CPU", None),  # not the first layers
        ("exps=CUDA0", None),
        ("ffn=CPU", None),  # dense FFNs too
        ("shexp=CPU", None),
    ],
)
def test_override_tensor_forms(value, read):
    assert experts_override(value) == read


def test_launch_commands_read_the_expert_flags():
    launch = parse_launch("llama-server -m q.gguf -ngl 99 -ot exps=CPU --n-cpu-moe 5")
    assert launch.options["cpu_moe"] is True and launch.options["n_cpu_moe"] == 5
    assert "-ot" in launch.read and not launch.ignored
    launch = parse_launch("LLAMA_ARG_N_CPU_MOE=12 llama-server -m q.gguf -cmoe")
    assert launch.options == {"n_cpu_moe": 12, "cpu_moe": True}


def test_estimate_table_shows_host_ram_against_this_machine(capsys, monkeypatch):
    args = ["estimate", "--preset", "qwen3-30b-a3b", "--weights", "Q4_K_M", "--engine"]
    args += ["llama.cpp", "--context", "8192", "--cpu-moe"]
    assert main(args) == 0
    out = capsys.readouterr().out
    host = ALL_EXPERTS + 151_936 * 2048 * 9 // 16
    assert f"Host RAM (not in total)      16.51 GiB   {host:>18,} bytes" in out
    assert f"of which routed experts: {ALL_EXPERTS:,} bytes" in out
    assert "fits this machine's RAM (64.00 GiB)" in out  # tests/conftest.py pins it
    monkeypatch.setenv("VRAMDESK_FAKE_HOST_RAM", str(16 * GIB))
    assert main(args) == 0
    assert "does not fit this machine's RAM (16.00 GiB)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("rt", "flag"), [({"n_cpu_moe": 5}, "--n-cpu-moe 5"), ({"cpu_moe": True}, "--cpu-moe")]
)
def test_a_dense_model_says_the_flag_has_no_effect(rt, flag):
    # Llama-3.1-8B has no routed experts: the flag moves nothing (the weights equal those
    # without it) and the weights part says so rather than staying silent (fresh-user trial)
    model, weights, workload = _inputs("llama-3.1-8b")
    plain = estimate(model, weights, workload, Runtime(engine=Engine.LLAMA_CPP))
    flagged = estimate(model, weights, workload, Runtime(engine=Engine.LLAMA_CPP, **rt))
    assert flagged.weights.bytes == plain.weights.bytes
    said = f"{flag} has no effect: the model has no routed experts"
    assert said in flagged.weights.assumptions
    assert not any("no effect" in n for n in _bd(**rt).weights.assumptions)
