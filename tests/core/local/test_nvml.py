"""query_gpus and the budget helpers, against the real binding and a fake at the pynvml boundary.

The fake's devices (tests/fake_nvml.py), in bytes (MiB = 2**20):
  GPU 0 "RTX 4090": total 24564 MiB = 25757220864; reserved 330 MiB; allocated 1000 MiB + 12345
        free = (24564 - 330 - 1000) MiB - 12345 = 23234 * 1048576 - 12345 = 24362602439
        used = total - free = 1330 MiB + 12345 = 1394618425
  GPU 1 "H100": total 81559 MiB = 85520809984; reserved 528 MiB; allocated 40000 MiB
        free = 41031 MiB = 43024121856; used = 40528 MiB = 42496688128
"""

from __future__ import annotations

import json

import pynvml
import pytest

from tests.fake_nvml import FakeNvml, a100_mig, h100, rtx_4090, without_driver
from vramdesk.core.errors import InputError
from vramdesk.core.local.budget import (
    fits_now,
    local_budget_bytes,
    local_gpu_budget,
    local_per_gpu_bytes,
    parse_local_gpu,
)
from vramdesk.core.local.gpu_info import (
    ERROR_KINDS,
    ERROR_MESSAGES,
    FAKE_ENV,
    GpuQueryError,
    NvmlSnapshot,
)
from vramdesk.core.local.nvml import cuda_version_text, gpus_text, query_gpus, snapshot_to_dict

MIB = 2**20
GPU0_FREE = 24362602439
GPU1_FREE = 43024121856


@pytest.fixture
def two_gpus(monkeypatch):
    return FakeNvml(monkeypatch, [rtx_4090(), h100()])


def test_real_binding_without_driver_says_no_driver(monkeypatch):
    without_driver(monkeypatch)  # the real binding's own error where no driver is installed
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert info.value.kind == "no_driver"
    assert str(info.value) == (
        "No NVIDIA driver found: the NVML library (libnvidia-ml.so.1) is not "
        "installed. vramdesk works without a GPU; estimates are unaffected."
    )


def test_two_gpus_exact_bytes(two_gpus):
    snap = query_gpus()
    assert (snap.driver_version, snap.nvml_version, snap.cuda_driver_version) == (
        "550.54.15",
        "12.550.54.15",
        12040,
    )
    g0, g1 = snap.gpus
    assert (g0.index, g0.name, g0.uuid) == (
        0,
        "NVIDIA GeForce RTX 4090",
        "GPU-4090aaaa-0000-0000-0000-000000000000",
    )
    assert (g0.total_bytes, g0.used_bytes, g0.free_bytes, g0.reserved_bytes) == (
        25757220864,
        1394618425,
        GPU0_FREE,
        330 * MIB,
    )
    assert (g1.index, g1.name) == (1, "NVIDIA H100 80GB HBM3")
    assert (g1.total_bytes, g1.used_bytes, g1.free_bytes, g1.reserved_bytes) == (
        85520809984,
        42496688128,
        GPU1_FREE,
        528 * MIB,
    )
    assert g0.mig_mode is None and g0.mig_note is None and g0.mig_instances == ()
    assert two_gpus.calls[0] == "nvmlInit" and two_gpus.calls[-1] == "nvmlShutdown"
    assert two_gpus.initialized == 0


def test_memory_v1_fallback_gives_same_used_free_and_no_reserved(monkeypatch):
    FakeNvml(monkeypatch, [rtx_4090(), h100()], memory_v2=False)
    g0, g1 = query_gpus().gpus
    # v1 used = reserved + allocated = 1330 MiB + 12345; the same numbers as v2, reserved unknown
    assert (g0.total_bytes, g0.used_bytes, g0.free_bytes, g0.reserved_bytes) == (
        25757220864,
        1394618425,
        GPU0_FREE,
        None,
    )
    assert (g1.used_bytes, g1.free_bytes) == (42496688128, GPU1_FREE)


def test_processes_with_unknown_memory_and_hidden_name(two_gpus):
    g0, g1 = query_gpus().gpus
    assert [(p.pid, p.used_bytes, p.name) for p in g0.processes] == [
        (4242, 1000 * MIB + 12345, "python4242")
    ]
    # pid 5001: NVML gives no per-process memory (None) and refuses its name (NoPermission)
    assert [(p.pid, p.used_bytes, p.name) for p in g1.processes] == [
        (5000, 30000 * MIB, "python5000"),
        (5001, None, None),
    ]
    assert g0.processes_note is None


