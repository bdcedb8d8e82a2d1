"""civlite cards: the print-and-play deck has one card per deck card (names, suits, both
abilities from the rule set, extra cards included) and a rules summary from the same rule set."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from civlite.cli import app
from civlite.engine import RuleSet
from civlite.engine.cards import ALL_CARDS

pypdf = pytest.importorskip("pypdf")
pytest.importorskip("fpdf")


def _pages(path: Path) -> list[str]:
    return [p.extract_text() for p in pypdf.PdfReader(str(path)).pages]


def test_one_card_per_deck_card(tmp_path: Path) -> None:
    rules = tmp_path / "r.toml"
    rules.write_text('name = "play-test"\nvictory_ct = 18\n[deck]\nD = 10\nX = 6\n'
                     '[advanced.M]\nname = "Sack"\ncards = 2\neffects = ["steal_cards 3"]\n')
    out = tmp_path / "deck.pdf"
    r = CliRunner().invoke(app, ["cards", str(rules), "--out", str(out), "--paper", "letter"])
    assert r.exit_code == 0, r.output
    rs = RuleSet.from_toml(rules)
    names = [ALL_CARDS[c].name for c in rs.deck]
    assert len(names) == 112 and "Disaster 9" in names and "Disaster 10" in names
    pages = _pages(out)
    assert len(pages) == 1 + math.ceil(112 / 9)
    summary, card_pages = pages[0], "\n".join(pages[1:])
    assert "rule set play-test" in summary and "holds 18 CT" in summary and "Disaster 10, Boon 6" in summary
    assert card_pages.count("Advanced:") == 112 and card_pages.count("Basic:") == 112
    for name in set(names):
        assert card_pages.count(name) >= names.count(name), name
    assert card_pages.count("Advanced: Sack") == 16 and "Discard 2 Military cards: take 3 cards" in card_pages
    assert "Conquest" not in card_pages  # the rule set's own advanced Military ability, not the default's


def test_the_default_deck_and_bad_paper(tmp_path: Path) -> None:
    out = tmp_path / "default.pdf"
    r = CliRunner().invoke(app, ["cards", "--out", str(out)])
    assert r.exit_code == 0 and "112 cards on 13 sheets" in r.stderr
    assert "Greeks" in "".join(_pages(out))
    bad = CliRunner().invoke(app, ["cards", "--out", str(out), "--paper", "a5"])
    assert bad.exit_code == 2 and "--paper must be one of a4, letter" in bad.stderr
