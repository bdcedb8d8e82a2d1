"""The documentation (docs/, built as a site by mkdocs.yml): every page is in the site's
navigation, every Python example runs, every rule-set example loads, and the tables that
copy facts from the code or from benchmarks/results say what those hold."""

from __future__ import annotations

import re
import tomllib

import pytest

from conftest import ROOT
from test_readme import run_python_blocks

DOCS = ROOT / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text()


def nav_pages() -> list[str]:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    out: list[str] = []

    def walk(items: object) -> None:
        if isinstance(items, list):
            for x in items:
                walk(x)
        elif isinstance(items, dict):
            for v in items.values():
                walk(v)
        elif isinstance(items, str):
            out.append(items)

    walk(config["nav"])
    return out


def test_every_page_is_in_the_navigation_and_exists() -> None:
    nav = nav_pages()
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(nav) == pages


def test_internal_links_resolve() -> None:
    for p in DOCS.rglob("*.md"):
        for link in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", p.read_text()):
            if "://" not in link:
                assert (p.parent / link).resolve().exists(), f"{p.relative_to(ROOT)} links to missing {link}"


def test_engine_guide_examples_run() -> None:
    text = page("engine/index.md")
    assert ">>>" in text
    assert run_python_blocks(text, "docs/engine/index.md") >= 1


def test_research_examples_run() -> None:
    for module in ("numpy", "gymnasium", "pettingzoo", "pyspiel"):
        pytest.importorskip(module)
    assert run_python_blocks(page("researchers/index.md"), "docs/researchers/index.md") >= 4


def test_rule_set_examples_load() -> None:
    from civlite.engine import RuleSet

    blocks = re.findall(r"```toml\n(.*?)```", page("designers/rules.md"), flags=re.S)
    assert len(blocks) >= 2
    for block in blocks:
        rules = RuleSet.from_dict(tomllib.loads(block))
        assert rules.to_toml()
    windfall = RuleSet.from_dict(tomllib.loads(blocks[0]))
    assert windfall.victory_ct == 15 and "Windfall" in [a.name for a in windfall.abilities]


def test_bots_page_shows_the_ladder_as_measured() -> None:
    ladder = (ROOT / "benchmarks/results/ladder/ladder.md").read_text()
    text = page("bots.md")
    for line in ladder.splitlines():
        if line.startswith("|"):
            assert line in text, f"docs/bots.md differs from ladder.md: {line}"


def offset(formula: str, n: int, k: int = 0) -> int:
    """``"60 + 11n"`` or ``"8 + 10k"`` for ``n`` seats (seat ``k``)."""
    total = 0
    for term in formula.replace(" ", "").split("+"):
        if term[-1] in "nk":
            total += int(term[:-1] or 1) * (n if term[-1] == "n" else k)
        else:
            total += int(term)
    return total


def test_observation_table_matches_the_vector() -> None:
    from civlite.engine import Game, obs_size

    rows = re.findall(r"^\| ([0-9n k+]+) \| (\d+) \| (n|\d+) \| ([^|]+) \|", page("researchers/observation.md"),
                      flags=re.M)
    assert rows
    for n in range(2, 9):
        at = 0
        for formula, at_two, width, slot in rows:
            w = n if width == "n" else int(width)
            if "k" in formula:  # one row per seat: the seat block repeats n times, 10 values each
                assert offset(formula, n) == at, (n, slot)
                at += w
                if slot.strip().startswith("seat *k*: known"):
                    at += 10 * (n - 1)
                continue
            start = offset(formula, n)
            assert start == at, (n, slot)
            if n == 2:
                assert int(at_two) == start, slot
            at += w
        assert at == obs_size(n), n
    g = Game(3, seed=4)
    from civlite.rl.encoding import encode_game

    x = encode_game(g, 0)
    assert x[8 + 10 * 3] == g.view(0).deck_size  # "deck" at 8 + 10n
    assert x[62 + 12 * 3] == g.rules.victory_ct  # "victory CT" at 62 + 12n


def test_terminal_keys_are_the_apps() -> None:
    pytest.importorskip("textual")
    from civlite.tui.options import REPLAY_KEYS, TABLE_KEYS

    text = page("players/terminal.md")
    for key, what in (*TABLE_KEYS, *REPLAY_KEYS):
        assert f"| `{key}` | {what} |" in text, key


def test_hosting_limits_are_the_servers() -> None:
    pytest.importorskip("fastapi")
    from civlite.server import app, guard, protocol, run
    from civlite.server.tables import MAX_BOT_SECONDS

    text = page("hosting.md")
    assert f"| {app.RATE_LIMIT:g} | messages a second" in text
    assert f"{app.TABLES_PER_MINUTE:g} a minute" in text
    assert f"{app.CONNECTIONS_PER_ADDRESS} per address" in text and f"{app.MAX_CONNECTIONS:,} in all" in text
    assert run.WS_MAX_SIZE == guard.MAX_BODY == 64 * 1024 and "| one WebSocket frame | 64 KiB |" in text
    assert f"nested at most {protocol.MAX_DEPTH} deep" in text
    assert f"`seconds={MAX_BOT_SECONDS:g}`" in text


