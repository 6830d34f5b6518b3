"""Field plumbing between widgets and the core inputs: names, raw-value conversion, the target.

The rules live in the core (:mod:`vramdesk.core.fields`), where the Qt-free scenario
session reads typed text with them; this module keeps the names the forms import.
"""

from vramdesk.core.fields import (
    FIELD_PART,
    Target,
    capacity_bytes_of,
    convert_field,
    parse_int_text,
    parse_number_text,
    parse_real_text,
)

__all__ = [
    "FIELD_PART",
    "Target",
    "capacity_bytes_of",
    "convert_field",
    "parse_int_text",
    "parse_number_text",
    "parse_real_text",
]
