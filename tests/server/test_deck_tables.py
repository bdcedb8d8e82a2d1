"""An operator's own rule set online (``--rules FILE``), on a deck with extra cards (R10
``[deck]``): the lobby offers it, a table plays it to the end, and every card a client is
shown has its suit in ``/api/meta``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import ROOT, Client, ServerProc, simple_action, token_of

LARGE = 'name = "large-deck"\nvictory_ct = 6\n[deck]\nD = 12\nX = 12\nM = 20\n'


def _names(state: dict) -> list[str]:
    return [*state["hand"], *state["discard"], *(c for p in state["players"] for c in p["known"])]


def test_a_table_on_an_operators_deck_plays_to_the_end(tmp_path: Path) -> None:
    f = tmp_path / "large.toml"
    f.write_text(LARGE)
    s = ServerProc(f"sqlite:///{tmp_path / 'deck.db'}", rate_limit=0,
                   args=["--rules", str(f), "--tables-per-minute", "0"]).start()
    try:
        meta = httpx.get(s.url + "/api/meta").json()
        assert set(meta["rulesets"]) == {"default", "quick", "balanced", "large-deck"}
        assert meta["rulesets"]["large-deck"]["deck"] == [16, 16, 16, 16, 20, 16, 12, 12]
        suits = {c["name"]: c["suit"] for c in meta["cards"]}
        assert suits["Military 20"] == 4 and suits["Boon 12"] == 7
        bad = httpx.post(s.url + "/api/tables", json={"seats": [{"kind": "human"}] * 2, "rules": "huge"})
        assert bad.status_code == 422 and "large-deck" in bad.text
        t = s.create([{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "heuristic"}],
                     rules="large-deck", seed=5)
        assert t["rules"]["name"] == "large-deck" and t["rules"]["deck"][4] == 20
        a = Client(s.ws_url)
        a.hello(t["id"], token_of(t, 0))
        seen: set[str] = set()
        while not (a.state and a.state["over"]):
            seen.update(_names(a.state))
            if a.my_turn():
                a.act(simple_action(a.state, suits))
            a.until(lambda m: m["type"] == "update", timeout=30)
        a.close()
        rep = httpx.get(s.url + f"/api/tables/{t['id']}/replay?seat=0").json()
        for step in rep["steps"]:
            seen.update(_names(step["state"]))
        assert seen <= set(suits)  # every card shown has a suit in the card list
        assert any(name[-1].isdigit() for name in seen)  # extra cards came into play (seeded deal)
        assert rep["steps"][-1]["state"]["over"]
    finally:
        s.stop()


@pytest.mark.parametrize(("text", "needle"), [
    ("[deck]\nD = 40\n", "deck.D: a suit holds 0 to 32 cards, got 40"),
    ('name = "default"\n', "rule set name 'default' is taken"),
])
def test_a_broken_or_clashing_rule_file_is_refused_before_serving(tmp_path: Path, text: str, needle: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(text)
    for cmd in ([sys.executable, "-m", "civlite.server", "--rules", str(f), "--port", "1"],
                [sys.executable, "-m", "civlite", "serve", "--rules", str(f), "--port", "1"]):
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=str(ROOT))
        assert run.returncode == 2 and needle in run.stderr, run.stderr
        assert "Traceback" not in run.stderr


@pytest.mark.browser
def test_the_browser_draws_an_extra_card_in_its_suit(browser: Any, tmp_path: Path) -> None:
    """Seed 3 deals seat 0 'Disaster 11', an extra card of the larger deck: the hand shows it
    as a Disaster, by colour, symbol and accessible name, and it can be chosen to pay."""
    f = tmp_path / "large.toml"
    f.write_text(LARGE)
    s = ServerProc(f"sqlite:///{tmp_path / 'b.db'}", bot_delay=0.05, args=["--rules", str(f)]).start()
    try:
        t = s.create([{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}], rules="large-deck", seed=3)
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(s.url + t["seats"][0]["invite"])
        page.wait_for_selector("[data-testid=decision][data-kind=action]")
        card = page.locator('[data-testid="hand-Disaster 11"]')
        assert card.count() == 1
        assert "s6" in (card.get_attribute("class") or "").split()
        assert "Disaster" in card.inner_text()
        page.click('button.ability[data-ability="Setback"]')  # Disasters pay for Setback
        page.wait_for_selector("[data-testid=preview]")
        card.click()
        assert card.get_attribute("aria-pressed") == "true"
        assert page.locator("[data-testid=preview]").inner_text().startswith("Pay Disaster 11")
    finally:
        s.stop()
