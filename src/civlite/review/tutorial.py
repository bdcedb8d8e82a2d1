"""A first game that teaches: a fixed practice deal, and a coach that explains each phase of a
turn (Rise, Action, Meld, Fall) the first time the player meets it, each ability the first
time the player can pay for it, and the meld the first time the player is near one.

The coach reads only the player's view and choices (``game.view(seat)``, ``game.choices(seat)``)
and the rule set's own words, so it tells nothing the player could not see. The terminal
(``civlite tutorial``) and the browser's tutorial table show its notes as they come.

>>> game = tutorial_game()
>>> coach = Coach(seat=0)
>>> notes = coach.notes(game)
>>> [n.key for n in notes][:3]
['rise', 'action', 'ability.basic.C']
>>> coach.notes(game)  # each note once
[]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from ..engine import Game, RuleSet, View

#: the tutorial's deal: its seed, its players and its rules (a short game, victory at 12 CT)
SEED: Final = 2027
PLAYERS: Final = ("You", "Tutor")
VICTORY_CT: Final = 12
#: the bot that plays the tutor's seat (the easy level)
TUTOR_BOT: Final = "easy"

PHASES: Final = {
    "rise": "Rise (R4.1): each turn starts by drawing {rise} cards from the deck; you just did.",
    "action": "Action (R4.2, R5, R6): you may pay cards of one suit to use one ability: 1 card for a basic ability, "
              "2 or 3 for an advanced one. Or pass and keep your cards.",
    "meld": "Meld (R7): a meld is one card of each major suit ({majors}) and one {minors}: it gives {ct} CT "
            "and you draw {draw} new cards. You may pass when you cannot (or would rather not) meld.",
    "fall": "Fall (R4.4): at the end of your turn you keep at most {limit} cards; choose the ones to discard.",
}


@dataclass(frozen=True, slots=True)
class Note:
    """One thing the coach says, once: ``key`` names what it explains."""

    key: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"key": self.key, "text": self.text}


def tutorial_rules() -> RuleSet:
    return RuleSet.default().with_changes(victory_ct=VICTORY_CT)


def tutorial_game() -> Game:
    """The tutorial's fixed deal: you (seat 0) start against the tutor."""
    return Game(players=list(PLAYERS), seed=SEED, rules=tutorial_rules(), first=0)


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def missing_for_meld(view: View) -> list[str]:
    """What the seat's hand lacks for a meld (R7.1), as the rule set names its suits."""
    rules = view.rules
    suits = {c.suit for c in view.hand}
    out = [s.title for s in rules.meld_suits if s not in suits]
    if rules.meld_one_of and not suits & set(rules.meld_one_of):
        out.append(" or ".join(s.title for s in rules.meld_one_of))
    return out


@dataclass
class Coach:
    """The notes for ``seat``, each said once (``seen`` keeps what was said)."""

    seat: int = 0
    seen: set[str] = field(default_factory=set)
    action_turn: int | None = None  # the turn of the seat's first action decision

    def notes(self, game: Game) -> list[Note]:
        """What to explain now (nothing while another seat decides)."""
        view = game.view(self.seat)
        if view.over or not view.my_turn or view.pending is None:
            return []
        rules = view.rules
        out: list[Note] = []

        def say(key: str, text: str) -> None:
            if key not in self.seen:
                self.seen.add(key)
                out.append(Note(key, text))

        kind = view.pending.kind
        # the meld phase is told at the meld decision, or at the next decision after the
        # first action (when the meld phase passed by itself: no meld was possible, R9.1)
        past_action = self.action_turn is not None and (kind != "action" or view.turn != self.action_turn)
        if kind == "action" and self.action_turn is None:
            self.action_turn = view.turn
        majors = ", ".join(s.title for s in rules.meld_suits)
        minors = " or ".join(s.title for s in rules.meld_one_of)
        say("rise", PHASES["rise"].format(rise=rules.rise_draw))
        if kind == "action":
            say("action", PHASES["action"])
            for a in game.choices(self.seat).abilities:
                if a.affordable:
                    what = f"{a.level} ability of the {a.suit.title} suit, paid with {a.cost} card{'s' if a.cost > 1 else ''}"
                    say(f"ability.{a.key}", f"You can use {a.name} now ({what}): {a.text}.")
        if kind == "meld" or past_action:
            say("meld", PHASES["meld"].format(majors=majors, minors=minors, ct=rules.meld_ct, draw=rules.meld_draw))
        if kind == "fall_discard":
            say("fall", PHASES["fall"].format(limit=rules.hand_limit))
        lacking = missing_for_meld(view)
        if not lacking:
            say("meld.ready", f"You hold a meld: in your Meld phase it gives you {rules.meld_ct} CT "
                              f"(you have {view.ct}, {rules.victory_ct} wins).")
        elif len(lacking) == 1:
            say("meld.near", f"You are one card from a meld: you lack {article(lacking[0])} {lacking[0]} card. Keep the others "
                             "together, and look for it (a Vision searches the deck for one).")
        return out


def coach_json(game: Game, coach: Coach) -> dict[str, Any]:
    """The notes due now, as JSON (for the browser's tutorial table)."""
    return {"notes": [n.to_json() for n in coach.notes(game)]}
