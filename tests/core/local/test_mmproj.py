"""Vision projectors (``--mmproj``, issue 27.5): sized from a GGUF written by ``gguf``.

The synthetic projector (``general.architecture = clip``) holds, by hand:

* ``v.patch_embd.weight`` f16 ``14 x 14 x 3 x 64`` = 37,632 elements x 2 = 75,264 bytes;
* ``v.blk.0.attn_q.weight`` Q8_0 ``64 x 64`` = 4,096 elements / 32 per block = 128 blocks x
  34 bytes (ggml-common.h ``block_q8_0``) = 4,352 bytes;
* ``mm.0.weight`` f16 ``64 x 128`` = 16,384 bytes; ``mm.0.bias`` f32 ``128`` = 512 bytes;

96,512 bytes in all, each a tensor of the file's table (``clip.cpp`` loads them all onto the
GPU).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.local_stores import write_gguf
from vramdesk.cli import main
from vramdesk.core.errors import InputError
from vramdesk.core.estimate import estimate
from vramdesk.core.local.discovery import _scan_folder
from vramdesk.core.local.importers._mmproj import read_projector
from vramdesk.core.model.launch import parse_launch
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.workload import Workload
from vramdesk.core.store.lookup import resolve_model_preset

PROJECTOR_BYTES = 37_632 * 2 + 128 * 34 + 64 * 128 * 2 + 128 * 4


def write_mmproj(path):
    import gguf
    from gguf.quants import quantize

    w = gguf.GGUFWriter(str(path), "clip")
    w.add_string("clip.projector_type", "mlp")
    w.add_uint32("clip.vision.image_size", 224)
    w.add_uint32("clip.vision.patch_size", 14)
    w.add_tensor("v.patch_embd.weight", np.zeros((64, 3, 14, 14), dtype=np.float16))
    q = quantize(np.ones((64, 64), dtype=np.float32), gguf.GGMLQuantizationType.Q8_0)
    w.add_tensor("v.blk.0.attn_q.weight", q, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    w.add_tensor("mm.0.weight", np.zeros((128, 64), dtype=np.float16))
    w.add_tensor("mm.0.bias", np.zeros(128, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_the_projector_header_is_sized_by_hand(tmp_path):
    p = read_projector(write_mmproj(tmp_path / "mmproj-tiny-f16.gguf"))
    assert PROJECTOR_BYTES == 96_512
    assert (p.weight_bytes, p.tensors) == (PROJECTOR_BYTES, 4)
    assert (p.projector_type, p.image_size, p.patch_size) == ("mlp", 224, 14)


def test_a_model_file_is_not_a_projector(tmp_path):
    with pytest.raises(InputError, match="mmproj: model.gguf is not a vision projector"):
        read_projector(write_gguf(tmp_path / "model.gguf", q8=True))


def test_the_projector_is_its_own_part_and_counts_against_the_card(tmp_path):
    preset = resolve_model_preset("gemma-3-27b-it")
    wl = Workload(context_tokens=8192, batch=1)
    rt = Runtime(engine=Engine.LLAMA_CPP)
    base = estimate(preset.model, preset.weights, wl, rt)
    with_proj = estimate(preset.model, preset.weights, wl, rt.replace(mmproj_bytes=96_512))
    assert with_proj.total_bytes - base.total_bytes == 96_512
    assert with_proj.projector.bytes == 96_512 and base.projector is None
    assert [p.key for p in with_proj.parts][:2] == ["weights", "projector"]
    assert with_proj.to_dict()["projector_bytes"] == 96_512
    assert "projector_bytes" not in base.to_dict()


def test_mmproj_on_estimate_and_from_command(tmp_path, capsys):
    mm = write_mmproj(tmp_path / "mmproj-tiny-f16.gguf")
    args = ["estimate", "--preset", "gemma-3-27b-it", "--engine", "llama.cpp", "--json"]
    assert main([*args, "--context", "8192"]) == 0
    base = capsys.readouterr().out
    assert main([*args, "--context", "8192", "--mmproj", str(mm)]) == 0
    import json

    got, before = json.loads(capsys.readouterr().out), json.loads(base)
    assert got["projector_bytes"] == PROJECTOR_BYTES
    assert got["total_bytes"] - before["total_bytes"] == PROJECTOR_BYTES
    launch = parse_launch(f"llama-server -m gemma-3-27b-it-Q4_K_M.gguf --mmproj {mm} -c 8192")
    assert launch.options["mmproj"] == str(mm) and "--mmproj" in launch.read
    assert (
        main(
            ["estimate", "--preset", "gemma-3-27b-it", "--engine", "vllm", "--context", "8192"]
            + ["--mmproj", str(mm)]
        )
        == 2
    )
    assert "mmproj_bytes" in capsys.readouterr().err  # not a vLLM option


def test_discovery_pairs_a_projector_with_the_model_beside_it(tmp_path):
    root = tmp_path / "models"
    (root / "one").mkdir(parents=True)
    write_gguf(root / "one" / "tiny-Q8_0.gguf", q8=True)
    mm = write_mmproj(root / "one" / "mmproj-tiny-f16.gguf")
    (root / "two").mkdir()
    write_gguf(root / "two" / "alpha-7B-Q8_0.gguf", q8=True)
    write_gguf(root / "two" / "beta-3B-Q8_0.gguf", q8=True)
    write_mmproj(root / "two" / "mmproj-alpha-7B-f16.gguf")
    write_mmproj(root / "two" / "mmproj-beta-3B-f16.gguf")
    found = {m.name: m for m in _scan_folder(root, "user", [])}
    assert set(found) == {"one/tiny-Q8_0.gguf", "two/alpha-7B-Q8_0.gguf", "two/beta-3B-Q8_0.gguf"}
    assert found["one/tiny-Q8_0.gguf"].mmproj == str(mm)
    assert found["two/alpha-7B-Q8_0.gguf"].mmproj.endswith("mmproj-alpha-7B-f16.gguf")
    assert found["two/beta-3B-Q8_0.gguf"].mmproj.endswith("mmproj-beta-3B-f16.gguf")


def test_the_corpus_projector_is_this_module_s(tmp_path):
    # tests/data/mmproj-tiny-f16.gguf (read by the CLI corpus's --mmproj commands) is
    # write_mmproj's output, byte for byte: regenerate it with write_mmproj if this fails
    committed = Path(__file__).resolve().parents[2] / "data" / "mmproj-tiny-f16.gguf"
    assert committed.read_bytes() == write_mmproj(tmp_path / "m.gguf").read_bytes()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        # the reader's own field was "path": the error names the flag (fresh-user trial)
        (["--mmproj", "/nonexistent", "--engine", "llama.cpp"], "mmproj: /nonexistent does not"),
        (["--mmproj", "/etc/passwd", "--engine", "llama.cpp"], "mmproj: passwd is not a readable"),
        # the default engine has no projector: say which engine loads one
        (
            ["--mmproj", str(Path(__file__).parents[2] / "data" / "mmproj-tiny-f16.gguf")],
            "(--engine llama.cpp)",
        ),
    ],
)
def test_a_bad_projector_is_refused_under_the_flags_name(capsys, extra, message):
    argv = ["estimate", "--preset", "llama-3.1-8b", "--context", "8192", *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
