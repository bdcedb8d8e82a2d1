"""The README's Python example runs as written."""

from __future__ import annotations

import re

from conftest import ROOT


def test_readme_python_examples_run(capsys: object) -> None:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the README has a Python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
