"""With TP the engines size every rank to the smallest one (issue 21, mechanism 10).

Sources read: vLLM ``vllm/v1/core/kv_cache_utils.py`` ``get_kv_cache_configs`` (every rank's
``num_blocks`` shrunk to the smallest rank's); SGLang ``model_runner.py``
``init_torch_distributed`` (``get_available_gpu_memory(distributed=True)``: the free memory,
all-reduced to its minimum; "The memory capacity is unbalanced" below 0.9 of a rank's own).
"""

from __future__ import annotations

import json
from fractions import Fraction

from vramdesk.cli import main
from vramdesk.core import Engine, Runtime, Workload
from vramdesk.core.engines.vllm.profile import VllmProfile
from vramdesk.core.local.budget import engine_local_budget, sglang_local_budget
from vramdesk.core.store.bundled import find_model

GIB = 2**30
H100_TOTAL = 85_520_809_984  # torch/NVML total of an H100 80GB HBM3
RTX4090_TOTAL = 25_757_220_864


def _gpu(index: int, name: str, total: int, used: int) -> dict:
    return {
        "index": index,
        "name": name,
        "uuid": f"GPU-rank-{index}",
        "total_bytes": total,
        "used_bytes": used,
        "free_bytes": total - used,
        "reserved_bytes": None,
        "mig_mode": None,
        "mig_note": None,
        "mig_instances": [],
        "processes": [],
        "processes_note": None,
    }


def _fake(tmp_path, monkeypatch, *gpus: dict) -> None:
    path = tmp_path / "gpus.json"
    snapshot = {
        "driver_version": "550.54.15",
        "nvml_version": "12.550.54.15",
        "cuda_driver_version": 12040,
        "gpus": list(gpus),
    }
    path.write_text(json.dumps(snapshot), encoding="utf-8")
    monkeypatch.setenv("VRAMDESK_FAKE_NVML", str(path))


def test_sglang_budgets_the_least_free_rank(tmp_path, monkeypatch, capsys):
    # two H100s, GPU 0 also drives a display (1 GiB used): SGLang's pre_model_load_memory is
    # the minimum free over the ranks, 85,520,809,984 - 1,073,741,824 = 84,447,068,160 B.
    # Llama-3.1-8B TP2 (8,063,815,680 B of weights per GPU), 0.88, newest release:
    # pre_free = 84,447,068,160 - 536,870,912 (context) - 2,158,221,066 (NCCL, all-reduce)
    #          = 81,751,976,182; pool = floor(81,751,976,182 * 0.88) - 8,063,815,680
    #          = 71,941,739,040 - 8,063,815,680 = 63,877,923,360 B
    #          -> // 65,536 B per token per GPU = 974,699 tokens
    _fake(
        tmp_path,
        monkeypatch,
        _gpu(0, "NVIDIA H100 80GB HBM3", H100_TOTAL, GIB),
        _gpu(1, "NVIDIA H100 80GB HBM3", H100_TOTAL, 0),
    )
    label, free, warning = sglang_local_budget("local", 2)
    assert free == 84_447_068_160 and warning is None  # 84.4 > 0.9 * 85.5 GB: balanced
    assert "the least of these GPUs" in label
    argv = ["solve", "--preset", "llama-3.1-8b", "--context", "8192", "--tp", "2"]
    assert main([*argv, "--engine", "sglang", "--gpu", "local", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["capacity_bytes"], out["kv_budget_bytes"]) == (84_447_068_160, 63_877_923_360)
    # the pool's tokens, as SGLang logs them (page size 1)
    from vramdesk.core.engines.sglang import SglangProfile

    m = find_model("llama-3.1-8b")
    rt = Runtime(engine=Engine.SGLANG, tensor_parallel_size=2)
    fig = SglangProfile().figures(m.model, m.weights, Workload(8192), rt, gpu_total_bytes=free)
    assert fig["kv_cache_tokens"] == 974_699


def test_sglang_repeats_its_unbalanced_warning(tmp_path, monkeypatch, capsys):
    # GPU 0 with 20 GiB in use: 64,045,973,504 B free < 0.9 * 85,520,809,984 of GPU 1
    _fake(
        tmp_path,
        monkeypatch,
        _gpu(0, "NVIDIA H100 80GB HBM3", H100_TOTAL, 20 * GIB),
        _gpu(1, "NVIDIA H100 80GB HBM3", H100_TOTAL, 0),
    )
    _, free, warning = sglang_local_budget("local:0,1", 2)
    assert free == 64_045_973_504
    assert warning.startswith("the memory capacity is unbalanced")
    argv = ["solve", "--preset", "llama-3.1-8b", "--context", "8192", "--tp", "2"]
    assert main([*argv, "--engine", "sglang", "--gpu", "local", "--json"]) == 0
    assert "unbalanced" in capsys.readouterr().err


def test_vllm_budgets_the_smallest_rank(tmp_path, monkeypatch):
    # get_kv_cache_configs: the 4090's blocks bound the H100's; the budget is the smaller total
    _fake(
        tmp_path,
        monkeypatch,
        _gpu(0, "NVIDIA GeForce RTX 4090", RTX4090_TOTAL, 0),
        _gpu(1, "NVIDIA H100 80GB HBM3", H100_TOTAL, 0),
    )
    label, total, warning = engine_local_budget("local", 2, Fraction(9, 10))
    assert (total, warning) == (RTX4090_TOTAL, None)
    notes = VllmProfile().solve_notes(
        find_model("llama-3.1-8b").model, Runtime(engine=Engine.VLLM, tensor_parallel_size=2)
    )
    assert any("smallest rank's KV blocks" in n for n in notes)
    one = Runtime(engine=Engine.VLLM)
    assert not any(
        "rank" in n for n in VllmProfile().solve_notes(find_model("llama-3.1-8b").model, one)
    )