# -- a repository that stands alone ------------------------------------------------------------
def test_no_tracked_file_outside_the_tests_names_a_path_outside_the_repository() -> None:
    """The docs, the README, the code, the CLI help and the benchmarks never point at files a
    clone does not have; only the tests (and CI) may read the shared folder, where it exists."""
    import subprocess

    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    offenders = []
    for name in files:
        if name.startswith(("tests/", ".ci/")):
            continue
        path = ROOT / name
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "../shared" in text or "shared/tools" in text:
            offenders.append(name)
    assert not offenders, offenders


def test_the_rules_page_states_every_rule_the_code_cites() -> None:
    """Every rule number cited in the source (events, errors, docstrings) is on the rules page,
    which opens with the package's RULES.md word for word (the terminal's help shows it)."""
    rules = (ROOT / "src" / "civlite" / "tui" / "RULES.md").read_text()
    assert page("rules.md").startswith(rules), "docs/rules.md must open with src/civlite/tui/RULES.md"
    stated = set(re.findall(r"^- (R\d+\.\d+) ", rules, flags=re.M)) | set(re.findall(r"^## (R\d+) ", rules, flags=re.M))
    cited: set[str] = set()
    for path in (ROOT / "src" / "civlite").rglob("*.py"):
        cited |= set(re.findall(r"\b(R\d+(?:\.\d+)?)\b", path.read_text()))
    assert cited, "the source cites rules"
    assert cited <= stated, sorted(cited - stated)
    assert {f"R{i}" for i in range(1, 11)} <= stated
    assert "Civ Tokens (CT)" in rules


def test_the_scenario_page_names_every_field_and_the_cli_points_to_it() -> None:
    text = page("scenarios.md")
    for field in ("rules", "state.players", "state.deck", "state.discard", "state.active", "state.phase",
                  "state.extra_turn", "seed", "actions", "expect", "rules.deck", "applied", "error", "views",
                  "pending", "winner", "known", "expect_exit"):
        assert f"`{field}`" in text, field
    for do in ("pass", "basic", "advanced", "take", "discard", "meld"):
        assert f'{{"do": "{do}"' in text, do
    from typer.testing import CliRunner

    from civlite.cli import app

    result = CliRunner().invoke(app, ["scenario", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "docs/scenarios.md" in result.output


def test_the_write_a_bot_page_runs_and_its_bot_is_honest() -> None:
    """The page's example bot registers, plays whole games and passes the honesty check the
    page shows (all three code blocks run)."""
    from civlite.bots import BOTS, OPTIONS

    try:
        assert run_python_blocks(page("engine/bots.md"), "docs/engine/bots.md") == 3
        assert OPTIONS["tokens"] == ("greed",)
        from civlite.bots import decide, make_bot
        from civlite.engine import Game

        for seed in range(3):
            game = Game(players=3, seed=seed)
            while not game.is_over:
                game.apply(decide(make_bot("tokens", seed=seed), game))
            assert game.outcome() is not None
    finally:
        BOTS.pop("tokens", None)
        OPTIONS.pop("tokens", None)
    body = re.search(r"```python\n(from collections import Counter.*?)```", page("engine/bots.md"), flags=re.S)
    assert body is not None and len(body.group(1).strip().splitlines()) <= 40


def test_the_api_reference_renders_rest_as_markdown() -> None:
    """The reference's docstrings are reST: the site's griffe extension turns roles into links
    (or code), doctests and literal blocks into code blocks and simple tables into tables."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("griffe_rst", DOCS / "griffe_rst.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    doc = """Intro :class:`~civlite.engine.Game` and :meth:`Game.apply`.

====  =======
id    meaning
====  =======
0     pass
1     basic
====  =======

A form::

    {"do": "pass"}

>>> 1 + 1
2
"""
    out = mod._blocks(mod._tables(doc))
    assert "| id | meaning |" in out and "| 1 | basic |" in out
    assert "```text\n{\"do\": \"pass\"}\n```" in out
    assert "```pycon\n>>> 1 + 1\n2\n```" in out
    assert mod.ROLE.sub(lambda m: "`" + m.group(1).lstrip("~").rsplit(".", 1)[-1] + "`", out).count(":class:") == 0
    assert "extensions" in (ROOT / "mkdocs.yml").read_text() and "griffe_rst.py" in (ROOT / "mkdocs.yml").read_text()


def test_the_scenario_pages_example_prints_the_result_shown() -> None:
    """The scenario page's example file, played, gives exactly the result the page shows."""
    import json

    from civlite.scenario import run

    blocks = re.findall(r"```json\n(.*?)```", page("scenarios.md"), flags=re.S)
    scenario, result = json.loads(blocks[0]), json.loads(blocks[1])
    assert run(scenario) == result
