"""Issue 12 items 10-11 in the window: an unusable configuration directory, the banner.

The window used to crash at start when the configuration directory could not be created
or was a regular file, and its problems banner repeated one sentence thousands of times
and came back after every save once dismissed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_window_starts_when_the_config_dir_is_a_regular_file(
    make_main_window, tmp_path, monkeypatch
):
    target = tmp_path / "afile"
    target.write_text("")
    monkeypatch.setenv("VRAMDESK_CONFIG_DIR", str(target))
    window = make_main_window()
    panel = window.presets_panel
    assert panel.notice_bar.isVisibleTo(panel)
    assert "is a file, not a directory: presets and settings cannot be saved" in panel.notice.text()
    assert window.controller.breakdown is not None


def test_window_starts_when_the_config_dir_cannot_be_created(
    make_main_window, tmp_path, monkeypatch
):
    blocker = tmp_path / "afile"
    blocker.write_text("")
    monkeypatch.setenv("VRAMDESK_CONFIG_DIR", str(blocker / "sub"))
    window = make_main_window()
    assert "cannot be created" in window.presets_panel.notice.text()


def test_vramdesk_starts_and_quits_with_a_file_as_config_dir(tmp_path):
    target = tmp_path / "afile"
    target.write_text("")
    env = {
        **os.environ,
        "VRAMDESK_QUIT_AFTER_MS": "500",
        "QT_QPA_PLATFORM": "offscreen",
        "VRAMDESK_FAKE_NVML": "error:no_driver",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "vramdesk", "--config-dir", str(target)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr


def test_banner_says_a_problem_once_and_stays_dismissed(make_main_window, config_dir):
    presets = config_dir / "presets"
    presets.mkdir()
    newer = {"schema_version": 999, "kind": "model", "name": "Future"}
    (presets / "future.json").write_text(json.dumps(newer), encoding="utf-8")  # left as it is
    window = make_main_window()
    panel = window.presets_panel
    assert panel.notice.text().count("future.json") == 1
    for i in range(5):  # saves and refreshes re-read the directory and meet the file again
        assert panel.save_as(f"w{i}", "workload") is not None
        panel.refresh()
    assert panel.notice.text().count("future.json") == 1
    assert len(window.library.all_problems) == 1
    panel.notice_bar.hide()  # Dismiss
    assert panel.save_as("after", "workload") is not None
    assert not panel.notice_bar.isVisibleTo(panel)