@pytest.mark.parametrize("code", ["NVML_ERROR_NOT_SUPPORTED", "NVML_ERROR_NO_PERMISSION"])
def test_processes_refused_is_a_note_not_an_error(monkeypatch, code):
    gpu = h100()
    gpu.processes_error = getattr(pynvml, code)
    FakeNvml(monkeypatch, [rtx_4090(), gpu])
    g1 = query_gpus().gpus[1]
    assert g1.processes == ()
    nvml_text = pynvml.NVMLError(gpu.processes_error)
    assert g1.processes_note == f"The driver would not list the processes ({nvml_text})."
    assert g1.free_bytes == GPU1_FREE


def test_gpu_lost_while_listing_processes_is_an_error(monkeypatch):
    gpu = h100()
    gpu.processes_error = pynvml.NVML_ERROR_GPU_IS_LOST
    fake = FakeNvml(monkeypatch, [rtx_4090(), gpu])
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert (info.value.kind, info.value.gpu_index) == ("gpu_lost", 1)
    assert str(info.value) == (
        "GPU 1 stopped answering while reading its processes (NVML: GPU is lost)."
    )
    assert fake.initialized == 0


INIT_CASES = [
    ("NVML_ERROR_LIBRARY_NOT_FOUND", "no_driver"),
    ("NVML_ERROR_DRIVER_NOT_LOADED", "driver_not_loaded"),
    ("NVML_ERROR_NO_PERMISSION", "no_permission"),
    ("NVML_ERROR_GPU_IS_LOST", "gpu_lost"),
    ("NVML_ERROR_NOT_SUPPORTED", "not_supported"),
    ("NVML_ERROR_LIB_RM_VERSION_MISMATCH", "driver_mismatch"),
    ("NVML_ERROR_UNINITIALIZED", "unknown"),
    ("NVML_ERROR_UNKNOWN", "unknown"),
]


@pytest.mark.parametrize(("code", "kind"), INIT_CASES)
def test_error_at_init(two_gpus, code, kind):
    two_gpus.fail("nvmlInit", getattr(pynvml, code))
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert info.value.kind == kind
    assert info.value.gpu_index is None
    expected = ERROR_MESSAGES[kind]
    if kind == "unknown":
        expected += f" (NVML: {pynvml.NVMLError(getattr(pynvml, code))})"
    assert str(info.value) == expected
    assert "nvmlShutdown" not in two_gpus.calls  # nothing to shut down after a failed init


@pytest.mark.parametrize(("code", "kind"), INIT_CASES)
def test_error_mid_query_on_gpu_1(two_gpus, code, kind):
    two_gpus.fail("nvmlDeviceGetMemoryInfo", getattr(pynvml, code), gpu=1)
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    err = info.value
    assert (err.kind, err.gpu_index) == (kind, 1)
    nvml_text = str(pynvml.NVMLError(getattr(pynvml, code)))
    if kind == "gpu_lost":
        assert str(err) == f"GPU 1 stopped answering while reading its memory (NVML: {nvml_text})."
    else:
        assert str(err) == f"GPU 1, reading its memory: {ERROR_MESSAGES[kind]} (NVML: {nvml_text})"
    assert two_gpus.calls[-1] == "nvmlShutdown" and two_gpus.initialized == 0


def test_zero_devices_is_no_gpu(monkeypatch):
    fake = FakeNvml(monkeypatch, [])
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert info.value.kind == "no_gpu"
    assert str(info.value) == "The NVIDIA driver is loaded but reports no GPU."
    assert fake.initialized == 0


def test_failed_shutdown_does_not_hide_the_snapshot(two_gpus):
    two_gpus.fail("nvmlShutdown", pynvml.NVML_ERROR_UNKNOWN)
    assert [g.free_bytes for g in query_gpus().gpus] == [GPU0_FREE, GPU1_FREE]


