"""tools/gpu_check.py without a GPU: its comparisons on hand-written readings, and whole runs
against a stand-in driver (issue 26).

The readings are those of tests/fake_nvml.py's RTX 4090 (MiB = 2**20): total 24564 MiB =
25757220864 B, reserved 330 MiB, allocated 1000 MiB + 12345 B, so free 24362602439 B (23234
MiB less 12345 B) and vramdesk's used = total - free = 1330 MiB + 12345 B = 1394618425 B.
nvidia-smi on a v2 driver shows used without the reserved part: 1000 MiB.

The whole runs start the tool in a child Python whose ``pynvml`` is patched by a
``sitecustomize`` with :class:`tests.fake_nvml.FakeNvml` (every child the tool starts, the
vramdesk CLI and window included, sees the same stand-in driver), with a stand-in
``nvidia-smi`` on ``PATH`` and, for the allocation check, a stand-in ``torch`` whose
allocations the stand-in driver counts through a file.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fake_nvml import env_without_driver

ROOT = Path(__file__).resolve().parents[2]
MIB, GIB = 2**20, 2**30


def _load_tool():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "tools" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


gc = _load_tool()

UUID0 = "GPU-4090aaaa-0000-0000-0000-000000000000"
UUID1 = "GPU-h100bbbb-0000-0000-0000-000000000000"
TOTAL0, FREE0, RESERVED0 = 24564 * MIB, 24362602439, 330 * MIB
SMI_TEXT = (
    f"0, NVIDIA GeForce RTX 4090, {UUID0}, 24564, 1000, 23234, 550.54.15\n"
    f"1, NVIDIA H100 80GB HBM3, {UUID1}, 81559, 40000, 41031, 550.54.15\n"
)


def vd_gpu(free=FREE0, reserved=RESERVED0, **changes):
    """GPU 0 as ``vramdesk gpus --json`` gives it (used = total - free)."""
    gpu = {
        "index": 0,
        "name": "NVIDIA GeForce RTX 4090",
        "uuid": UUID0,
        "total_bytes": TOTAL0,
        "used_bytes": TOTAL0 - free,
        "free_bytes": free,
        "reserved_bytes": reserved,
        "mig_mode": None,
    }
    return {**gpu, **changes}


def reading(**changes):
    """GPU 0 as pynvml answers (the v2 call)."""
    fields = {
        "index": 0,
        "name": "NVIDIA GeForce RTX 4090",
        "uuid": UUID0,
        "total_bytes": TOTAL0,
        "free_bytes": FREE0,
        "reserved_bytes": RESERVED0,
    }
    return gc.NvmlReading(**{**fields, **changes})


def smi_rows(text=SMI_TEXT):
    return gc.parse_smi_csv(text)


def statuses(results):
    return [(r.status, r.name) for r in results]


# ------------------------------------------------------------------ parsing


def test_parse_smi_csv_reads_rows_and_unavailable_figures():
    text = (
        SMI_TEXT
        + "2, NVIDIA A100, PCIe, GPU-a100, [Insufficient Permissions], [N/A], [N/A], 550.54.15\n\n"
    )
    rows = smi_rows(text)
    assert rows[0] == gc.SmiGpu(
        0, "NVIDIA GeForce RTX 4090", UUID0, 24564, 1000, 23234, "550.54.15"
    )
    assert rows[1].free_mib == 41031
    # a name with a comma comes back whole; the MIG parent's refused figures are None
    assert rows[2] == gc.SmiGpu(2, "NVIDIA A100,PCIe", "GPU-a100", None, None, None, "550.54.15")


@pytest.mark.parametrize("text", ["0, name, uuid, 1, 2\n", "x, a, b, 1, 2, 3, 4\n"])
def test_parse_smi_csv_refuses_what_is_not_its_format(text):
    with pytest.raises(ValueError):
        gc.parse_smi_csv(text)


def test_parse_vramdesk_json_raises_vramdesks_own_error():
    with pytest.raises(ValueError, match="no_driver: No NVIDIA driver found"):
        gc.parse_vramdesk_json(
            '{"error": {"kind": "no_driver", "message": "No NVIDIA driver found"}}'
        )
    with pytest.raises(ValueError, match="no 'gpus' list"):
        gc.parse_vramdesk_json('{"driver_version": "1"}')
    assert gc.parse_vramdesk_json('{"driver_version": "1", "gpus": []}')["gpus"] == []


def test_nvml_readings_from_the_childs_json():
    driver, readings = gc.nvml_readings(
        {
            "driver_version": "550.54.15",
            "gpus": [
                {"index": 0, "name": "A100", "uuid": "GPU-a", "mig_enabled": True,
                 "memory_error": "Insufficient Permissions",
                 "instances": [{"index": 3, "total_bytes": 10, "free_bytes": 4}]},
            ],
        }
    )  # fmt: skip
    assert driver == "550.54.15"
    assert readings == [
        gc.NvmlReading(
            0,
            "A100",
            "GPU-a",
            memory_error="Insufficient Permissions",
            mig_enabled=True,
            instances=(gc.MigReading(3, 10, 4),),
        )
    ]


# ------------------------------------------------------------------ per-GPU comparisons


def test_matching_readings_pass_every_check():
    results = gc.compare_gpu(vd_gpu(), smi_rows(), [reading()], gc.DRIFT_MIB)
    assert statuses(results) == [("PASS", f"gpu0-{c}") for c in gc.GPU_CHECKS]
    assert results[1].detail == (
        "total 24,564 MiB, free 23,234 MiB, used 1,330 MiB (nvidia-smi 24,564 / 23,234 / 1,000 MiB)"
    )


def test_a_different_uuid_fails_naming_both():
    results = gc.compare_gpu(vd_gpu(uuid="GPU-other"), smi_rows(), [reading()], gc.DRIFT_MIB)
    assert statuses(results)[0] == ("FAIL", "gpu0-smi-identity")
    assert results[0].detail == f"UUID 'GPU-other' vs '{UUID0}'"
    assert results[2].status == "FAIL" and "UUID" in results[2].detail


def test_an_index_the_other_source_lacks_fails():
    gpu = vd_gpu(index=5)
    results = gc.compare_gpu(gpu, smi_rows(), [reading()], gc.DRIFT_MIB)
    assert [r.status for r in results] == ["FAIL"] * 4
    assert results[0].detail == "nvidia-smi has no such index"


# nvidia-smi says free 23234 MiB; the tolerance against it is 32 + 1 (rounding) = 33 MiB
@pytest.mark.parametrize(
    ("offset", "status"), [(33 * MIB, "PASS"), (33 * MIB + 1, "FAIL"), (-33 * MIB - 1, "FAIL")]
)
def test_free_against_nvidia_smi_at_the_tolerance_edge(offset, status):
    free = 23234 * MIB + offset
    smi = smi_rows(f"0, NVIDIA GeForce RTX 4090, {UUID0}, 24564, 1330, 23234, 550.54.15\n")
    result = gc.compare_smi_memory(vd_gpu(free=free, reserved=None), smi, 32)
    assert result.status == status
    if status == "FAIL":
        assert result.detail.startswith("free 23,267 MiB vs 23,234 MiB (off by +33.0 MiB") or (
            result.detail.startswith("free 23,201 MiB vs 23,234 MiB (off by -33.0 MiB")
        )
        assert "tolerance 33 MiB" in result.detail


@pytest.mark.parametrize(("offset", "status"), [(32 * MIB, "PASS"), (32 * MIB + 1, "FAIL")])
def test_free_against_pynvml_at_the_tolerance_edge(offset, status):
    # used (total - free) moves with free, so it meets the same edge
    result = gc.compare_nvml_memory(vd_gpu(free=FREE0 - offset), [reading()], 32)
    assert result.status == status
    if status == "FAIL":
        assert "free" in result.detail and "used" in result.detail


def test_a_wider_tolerance_passes_a_busy_desktop():
    gpu = vd_gpu(free=FREE0 - 100 * MIB)
    assert gc.compare_nvml_memory(gpu, [reading()], 32).status == "FAIL"
    assert gc.compare_nvml_memory(gpu, [reading()], 128).status == "PASS"


def test_used_as_either_nvidia_smi_shows_it():
    # v1 style (reserved included: 1330 MiB) and v2 style (without: 1000 MiB) both pass
    for used in (1330, 1000):
        text = f"0, NVIDIA GeForce RTX 4090, {UUID0}, 24564, {used}, 23234, 550.54.15\n"
        assert gc.compare_smi_memory(vd_gpu(), smi_rows(text), 32).status == "PASS"
    text = f"0, NVIDIA GeForce RTX 4090, {UUID0}, 24564, 1200, 23234, 550.54.15\n"
    result = gc.compare_smi_memory(vd_gpu(), smi_rows(text), 32)
    assert result.status == "FAIL" and result.detail.startswith("used 1,330 MiB vs 1,200 MiB")
    # without a reserved figure only vramdesk's used itself can match
    assert gc.compare_smi_memory(vd_gpu(reserved=None), smi_rows(), 32).status == "FAIL"


def test_total_is_exact_against_pynvml_and_within_a_mib_against_nvidia_smi():
    result = gc.compare_nvml_memory(vd_gpu(total_bytes=TOTAL0 + 1), [reading()], 32)
    assert result.status == "FAIL" and result.detail.startswith("total")
    text = f"0, NVIDIA GeForce RTX 4090, {UUID0}, 24563, 1000, 23234, 550.54.15\n"
    assert gc.compare_smi_memory(vd_gpu(), smi_rows(text), 32).status == "PASS"
    text = f"0, NVIDIA GeForce RTX 4090, {UUID0}, 24562, 1000, 23234, 550.54.15\n"
    assert gc.compare_smi_memory(vd_gpu(), smi_rows(text), 32).status == "FAIL"


def test_reserved_from_one_side_only_fails():
    result = gc.compare_nvml_memory(vd_gpu(reserved=None), [reading()], 32)
    assert result.status == "FAIL"
    assert result.detail == (
        f"reserved None vs {RESERVED0} (one side used the v2 memory call, one not)"
    )


def test_memory_the_driver_would_not_give_is_a_skip():
    refused = reading(total_bytes=None, free_bytes=None, memory_error="Insufficient Permissions")
    result = gc.compare_nvml_memory(vd_gpu(), [refused], 32)
    assert (result.status, result.detail) == (
        "SKIP",
        "pynvml could not read this GPU's memory: Insufficient Permissions",
    )
    na = smi_rows(f"0, NVIDIA A100, {UUID0}, [N/A], [N/A], [N/A], 550.54.15\n")
    assert gc.compare_smi_memory(vd_gpu(), na, 32).status == "SKIP"


def test_a_source_not_read_gives_skip_lines():
    results = gc.compare_gpu(vd_gpu(), None, None, 32)
    assert statuses(results) == [("SKIP", f"gpu0-{c}") for c in gc.GPU_CHECKS]


def test_driver_version_and_count():
    snapshot = {"driver_version": "550.54.15", "gpus": [vd_gpu()]}
    assert gc.compare_driver(snapshot, "550.54.15", 1, "smi").status == "PASS"
    result = gc.compare_driver(snapshot, "555.42.02", 2, "pynvml")
    assert (result.status, result.name) == ("FAIL", "pynvml-driver")
    assert result.detail == "driver '550.54.15' vs '555.42.02'; 1 GPU(s) vs 2"


# ------------------------------------------------------------------ solve, window, allocation


def ref0(source="pynvml", slack=0):
    return gc.GpuRef(0, "NVIDIA GeForce RTX 4090", TOTAL0, FREE0, source, slack)


def solve_json(capacity, label):
    return {"capacity_bytes": capacity, "budget": label}


FREE_LABEL = "local GPU 0 NVIDIA GeForce RTX 4090: 22.69 GiB free now (23,234 MiB)"
TOTAL_LABEL = "local GPU 0 NVIDIA GeForce RTX 4090: 23.99 GiB total (24,564 MiB)"


def test_solve_budget_is_the_free_memory_within_the_tolerance():
    check = gc.check_solve_budget
    assert check("s", solve_json(FREE0 - 32 * MIB, FREE_LABEL), ref0(), "free", 32).status == (
        "PASS"
    )
    result = check("s", solve_json(FREE0 - 32 * MIB - 1, FREE_LABEL), ref0(), "free", 32)
    assert result.status == "FAIL" and result.detail.startswith("budget (free)")
    # the total instead of the free memory, as a formula-engine budget, is wrong
    result = check("s", solve_json(TOTAL0, TOTAL_LABEL), ref0(), "free", 32)
    assert result.status == "FAIL" and "does not say GPU 0's free now" in result.detail


def test_vllm_budget_is_the_total_to_the_byte():
    check = gc.check_solve_budget
    assert check("v", solve_json(TOTAL0, TOTAL_LABEL), ref0(), "total", 32).status == "PASS"
    assert check("v", solve_json(TOTAL0 - 1, TOTAL_LABEL), ref0(), "total", 32).status == "FAIL"
    # against nvidia-smi's whole MiB, a MiB of rounding
    smi = ref0("nvidia-smi", MIB)
    assert check("v", solve_json(TOTAL0 - MIB, TOTAL_LABEL), smi, "total", 32).status == "PASS"


def test_budget_reference_on_a_mig_gpu_is_its_emptiest_instance():
    instances = (
        gc.MigReading(0, 40192 * MIB, 30192 * MIB),
        gc.MigReading(1, 40192 * MIB, 39168 * MIB),
    )
    mig = reading(mig_enabled=True, instances=instances, name="NVIDIA A100 80GB PCIe")
    ref = gc.budget_reference(0, [mig], [])
    assert ref == gc.GpuRef(
        0, "NVIDIA A100 80GB PCIe MIG 1", 40192 * MIB, 39168 * MIB, "pynvml MIG 1"
    )
    assert gc.budget_reference(0, [reading()], []) == gc.reference(0, [reading()], [])
    # pynvml refused: nvidia-smi's figures, with its rounding
    refused = reading(total_bytes=None, free_bytes=None)
    assert gc.reference(0, [refused], smi_rows()).source == "nvidia-smi"
    assert gc.reference(0, [refused], []) is None


def panel_row(**changes):
    row = {
        "name": "0: NVIDIA GeForce RTX 4090",
        "bar_max": 24564,
        "bar_value": 1330,
        "figures": "1.30 GiB used of 23.99 GiB · 22.69 GiB free",
    }
    return {**row, **changes}


def test_panel_shows_the_drivers_figures():
    window = {"rows": [panel_row()], "message": ""}
    assert gc.check_panel(window, [ref0()], 32).status == "PASS"


@pytest.mark.parametrize(
    ("window", "words"),
    [
        ({"rows": [], "message": "No NVIDIA driver found"}, "the panel says: No NVIDIA driver"),
        ({"rows": [], "message": ""}, "0 row(s) for 1 GPU(s)"),
        ({"rows": [panel_row(name="0: other")], "message": ""}, "row name '0: other'"),
        ({"rows": [panel_row(bar_max=20000)], "message": ""}, "bar maximum"),
        (
            {"rows": [panel_row(figures="1.30 GiB used of 23.99 GiB · 21.69 GiB free")]},
            "GPU 0: free 22,211 MiB vs 23,234 MiB",  # 21.69 GiB = 22,210.6 MiB
        ),
        ({"rows": [panel_row(figures="garbled")]}, "are not 'x GiB used of y GiB"),
    ],
)
def test_panel_that_disagrees_fails(window, words):
    result = gc.check_panel(window, [ref0()], 32)
    assert result.status == "FAIL" and words in result.detail


def test_free_line():
    window = {
        "free_line": {"visible": True, "value_gib": FREE0 / GIB},
        "local_free_bytes": FREE0,
        "target": "gpu:H100 SXM",
    }
    assert gc.check_free_line(window, ref0(), 32).status == "PASS"
    hidden = {**window, "free_line": {"visible": False, "value_gib": 0.0}}
    assert (
        gc.check_free_line(hidden, ref0(), 32).detail == "no local-free line (target gpu:H100 SXM)"
    )
    low = {**window, "free_line": {"visible": True, "value_gib": FREE0 / GIB - 0.5}}
    result = gc.check_free_line(low, ref0(), 32)
    assert result.status == "FAIL" and result.detail.startswith("line ")


def test_allocation_check():
    base = {"package": "torch 2.5", "bytes": GIB, "before": 20 * GIB}
    follows = {**base, "during": 19 * GIB + 2 * MIB, "after": 20 * GIB}
    result = gc.check_alloc(follows, 32)
    assert result.status == "PASS"
    assert result.detail == (
        "torch 2.5: 1,024 MiB allocated; free 20,480 MiB -> 19,458 MiB -> 20,480 MiB"
    )
    still = {**base, "during": 20 * GIB, "after": 20 * GIB}
    result = gc.check_alloc(still, 32)
    assert result.status == "FAIL" and result.detail.startswith("drop on allocating 0 MiB")
    assert gc.alloc_skip_reason(vd_gpu(mig_mode=True), 1024).startswith("GPU 0 is in MIG mode")
    assert gc.alloc_skip_reason(vd_gpu(free=GIB), 1024) == "GPU 0 has less than 2 x 1024 MiB free"
    assert gc.alloc_skip_reason(None, 1024) == "vramdesk read no such GPU"
    assert gc.alloc_skip_reason(vd_gpu(), 1024) is None


# ------------------------------------------------------------------ results and children


def test_summary_and_exit_status():
    results = [gc.Result("PASS", "a", ""), gc.Result("SKIP", "b", ""), gc.Result("PASS", "c", "")]
    assert gc.summary(results) == "2 passed, 0 failed, 1 skipped"
    assert gc.exit_status(results) == 0
    assert gc.exit_status([*results, gc.Result("FAIL", "d", "x")]) == 1
    assert gc.exit_status([]) == 1
    assert gc.Result("SKIP", "alloc", "no CUDA package").line() == "SKIP alloc: no CUDA package"


def test_an_unexpected_error_in_a_step_is_one_fail_line():
    def step_broken(ctx):
        yield gc.Result("PASS", "first", "ok")
        raise KeyError("capacity_bytes")

    results = list(gc.safely(step_broken, None))
    assert [r.line() for r in results] == [
        "PASS first: ok",
        "FAIL broken: unexpected KeyError: 'capacity_bytes'",
    ]


def test_children_that_are_missing_hang_or_print_no_json():
    assert gc.run_child(["/nonexistent/nvidia-smi"], 5, dict(os.environ)).problem == (
        "/nonexistent/nvidia-smi not found"
    )
    start = time.monotonic()
    ran = gc.run_child([sys.executable, "-c", "import time; time.sleep(60)"], 1, dict(os.environ))
    assert time.monotonic() - start < 10
    assert ran.problem == f"{Path(sys.executable).name} did not finish within 1 s"
    ran = gc.Ran(3, "noise\n", "warning\nTypeError: boom\n")
    with pytest.raises(ValueError, match="exit status 3: TypeError: boom"):
        gc.child_json(ran)
    assert gc.child_json(gc.Ran(0, f'noise\n{gc.JSON_MARK}{{"a": 1}}\n')) == {"a": 1}


# ------------------------------------------------------------------ whole runs

LINE = re.compile(r"(PASS|FAIL|SKIP) [\w-]+: .+")

SITECUSTOMIZE = """\
import os
from pathlib import Path

