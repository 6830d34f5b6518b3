"""Reading a breakdown export back: the facts block, then the figures table (issue 23, item 4).

Written from the format's description in ``vramdesk/core/present/output.py``
(``breakdown_export``), with the standard library's readers, not with the code under test.
"""

from __future__ import annotations

import csv
import io


def read_csv(text: str) -> tuple[dict[str, str], list[list[str]]]:
    """``(facts, table)``: the ``key,value`` rows up to the first empty row, then the rest."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    blank = rows.index([])
    head, *facts = rows[:blank]
    assert head == ["scenario", "value"], head
    return {k: v for k, v in facts}, rows[blank + 1 :]


def read_markdown(text: str) -> tuple[dict[str, str], list[list[str]]]:
    """``(facts, table)`` of the two Markdown tables, split at the empty line (cells stripped)."""
    first, second = text.strip("\n").split("\n\n")

    def cells(block: str) -> list[list[str]]:
        lines = block.splitlines()
        assert set(lines[1]) <= set("|-"), lines[1]  # the separator row
        return [[c.strip() for c in line.strip("|").split("|")] for line in [lines[0], *lines[2:]]]

    head, *facts = cells(first)
    assert head == ["scenario", "value"], head
    return {k: v for k, v in facts}, cells(second)
