"""Warnings and errors keep their words in square brackets (printed as text, not Rich markup),
and a mistyped key or card name gets a "did you mean"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from civlite.cli import app
from civlite.engine import RuleSet, RuleSetError
from civlite.sim.paths import set_path


def test_bracketed_words_survive_in_warnings_and_errors(tmp_path: Path) -> None:
    deck = tmp_path / "deck.toml"
    deck.write_text("[deck]\nB = 0\n")
    r = CliRunner().invoke(app, ["rules", str(deck)])
    assert r.exit_code == 0 and "warning:" in r.stderr
    assert "[deck]" in r.stderr and "(, " not in r.stderr
    space = tmp_path / "space.toml"
    space.write_text("[tunes]\nplayers = 2\n")
    r = CliRunner().invoke(app, ["tune", str(space), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2
    assert "expected [tune], [goal] and [[param]]" in r.stderr and "did you mean 'tune'" in r.stderr
    r = CliRunner().invoke(app, ["sweep", "--param", "victory=18,20", "--out", str(tmp_path / "s")])
    assert r.exit_code == 2 and "did you mean 'victory_ct'" in r.stderr


def test_did_you_mean_for_paths_and_card_names() -> None:
    rules = RuleSet.default()
    with pytest.raises(RuleSetError, match="did you mean 'cards'"):
        set_path(rules, "basic.W.card", 2)
    with pytest.raises(RuleSetError, match="did you mean 'Granaries'"):
        set_path(rules, "deck.B", ["Granarys", "Roads"])


def test_a_rules_file_with_a_misspelt_key_or_card(tmp_path: Path) -> None:
    f = tmp_path / "r.toml"
    f.write_text('[deck]\nB = ["Granarys", "Roads"]\n')
    r = CliRunner().invoke(app, ["rules", str(f)])
    assert r.exit_code == 2 and "did you mean 'Granaries'?" in r.stderr
    f.write_text("victory = 18\n")
    r = CliRunner().invoke(app, ["rules", str(f)])
    assert r.exit_code == 2 and "did you mean 'victory_ct'?" in r.stderr
