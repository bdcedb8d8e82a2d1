"""The README, the repository's front door: its Python example runs as a doctest, its links
resolve, its commands table names every command, and the levels' ratings it quotes are the
measured ones. (The documentation's pages are checked in test_docs.py.)"""

from __future__ import annotations

import doctest
import json
import re

from conftest import ROOT

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
README = ROOT / "README.md"


def run_python_blocks(text: str, name: str) -> int:
    """Run every ```python block of ``text`` (a doctest when it has ``>>>``, else a script);
    returns how many ran. Fails naming the first block that fails."""
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for i, block in enumerate(blocks):
        if ">>>" not in block:
            exec(compile(block, f"{name} block {i}", "exec"), {"__name__": "docs_example"})
            continue
        test = parser.get_doctest(block, {"__name__": "docs_example"}, f"{name} block {i}", name, 0)
        assert test.examples
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} example(s) of {name} failed (see the output above)"
    return len(blocks)


def test_readme_python_example_runs() -> None:
    text = README.read_text()
    assert ">>>" in text, "the README shows the engine in a doctest"
    assert run_python_blocks(text, "README.md") >= 1


def test_readme_opens_with_the_two_commands() -> None:
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S)
    assert "pip install -e" in blocks[0] and "civlite serve" in blocks[0]
    assert blocks[1].strip() == "./scripts/test"


def test_readme_stays_a_front_door() -> None:
    assert len(README.read_text().splitlines()) <= 200, "move the detail into docs/ and link it"


def test_readme_links_resolve() -> None:
    text = README.read_text()
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_readme_commands_table_names_every_command() -> None:
    from civlite.cli import app

    text = README.read_text()
    names = [c.name or c.callback.__name__ for c in app.registered_commands if c.callback is not None]
    assert names
    missing = [n for n in names if f"`civlite {n}" not in text]
    assert not missing, f"the README's commands table lacks: {missing}"


def test_readme_quotes_the_measured_ratings() -> None:
    from civlite.bots import LEVEL_RATINGS, LEVELS

    ladder = json.loads((ROOT / "benchmarks/results/ladder/ladder.json").read_text())
    measured = {r["bot"]: round(r["elo"]) for r in ladder["ratings"]}
    rows = dict(re.findall(r"^\| `(\w+)` \| `[^`]+` \| [^|]+ \| (\d+) \|$", README.read_text(), flags=re.M))
    assert set(rows) == set(LEVELS)
    for level, elo in rows.items():
        assert int(elo) == measured[level] == LEVEL_RATINGS[level], level
