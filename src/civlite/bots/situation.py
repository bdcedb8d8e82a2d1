"""What the heuristic knows of a decision, as suit counts (cards of one suit are
interchangeable, R1.2): built from a seat's view for a real decision, or from an imagined
game in a search's rollouts, where building a view per step would cost more than the step."""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import CARDS, SUIT_OF, Game, View

SUIT = SUIT_OF  # suit index of each card id
#: cards per suit in the 112-card deck of R1.1 (a rule set's own deck: ``RuleSet.suit_sizes``)
DECK_SUITS: tuple[int, ...] = tuple(sum(1 for c in CARDS if int(c.suit) == s) for s in range(8))


class Situation:
    """What the heuristic needs to know, as suit counts (built from a view or a game)."""

    __slots__ = ("counts", "cts", "discard", "kind", "need", "seat", "sizes", "unseen")

    def __init__(self, seat: int, kind: str, counts: list[int], cts: Sequence[int], sizes: Sequence[int],
                 discard: list[int], unseen: list[int], need: int = 0) -> None:
        self.seat = seat
        self.kind = kind
        self.counts = counts
        self.cts = cts
        self.sizes = sizes
        self.discard = discard
        self.unseen = unseen
        self.need = need


def situation_from_view(view: View) -> Situation:
    """The heuristic's picture of a seat's view (hand less the cards already selected)."""
    assert view.seat is not None and view.pending is not None
    n = view.num_players
    counts = [0] * 8
    for card in view.hand:
        counts[SUIT[card.id]] += 1
    for card in view.selecting:
        counts[SUIT[card.id]] -= 1
    cts = [0] * n
    sizes = [0] * n
    cts[view.seat] = view.ct or 0
    sizes[view.seat] = len(view.hand)
    if view.universe is None:  # the 112 cards of R1.1
        unseen = list(DECK_SUITS)
    else:
        unseen = [0] * 8
        for card in view.universe:
            unseen[SUIT[card.id]] += 1
    for card in view.hand:
        unseen[SUIT[card.id]] -= 1
    for p in view.players:
        cts[p.seat] = p.ct
        sizes[p.seat] = p.hand_size
        for card in p.known:
            unseen[SUIT[card.id]] -= 1
    discard = [0] * 8
    for card in view.discard:
        discard[SUIT[card.id]] += 1
    for s in range(8):
        unseen[s] -= discard[s]
    if view.searching is not None:  # the deck's content while searching it
        counts_pile = [0] * 8
        for card in view.searching:
            counts_pile[SUIT[card.id]] += 1
        unseen = counts_pile
    pend = view.pending
    need = pend.count - len(view.selecting)
    return Situation(view.seat, pend.kind, counts, cts, sizes, discard, unseen, need)


def situation_from_game(game: Game, seat: int, kind: str) -> Situation:
    """The heuristic's picture of an (imagined) game, for rollouts: no View is built.

    Unseen suit counts are approximated as the deck's composition less the seat's
    hand and the discard pile (counted only for action decisions, where Foundations
    needs them); a discard in progress is not subtracted.
    """
    counts = [0] * 8
    for c in game.hands[seat]:
        counts[SUIT[c]] += 1
    discard = [0] * 8
    if kind == "action":
        for c in game.discard:
            discard[SUIT[c]] += 1
    deck = game.rules.suit_sizes
    unseen = [deck[s] - counts[s] - discard[s] for s in range(8)]
    sizes = [len(h) for h in game.hands]
    return Situation(seat, kind, counts, game.ct, sizes, discard, unseen, game.pending_count)


def suit_counts(cards: Sequence[int]) -> list[int]:
    counts = [0] * 8
    for c in cards:
        counts[SUIT[c]] += 1
    return counts