from tests.fake_nvml import FakeNvml, a100_mig, h100, rtx_4090

gpus = [make() for make in ({gpus})]
held = os.environ.get("GPU_CHECK_FAKE_ALLOC")  # what the stand-in torch holds on GPU 0
if held and Path(held).exists() and Path(held).read_text():
    gpus[0].allocated_bytes += int(Path(held).read_text())


class _Patch:
    def setattr(self, obj, name, value):
        setattr(obj, name, value)


FakeNvml(_Patch(), gpus)
"""

FAKE_TORCH = f"""\
import os
from pathlib import Path

__version__ = "0.0+fake"
uint8 = "uint8"
_HELD = Path(os.environ["GPU_CHECK_FAKE_ALLOC"])


class version:
    cuda = "12.4"


class _Block:
    def fill_(self, value):
        return self


def empty(n_bytes, dtype=None, device=None):
    if os.environ.get("CUDA_VISIBLE_DEVICES") != "{UUID0}":
        raise RuntimeError("CUDA_VISIBLE_DEVICES does not name GPU 0")
    _HELD.write_text(str(n_bytes))
    return _Block()


class cuda:
    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def empty_cache():
        _HELD.write_text("0")
"""

A100_ROW = "0, NVIDIA A100 80GB PCIe, GPU-a100, 81920, 2048, 79872, 550.54.15\n"


def run_tool(tmp_path, gpus="rtx_4090, h100", smi=SMI_TEXT, torch=False, env=None):
    """Run the tool against the stand-in driver; return (exit status, stdout lines, stderr)."""
    fake = tmp_path / "fake"
    (fake / "bin").mkdir(parents=True)
    (fake / "sitecustomize.py").write_text(SITECUSTOMIZE.format(gpus=gpus), encoding="utf-8")
    if torch:
        (fake / "torch.py").write_text(FAKE_TORCH, encoding="utf-8")
    smi_file = fake / "smi.csv"
    smi_file.write_text(smi, encoding="utf-8")
    script = fake / "bin" / "nvidia-smi"
    script.write_text(f"#!/bin/sh\ncat '{smi_file}'\n", encoding="utf-8")
    script.chmod(0o755)
    path = os.pathsep.join([str(fake), str(ROOT), os.environ.get("PYTHONPATH", "")])
    base = {
        "PYTHONPATH": path,
        "PATH": f"{fake / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "GPU_CHECK_FAKE_ALLOC": str(fake / "held"),
        "VRAMDESK_FAKE_NVML": "error:no_driver",  # the tool must ignore it
    }
    return _run(env or base)


def _run(extra):
    env = {**os.environ, **extra}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gpu_check.py")],
        capture_output=True,
        text=True,
        timeout=150,
        env=env,
    )
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


def _by_name(lines):
    return {LINE.fullmatch(ln).group(0).split(" ", 2)[1].rstrip(":"): ln for ln in lines[:-1]}


def test_a_consistent_driver_passes_every_check(tmp_path):
    code, lines, err = run_tool(tmp_path, torch=True)
    assert all(LINE.fullmatch(ln) for ln in lines[:-1]), lines
    assert lines[-1] == "18 passed, 0 failed, 0 skipped", "\n".join(lines) + err
    assert code == 0
    named = _by_name(lines)
    assert named["vramdesk-gpus"].endswith(
        "; VRAMDESK_FAKE_NVML ignored: the children read the real driver"
    )
    assert named["alloc-free-follows"] == (
        "PASS alloc-free-follows: torch 0.0+fake: 1,024 MiB allocated; "
        "free 23,234 MiB -> 22,210 MiB -> 23,234 MiB"
    )
    assert named["solve-vllm-total"] == (
        "PASS solve-vllm-total: capacity 25,757,220,864 B = GPU 0 total (pynvml 25,757,220,864 B)"
    )


def test_a_driver_that_disagrees_fails(tmp_path):
    # nvidia-smi says another UUID for GPU 1 and 200 MiB less free on GPU 0
    smi = SMI_TEXT.replace(UUID1, "GPU-else").replace("23234", "23034")
    code, lines, err = run_tool(tmp_path, smi=smi)
    assert code == 1, "\n".join(lines) + err
    failed = [ln for ln in lines if ln.startswith("FAIL")]
    assert failed == [
        "FAIL gpu0-smi-memory: free 23,234 MiB vs 23,034 MiB (off by +200.0 MiB, tolerance 33 MiB)",
        f"FAIL gpu1-smi-identity: UUID '{UUID1}' vs 'GPU-else'",
    ]
    assert lines[-1] == "15 passed, 2 failed, 1 skipped"
    assert _by_name(lines)["alloc-free-follows"] == (
        "SKIP alloc-free-follows: no CUDA package (torch or cupy) importable"
    )


def test_a_mig_gpu_budgets_its_instance(tmp_path):
    smi = A100_ROW + SMI_TEXT.splitlines()[0].replace("0,", "1,", 1) + "\n"
    code, lines, err = run_tool(tmp_path, gpus="a100_mig, rtx_4090", smi=smi)
    assert (code, lines[-1]) == (0, "17 passed, 0 failed, 1 skipped"), "\n".join(lines) + err
    named = _by_name(lines)
    # the instance: 39168 MiB free = 41070624768 B = 38.25 GiB
    assert named["solve-formula-free"] == (
        "PASS solve-formula-free: capacity 41,070,624,768 B = GPU 0 free "
        "(pynvml MIG 0 41,070,624,768 B)"
    )
    assert named["gui-free-line"] == "PASS gui-free-line: at 38.250 GiB = GPU 0 free (pynvml MIG 0)"
    assert named["alloc-free-follows"].startswith("SKIP alloc-free-follows: GPU 0 is in MIG mode")


def test_without_a_driver_every_check_is_one_line_and_the_exit_is_1(tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    code, lines, err = _run({"PATH": str(empty), **env_without_driver(tmp_path)})
    assert code == 1 and "Traceback" not in err
    assert all(LINE.fullmatch(ln) for ln in lines[:-1]), lines
    assert lines[:3] == [
        "FAIL vramdesk-gpus: vramdesk gpus --json: no_driver: No NVIDIA driver found: the NVML "
        "library (libnvidia-ml.so.1) is not installed. vramdesk works without a GPU; estimates "
        "are unaffected.",
        "FAIL nvidia-smi: nvidia-smi not found",
        "FAIL pynvml: nvmlInit: NVML Shared Library Not Found",
    ]
    assert all(ln.startswith("SKIP ") for ln in lines[3:-1])
    assert lines[-1] == "0 passed, 3 failed, 11 skipped"
