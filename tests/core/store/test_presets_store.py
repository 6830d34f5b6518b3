"""The user preset store (SPEC §5): round trips, names, bad files, locking, migrations."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
from pathlib import Path

import filelock
import pytest

from vramdesk.core.errors import FileReadError, InputError
from vramdesk.core.model.formats import KVDtype, WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.workload import Workload
from vramdesk.core.store import _preset_file
from vramdesk.core.store.bundled import bundled_models, presets_dir
from vramdesk.core.store.presets import (
    MAX_FILE_BYTES,
    SCHEMA_VERSION,
    PresetStore,
    PresetStoreError,
    config_dir,
    export_preset,
    import_preset,
    model_preset,
    scenario_parts,
    slugify,
)
from vramdesk.core.store.serialize import scenario_to_dict, to_dict

SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
WORKLOAD = Workload(
    context_tokens=32768, batch=8, kv_dtype=KVDtype.FP8, prompt_len=2048, chunk_tokens=512
)
RUNTIME = Runtime(engine=Engine.VLLM, max_num_batched_tokens=4096, tensor_parallel_size=2)


@pytest.fixture
def store(config_dir):
    return PresetStore()


def _model_data(preset):
    return scenario_to_dict(model=preset.model, weights=preset.weights)


def _write(directory: Path, name: str, content: str | bytes) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def _good_doc(name="Good", layers=32):
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "model",
        "name": name,
        "model": {"num_hidden_layers": layers, "num_key_value_heads": 8, "head_dim": 128},
    }


# ----------------------------------------------------------------------------- location
def test_config_dir_follows_env_and_is_created(tmp_path, monkeypatch):
    target = tmp_path / "a" / "b"
    monkeypatch.setenv("VRAMDESK_CONFIG_DIR", str(target))
    assert config_dir() == target and target.is_dir()
    assert PresetStore().directory == target / "presets"


def test_bundled_directory_is_refused():
    with pytest.raises(InputError) as err:
        PresetStore(presets_dir() / "models")
    assert err.value.field == "directory"


# ----------------------------------------------------------------------------- round trip
def test_every_bundled_model_round_trips_exactly(store):
    for preset in bundled_models():
        store.save(preset.name, "model", _model_data(preset))
    listed = store.list("model")
    assert [p.name for p in listed] == sorted((p.name for p in bundled_models()), key=str.casefold)
    for preset in bundled_models():
        user = next(p for p in listed if p.name == preset.name)
        parts = scenario_parts(store.get(user.slug))
        assert parts == {"model": preset.model, "weights": preset.weights}
        again = model_preset(user)
        assert (again.model, again.weights) == (preset.model, preset.weights)
        assert (again.published_params, again.read_only) == (None, False)


def test_scenario_round_trips_and_file_is_readable_json(store):
    model = bundled_models()[0].model
    weights = WeightSpec(format=WeightFormat.INT4, group_size=128)
    data = scenario_to_dict(model, weights, WORKLOAD, RUNTIME)
    saved = store.save("Long chat on 2 GPUs", "scenario", data)
    parts = scenario_parts(store.get(saved.slug))
    assert parts == {"model": model, "weights": weights, "workload": WORKLOAD, "runtime": RUNTIME}
    doc = json.loads(saved.path.read_text(encoding="utf-8"))
    assert list(doc)[:3] == ["schema_version", "kind", "name"]
    assert doc["schema_version"] == SCHEMA_VERSION and doc["kind"] == "scenario"
    # only what the user set: Workload's defaults (live_buffers 4, all_logits false) are absent
    assert doc["workload"] == {
        "context_tokens": 32768,
        "batch": 8,
        "kv_dtype": "fp8",
        "prompt_len": 2048,
        "chunk_tokens": 512,
    }


def test_kinds_and_parts(store):
    store.save("Chat", "workload", {"workload": to_dict(WORKLOAD)})
    store.save("Engine", "runtime", {"runtime": to_dict(RUNTIME)})
    assert [p.name for p in store.list("workload")] == ["Chat"]
    assert scenario_parts(store.list("runtime")[0]) == {"runtime": RUNTIME}
    with pytest.raises(InputError) as err:
        model_preset(store.list("workload")[0])
    assert err.value.code == "wrong_kind"
    with pytest.raises(InputError) as err:
        store.save("x", "workload", {"model": {}})
    assert err.value.field == "model"  # a workload preset cannot hold a model
    with pytest.raises(InputError) as err:
        store.save("x", "gpu", {})
    assert err.value.field == "kind"
    with pytest.raises(InputError) as err:
        store.save("x", "workload", {"workload": {"batch": 0}})
    assert err.value.field == "batch"  # validated on save
    assert len(store.list()) == 2


# ----------------------------------------------------------------------------- names
@pytest.mark.parametrize(
    "name",
    [
        "../../etc",
        "..",
        ".",
        "../..",
        "/etc/passwd",
        "a/b\\c",
        "con",
        "CON",
        "nul.json",
        "com1",
        "日本語のプリセット",
        "Café Ünïcode",
        " .hidden ",
        "x" * 200,
        "..\\..\\windows",
        "a\u202eb",
    ],
)
def test_no_name_writes_outside_the_directory(tmp_path, store, name):
    saved = store.save(name, "workload", {"workload": {}})
    assert saved.path.parent == store.directory
    assert SLUG.match(saved.slug) and len(saved.slug) <= 80
    assert saved.slug not in {"con", "prn", "aux", "nul", "com1", "lpt1"}
    assert store.get(saved.slug).name == name.strip()
    outside = {p for p in tmp_path.rglob("*") if store.directory not in (p, *p.parents)}
    assert outside == {tmp_path / "config"}


def test_slugs():
    assert slugify("Llama 3.1 8B (AWQ)") == "llama-3-1-8b-awq"
    assert slugify("Café") == "cafe"
    assert slugify("con") == "con-preset"
    # non-ASCII names get a stable hashed slug rather than an error
    assert slugify("日本語") == slugify("日本語") != slugify("中文")


@pytest.mark.parametrize("name", ["", "   ", "\t", "a\nb", "a\x00b", "a\ud800", "x" * 201, None])
def test_bad_names_are_refused(store, name):
    with pytest.raises(InputError) as err:
        store.save(name, "workload", {"workload": {}})
    assert err.value.field == "name"


def test_name_collisions_get_suffixes(store):
    slugs = [
        store.save(n, "workload", {"workload": {}}).slug
        for n in ("My Model", "my model", "MY  MODEL")
    ]
    assert slugs == ["my-model", "my-model-2", "my-model-3"]
    again = store.save("my model", "workload", {"workload": {"batch": 2}})  # same name: replaced
    assert again.slug == "my-model-2" and len(store.list()) == 3
    assert scenario_parts(store.get("my-model-2"))["workload"].batch == 2
    with pytest.raises(InputError) as err:
        store.save("My Model", "workload", {"workload": {}}, overwrite=False)
    assert err.value.code == "exists"
    long = "y" * 100
    assert [store.save(long + s, "workload", {"workload": {}}).slug for s in ("", "!")] == [
        "y" * 80,
        "y" * 78 + "-2",
    ]


def test_same_name_other_kind_is_another_preset(store):
    a = store.save("Llama", "workload", {"workload": {}})
    b = store.save("Llama", "runtime", {"runtime": {}})
    assert (a.slug, b.slug) == ("llama", "llama-2")


# ----------------------------------------------------------------------------- edit
def test_rename(store):
    first = store.save("First", "workload", {"workload": to_dict(WORKLOAD)})
    store.save("Other", "workload", {"workload": {}})
    renamed = store.rename(first.slug, "Second try")
    assert renamed.slug == "second-try" and not first.path.exists()
    assert [p.name for p in store.list()] == ["Other", "Second try"]
    assert scenario_parts(store.get("second-try"))["workload"] == WORKLOAD
    assert store.rename("second-try", "SECOND TRY").path == renamed.path  # same slug, same file
    with pytest.raises(InputError) as err:
        store.rename("second-try", "Other")
    assert err.value.code == "exists"
    with pytest.raises(InputError):
        store.rename("no-such", "x")


def test_delete(store):
    kept = store.save("Kept", "workload", {"workload": {}})
    gone = store.save("Gone", "workload", {"workload": {}})
    store.delete(gone.slug)
    assert [p.slug for p in store.list()] == [kept.slug] and not gone.path.exists()
    with pytest.raises(InputError) as err:
        store.delete(gone.slug)
    assert err.value.field == "preset"
    with pytest.raises(InputError):
        store.get("../config")


def test_failed_write_leaves_old_file_and_no_temp(store, monkeypatch):
    saved = store.save("Safe", "workload", {"workload": {"batch": 3}})
    before = saved.path.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device", str(dst))

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(PresetStoreError, match="No space left"):
        store.save("Safe", "workload", {"workload": {"batch": 4}})
    assert saved.path.read_bytes() == before
    # the lock file and its (empty) arrival queue, no temporary file
    assert sorted(p.name for p in store.directory.iterdir()) == [
        ".lock",
        ".lock.queue",
        "safe.json",
    ]
    assert list((store.directory / ".lock.queue").iterdir()) == []


# ----------------------------------------------------------------------------- import/export
def test_export_import_round_trip(tmp_path, store):
    model = bundled_models()[-1]
    saved = store.save("Exported", "model", _model_data(model))
    out = store.export(saved.slug, tmp_path / "out.json")
    assert store.export(saved.slug, tmp_path) == tmp_path / "exported.json"
    other = PresetStore(tmp_path / "elsewhere")
    imported = other.import_file(out)
    assert (imported.name, imported.kind) == ("Exported", "model")
    assert scenario_parts(imported) == {"model": model.model, "weights": model.weights}
    with pytest.raises(InputError) as err:
        other.import_file(out)
    assert err.value.code == "exists"
    assert other.import_file(out, overwrite=True).slug == imported.slug


def test_import_checks_content(tmp_path, store):
    cases = {
        "notjson.json": "{",
        "kind.json": json.dumps({**_good_doc(), "kind": "gpu"}),
        "version.json": json.dumps({**_good_doc(), "schema_version": "1"}),
        "part.json": json.dumps({**_good_doc(), "model": {"num_hidden_layers": "32"}}),
        "invalid.json": json.dumps({**_good_doc(), "model": {"num_hidden_layers": 0}}),
        "newer.json": json.dumps({**_good_doc(), "schema_version": SCHEMA_VERSION + 1}),
        "big.json": " " * MAX_FILE_BYTES + json.dumps(_good_doc()),
    }
    for name, text in cases.items():
        with pytest.raises(FileReadError) as err:
            store.import_file(_write(tmp_path / "in", name, text))
        assert err.value.field == "path" and name in str(err.value)
    with pytest.raises(FileReadError):
        store.import_file(tmp_path / "missing.json")
    assert store.list() == [] and store.problems == []


def test_bundled_model_file_imports_and_cli_helpers(tmp_path, store):
    bundled = bundled_models()[0]
    user = import_preset(presets_dir() / "models" / f"{bundled.slug}.json")
    assert model_preset(user).published_params == bundled.published_params
    assert model_preset(user).model == bundled.model
    path = export_preset(user.name, tmp_path / "mine.json")
    assert json.loads(path.read_text())["name"] == bundled.name
    other = bundled_models()[1]
    path = export_preset(other.slug, tmp_path)  # not a user preset: the bundled model
    assert path == tmp_path / f"{other.slug}.json"
    assert scenario_parts(store.import_file(path))["model"] == other.model
    with pytest.raises(InputError) as err:
        export_preset("no such model at all", tmp_path)
    assert err.value.field == "preset"


# ----------------------------------------------------------------------------- bad files
def test_corrupt_files_are_moved_aside_and_the_rest_load(config_dir):
    directory = config_dir / "presets"
    good = _write(directory, "good.json", json.dumps(_good_doc()))
    bad = {
        "notjson.json": b"",
        "array.json": b"[1, 2]",
        "latin1.json": json.dumps(_good_doc("Caf\u00e9"), ensure_ascii=False).encode("latin-1"),
        "noversion.json": json.dumps(
            {k: v for k, v in _good_doc().items() if k != "schema_version"}
        ).encode(),
        "kind.json": json.dumps({**_good_doc(), "kind": "gpu"}).encode(),
        "part.json": json.dumps({**_good_doc(), "model": {"num_hidden_layers": "32"}}).encode(),
        "extra.json": json.dumps({**_good_doc(), "colour": "red"}).encode(),
        "deep.json": b"[" * 100_000 + b"]" * 100_000,
    }
    for name, content in bad.items():
        _write(directory, name, content)
    store = PresetStore()
    assert [p.path for p in store.list()] == [good]
    assert len(store.problems) == len(bad)
    for name, content in bad.items():
        moved = list(directory.glob(f"{name}.corrupt-*"))
        assert len(moved) == 1 and moved[0].read_bytes() == content
        assert not (directory / name).exists()
        assert (
            sum(
                f"presets/{name} could not be read" in s and moved[0].name in s
                for s in store.problems
            )
            == 1
        )
    assert any("Expecting value: line 1 column 1" in s for s in store.problems)
    assert any("kind: unknown kind 'gpu'" in s for s in store.problems)


def test_moved_aside_never_overwrites(config_dir):
    directory = config_dir / "presets"
    store = PresetStore()
    for content in (b"{first", b"{second", b"{third"):
        _write(directory, "x.json", content)
        assert store.list() == []
    moved = sorted(directory.glob("x.json.corrupt-*"))
    assert sorted(p.read_bytes() for p in moved) == [b"{first", b"{second", b"{third"]
    assert len(store.problems) == 3


def test_newer_schema_is_left_alone(config_dir):
    directory = config_dir / "presets"
    newer = _write(
        directory,
        "future.json",
        json.dumps(
            {
                **_good_doc("Future"),
                "schema_version": SCHEMA_VERSION + 1,
                "model": {"a_field_from_the_future": 1},
            }
        ),
    )
    before = newer.read_bytes()
    store = PresetStore()
    assert store.list() == [] and newer.read_bytes() == before
    assert list(directory.glob("*.corrupt-*")) == []
    assert store.problems == [
        f"presets/future.json was left as it is: "
        f"{SCHEMA_VERSION + 1} is newer than this vramdesk reads "
        f"({SCHEMA_VERSION})"
    ]
    # saving a preset of the same name must not overwrite the newer file
    assert store.save("Future", "model", {"model": _good_doc()["model"]}).slug == "future-2"
    assert newer.read_bytes() == before


def test_oversize_file_is_refused(config_dir):
    directory = config_dir / "presets"
    text = json.dumps(_good_doc("Padded"))
    fits = _write(directory, "fits.json", text + " " * (MAX_FILE_BYTES - len(text)))
    over = _write(directory, "over.json", text + " " * (MAX_FILE_BYTES - len(text) + 1))
    assert fits.stat().st_size == MAX_FILE_BYTES == over.stat().st_size - 1
    store = PresetStore()
    assert [p.slug for p in store.list()] == ["fits"]
    assert not over.exists() and len(list(directory.glob("over.json.corrupt-*"))) == 1
    assert f"larger than {MAX_FILE_BYTES} bytes" in store.problems[0]


# ----------------------------------------------------------------------------- migrations
@pytest.fixture
def migrations(monkeypatch):
    """A fake registry: schema 0 called the name "title"; 0 -> 1 renames it."""
    registry = {  # the real steps (1 -> 2, ...) after the fake one
        **_preset_file.MIGRATIONS,
        0: lambda doc: {**{k: v for k, v in doc.items() if k != "title"}, "name": doc["title"]},
    }
    monkeypatch.setattr(_preset_file, "MIGRATIONS", registry)
    return registry


def _v0(title="Old one"):
    doc = {k: v for k, v in _good_doc().items() if k != "name"}
    return json.dumps({**doc, "schema_version": 0, "title": title})


def test_migration_step_runs_and_file_is_untouched(config_dir, migrations):
    old = _write(config_dir / "presets", "old.json", _v0())
    before = old.read_bytes()
    store = PresetStore()
    [preset] = store.list()
    assert (preset.name, preset.slug, store.problems) == ("Old one", "old", [])
    assert scenario_parts(preset)["model"].num_hidden_layers == 32
    assert old.read_bytes() == before  # migrated in memory only
    store.rename("old", "Old")  # same slug; the next save writes the current schema
    assert json.loads(old.read_text())["schema_version"] == SCHEMA_VERSION


def test_failed_migration_leaves_the_file(config_dir, migrations):
    directory = config_dir / "presets"
    broken = _write(directory, "broken.json", json.dumps({"schema_version": 0, "kind": "model"}))
    orphan = _write(directory, "orphan.json", json.dumps({**_good_doc(), "schema_version": -1}))
    _write(directory, "fine.json", _v0("Fine"))
    before = broken.read_bytes(), orphan.read_bytes()
    store = PresetStore()
    assert [p.name for p in store.list()] == ["Fine"]
    assert (broken.read_bytes(), orphan.read_bytes()) == before
    assert list(directory.glob("*.corrupt-*")) == []
    assert store.problems == [
        "presets/broken.json was left as it is: migration from 0 to 1 failed (KeyError: 'title')",
        "presets/orphan.json was left as it is: no migration from -1",
    ]


# ----------------------------------------------------------------------------- concurrency
def test_two_stores_see_each_others_saves(config_dir):
    a, b = PresetStore(), PresetStore()
    a.save("From A", "workload", {"workload": {}})
    b.save("from a", "workload", {"workload": {"batch": 2}})  # same slug, other name
    assert {p.slug for p in a.list()} == {p.slug for p in b.list()} == {"from-a", "from-a-2"}
    a.save("From A", "workload", {"workload": {"batch": 7}})  # b has read the old content
    assert scenario_parts(b.get("from-a"))["workload"].batch == 7
    b.get("from-a").path.write_text(
        json.dumps({**json.loads(b.get("from-a").path.read_text()), "workload": {"batch": 8}})
    )  # edited by hand
    assert scenario_parts(a.get("from-a"))["workload"].batch == 8
    b.delete("from-a")
    assert [p.name for p in a.list()] == ["from a"]


def test_lock_is_held_while_writing(config_dir):
    store = PresetStore(lock_timeout_s=0.2)
    with filelock.FileLock(store.directory / ".lock"):
        with pytest.raises(PresetStoreError, match="held"):
            store.save("Blocked", "workload", {"workload": {}})
    assert store.list() == []
    assert store.save("Blocked", "workload", {"workload": {}}).slug == "blocked"


def _save_many(directory: str, mark: str, count: int, start) -> None:
    store = PresetStore(Path(directory))
    start.wait(30)
    for i in range(count):
        store.save("Shared " + mark * (i + 1), "workload", {"workload": {"batch": i + 1}})


def test_two_processes_never_lose_a_save(config_dir):
    directory = config_dir / "presets"
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    # every name slugs to "shared": each save must pick a free suffix while the other process
    # picks too, so only the lock keeps two saves from landing on one file
    procs = [
        ctx.Process(target=_save_many, args=(str(directory), mark, 20, start)) for mark in "!?"
    ]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    presets = PresetStore(directory).list()
    assert sorted(p.name for p in presets) == sorted(
        "Shared " + m * n for m in "!?" for n in range(1, 21)
    )
    assert sorted(p.slug for p in presets) == sorted(
        ["shared"] + [f"shared-{n}" for n in range(2, 41)]
    )
    for p in presets:
        assert scenario_parts(p)["workload"].batch == len(p.name) - len("Shared ")
    assert [p.name for p in directory.iterdir() if p.name.endswith(".tmp")] == []


# --------------------------------------------------- issue 12 item 4: values out of limits
POISONED = {
    "runtime-1e400.json": {"kind": "runtime", "runtime": {"overhead_factor": "1e400"}},
    "runtime-util.json": {"kind": "runtime", "runtime": {"gpu_memory_utilization": "7"}},
    "workload-zero.json": {
        "kind": "workload",
        "workload": {"context_tokens": 0, "batch": 1},
    },
    "model-layers.json": {
        "kind": "model",
        "model": {"num_hidden_layers": 2**40, "num_key_value_heads": 8, "head_dim": 128},
    },
    "digits.json": {"kind": "runtime", "runtime": {"tensor_parallel_size": "HUGE"}},
}


def _poisoned_bytes(name, doc):
    text = json.dumps({"schema_version": SCHEMA_VERSION, "name": name, **doc})
    return text.replace('"HUGE"', "9" * 5000).encode()


def test_values_outside_the_limits_are_set_aside_and_reported(config_dir):
    directory = config_dir / "presets"
    good = _write(directory, "good.json", json.dumps(_good_doc()))
    for name, doc in POISONED.items():
        _write(directory, name, _poisoned_bytes(name, doc))
    store = PresetStore()
    assert [p.path for p in store.list()] == [good]
    assert len(store.problems) == len(POISONED)
    for name in POISONED:
        assert len(list(directory.glob(f"{name}.corrupt-*"))) == 1
    text = "\n".join(store.problems)
    assert "overhead_factor: must be between 1 and 10, got a number beyond ±1e308" in text
    assert "gpu_memory_utilization: must be between 0.01 and 1, got 7" in text
    assert "context_tokens: must be positive" in text
    assert "num_hidden_layers: must be at most 10,000" in text


@pytest.mark.parametrize("name", sorted(POISONED))
def test_poisoned_preset_cannot_be_imported(tmp_path, store, name):
    path = tmp_path / name
    path.write_bytes(_poisoned_bytes(name, POISONED[name]))
    with pytest.raises(FileReadError, match="cannot be imported"):
        store.import_file(path)
    assert store.list() == []


def test_poisoned_runtime_preset_on_the_command_line(config_dir):
    from tests.bounded import assert_one_line_refusal, run_cli_bounded

    directory = config_dir / "presets"
    _write(directory, "bad.json", _poisoned_bytes("bad", POISONED["runtime-1e400.json"]))
    argv = ["estimate", "--preset", "llama-3.1-8b", "--context", "1", "--runtime-preset", "bad"]
    result = run_cli_bounded(argv, env={"VRAMDESK_CONFIG_DIR": str(config_dir)})
    # one line: the refusal, saying why the name is gone
    line = assert_one_line_refusal(result, "no saved preset named 'bad'", "overhead_factor")
    assert "moved to bad.json.corrupt-" in line
    imported = run_cli_bounded(
        ["presets", "import", str(next(directory.glob("bad.json.corrupt-*")))],
        env={"VRAMDESK_CONFIG_DIR": str(config_dir)},
    )
    assert_one_line_refusal(imported, "cannot be imported", "overhead_factor")


# ------------------------------------------- issue 12 items 10 and 11: directory edge cases
def test_config_dir_that_is_a_regular_file(tmp_path, monkeypatch):
    target = tmp_path / "afile"
    target.write_text("not a directory")
    monkeypatch.setenv("VRAMDESK_CONFIG_DIR", str(target))
    store = PresetStore()  # no exception: the window must start
    assert store.list() == []
    assert store.problems == [
        f"{target} is a file, not a directory: presets and settings cannot be saved"
    ]
    with pytest.raises(PresetStoreError):
        store.save("x", "workload", {"workload": {"batch": 2}})
    with pytest.raises(InputError, match="is a file, not a directory"):
        config_dir()


def test_config_dir_that_cannot_be_created(tmp_path, monkeypatch):
    blocker = tmp_path / "afile"
    blocker.write_text("")
    monkeypatch.setenv("VRAMDESK_CONFIG_DIR", str(blocker / "sub"))
    store = PresetStore()
    assert len(store.problems) == 1 and "cannot be created" in store.problems[0]


def test_unreadable_presets_directory_is_said_once(config_dir, monkeypatch):
    directory = config_dir / "presets"
    _write(directory, "good.json", json.dumps(_good_doc()))
    real = os.scandir

    def scandir(path="."):
        if Path(path) == directory:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    store = PresetStore()
    assert store.list() == []
    assert store.problems == [
        f"{directory} could not be read (Permission denied): your saved presets are not shown"
    ]
    store.problems.clear()  # as a window does after showing them
    for _ in range(5):
        store.list()
    assert store.problems == []  # said once, not on every scan (the 2,344-copy banner)


def test_preset_saved_with_a_byte_order_mark_loads(config_dir):
    path = _write(
        config_dir / "presets", "bom.json", b"\xef\xbb\xbf" + json.dumps(_good_doc()).encode()
    )
    store = PresetStore()
    assert [p.path for p in store.list()] == [path] and store.problems == []


def test_file_gone_between_listing_and_reading_is_no_problem(config_dir, monkeypatch):
    directory = config_dir / "presets"
    _write(directory, "a.json", json.dumps(_good_doc("A")))
    gone = _write(directory, "b.json", json.dumps(_good_doc("B")))
    real = _preset_file.read_limited

    def read_limited(path):
        if Path(path) == gone:
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return real(path)

    monkeypatch.setattr("vramdesk.core.store.presets.read_limited", read_limited)
    store = PresetStore()
    assert [p.name for p in store.list()] == ["A"] and store.problems == []


def test_stale_temporary_files_are_removed_at_start(config_dir):
    directory = config_dir / "presets"
    old = _write(directory, ".shared.abc123.tmp", "{")
    fresh = _write(directory, ".shared.def456.tmp", "{")
    past = old.stat().st_mtime - 3600
    os.utime(old, (past, past))
    store = PresetStore()
    assert store.removed_temps == 1 and not old.exists() and fresh.exists()


def test_csv_cells_that_a_spreadsheet_would_run_are_escaped():
    import csv
    import io

    from vramdesk.core.present.views import to_csv

    rows = [['=HYPERLINK("http://x")', "-1.55"], ["+cmd", "@SUM(A1)"], ["-x", "1,234"]]
    parsed = list(csv.reader(io.StringIO(to_csv(["=name", "total"], rows))))
    assert parsed == [
        ["'=name", "total"],
        ['\'=HYPERLINK("http://x")', "-1.55"],  # a number stays a number
        ["'+cmd", "'@SUM(A1)"],
        ["'-x", "1,234"],
    ]
