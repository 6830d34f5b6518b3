"""A preset rename as one atomic step: a journal, the new file, then the old one goes.

Renaming a preset changes its slug, so it is two directory entries: the new file must be
written and the old one removed. A process killed between the two left both names (issue
22: 17 of 120 kills). Under the store's lock a rename now writes a journal first,
``.rename-journal`` (``{"from": "<old>.json", "to": "<new>.json"}``, written atomically),
then the new file, then removes the old file and last the journal. Whatever instant a kill
lands at, the journal says how to finish:

* the new file is not there (killed before it was renamed into place): the rename never
  happened; the old file stays;
* the new file is there: the rename happened; the old file, if still there, is removed.

Readers apply the same rule while a journal exists (:func:`hidden_name`), so no scan ever
shows both names, and the next locked write or the next start finishes the rename
(:func:`finish_rename`).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vramdesk.core.store._preset_file import fsync_dir, read_limited, write_json_atomic

#: The journal's file name: no ``.json`` suffix, so it is never read as a preset.
JOURNAL = ".rename-journal"


def rename_file(directory: Path, old: Path, new: Path, doc: dict[str, Any]) -> None:
    """Replace preset file ``old`` by ``new`` holding ``doc``, journalled; call under the lock.

    Raises
    ------
    OSError
        A write failed; the journal then says how far the rename got.
    """
    journal = directory / JOURNAL
    write_json_atomic(journal, {"from": old.name, "to": new.name})
    write_json_atomic(new, doc)
    os.unlink(old)
    fsync_dir(directory)
    os.unlink(journal)


def _read(directory: Path) -> tuple[str, str] | None:
    """``(from, to)`` file names of the journal in ``directory``; None: none or unreadable."""
    try:
        raw = read_limited(directory / JOURNAL)
        entry = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(entry, dict):
        return None
    names = entry.get("from"), entry.get("to")
    for name in names:  # plain file names of this directory only
        if not isinstance(name, str) or not name.endswith(".json") or Path(name).name != name:
            return None
    return names[0], names[1]


def hidden_name(directory: Path, names: set[str]) -> str | None:
    """The old file name a half-done rename leaves among ``names``, which a scan must not show.

    Only when ``JOURNAL`` is among ``names`` and its new file is there too (the rename
    happened; only the removal of the old file is missing).
    """
    if JOURNAL not in names:
        return None
    entry = _read(directory)
    if entry is None or entry[1] not in names:
        return None
    return entry[0]


def finish_rename(directory: Path, readable: Callable[[Path], bool]) -> bool:
    """Finish (or drop) the rename a killed process left; call under the store's lock.

    Parameters
    ----------
    directory : Path
        The preset directory.
    readable : callable
        ``readable(path)``: whether the new file is a whole preset; only then is the old
        file removed (the new file is written atomically, so this is a safeguard).

    Returns
    -------
    bool
        Whether a journal was found (and is now gone).
    """
    journal = directory / JOURNAL
    if not os.path.lexists(journal):
        return False
    entry = _read(directory)
    if entry is not None:
        old, new = directory / entry[0], directory / entry[1]
        if old != new and new.is_file() and readable(new):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(old)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(journal)
    fsync_dir(directory)
    return True