def test_missing_binding_is_no_binding(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pynvml", None)
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert info.value.kind == "no_binding"


def test_mig_enabled_gpu_lists_its_instances(monkeypatch):
    FakeNvml(monkeypatch, [a100_mig()])
    (gpu,) = query_gpus().gpus
    assert gpu.mig_mode is True
    # 7 slots, 2 instances of 40192 MiB with 1024 MiB allocated: free 39168 MiB
    rows = [(m.index, m.uuid, m.total_bytes, m.used_bytes, m.free_bytes) for m in gpu.mig_instances]
    assert rows == [
        (0, "MIG-0", 40192 * MIB, 1024 * MIB, 39168 * MIB),
        (1, "MIG-1", 40192 * MIB, 1024 * MIB, 39168 * MIB),
    ]
    assert gpu.mig_note == (
        "MIG is enabled: 2 instance(s); an engine sees one instance, not the whole GPU."
    )
    assert (gpu.total_bytes, gpu.free_bytes) == (81920 * MIB, (81920 - 2048) * MIB)


def test_mig_instances_unlisted_shows_the_parent_only(monkeypatch):
    fake = FakeNvml(monkeypatch, [a100_mig()])
    fake.fail("nvmlDeviceGetMaxMigDeviceCount", pynvml.NVML_ERROR_NO_PERMISSION)
    (gpu,) = query_gpus().gpus
    assert (gpu.mig_mode, gpu.mig_instances) == (True, ())
    assert gpu.mig_note == (
        "MIG is enabled; its instances could not be listed, only the parent is shown."
    )


def test_mig_disabled(monkeypatch):
    gpu = a100_mig()
    gpu.mig_mode = pynvml.NVML_DEVICE_MIG_DISABLE
    FakeNvml(monkeypatch, [gpu])
    assert query_gpus().gpus[0].mig_mode is False


def test_budget_helpers_exact(two_gpus):
    snap = query_gpus()
    assert local_budget_bytes(snap, [0], "free") == GPU0_FREE
    # 24362602439 + 43024121856 = 67386724295
    assert local_budget_bytes(snap, [0, 1], "free") == 67386724295
    # (24564 + 81559) MiB = 106123 * 1048576 = 111278030848
    assert local_budget_bytes(snap, [0, 1], "total") == 111278030848
    assert local_per_gpu_bytes(snap, [0, 1], "free") == GPU0_FREE
    assert local_per_gpu_bytes(snap, [1], "total") == 85520809984


def test_budget_helpers_refuse_missing_gpu(two_gpus):
    snap = query_gpus()
    with pytest.raises(InputError) as info:
        local_budget_bytes(snap, [0, 2], "free")
    assert info.value.field == "gpu"
    assert str(info.value) == "gpu: no local GPU 2 (GPUs present: 0, 1)"
    with pytest.raises(InputError):
        local_per_gpu_bytes(snap, [], "free")
    with pytest.raises(InputError):
        local_budget_bytes(snap, [0], "used")


def test_fits_now_texts(two_gpus):
    free = local_budget_bytes(query_gpus(), [0], "free")
    # 20 GiB = 21474836480; margin 24362602439 - 21474836480 = 2887765959 B = 2.689 GiB;
    # free 24362602439 / 2**30 = 22.689 GiB
    v = fits_now(20 * 2**30, free)
    assert (v.fits, v.margin_bytes) == (True, 2887765959)
    assert v.text == "Fits in the 22.69 GiB free right now with 2.69 GiB to spare"
    # 24 GiB = 25769803776; short by 25769803776 - 24362602439 = 1407201337 B = 1.311 GiB
    v = fits_now(24 * 2**30, free)
    assert (v.fits, v.margin_bytes) == (False, -1407201337)
    assert v.text == "Needs 1.31 GiB more than is free right now"
    assert fits_now(free, free).fits is True


def test_snapshot_to_dict_is_exact_json(two_gpus):
    data = json.loads(json.dumps(snapshot_to_dict(query_gpus())))
    assert [g["free_bytes"] for g in data["gpus"]] == [GPU0_FREE, GPU1_FREE]
    assert data["gpus"][1]["processes"][1] == {"pid": 5001, "used_bytes": None, "name": None}


def test_fake_hook_round_trip_without_touching_pynvml(two_gpus, tmp_path, monkeypatch):
    snap = query_gpus()
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps(snapshot_to_dict(snap)), encoding="utf-8")
    calls = len(two_gpus.calls)
    monkeypatch.setenv(FAKE_ENV, str(path))
    assert query_gpus() == snap
    assert len(two_gpus.calls) == calls


