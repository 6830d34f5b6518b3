"""``vramdesk gpus`` and ``solve --gpu local[:INDEX]``: no driver, the fake NVML, the hook.

Exit statuses (vramdesk.cli.main): 1 when no GPU can be read (GpuQueryError is a VramdeskError,
"a figure could not be produced"), 2 for bad input such as an absent GPU index (InputError).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pynvml
import pytest

from tests.core.local.test_nvml import GPU0_FREE, GPU1_FREE
from tests.fake_nvml import FakeGpu, FakeNvml, env_without_driver, h100, rtx_4090
from vramdesk.cli import main
from vramdesk.core.local.gpu_info import ERROR_MESSAGES, FAKE_ENV
from vramdesk.core.local.nvml import query_gpus, snapshot_to_dict
from vramdesk.core.speed import SPEED_KEYS
from vramdesk.core.units import MIB

GIB = 2**30
NO_DRIVER = ERROR_MESSAGES["no_driver"]
SHAPE = [
    "--params-b",
    "7",
    "--layers",
    "32",
    "--kv-heads",
    "8",
    "--head-dim",
    "128",
    "--context",
    "4096",
]


def _vramdesk(*argv, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k != FAKE_ENV}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "vramdesk", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_gpus_without_driver_in_a_real_process(tmp_path):
    proc = _vramdesk("gpus", env_extra=env_without_driver(tmp_path))
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"vramdesk: {NO_DRIVER}\n"


def test_gpus_json_without_driver_in_a_real_process(tmp_path):
    proc = _vramdesk("gpus", "--json", env_extra=env_without_driver(tmp_path))
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == {"error": {"kind": "no_driver", "message": NO_DRIVER}}


def test_solve_on_local_gpu_without_driver_exits_1(tmp_path):
    proc = _vramdesk("solve", *SHAPE, "--gpu", "local", env_extra=env_without_driver(tmp_path))
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", f"vramdesk: {NO_DRIVER}\n")


def test_gpus_json_exact_bytes_from_the_fake(monkeypatch, capsys):
    FakeNvml(monkeypatch, [rtx_4090(), h100()])
    assert main(["gpus", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["driver_version"] == "550.54.15" and data["cuda_driver_version"] == 12040
    # totals 24564 and 81559 MiB; used and free derived in tests/core/local/test_nvml.py
    rows = [(g["index"], g["total_bytes"], g["used_bytes"], g["free_bytes"]) for g in data["gpus"]]
    assert rows == [
        (0, 25757220864, 1394618425, GPU0_FREE),
        (1, 85520809984, 42496688128, GPU1_FREE),
    ]


def test_gpus_text_from_the_fake(monkeypatch, capsys):
    FakeNvml(monkeypatch, [rtx_4090(), h100()])
    assert main(["gpus"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Driver 550.54.15, CUDA 12.4, NVML 12.550.54.15"
    assert lines[2] == (
        "GPU 1: NVIDIA H100 80GB HBM3  total 81,559 MiB (79.65 GiB)  "
        "used 40,528 MiB (39.58 GiB)  free 41,031 MiB (40.07 GiB)"
    )


@pytest.mark.parametrize(
    ("code", "kind"),
    [("NVML_ERROR_NO_PERMISSION", "no_permission"), ("NVML_ERROR_GPU_IS_LOST", "gpu_lost")],
)
def test_gpus_json_error_mid_query(monkeypatch, capsys, code, kind):
    fake = FakeNvml(monkeypatch, [rtx_4090(), h100()])
    fake.fail("nvmlDeviceGetMemoryInfo", getattr(pynvml, code), gpu=1)
    assert main(["gpus", "--json"]) == 1
    out = capsys.readouterr().out
    error = json.loads(out)["error"]
    assert error["kind"] == kind and error["message"].startswith("GPU 1")


def test_gpus_hook_file_in_a_real_process(monkeypatch, tmp_path):
    FakeNvml(monkeypatch, [rtx_4090(), h100()])
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps(snapshot_to_dict(query_gpus())), encoding="utf-8")
    proc = _vramdesk("gpus", "--json", env_extra={FAKE_ENV: str(path)})
    assert proc.returncode == 0
    assert [g["free_bytes"] for g in json.loads(proc.stdout)["gpus"]] == [GPU0_FREE, GPU1_FREE]


def test_gpus_hook_error_in_a_real_process():
    proc = _vramdesk("gpus", env_extra={FAKE_ENV: "error:no_permission"})
    assert (proc.returncode, proc.stderr) == (1, f"vramdesk: {ERROR_MESSAGES['no_permission']}\n")


def _solve_json(capsys, *argv):
    assert main(["solve", *SHAPE, *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_solve_on_local_gpu_equals_the_same_custom_budget(monkeypatch, capsys):
    # free = 24 GiB - 1 GiB reserved - 3 GiB allocated = 20 GiB exactly = 21474836480 B
    FakeNvml(monkeypatch, [FakeGpu("Test 24G", 24 * GIB, GIB, 3 * GIB), h100()])
    local = _solve_json(capsys, "--gpu", "local")
    custom = _solve_json(capsys, "--vram-gib", "20")
    assert local["capacity_bytes"] == 20 * GIB == 21474836480
    assert local["budget"] == "local GPU 0 Test 24G: 20.00 GiB free now (20,480 MiB)"
    # the local GPU adds the speed keys (null: "Test 24G" is not in the catalog and its fake
    # driver reports no memory clock, so neither bandwidth nor peak is known)
    speed = {"budget", "speed_missing", *SPEED_KEYS}
    assert all(local[k] is None for k in SPEED_KEYS)
    assert local["speed_missing"] == ["memory bandwidth (GB/s)", "peak TFLOPS for fp16 weights"]
    assert {k: v for k, v in local.items() if k not in speed} == {
        k: v for k, v in custom.items() if k not in speed
    }


def test_solve_on_local_index_and_tp(monkeypatch, capsys):
    FakeNvml(monkeypatch, [rtx_4090(), h100()])
    assert _solve_json(capsys, "--gpu", "local:1")["capacity_bytes"] == GPU1_FREE
    # --tp 2 without an index: GPUs 0 and 1, each rank limited by GPU 0's free memory
    assert _solve_json(capsys, "--gpu", "local", "--tp", "2")["capacity_bytes"] == GPU0_FREE


def test_vllm_on_a_local_gpu_budgets_from_its_total_and_warns_when_too_little_is_free(
    monkeypatch, capsys
):
    # vLLM asks for 0.9 x total and refuses to start when less is free: the H100 fake has
    # 81559 - 528 - 40000 = 41031 MiB free < 0.9 x 81559 MiB, so the budget is the total and a
    # warning says vLLM would not start; the RTX 4090 (23234 MiB free > 0.9 x 24564) gives none.
    FakeNvml(monkeypatch, [rtx_4090(), h100()])
    out = _solve_json(capsys, "--gpu", "local:1", "--engine", "vllm")
    assert out["capacity_bytes"] == 81559 * MIB
    assert main(["solve", *SHAPE, "--gpu", "local:1", "--engine", "vllm"]) == 0
    assert (
        "GPU 1 has 40.07 GiB free, less than gpu_memory_utilization 0.9" in capsys.readouterr().err
    )
    assert main(["solve", *SHAPE, "--gpu", "local:0", "--engine", "vllm"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--gpu", "local:2"], "gpu: no local GPU 2 (GPUs present: 0, 1)"),
        (["--gpu", "local:x"], "gpu: expected local, local:INDEX or local:I,J,..."),
        (["--gpu", "local", "--tp", "4"], "gpu: --tp 4 needs 4 local GPUs; 2 present"),
    ],
)
def test_solve_on_local_bad_index_exits_2(monkeypatch, capsys, argv, message):
    FakeNvml(monkeypatch, [rtx_4090(), h100()])
    assert main(["solve", *SHAPE, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
