"""The scenario contract, checked from outside through the real command."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, civlite_command


def run_checker(shared: Path, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(shared / "tools" / "check-scenarios"), "--cmd",
         shlex.join([*civlite_command(), "scenario"]), str(folder)],
        capture_output=True, text=True, timeout=900,
    )


def test_public_scenarios(shared: Path) -> None:
    run = run_checker(shared, shared / "scenarios")
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 failed" in run.stdout


def test_our_scenarios_one_per_rule(shared: Path) -> None:
    folder = ROOT / "tests" / "scenarios"
    files = sorted(folder.glob("*.json"))
    assert len(files) >= 60
    rules = {f.name.split("-")[0] + "." + f.name.split("-")[1] if f.name.split("-")[1].isdigit() else ""
             for f in files if f.name.startswith("r")}
    for rule in ("r1.1", "r1.3", "r2.1", "r3.1", "r3.3", "r4.4", "r5.1", "r5.2", "r5.3", "r5.4", "r5.5",
                 "r6.1", "r6.2", "r6.3", "r6.4", "r7.1", "r7.2", "r8.1", "r8.2", "r9.1", "r9.2"):
        assert rule in rules, f"no scenario for {rule.upper()}"
    run = run_checker(shared, folder)
    assert run.returncode == 0, run.stdout + run.stderr


def _scenario(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*civlite_command(), "scenario", str(ROOT / "tests" / "scenarios" / name)],
                          capture_output=True, text=True, timeout=300)


def test_a_card_outside_the_deck_in_an_action_is_an_unknown_card() -> None:
    """A name the game's deck does not hold exits 2 naming it, in an action as in the position."""
    run = _scenario("bad-card-outside-the-deck-in-an-action.json")
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout == ""
    assert "actions[0].cards[2]: 'Volcano' is not a card of this rule set's deck" in run.stderr
    run = _scenario("bad-extra-card-without-deck-in-an-action.json")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "'Military 17'" in run.stderr
    # with a deck that holds it, the same extra card is played; a card of the deck not held is refused (exit 0)
    run = _scenario("r10-deck-extra-card-in-an-action-is-played.json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["applied"] == 1
    run = _scenario("r10-deck-card-outside-the-deck-not-held-is-refused.json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["error"]["index"] == 0