def test_fake_hook_minimal_file(tmp_path, monkeypatch):
    path = tmp_path / "gpus.json"
    path.write_text(
        json.dumps(
            {
                "driver_version": "1",
                "nvml_version": "2",
                "gpus": [
                    {
                        "index": 0,
                        "name": "Demo",
                        "total_bytes": 100,
                        "used_bytes": 40,
                        "free_bytes": 60,
                    }
                ],
            }
        )
    )
    monkeypatch.setenv(FAKE_ENV, str(path))
    snap = query_gpus()
    assert isinstance(snap, NvmlSnapshot) and snap.cuda_driver_version is None
    assert (snap.gpus[0].free_bytes, snap.gpus[0].processes, snap.gpus[0].uuid) == (60, (), "")


@pytest.mark.parametrize("kind", ERROR_KINDS)
def test_fake_hook_error_kinds(monkeypatch, kind):
    monkeypatch.setenv(FAKE_ENV, f"error:{kind}")
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert (info.value.kind, str(info.value)) == (kind, ERROR_MESSAGES[kind])


GPU_X = '{"driver_version": "1", "nvml_version": "2", "gpus": [{"index": 0, "name": "x", '


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{", "is not JSON"),
        ('{"driver_version": "1", "nvml_version": "2"}', "snapshot: missing field 'gpus'"),
        (
            GPU_X + '"total_bytes": -1, "used_bytes": 0, "free_bytes": 0}]}',
            "gpus[0].total_bytes: -1 is not a valid value",
        ),
        (
            GPU_X + '"total_bytes": 1, "used_bytes": 1.5, "free_bytes": 0}]}',
            "gpus[0].used_bytes: 1.5 is not a valid value",
        ),
        (
            GPU_X + '"total_bytes": 1, "used_bytes": 1, "free_bytes": 1}]}',
            "used_bytes + free_bytes exceeds total_bytes",
        ),
        (
            '{"driver_version": "1", "nvml_version": "2", "gpus": [], "evil": 1}',
            "unknown field 'evil'",
        ),
    ],
)
def test_fake_hook_bad_file(tmp_path, monkeypatch, content, reason):
    path = tmp_path / "gpus.json"
    path.write_text(content, encoding="utf-8")
    monkeypatch.setenv(FAKE_ENV, str(path))
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert info.value.kind == "unknown"
    assert str(info.value).startswith(f"{FAKE_ENV}: ") and reason in str(info.value)


