"""Text that players type (names, chat lines), made safe to show."""

from __future__ import annotations

import re
import unicodedata

#: removed everywhere: control characters, bidirectional controls (an RLO would reverse the
#: text after it), invisible spaces and marks, and the Hangul fillers that render as nothing.
#: The zero-width joiner and non-joiner (U+200D, U+200C) are kept inside text: emoji sequences
#: (a family) and scripts such as Persian need them; they are removed at the ends
_UNSAFE = re.compile("[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u202a-\u202e"
                     "\u2060-\u2069\u3164\ufeff\uffa0]")
_JOINERS = "\u200c\u200d"
#: categories that show nothing on their own (a name of these alone is empty)
_INVISIBLE = {"Zs", "Zl", "Zp", "Cf", "Cc", "Mn", "Me"}


def safe_name(name: str | None) -> str:
    """A player or table name (or a chat line) with control, bidirectional-override and
    invisible characters removed and spaces collapsed; "" when nothing visible is left.
    Clients still isolate names (<bdi>)."""
    text = " ".join(_UNSAFE.sub("", name or "").split())
    text = " ".join(w.strip(_JOINERS) for w in text.split(" ")).strip()
    text = " ".join(text.split())
    if all(unicodedata.category(ch) in _INVISIBLE for ch in text):
        return ""
    return text
