"""Fuzz every file reader and the command line (issue 12), derandomized: the same inputs every run.

Targets and strategies: tests/fuzz_targets.py. A target returns "ok" or "refused" (a
documented one-line error) and raises Finding for anything else: an undocumented
exception, a negative byte figure, a refusal that is not one line. Each example must also
finish in under 5 s (a hang is a finding). tests/benchmarks/bench_fuzz.py runs the same
targets with many more, random inputs and prints the counts.
"""

from __future__ import annotations

import json
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import fuzz_targets as f

FUZZ = settings(
    derandomize=True,
    max_examples=120,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SLOW_S = 5.0


def _timed(target, *args):
    start = time.perf_counter()
    outcome = target(*args)
    took = time.perf_counter() - start
    assert took < SLOW_S, f"{target.__name__} took {took:.1f} s"
    assert outcome in ("ok", "refused")
    return outcome


GGUF_INPUTS = st.one_of(
    *[f.mutated(base, 6) for base in f.gguf_bases()],
    f.gguf_hostile(),
)


@FUZZ
@given(GGUF_INPUTS)
def test_fuzz_gguf(data):
    _timed(f.read_gguf, data)


@FUZZ
@given(f.json_mutated(f.safetensors_base()), st.sampled_from([0, 0, 0, -1, 5, 2**20]))
def test_fuzz_safetensors_header(data, delta):
    _timed(f.read_safetensors, data, delta)


@FUZZ
@given(st.one_of(*[f.json_mutated(c, f.CONFIG_KEYS) for c in f.config_bases()]))
def test_fuzz_config_json(data):
    _timed(f.read_config, data)


@FUZZ
@given(
    f.json_mutated(
        {"metadata": {"total_size": 16060522496}, "weight_map": {"a": "m-1.safetensors"}}
    )
)
def test_fuzz_safetensors_index(data):
    _timed(f.read_index, data)


_PRESET = {
    "schema_version": 1,
    "kind": "scenario",
    "name": "Fuzz",
    "model": {"num_hidden_layers": 32, "num_key_value_heads": 8, "head_dim": 128},
    "weights": {"format": "fp16"},
    "workload": {"context_tokens": 4096, "batch": 2},
    "runtime": {"overhead_factor": "1.15", "gpu_memory_utilization": "0.9"},
}


@FUZZ
@given(
    st.one_of(
        f.json_mutated(_PRESET),
        f.json_mutated(_PRESET["runtime"]).map(
            lambda rt: (
                json.dumps({**_PRESET, "runtime": "@RT@"})
                .replace('"@RT@"', rt.decode("utf-8", "replace"))
                .encode()
            )
        ),
    )
)
def test_fuzz_preset_files(data):
    _timed(f.read_preset, data)


@FUZZ
@given(f.json_mutated(json.loads((f.ROOT / "data/fake-two-gpus.json").read_text())))
def test_fuzz_fake_nvml_file(data):
    _timed(f.read_fake_nvml, data)


_CASE = (f.REFERENCE / "engine-cases.jsonl").read_text().splitlines()[0]


@FUZZ
@given(f.json_mutated(json.loads(_CASE)))
def test_fuzz_validate_cases(data):
    _timed(f.run_cli, ["validate", "@DIR@/cases.jsonl"], {"cases.jsonl": data})


@FUZZ
@given(
    st.sampled_from(sorted(p.name for p in f.LOGS.iterdir())).flatmap(
        lambda name: f.mutated((f.LOGS / name).read_bytes()[:20000], 6)
    )
)
def test_fuzz_engine_logs(data):
    _timed(f.read_log, data)


@settings(FUZZ, max_examples=150)
@given(f.cli_argv())
def test_fuzz_command_line(argv):
    _timed(f.run_cli, argv)


def test_the_bases_are_valid_inputs():
    # mutations start from files that load: otherwise the fuzzers would only test refusals
    assert [f.read_gguf(b) for b in f.gguf_bases()] == ["ok"] * 4
    assert f.read_safetensors(json.dumps(f.safetensors_base()).encode()) == "ok"
    assert {f.read_config(json.dumps(c).encode()) for c in f.config_bases()} == {"ok"}
    assert f.read_preset(json.dumps(_PRESET).encode()) == "ok"
    assert f.read_fake_nvml((f.ROOT / "data/fake-two-gpus.json").read_bytes()) == "ok"
