"""Answers real drivers give that the first fake did not: MIG parents, GPUs with no process,
NOT_SUPPORTED fields, and the v2 memory struct (issue 26).

The fake is tests/fake_nvml.py; figures (MiB = 2**20):
  a100_mig(): parent 81920 MiB, 2048 MiB allocated; two 3g.40gb instances of 40192 MiB, each
              with 1024 MiB allocated, so 39168 MiB free; five empty slots of seven.
  rtx_4090(): free 24362602439 B (tests/core/test_nvml.py).

Sources of the answers:
* A MIG parent read without administrator rights (or inside a container given one MIG
  device) refuses its memory with NVML_ERROR_NO_PERMISSION while its instances answer:
  the NVML reference says aggregate figures come "only if the caller has appropriate
  privileges"; ``nvidia-smi -q`` then prints "Insufficient Permissions" for the parent's
  FB memory and real figures for each MIG device (IDSIA/sacred#864,
  NVIDIA/nvidia-container-toolkit#842).
* A CUDA process sees one MIG instance, never the whole GPU (NVIDIA MIG user guide).
* nvidia-smi on R510+ drivers (v2 memory API) shows ``used`` without the reserved memory;
  v1's used includes it (rust-nvml/nvml-wrapper#57: 912 MB v1 vs 7.8 MB v2 on an A100).
* Integrated GPUs (Jetson, DGX Spark's GB10) answer NOT_SUPPORTED to the memory calls.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pynvml
import pytest

from tests.core.local.test_nvml import GPU0_FREE
from tests.fake_nvml import MIB, FakeGpu, FakeNvml, a100_mig, h100, rtx_4090
from vramdesk.cli import main
from vramdesk.core.local.budget import engine_local_budget, local_budget_bytes, local_gpu_budget
from vramdesk.core.local.gpu_info import GpuQueryError
from vramdesk.core.local.nvml import gpus_text, query_gpus, snapshot_to_dict

NO_PERMISSION = pynvml.NVML_ERROR_NO_PERMISSION
NOT_SUPPORTED = pynvml.NVML_ERROR_NOT_SUPPORTED
INSTANCE_TOTAL, INSTANCE_FREE = 40192 * MIB, 39168 * MIB


def mig_parent_for_a_user() -> FakeGpu:
    """The A100 in MIG mode as a non-administrator reads it: no parent memory, no processes."""
    gpu = a100_mig()
    gpu.memory_error = NO_PERMISSION
    gpu.processes_error = NO_PERMISSION
    return gpu


# ------------------------------------------------------------------ MIG


def test_mig_parent_refusing_its_memory_is_shown_from_its_instances(monkeypatch):
    # before issue 26 the whole query failed: "Permission denied reading the NVIDIA GPUs
    # (check access to /dev/nvidia*)", although every instance could be read
    FakeNvml(monkeypatch, [rtx_4090(), mig_parent_for_a_user()])
    g0, g1 = query_gpus().gpus
    assert g0.free_bytes == GPU0_FREE
    # 2 x 40192 MiB total, 2 x 39168 MiB free, 2 x 1024 MiB used
    assert (g1.total_bytes, g1.free_bytes, g1.used_bytes) == (
        80384 * MIB,
        78336 * MIB,
        2048 * MIB,
    )
    assert g1.reserved_bytes is None and g1.mig_mode is True
    assert [m.free_bytes for m in g1.mig_instances] == [INSTANCE_FREE, INSTANCE_FREE]
    assert g1.mig_note == (
        "MIG is enabled: 2 instance(s); an engine sees one instance, not the whole GPU. "
        "The driver shows the whole GPU's memory only to an administrator: these figures "
        "are the sum of its 2 instance(s)."
    )
    assert g1.processes == () and g1.processes_note == (
        f"The driver would not list the processes ({pynvml.NVMLError(NO_PERMISSION)})."
    )


def test_mig_parent_refused_with_no_readable_instance_says_so(monkeypatch):
    fake = FakeNvml(monkeypatch, [mig_parent_for_a_user()])
    fake.fail("nvmlDeviceGetMaxMigDeviceCount", NO_PERMISSION)
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert (info.value.kind, info.value.gpu_index) == ("no_permission", 0)
    assert str(info.value) == (
        "GPU 0 is in MIG mode: the driver shows the whole GPU's memory only to an "
        "administrator, and none of its MIG instances could be read."
    )
    assert fake.initialized == 0


def test_a_refused_memory_outside_mig_is_still_an_error(monkeypatch):
    gpu = h100()
    gpu.memory_error = NO_PERMISSION
    FakeNvml(monkeypatch, [rtx_4090(), gpu])
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert (info.value.kind, info.value.gpu_index) == ("no_permission", 1)
    assert str(info.value).startswith("GPU 1, reading its memory: Permission denied")


def test_mig_parent_lost_is_still_lost(monkeypatch):
    gpu = a100_mig()
    gpu.memory_error = pynvml.NVML_ERROR_GPU_IS_LOST
    FakeNvml(monkeypatch, [gpu])
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert info.value.kind == "gpu_lost"


def _one_visible_instance() -> FakeGpu:
    """A container given one MIG device: the parent refuses, one slot of seven answers."""
    gpu = mig_parent_for_a_user()
    gpu.mig_slots = [None, None, gpu.mig_slots[1], None, None, None, None]
    return gpu


def test_container_with_one_mig_instance_budgets_that_instance(monkeypatch, capsys):
    FakeNvml(monkeypatch, [_one_visible_instance()])
    (gpu,) = query_gpus().gpus
    assert (gpu.total_bytes, gpu.free_bytes) == (INSTANCE_TOTAL, INSTANCE_FREE)
    assert [(m.index, m.uuid) for m in gpu.mig_instances] == [(2, "MIG-1")]
    # 39168 MiB = 38.25 GiB
    assert local_gpu_budget("local")[1] == INSTANCE_FREE
    assert main(["gpus"]) == 0
    assert "GPU 0: NVIDIA A100 80GB PCIe  total 40,192 MiB" in capsys.readouterr().out


def _mig_with_a_fuller_instance() -> FakeGpu:
    """The A100 in MIG mode, read by root; instance 0 holds 10000 MiB, instance 1 1024 MiB."""
    gpu = a100_mig()
    gpu.mig_slots[0].allocated_bytes = 10000 * MIB  # free 40192 - 10000 = 30192 MiB
    return gpu


def test_mig_gpu_budget_is_the_instance_an_engine_gets(monkeypatch, capsys):
    # a CUDA process sees one MIG instance: the parent's 79872 MiB free is not a budget
    # (before issue 26, solve --gpu local took it); the instance with the most free is
    FakeNvml(monkeypatch, [rtx_4090(), _mig_with_a_fuller_instance()])
    snap = query_gpus()
    assert snap.gpus[1].free_bytes == (81920 - 2048) * MIB  # the panel still shows the GPU
    assert local_budget_bytes(snap, [1], "free") == INSTANCE_FREE
    # 39168 MiB = 38.25 GiB; 40192 MiB = 39.25 GiB
    assert local_gpu_budget("local:1") == (
        "local GPU 1 NVIDIA A100 80GB PCIe MIG 1: 38.25 GiB free now (39,168 MiB)",
        INSTANCE_FREE,
    )
    # vLLM asks for 0.9 x 40192 MiB = 36172.8 MiB of the instance; 39168 MiB are free
    assert engine_local_budget("local:1", 1, Fraction(9, 10)) == (
        "local GPU 1 NVIDIA A100 80GB PCIe MIG 1: 39.25 GiB total (40,192 MiB)",
        INSTANCE_TOTAL,
        None,
    )
    argv = ["solve", "--preset", "qwen2.5-0.5b", "--context", "1024", "--json"]
    assert main([*argv, "--gpu", "local:1"]) == 0
    assert json.loads(capsys.readouterr().out)["capacity_bytes"] == INSTANCE_FREE


def test_vllm_warns_when_the_mig_instance_has_too_little_free(monkeypatch):
    gpu = _mig_with_a_fuller_instance()
    gpu.mig_slots[1].allocated_bytes = 10000 * MIB  # both instances 30192 MiB free
    FakeNvml(monkeypatch, [gpu])
    label, total, warning = engine_local_budget("local", 1, Fraction(9, 10))
    assert (label, total) == (
        "local GPU 0 NVIDIA A100 80GB PCIe MIG 0: 39.25 GiB total (40,192 MiB)",
        INSTANCE_TOTAL,
    )
    # 30192 MiB = 29.48 GiB free < 0.9 x 39.25 GiB = 35.33 GiB
    assert warning.startswith("GPU 0 has 29.48 GiB free, less than gpu_memory_utilization 0.9")


def test_mig_gpu_with_no_instance_keeps_the_parent_budget(monkeypatch):
    gpu = a100_mig()
    gpu.mig_slots = [None] * 7
    FakeNvml(monkeypatch, [gpu])
    assert local_gpu_budget("local")[1] == (81920 - 2048) * MIB


# ------------------------------------------------------------------ no processes


def test_a_gpu_with_no_process_has_no_process_and_no_note(monkeypatch):
    gpu = rtx_4090()
    gpu.processes = []  # the real binding returns [] when the count is 0
    FakeNvml(monkeypatch, [gpu])
    snap = query_gpus()
    (g,) = snap.gpus
    assert (g.processes, g.processes_note, g.free_bytes) == ((), None, GPU0_FREE)
    assert json.loads(json.dumps(snapshot_to_dict(snap)))["gpus"][0]["processes"] == []
    assert len(gpus_text(snap).splitlines()) == 2  # the driver line and the GPU line, no note


# ------------------------------------------------------------------ NOT_SUPPORTED


def _nvml_text() -> str:
    return str(pynvml.NVMLError(NOT_SUPPORTED))


@pytest.mark.parametrize(
    ("function", "gpus", "field", "value"),
    [
        ("nvmlSystemGetNVMLVersion", [rtx_4090], "nvml_version", ""),
        ("nvmlSystemGetCudaDriverVersion", [rtx_4090], "cuda_driver_version", None),
        ("nvmlDeviceGetMigMode", [a100_mig], "mig", (None, None, ())),
        (
            "nvmlDeviceGetMaxMigDeviceCount",
            [a100_mig],
            "mig",
            (
                True,
                "MIG is enabled; its instances could not be listed, only the parent is shown.",
                (),
            ),
        ),
        ("nvmlDeviceGetComputeRunningProcesses", [rtx_4090], "processes", ()),
        ("nvmlSystemGetProcessName", [rtx_4090], "process_names", [None]),
    ],
)
def test_not_supported_optional_fields_leave_the_memory(monkeypatch, function, gpus, field, value):
    fake = FakeNvml(monkeypatch, [make() for make in gpus])
    fake.fail(function, NOT_SUPPORTED)
    snap = query_gpus()
    g = snap.gpus[0]
    got = {
        "nvml_version": snap.nvml_version,
        "cuda_driver_version": snap.cuda_driver_version,
        "mig": (g.mig_mode, g.mig_note, g.mig_instances),
        "processes": g.processes,
        "process_names": [p.name for p in g.processes],
    }[field]
    assert got == value
    assert g.used_bytes + g.free_bytes == g.total_bytes and g.free_bytes > 0
    if function == "nvmlDeviceGetComputeRunningProcesses":
        assert g.processes_note == f"The driver would not list the processes ({_nvml_text()})."


def test_memory_not_supported_at_all_is_one_plain_line(monkeypatch, capsys):
    # integrated GPUs (Jetson, DGX Spark's GB10) answer NOT_SUPPORTED to both memory calls
    gpu = FakeGpu("NVIDIA GB10", 128 * 1024 * MIB, 0, 0, memory_error=NOT_SUPPORTED)
    FakeNvml(monkeypatch, [gpu])
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert (info.value.kind, info.value.gpu_index) == ("not_supported", 0)
    assert str(info.value) == (
        "GPU 0, reading its memory: This GPU or driver does not report memory through NVML. "
        f"(NVML: {_nvml_text()})"
    )
    assert main(["gpus"]) == 1
    assert capsys.readouterr().err == f"vramdesk: {info.value}\n"


# ------------------------------------------------------------------ the v2 memory struct


def test_v2_memory_of_an_idle_h100_on_a_new_driver(monkeypatch):
    # R535 on an idle H100 (nvidia-smi -q): Total 81559 MiB, Reserved 528 MiB, Used 0 MiB,
    # Free 81031 MiB; v2 says used 0 (allocated only), v1 says used 528 MiB (reserved included)
    fake = FakeNvml(monkeypatch, [FakeGpu("NVIDIA H100 80GB HBM3", 81559 * MIB, 528 * MIB, 0)])
    versions = []
    answer = fake.nvmlDeviceGetMemoryInfo

    def memory(handle, version=None):
        versions.append(version)
        return answer(handle, version)

    monkeypatch.setattr(pynvml, "nvmlDeviceGetMemoryInfo", memory)
    (g,) = query_gpus().gpus
    assert versions == [pynvml.nvmlMemory_v2]  # the binding's struct version, asked once
    assert (g.total_bytes, g.free_bytes, g.reserved_bytes) == (
        81559 * MIB,
        81031 * MIB,
        528 * MIB,
    )
    assert g.used_bytes == 528 * MIB  # total - free: reserved + allocated, as v1 reports it


def test_binding_without_the_v2_struct_reads_v1(monkeypatch):
    # nvidia-ml-py before 11.510 has no nvmlMemory_v2: the v1 call, reserved unknown
    FakeNvml(monkeypatch, [rtx_4090()])
    monkeypatch.delattr(pynvml, "nvmlMemory_v2")
    (g,) = query_gpus().gpus
    assert (g.free_bytes, g.reserved_bytes) == (GPU0_FREE, None)


def test_mig_instances_without_v2_are_read_with_v1(monkeypatch):
    fake = FakeNvml(monkeypatch, [a100_mig()])
    answer = fake.nvmlDeviceGetMemoryInfo

    def memory(handle, version=None):
        if version and handle[0].uuid.startswith("MIG-"):
            raise pynvml.NVMLError(NOT_SUPPORTED)
        return answer(handle, version)

    monkeypatch.setattr(pynvml, "nvmlDeviceGetMemoryInfo", memory)
    (g,) = query_gpus().gpus
    assert [(m.total_bytes, m.free_bytes) for m in g.mig_instances] == [
        (INSTANCE_TOTAL, INSTANCE_FREE)
    ] * 2
    assert g.reserved_bytes == 0  # the parent answered v2
