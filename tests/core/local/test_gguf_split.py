"""A split GGUF is read part by part only while its parts are what llama.cpp writes (issue 22).

Each part a distinct file, each tensor in one part, the metadata in the first part only:
otherwise one line names the fault before more than one other part (or a bounded number of
header bytes) is read. A 1,024-part split of hard links to one 8.8 MB header took 431 s.
"""

import time

import pytest

from tests.slow_inputs import fat_part, split_gguf
from vramdesk.core.errors import FileReadError
from vramdesk.core.local.importers import _gguf_split, load_model


@pytest.fixture
def reads(monkeypatch):
    """The headers read, by file name."""
    seen: list[str] = []
    real = _gguf_split.read_gguf_header

    def counting(path, monitor=None):
        seen.append(path.name)
        return real(path, monitor)

    monkeypatch.setattr(_gguf_split, "read_gguf_header", counting)
    return seen


def test_a_split_of_hard_links_is_refused_before_a_second_header_is_read(tmp_path, reads):
    first = split_gguf(tmp_path, 1024, how="links")
    with pytest.raises(FileReadError) as err:
        load_model(first)
    assert str(err.value) == (
        "path: split GGUF: m-00002-of-01024.gguf is the same file as m-00001-of-01024.gguf"
    )
    assert reads == []


def test_a_split_of_copies_is_refused_at_the_first_repeated_tensor(tmp_path, reads):
    first = split_gguf(tmp_path, 1024, how="copies")
    with pytest.raises(FileReadError) as err:
        load_model(first)
    assert str(err.value) == (
        "path: split GGUF: tensor 'token_embd.weight' is in both m-00001-of-01024.gguf and "
        "m-00002-of-01024.gguf"
    )
    assert reads == ["m-00002-of-01024.gguf"]


def test_metadata_in_the_other_parts_is_refused_past_a_bounded_amount(tmp_path, reads):
    first = split_gguf(tmp_path, 64)
    for i in range(2, 65):  # every later part carries 2.5 MiB of strings: 2 windows past its first
        fat_part(tmp_path / f"m-{i:05d}-of-00064.gguf", 64, f"blk.{i}.w", 2.5)
    with pytest.raises(FileReadError, match=r"other parts' headers exceed 64 MiB"):
        load_model(first)
    # refused within the 33rd part (2 x 32 windows are the 64 MiB allowed), not after all 63
    assert 30 <= len(reads) <= 33


def test_a_real_1024_part_split_is_summed_exactly_within_a_generous_bound(tmp_path, reads):
    first = split_gguf(tmp_path, 1024)
    start = time.perf_counter()
    model = load_model(first).model
    seconds = time.perf_counter() - start
    # f16: the first part's 4096 x 1000 embedding, then 1,023 parts of 4096 x 4096
    assert model.checkpoint_bytes == 2 * (4096 * 1000 + 1023 * 4096 * 4096)
    assert len(reads) == 1023 and len(set(reads)) == 1023  # each other part read once
    assert seconds < 10  # 10x the 1 s target (tests/benchmarks/bench_slow_inputs.py times it)
