"""Text that players type (names, chat lines), made safe to show."""

from __future__ import annotations

import re

#: bidirectional controls (an RLO would reverse the text after it) and other invisible format marks
_UNSAFE = re.compile("[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def safe_name(name: str | None) -> str:
    """A player or table name with control and bidirectional-override characters removed and
    spaces collapsed ("" when nothing is left). Clients still isolate names (<bdi>)."""
    return " ".join(_UNSAFE.sub("", name or "").split())
