"""The choices a human has: the choice list of a decision, and the checks of picked cards."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import AbilityChoice, Action, Card, Choices, Discard, DiscardChoice, Meld, MeldChoice, Pass, Suit, Take


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer to the pending decision, as shown in the choice list."""

    label: str
    action: Action | None  # None: opens the meld builder
    detail: str = ""
    key: str = ""  # a stable id, for tests: "pass", "basic:W", "advanced:M>2", "take:C", "meld:D", "build"
    ability: AbilityChoice | None = None  # the engine's ability choice (its payable cards: the pay picker)
    target: int | None = None


def hand_by_suit(hand: Sequence[Card]) -> dict[Suit, list[Card]]:
    out: dict[Suit, list[Card]] = {}
    for c in sorted(hand):
        out.setdefault(c.suit, []).append(c)
    return out


def _article(word: str) -> str:
    return "an" if word[:1] in "AEIOU" else "a"


def choices_for(choices: Choices, names: Sequence[str] | None = None) -> list[Choice]:
    """The choice list of the engine's per-seat ``choices`` (``game.choices(seat)``): empty
    unless that seat decides now. Discards are answered with a card picker instead (see
    :func:`check_discard`); they give no choices here. Nothing here judges legality: the
    engine says what is affordable, which cards pay, which seats may be targeted."""
    kind = choices.kind
    out: list[Choice] = []
    if kind is None:
        return out
    if kind == "action":
        if choices.can_pass:
            out.append(Choice("Pass: activate nothing", Pass(), "go to the meld phase (R4.2)", "pass"))
        for a in choices.abilities:
            if not a.affordable:
                continue
            name = f"{a.name} [{a.cost}{a.suit.letter}]"
            key = f"{a.level}:{a.suit.letter}"
            if not a.needs_target:
                out.append(Choice(name, a.action(a.payable[: a.cost]), a.preview(a.payable[: a.cost], names=names),
                                  key, a))
                continue
            for t in a.targets:
                who = names[t] if names is not None else f"seat {t}"
                out.append(Choice(f"{name} → {who}", a.action(a.payable[: a.cost], t),
                                  a.preview(a.payable[: a.cost], t, names=names), f"{key}>{t}", a, t))
    elif kind == "meld" and choices.meld is not None:
        m = choices.meld
        if choices.can_pass:
            out.append(Choice("Pass: no meld", Pass(), "go to the fall phase (R4.3)", "pass"))
        if m.possible:
            last = m.slots[-1]
            # one quick meld for each suit that may fill the last (the "one of") slot
            for suit in last.suits if len(last.suits) > 1 else (None,):
                fill = [c for c in last.cards if suit is None or c.suit == suit]
                if not fill:
                    continue
                cards = [slot.cards[0] for slot in m.slots[:-1]] + [fill[0]]
                what = f"Meld with {_article(suit.title)} {suit.title}" if suit is not None else "Meld"
                out.append(Choice(f"{what} (R7)", m.action(cards),
                                  f"{', '.join(c.name for c in cards)}: +{m.ct} CT, draw {m.draw}",
                                  f"meld:{suit.letter}" if suit is not None else "meld"))
            out.append(Choice("Build a meld card by card…", None, "choose exactly which cards to meld", "build"))
    elif choices.take is not None:
        # cards of one suit are identical in play (R1.2): one choice per suit, its first card by name
        where = "the deck" if choices.take.source == "deck" else "the discard pile"
        for suit, cards in hand_by_suit(list(set(choices.take.candidates))).items():
            shown = ", ".join(c.name for c in cards[:3]) + (", …" if len(cards) > 3 else "")
            out.append(Choice(f"Take {_article(suit.title)} {suit.title} ({len(cards)})", Take(cards[0]),
                              f"{len(cards)} in {where}: {shown}", f"take:{suit.letter}"))
    return out


def meld_possible(choices: Choices) -> bool:
    """Whether the deciding seat of ``choices`` could meld now (the engine's word)."""
    return choices.meld is not None and choices.meld.possible


def check_discard(discard: DiscardChoice, picked: Sequence[Card]) -> tuple[Discard | None, str]:
    """The Discard action for the picked cards, or ``None`` and what is still missing."""
    n = discard.count
    k = len(picked)
    if k < n:
        return None, f"pick {n - k} more card{'s' if n - k != 1 else ''} ({k}/{n})"
    if k > n:
        return None, f"{k} picked: unpick {k - n} ({k}/{n})"
    return Discard(list(picked)), f"discard {', '.join(c.name for c in sorted(picked))} ({n}/{n})"


def check_pay(choice: Choice, picked: Sequence[Card]) -> tuple[Action | None, str]:
    """The ability of ``choice`` paid with the picked cards instead of its default ones, or
    ``None`` and what is still missing. Cards of one suit play alike (R1.2); which of them
    pays matters only for what opponents know of the hand."""
    a = choice.ability
    if a is None:
        return None, "this choice is paid with no cards"
    stray = [c for c in picked if c not in a.payable]
    if stray:
        return None, f"{stray[0].name} cannot pay for {a.name}"
    k, n = len(picked), a.cost
    if k != n:
        return None, f"pick {n} {a.suit.title} card{'s' if n != 1 else ''} ({k}/{n})"
    return a.action(list(picked), choice.target), f"pay with {', '.join(c.name for c in picked)} ({n}/{n})"


def check_meld(meld: MeldChoice, picked: Sequence[Card]) -> tuple[Meld | None, str]:
    """The Meld action for the picked cards, or ``None`` and what the meld still lacks (R7.1):
    one card in each of the engine's meld slots."""
    slots = meld.slots
    filled = [sum(1 for c in picked if c in slot.cards) for slot in slots]
    problems = []
    missing = [slot for slot, n in zip(slots, filled, strict=True) if n == 0]
    single = " ".join(slot.suits[0].letter for slot in missing if len(slot.suits) == 1)
    if single:
        problems.append("needs " + single)
    problems += ["needs one of " + "/".join(s.letter for s in slot.suits) for slot in missing if len(slot.suits) > 1]
    if any(n > 1 for n in filled):
        problems.append("one card of each suit only")
    stray = [c for c in picked if not any(c in slot.cards for slot in slots)]
    if stray:
        problems.append(f"{stray[0].name} does not belong in a meld")
    need = len(slots)
    if problems or len(picked) != need:
        return None, f"{len(picked)}/{need}: " + ("; ".join(problems) or f"pick {need} cards")
    return meld.action(list(picked)), f"meld {len(picked)} cards: +{meld.ct} CT, draw {meld.draw} (R7.2)"

