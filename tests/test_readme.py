"""The README's Python examples run as doctests (a block without ``>>>`` runs as a script)."""

from __future__ import annotations

import doctest
import re

from conftest import ROOT

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_readme_python_examples_run() -> None:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the README has a Python example"
    assert any(">>>" in b for b in blocks), "the README's main example is a doctest"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for i, block in enumerate(blocks):
        if ">>>" not in block:
            exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
            continue
        test = parser.get_doctest(block, {"__name__": "readme"}, f"README.md block {i}", "README.md", 0)
        assert test.examples
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} README example(s) failed (see the output above)"
