"""Memos for the hot path of the estimate: what depends only on frozen inputs is done once.

The inputs (:class:`~vramdesk.core.model.spec.ModelSpec`,
:class:`~vramdesk.core.model.formats.WeightSpec`, :class:`~vramdesk.core.model.workload.Workload`,
:class:`~vramdesk.core.model.runtime.Runtime`) are frozen dataclasses, so a check or a figure
that depends only on one of them holds for as long as the object lives. Two memos:

- :func:`validated` remembers, by identity, the objects whose ``validate()`` passed, so that
  a solver or a grid that estimates the same model thousands of times checks its fields
  (float knobs included) once, at the edge where the object entered.
- :func:`memo` is a small identity-first cache in front of an equality-keyed
  ``functools.lru_cache``: an identical object costs a dict lookup, an equal but new object
  (``dataclasses.replace`` with nothing changed) costs a hash.

Only objects whose every field is hashable are remembered: a list where a tuple belongs
could be changed after the check, so such an object is checked every time.
"""

from __future__ import annotations

import functools
from typing import Any

#: How many objects each memo keeps before it starts afresh (a bounded, cheap eviction).
MAX_ENTRIES = 1024

_VALID: dict[int, Any] = {}


def validated(obj: Any) -> None:
    """Run ``obj.validate()`` unless this very object already passed it.

    Raises
    ------
    InputError
        What ``obj.validate()`` raises (nothing is remembered then).
    """
    if id(obj) in _VALID:  # the entry keeps obj alive: no other object has its id
        return
    obj.validate()
    try:
        hash(obj)
    except TypeError:  # a mutable field: it could change after the check
        return
    if len(_VALID) >= MAX_ENTRIES:
        _VALID.clear()
    _VALID[id(obj)] = obj  # the entry keeps obj alive, so its id is not reused


def memo(fn: Any) -> Any:
    """Cache ``fn`` (arguments: frozen inputs and plain values) by identity, then by equality.

    ``fn`` must be pure: its result depends only on its arguments and is never mutated by a
    caller (a frozen dataclass, an int, a tuple). Arguments that cannot be hashed (a list in
    a field) fall through to ``fn`` uncached.
    """
    by_value = functools.lru_cache(maxsize=MAX_ENTRIES)(fn)
    by_id: dict[tuple[int, ...], tuple[tuple, Any]] = {}

    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        # the entry keeps its arguments alive, so no other object can carry their ids: equal
        # ids mean the very same arguments
        key = tuple(map(id, args))
        hit = by_id.get(key)
        if hit is not None:
            return hit[1]
        try:
            result = by_value(*args)
        except TypeError:  # an unhashable argument: no memo
            return fn(*args)
        if len(by_id) >= MAX_ENTRIES:
            by_id.clear()
        by_id[key] = (args, result)  # keeps the arguments alive: their ids stay theirs
        return result

    wrapper.cache_clear = lambda: (by_id.clear(), by_value.cache_clear())  # type: ignore[attr-defined]
    return wrapper
