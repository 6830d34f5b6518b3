"""The window's "Paste launch command…" and "Copy launch command" (issue 27.2, 27.3).

The paste reads with the reader of ``vramdesk from-command`` (``launch_parts``) and loads the
scenario the command describes; the copy is, byte for byte, what ``vramdesk solve --emit``
prints for the same scenario (the CLI run in-process is the oracle).
"""

from __future__ import annotations

import json
import shutil
from fractions import Fraction

import pytest
from PySide6.QtGui import QGuiApplication

from vramdesk.cli import main
from vramdesk.core.model.formats import KVDtype, WeightFormat
from vramdesk.core.model.runtime import Engine
from vramdesk.core.model.target import Target
from vramdesk.core.store.bundled import bundled_model

CONFIG = "tests/data/reference/models/meta-llama-3-8b/config.json"

# from the vLLM docs' quickstart/serving pages (tests/data/launch-commands.jsonl has the source)
VLLM = (
    "vllm serve {model} --max-model-len 16384 --max-num-seqs 32 "
    "--gpu-memory-utilization 0.85 --kv-cache-dtype fp8 --tensor-parallel-size 2 --api-key k"
)
# llama.cpp's server README form
LLAMA = (
    "llama-server -m Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -c 16384 -np 2 -ngl 20 -fa on "
    "--port 8080 --n-cpu-moe 4"
)


def _menu_texts(window):
    file_menu = window.menuBar().actions()[0].menu()
    return [a.text() for a in file_menu.actions()]


def test_menu_has_both_actions_and_the_shortcut(make_main_window):
    window = make_main_window()
    texts = _menu_texts(window)
    assert "Paste launch command…" in texts and "Copy launch command" in texts
    assert window.launch_commands.paste_action.shortcut().toString() == "Ctrl+Shift+V"


def test_paste_a_vllm_serve_line_with_a_local_model(make_main_window, tmp_path, solved):
    folder = tmp_path / "Meta-Llama-3-8B"
    folder.mkdir()
    shutil.copy(CONFIG, folder / "config.json")
    window = make_main_window()
    assert window.launch_commands.apply_text(VLLM.format(model=folder))
    solved(window)
    s = window.controller.session
    assert s.model.hidden_size == 4096 and s.model.num_hidden_layers == 32
    assert (s.workload.context_tokens, s.workload.batch) == (16384, 32)
    assert s.workload.kv_dtype is KVDtype.FP8
    rt = s.runtime
    assert rt.engine is Engine.VLLM and rt.tensor_parallel_size == 2
    assert rt.gpu_memory_utilization == Fraction(85, 100)
    message = window.statusBar().currentMessage()
    assert "Launch command read (vllm)" in message and "ignored: --api-key" in message


def test_paste_a_llama_server_line_whose_model_is_not_here(make_main_window, solved):
    window = make_main_window()
    s = window.controller.session
    before = s.model
    assert window.launch_commands.apply_text(LLAMA)
    solved(window)
    assert s.model == before  # not on this machine: the model shown is kept
    assert s.weights.format.label == "Q4_K_M"  # the file type its name says
    assert (s.workload.context_tokens, s.workload.batch) == (8192, 2)  # -c is all slots' cells
    rt = s.runtime
    assert rt.engine is Engine.LLAMA_CPP and rt.n_parallel == 2 and rt.n_gpu_layers == 20
    assert rt.flash_attn is True and rt.n_cpu_moe == 4
    message = window.statusBar().currentMessage()
    assert "ignored: --port" in message
    assert "model not on this machine:" in message and "the model shown is kept" in message


def test_a_line_that_is_no_command_is_said_and_changes_nothing(make_main_window):
    window = make_main_window()
    before = window.controller.session.scenario_dict()
    assert not window.launch_commands.apply_text("echo hello")
    assert window.controller.session.scenario_dict() == before
    assert window.statusBar().currentMessage().startswith("command:")


@pytest.mark.parametrize(
    ("engine", "target", "gpu"),
    [("vllm", "vllm", "H100 80GB"), ("llama.cpp", "llama-server", "RTX 4090")],
)
def test_copy_gives_what_solve_emit_prints(make_main_window, solved, capsys, engine, target, gpu):
    window = make_main_window()
    s = window.controller.session
    preset = bundled_model("llama-3.1-8b")
    wl = s.workload.replace(context_tokens=8192, batch=1)
    rt = s.runtime.replace(engine=Engine.parse(engine))
    s.load(model=preset.model, weights=preset.weights, name=preset.name, workload=wl, runtime=rt)
    s.load(target=Target("gpu", gpu))
    solved(window)
    assert s.solve_result is not None
    copied = window.launch_commands.copy_command()
    assert QGuiApplication.clipboard().text() == copied
    argv = ["solve", "--preset", "llama-3.1-8b", "--context", "8192", "--batch", "1"]
    argv += ["--engine", engine, "--gpu", gpu, "--emit", target]
    assert main(argv) == 0
    assert copied + "\n" == capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["max_concurrency"] == s.solve_result.max_concurrency


def test_copy_for_an_engine_without_a_server_says_so(make_main_window, solved):
    window = make_main_window()
    s = window.controller.session
    s.load(runtime=s.runtime.replace(engine=Engine.FORMULA))
    solved(window)
    assert window.launch_commands.copy_command() is None
    assert "has no launch command" in window.statusBar().currentMessage()


def test_the_breakdown_shows_host_ram_against_this_machine(make_main_window, monkeypatch):
    # Qwen3-30B-A3B Q4_K_M with every layer's experts on the host: 17,553,162,240 bytes of
    # experts + the Q4_K input embedding 175,030,272 (tests/core/engines/llamacpp/
    # test_experts_offload.py derives both) = 17,728,192,512 bytes = 16.51 GiB
    window = make_main_window()
    s = window.controller.session
    preset = bundled_model("qwen3-30b-a3b")
    rt = s.runtime.replace(engine=Engine.LLAMA_CPP, cpu_moe=True)
    weights = preset.weights.replace(format=WeightFormat.parse("Q4_K_M"))
    s.load(model=preset.model, weights=weights, name=preset.name, runtime=rt)
    label = window.figures.host
    assert not label.isHidden()
    assert label.text().startswith("Host RAM (not in the total): 16.51 GiB")
    assert "(routed experts 16.35 GiB)" in label.text()
    assert label.text().endswith("fits this machine's RAM (64.00 GiB)")  # conftest pins it
    monkeypatch.setenv("VRAMDESK_FAKE_HOST_RAM", str(8 * 2**30))
    s.set_field("context_tokens", 4096)
    assert label.text().endswith("does not fit this machine's RAM (8.00 GiB)")
    s.load(runtime=rt.replace(engine=Engine.VLLM, cpu_moe=False))
    assert label.isHidden()  # vLLM keeps everything on the GPU
