"""The research interfaces' observation and information state, slot by slot: the source of the docs.

``docs/researchers/observation.md`` holds :func:`markdown`'s tables between the markers
``<!-- generated: spec -->`` and ``<!-- end generated -->``; ``scripts/gen_rl_observation_docs.py``
writes them and a test fails when the page is out of date. Tests also hold the offsets to
the vector (:func:`civlite.rl.encoding.encode_game`) and the event columns to the OpenSpiel
information state tensor.
"""

from __future__ import annotations

import re

__all__ = ["EVENTS_PER_TURN", "EVENT_COLUMNS", "EVENT_KINDS", "EVENT_RECORD", "OBSERVATION", "markdown", "observation_table", "offset"]

#: the observation vector's slots: (offset formula in n seats and seat k, width, slot, meaning)
OBSERVATION: tuple[tuple[str, str, str, str], ...] = (
    ("0", "8", "hand", "own hand, cards of each suit"),
    ("8 + 10k", "1", "seat *k*: ct", "CT of the seat *k* places after the viewer (*k* = 0: the viewer)"),
    ("9 + 10k", "1", "seat *k*: hand size", "cards in that seat's hand"),
    ("10 + 10k", "8", "seat *k*: known", "cards of that seat's hand the viewer knows, by suit (0s for the viewer itself)"),
    ("8 + 10n", "1", "deck", "cards left in the deck"),
    ("9 + 10n", "8", "discard", "the discard pile by suit (public, R3.2)"),
    ("17 + 10n", "8", "searching", "the deck by suit while this seat decides a Vision (R5.2), else 0"),
    ("25 + 10n", "8", "selecting", "cards picked so far in a step-by-step discard, by suit"),
    ("33 + 10n", "4", "phase", "one-hot: rise, action, meld, fall"),
    ("37 + 10n", "6", "decision kind",
     "one-hot: action, meld, vision, foundations, fall_discard, another (an ability's) discard"),
    ("43 + 10n", "1", "decision count", "cards the pending decision asks for"),
    ("44 + 10n", "16", "resolving",
     "one-hot of the ability being resolved: basic by suit (0–7), advanced by suit (8–15)"),
    ("60 + 10n", "n", "decider", "one-hot of the deciding seat, relative to the viewer"),
    ("60 + 11n", "n", "active", "one-hot of the active seat (whose turn it is), relative to the viewer"),
    ("60 + 12n", "1", "extra turn", "1 if an extra turn is owed"),
    ("61 + 12n", "1", "turn fraction", "turn / the rule set's turn limit (at most 1)"),
    ("62 + 12n", "1", "victory CT", "the rule set's victory CT"),
    ("63 + 12n", "1", "supply known", "1 if the CT supply is finite"),
    ("64 + 12n", "1", "supply", "CT left in the supply (0 when unlimited)"),
    ("65 + 12n", "1", "over", "1 once the game is over"),
)

#: numbers in one event record of the information state
EVENT_RECORD = 22
#: the records a turn may need in the whole-game information state (the rules bound it at 15)
EVENTS_PER_TURN = 16
#: record kinds, numbered from 1 in the information state's records (another kind: len + 1): the
#: engine's event kinds, then the notes of what a seat's view showed it that no event holds
#: (``known``: the cards of another hand it knows, by suit, when that changed; ``searched``: the
#: deck by suit when it came to decide a Vision)
EVENT_KINDS = ("activate", "discard", "draw", "draw_game", "extra_turn", "gain_ct", "look", "meld", "pass",
               "reshuffle", "shuffle", "steal_cards", "steal_ct", "take", "turn", "win", "known", "searched")

