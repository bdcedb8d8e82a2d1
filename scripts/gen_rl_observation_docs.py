#!/usr/bin/env python3
"""Write the generated tables of docs/researchers/observation.md from the code (civlite.rl.spec)."""

from __future__ import annotations

import re
from pathlib import Path

from civlite.rl.spec import markdown

PAGE = Path(__file__).resolve().parents[1] / "docs" / "researchers" / "observation.md"
START, END = "<!-- generated: spec -->", "<!-- end generated -->"


def render(page: str) -> str:
    """The page with its generated part replaced by the code's tables."""
    block = f"{START}\n{markdown()}\n{END}"
    new, count = re.subn(re.escape(START) + r".*?" + re.escape(END), lambda _: block, page, flags=re.S)
    if count != 1:
        raise SystemExit(f"{PAGE}: expected one {START} ... {END} block, found {count}")
    return new


def main() -> None:
    PAGE.write_text(render(PAGE.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