def test_fake_hook_refuses_large_file_and_unknown_kind(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    path.write_bytes(b" " * ((1 << 20) + 1))
    monkeypatch.setenv(FAKE_ENV, str(path))
    with pytest.raises(GpuQueryError, match="larger than 1048576 bytes"):
        query_gpus()
    monkeypatch.setenv(FAKE_ENV, "error:meltdown")
    with pytest.raises(GpuQueryError, match="unknown error kind 'meltdown'"):
        query_gpus()


def test_unexpected_exception_from_the_binding_becomes_unknown(two_gpus, monkeypatch):
    def broken(handle):
        raise RuntimeError("ctypes said no")

    monkeypatch.setattr(pynvml, "nvmlDeviceGetName", broken)
    with pytest.raises(GpuQueryError) as info:
        query_gpus()
    assert info.value.kind == "unknown"
    assert str(info.value) == "NVML failed with an unexpected error. (RuntimeError: ctypes said no)"
    assert two_gpus.initialized == 0


def test_cuda_version_text():
    # NVML encodes CUDA 12.4 as 12 * 1000 + 4 * 10 = 12040; 11.8 as 11080
    assert [cuda_version_text(v) for v in (12040, 11080, None)] == ["12.4", "11.8", ""]


@pytest.mark.parametrize(
    ("text", "tp", "indices"),
    [
        ("local", 1, (0,)),
        ("LOCAL", 2, (0, 1)),
        ("local:1", 1, (1,)),
        ("local:0,2", 2, (0, 2)),
        ("H100 SXM", 1, None),
        ("localhost", 1, None),
    ],
)
def test_parse_local_gpu(text, tp, indices):
    assert parse_local_gpu(text, tp) == indices


@pytest.mark.parametrize("text", ["local:", "local:x", "local:-1", "local:1,1", "local:1.5"])
def test_parse_local_gpu_refuses(text):
    with pytest.raises(InputError) as info:
        parse_local_gpu(text)
    assert info.value.field == "gpu"


@pytest.mark.parametrize(("text", "tp"), [("local:1", 4), ("local:0,1", 4), ("local:0,2", 1)])
def test_named_local_gpus_must_be_one_tp_group(text, tp):
    # the solver sizes one GPU of a TP group: --tp 4 with one or two named GPUs cannot be budgeted
    with pytest.raises(InputError, match="needs"):
        parse_local_gpu(text, tp)


def test_local_gpu_budget(two_gpus):
    assert local_gpu_budget("H100 SXM") is None
    assert "nvmlInit" not in two_gpus.calls  # a catalog name never touches NVML
    # GPU 0 free 24362602439 B = 22.69 GiB = 23233.99 MiB
    assert local_gpu_budget("local") == (
        "local GPU 0 NVIDIA GeForce RTX 4090: 22.69 GiB free now (23,234 MiB)",
        GPU0_FREE,
    )
    assert local_gpu_budget("local:1") == (
        "local GPU 1 NVIDIA H100 80GB HBM3: 40.07 GiB free now (41,031 MiB)",
        GPU1_FREE,
    )
    # TP 2 on GPUs 0 and 1: each rank gets the smaller free memory, GPU 0's
    label, capacity = local_gpu_budget("local", tp=2)
    assert capacity == GPU0_FREE and label.endswith("(23,234 MiB, the least of these GPUs)")
    with pytest.raises(InputError, match="--tp 4 needs 4 local GPUs; 2 present"):
        local_gpu_budget("local", tp=4)
    with pytest.raises(InputError, match=r"no local GPU 3 \(GPUs present: 0, 1\)"):
        local_gpu_budget("local:3")


def test_local_gpu_budget_without_driver_raises_query_error(monkeypatch):
    monkeypatch.setenv(FAKE_ENV, "error:no_driver")
    with pytest.raises(GpuQueryError) as info:
        local_gpu_budget("local")
    assert info.value.kind == "no_driver"


def test_gpus_text(monkeypatch):
    FakeNvml(monkeypatch, [rtx_4090(), a100_mig()])
    # 24564 MiB = 23.99 GiB; used 1394618425 B = 1330.01 MiB = 1.30 GiB; free 23233.99 MiB
    # A100: 81920 MiB = 80.00 GiB, used 2048 MiB, free 79872 MiB = 78.00 GiB;
    # MIG 40192 MiB = 39.25 GiB, free 39168 MiB = 38.25 GiB
    assert gpus_text(query_gpus()).splitlines() == [
        "Driver 550.54.15, CUDA 12.4, NVML 12.550.54.15",
        "GPU 0: NVIDIA GeForce RTX 4090  total 24,564 MiB (23.99 GiB)  used 1,330 MiB (1.30 GiB)  "
        "free 23,234 MiB (22.69 GiB)",
        "GPU 1: NVIDIA A100 80GB PCIe  total 81,920 MiB (80.00 GiB)  used 2,048 MiB (2.00 GiB)  "
        "free 79,872 MiB (78.00 GiB)",
        "  MIG 0: total 40,192 MiB (39.25 GiB)  free 39,168 MiB (38.25 GiB)",
        "  MIG 1: total 40,192 MiB (39.25 GiB)  free 39,168 MiB (38.25 GiB)",
        "  MIG is enabled: 2 instance(s); an engine sees one instance, not the whole GPU.",
    ]


@pytest.mark.parametrize(
    "code", ["NVML_ERROR_ARGUMENT_VERSION_MISMATCH", "NVML_ERROR_NOT_SUPPORTED"]
)
def test_memory_v2_refused_falls_back_to_v1(monkeypatch, code):
    fake = FakeNvml(monkeypatch, [rtx_4090()])
    v1 = fake.nvmlDeviceGetMemoryInfo

    def memory(handle, version=None):
        if version:
            raise pynvml.NVMLError(getattr(pynvml, code))
        return v1(handle)

    monkeypatch.setattr(pynvml, "nvmlDeviceGetMemoryInfo", memory)
    (gpu,) = query_gpus().gpus
    assert (gpu.used_bytes, gpu.free_bytes, gpu.reserved_bytes) == (1394618425, GPU0_FREE, None)