#: the columns of one event record of the OpenSpiel information state: (first, width, meaning)
EVENT_COLUMNS: tuple[tuple[int, int, str], ...] = (
    (0, 1, "kind: 1 + its index in " + ", ".join(EVENT_KINDS) + f" ({len(EVENT_KINDS) + 1}: another kind); "
     "0 marks an unused record"),
    (1, 1, "acting seat, relative to the viewer, plus 1 (1: the viewer; 0: none)"),
    (2, 1, "target seat, relative to the viewer, plus 1 (0: none); for `known`, the seat whose hand it is"),
    (3, 1, "ability: basic 1–8 by suit, advanced 9–16 by suit (0: none)"),
    (4, 1, "cards moved or seen; for a turn's start, 1 if it is an extra turn"),
    (5, 1, "CT amount; for a turn's start, the turn's number"),
    (6, 8, "the event's public cards, by suit"),
    (14, 8, "the cards of the event the viewer may see (its own draws, a look, a steal it took part in), by "
     "suit; for `known`, the cards of that hand it knows now; for `searched`, the deck"),
)


def offset(formula: str, n: int, k: int = 0) -> int:
    """The offset a formula such as ``"60 + 11n"`` gives at ``n`` seats (seat ``k`` for ``k``)."""
    total = 0
    for term in re.split(r"\s*\+\s*", formula):
        if term[-1] in "nk":
            total += int(term[:-1] or 1) * (n if term[-1] == "n" else k)
        else:
            total += int(term)
    return total


def observation_table() -> str:
    rows = ["| offset | at 2 players | width | slot | meaning |", "|---|---:|---|---|---|"]
    rows += [f"| {f} | {offset(f, 2)} | {w} | {slot} | {meaning} |" for f, w, slot, meaning in OBSERVATION]
    return "\n".join(rows)


def _event_table() -> str:
    rows = ["| column | width | meaning |", "|---:|---:|---|"]
    rows += [f"| {first} | {width} | {meaning} |" for first, width, meaning in EVENT_COLUMNS]
    return "\n".join(rows)


def markdown() -> str:
    """The generated part of the observation page."""
    from ..engine import RuleSet
    from .encoding import obs_size

    limit = RuleSet.default().turn_limit
    whole = EVENTS_PER_TURN * limit + 1
    short = EVENTS_PER_TURN * 10 + 1
    return f"""{observation_table()}

The action mask beside it has 153 entries, one per compact action id (1: legal now).

### OpenSpiel's information state

`information_state_tensor(p)` of `python_civlite` is, in order:

| offset | width | slot | meaning |
|---|---|---|---|
| 0 | 66 + 12n | observation | the observation above |
| 66 + 12n | 8 | dealt hand | the cards dealt to the seat (seat 0: with its first Rise), by suit |
| 74 + 12n | {EVENT_RECORD} C | events | C records of {EVENT_RECORD} numbers, oldest first: one per event the seat saw, redacted for it, and one per note of a secret its view showed it that no event holds (`known`, `searched`) |
| 74 + 12n + {EVENT_RECORD} C | 1 | events dropped | records that no longer fit (0 with the default whole-game capacity) |

The notes keep what the seat once saw after its view stops showing it (perfect recall): the
deck by suit when it came to decide a Vision (`searched`), and, whenever it changed, which
cards of another seat's hand it knows, by suit (`known`: that changes with cards the
events name only by suit, such as a discard of one of two cards of a suit of which the seat
knew one). Both are read from the seat's view, where hidden information is decided.

C, the records kept, is {EVENTS_PER_TURN} × the turn limit + 1 by default (`history` -1: the whole
game; at most 12 records in one turn were seen in 420 uniformly random games of 2 to 8
players, notes included), or the `history` parameter. With the default
rules (turn limit {limit}) that is {whole:,} records: {obs_size(2) + 9 + EVENT_RECORD * whole:,} numbers at 2
players (`info_tensor_size`). A short variant (`turn_limit=10`) has {short} records
({obs_size(2) + 9 + EVENT_RECORD * short:,} numbers at 2 players). Each record:

{_event_table()}

The information state string is the seat, the turn, the phase and a digest of exactly the
tensor's content, so the two partition histories alike. The observation string is the
seat's view as JSON (without the decision's number), and `observation_tensor` is the
observation above."""
