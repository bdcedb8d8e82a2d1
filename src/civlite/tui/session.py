"""The game behind the terminal table: seats, bots, the log, the choices a human has.

Nothing here imports Textual, so it is tested on its own. The :class:`Session` owns
the :class:`~civlite.engine.Game` (it plays the part of a server); everything it hands
to the screens is built from ``game.view(seat)`` and events redacted for that seat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..engine import (
    Ability,
    Action,
    Advanced,
    Basic,
    Card,
    Discard,
    Event,
    Game,
    GameRecord,
    Meld,
    Pass,
    RuleSet,
    Suit,
    Take,
    View,
)

#: bot levels offered by the set-up screen (``make_bot`` specs)
BOT_LEVELS: tuple[str, ...] = ("random", "heuristic", "ismcts")
HUMAN = "human"
#: a seat name written into records for bot seats: ``bot:heuristic``
BOT_PREFIX = "bot:"


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who plays a seat: ``kind`` is ``"human"`` or a bot spec (``"random"``, ``"ismcts:seconds=1"``)."""

    kind: str = HUMAN
    name: str = ""

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN

    def record_name(self, seat: int) -> str:
        """The name stored in the game record, from which :meth:`from_record_name` rebuilds the spec."""
        if self.is_human:
            name = self.name.strip() or f"seat {seat}"
            return name[len(BOT_PREFIX):] if name.startswith(BOT_PREFIX) else name
        return BOT_PREFIX + self.kind

    @classmethod
    def from_record_name(cls, name: str) -> SeatSpec:
        if name.startswith(BOT_PREFIX):
            return cls(kind=name[len(BOT_PREFIX):] or "random", name="")
        return cls(kind=HUMAN, name=name)

    def label(self, seat: int) -> str:
        if self.is_human:
            return self.name.strip() or f"seat {seat}"
        return f"bot {self.kind}"


def parse_seats(text: str) -> list[SeatSpec]:
    """``"human,random,heuristic"`` or ``"Ann,Bob,random"``: a known bot level or spec is a bot, anything else a human's name."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        base = part.split(":", 1)[0].lower()
        if part.lower() == HUMAN:
            out.append(SeatSpec(HUMAN))
        elif base in BOT_LEVELS or part.startswith(BOT_PREFIX):
            out.append(SeatSpec(part.removeprefix(BOT_PREFIX)))
        else:
            out.append(SeatSpec(HUMAN, part))
    return out


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer to the pending decision, as shown in the choice list."""

    label: str
    action: Action | None  # None: opens the meld builder
    detail: str = ""
    key: str = ""  # a stable id, for tests: "pass", "basic:W", "advanced:M>2", "take:Greeks", "meld:D", "build"


def event_line(event: Event, seat: int | None) -> str:
    """One log line as ``seat`` may read it; ``None`` is a spectator (public facts only).

    (``Event.describe(None)`` is the whole truth, so the event is redacted first.)
    """
    return event.for_seat(seat).describe(seat)


def hand_by_suit(hand: Sequence[Card]) -> dict[Suit, list[Card]]:
    out: dict[Suit, list[Card]] = {}
    for c in sorted(hand):
        out.setdefault(c.suit, []).append(c)
    return out


def choices_for(view: View) -> list[Choice]:
    """The choices of ``view.seat`` for the pending decision, built from its view only.

    Empty when the seat is not the one to decide. Discard decisions are answered with
    a card picker instead (see :func:`check_discard`); they return no choices here.
    """
    p = view.pending
    if p is None or view.seat is None or p.player != view.seat:
        return []
    rules = view.rules
    by_suit = hand_by_suit(view.hand)
    out: list[Choice] = []
    if p.kind == "action":
        out.append(Choice("Pass: activate nothing", Pass(), "go to the meld phase (R4.2)", "pass"))
        others = [pl.seat for pl in view.players]
        for tier, table, cls in (("basic", rules.basic, Basic), ("advanced", rules.advanced, Advanced)):
            for suit in Suit:
                ab = table[suit]
                cards = by_suit.get(suit, [])
                if ab is None or len(cards) < ab.cards:
                    continue
                pay = cards[: ab.cards]
                paid = ", ".join(c.name for c in pay)
                targets: list[int | None] = list(others) if ab.targets else [None]
                for t in targets:
                    label = f"{ab.name} ({ab.rule}, {ab.tier})" + (f" → seat {t}" if t is not None else "")
                    key = f"{tier}:{suit.letter}" + (f">{t}" if t is not None else "")
                    out.append(Choice(label, cls(pay, t), f"pay {paid}: {ability_text(ab)}", key))
    elif p.kind == "meld":
        out.append(Choice("Pass: no meld", Pass(), "go to the fall phase (R4.3)", "pass"))
        if all(by_suit.get(s) for s in rules.meld_suits):
            base = [by_suit[s][0] for s in rules.meld_suits]
            for s in rules.meld_one_of:
                if by_suit.get(s):
                    cards = [*base, by_suit[s][0]]
                    out.append(Choice(f"Meld with a {s.title} (R7)", Meld(cards),
                                      f"{', '.join(c.name for c in cards)}: +{rules.meld_ct} CT, draw {rules.meld_draw}",
                                      f"meld:{s.letter}"))
            out.append(Choice("Build a meld card by card…", None, "choose exactly which cards to meld", "build"))
    elif p.kind in ("vision", "foundations"):
        # cards of one suit are identical in play (R1.2): one choice per suit, its first card by name
        pile = view.searching or () if p.kind == "vision" else view.discard
        where = "the deck" if p.kind == "vision" else "the discard pile"
        for suit, cards in hand_by_suit(list(set(pile))).items():
            names = ", ".join(c.name for c in cards[:3]) + (", …" if len(cards) > 3 else "")
            out.append(Choice(f"Take {'an' if suit.title[0] in 'AEIOU' else 'a'} {suit.title} ({len(cards)} in {where}: {names})", Take(cards[0]),
                              "", f"take:{suit.letter}"))
    return out


def is_discard_kind(kind: str) -> bool:
    return kind.endswith("_discard")


def check_discard(view: View, picked: Sequence[Card]) -> tuple[Discard | None, str]:
    """The Discard action for the picked cards, or ``None`` and what is still missing."""
    p = view.pending
    if p is None or not is_discard_kind(p.kind):
        return None, "no discard is asked for"
    n = p.count
    k = len(picked)
    if k < n:
        return None, f"pick {n - k} more card{'s' if n - k != 1 else ''} ({k}/{n})"
    if k > n:
        return None, f"{k} picked: unpick {k - n} ({k}/{n})"
    return Discard(list(picked)), f"discard {', '.join(c.name for c in sorted(picked))} ({n}/{n})"


def check_pay(ability: Basic, picked: Sequence[Card]) -> tuple[Basic | None, str]:
    """``ability`` (a Basic or Advanced choice) paid with the picked cards instead of its own,
    or ``None`` and what is still missing. Cards of one suit play alike (R1.2); which of them
    pays matters only for what opponents know of the hand."""
    n = len(ability.cards)
    suit = ability.cards[0].suit
    stray = [c for c in picked if c.suit != suit]
    if stray:
        return None, f"{stray[0].name} is not a {suit.title}"
    k = len(picked)
    if k != n:
        return None, f"pick {n} {suit.title} card{'s' if n != 1 else ''} ({k}/{n})"
    return type(ability)(list(picked), ability.target), f"pay with {', '.join(c.name for c in picked)} ({n}/{n})"


def check_meld(view: View, picked: Sequence[Card]) -> tuple[Meld | None, str]:
    """The Meld action for the picked cards, or ``None`` and what the meld still lacks (R7.1)."""
    rules = view.rules
    need = len(rules.meld_suits) + (1 if rules.meld_one_of else 0)
    counts = Counter(c.suit for c in picked)
    missing = [s.letter for s in rules.meld_suits if counts[s] == 0]
    extra = sum(counts[s] for s in rules.meld_one_of)
    problems = []
    if missing:
        problems.append("needs " + " ".join(missing))
    if rules.meld_one_of and extra == 0:
        problems.append("needs one of " + "/".join(s.letter for s in rules.meld_one_of))
    doubles = [s.letter for s in rules.meld_suits if counts[s] > 1]
    if doubles or extra > 1:
        problems.append("one card of each suit only")
    stray = [c for c in picked if c.suit not in rules.meld_suits and c.suit not in rules.meld_one_of]
    if stray:
        problems.append(f"{stray[0].name} does not belong in a meld")
    if problems or len(picked) != need:
        return None, f"{len(picked)}/{need}: " + ("; ".join(problems) or f"pick {need} cards")
    return Meld(list(picked)), f"meld {len(picked)} cards: +{rules.meld_ct} CT (R7.2)"


def ability_text(ab: Ability) -> str:
    """``Ability.text`` with singulars mended: "take 1 card", not "take 1 cards"."""
    return ab.text.replace(" 1 cards", " 1 card")


def ability_lines(view: View) -> list[tuple[bool, bool, str, str, str]]:
    """For each ability of the rule set: (affordable with this hand, can activate right now,
    suit letter, 'Name [cost]', what it does)."""
    counts = Counter(c.suit for c in view.hand)
    my_action = view.pending is not None and view.pending.kind == "action" and view.pending.player == view.seat
    out = []
    for tier_table in (view.rules.basic, view.rules.advanced):
        for suit in Suit:
            ab = tier_table[suit]
            if ab is None:
                continue
            ok = counts[suit] >= ab.cards
            out.append((ok, ok and my_action, suit.letter, f"{ab.name} [{ab.cards}{suit.letter}]", ability_text(ab)))
    return out


@dataclass
class Session:
    """A game being played at the table: the game, who plays each seat, the bots, the log."""

    game: Game
    seats: list[SeatSpec]
    events: list[Event] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    save_path: Path | None = None
    bots: dict[int, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from ..bots import make_bot

        if len(self.seats) != self.game.num_players:
            raise ValueError(f"{len(self.seats)} seat specs for {self.game.num_players} seats")
        for seat, spec in enumerate(self.seats):
            if spec.is_human:
                continue
            try:
                self.bots[seat] = make_bot(spec.kind, seed=self.game.seed % 1_000_003 * 16 + seat)
            except ValueError as e:
                self.notices.append(f"seat {seat}: {e}; playing the random bot instead")
                self.bots[seat] = make_bot("random", seed=self.game.seed % 1_000_003 * 16 + seat)

    # -- construction ----------------------------------------------------------
    @classmethod
    def new(cls, seats: Sequence[SeatSpec], rules: RuleSet | None = None, seed: int | None = None,
            save_path: Path | None = None) -> Session:
        names = [s.record_name(i) for i, s in enumerate(seats)]
        game = Game(players=names, seed=seed, rules=rules or RuleSet.default())
        return cls(game, list(seats), events=list(game.opening_events), save_path=save_path)

    @classmethod
    def resume(cls, path: Path, seats: Sequence[SeatSpec] | None = None, save_path: Path | None = None) -> Session:
        """A saved game, played again from its record up to where it stopped."""
        record = GameRecord.load(path)
        game = record.initial()
        events: list[Event] = list(game.opening_events)
        for a in record.actions:
            events.extend(game.apply(a))
        specs = list(seats) if seats else [SeatSpec.from_record_name(n) for n in record.players]
        s = cls(game, specs, events=events, save_path=save_path if save_path is not None else path)
        return s

    # -- who sees what ---------------------------------------------------------
    @property
    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.is_human]

    def is_bot(self, seat: int | None) -> bool:
        return seat is not None and seat in self.bots

    @property
    def to_move(self) -> int | None:
        return self.game.to_move

    def label(self, seat: int) -> str:
        return self.seats[seat].label(seat)

    def view(self, seat: int | None) -> View:
        return self.game.view(seat)

    def log_lines(self, seat: int | None) -> list[str]:
        """The log as ``seat`` may read it (its redacted view of every event)."""
        return [event_line(e, seat) for e in self.events]

    # -- playing ---------------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        """Apply a human's action (raises ``IllegalActionError`` and changes nothing if illegal)."""
        events = self.game.apply(action)
        self.events.extend(events)
        self.autosave()
        return events

    def bot_action(self) -> Action:
        """The bot to move chooses (it sees only its own view); may take a while for search bots."""
        from ..bots import Bot, decide

        seat = self.game.to_move
        assert seat is not None and seat in self.bots
        bot = self.bots[seat]
        assert isinstance(bot, Bot)
        return decide(bot, self.game)

    def autosave(self) -> None:
        if self.save_path is not None:
            self.save(self.save_path)

    def save(self, path: Path) -> Path:
        self.game.record().save(path)
        return path


@dataclass
class Replay:
    """A saved game stepped through: ``step`` is how many actions have been applied."""

    record: GameRecord
    games: list[Game] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    step: int = 0

    @classmethod
    def load(cls, path: Path) -> Replay:
        record = GameRecord.load(path)
        g = record.initial()
        games = [g.clone()]
        events: list[list[Event]] = [list(g.opening_events)]
        for a in record.actions:
            events.append(g.apply(a))
            games.append(g.clone())
        return cls(record, games, events)

    @property
    def last(self) -> int:
        return len(self.games) - 1

    @property
    def game(self) -> Game:
        return self.games[self.step]

    def go(self, step: int) -> None:
        self.step = max(0, min(self.last, step))

    def log_lines(self, seat: int | None) -> list[str]:
        return [event_line(e, seat) for evs in self.events[: self.step + 1] for e in evs]

    def action_text(self) -> str:
        """The action that led to this step, in public terms (a card taken from the deck stays secret)."""
        if self.step == 0:
            return "the deal"
        a = self.record.actions[self.step - 1]
        before = self.games[self.step - 1]
        who = f"seat {before.to_move}"
        pending = before.pending
        if isinstance(a, Basic):  # Advanced too
            table = before.rules.advanced if isinstance(a, Advanced) else before.rules.basic
            ab = table[a.cards[0].suit] if a.cards else None
            name = ab.name if ab else a.do
            target = f" on seat {a.target}" if a.target is not None else ""
            return f"{who}: {name}{target}, paying {', '.join(c.name for c in a.cards)}"
        if isinstance(a, Take):
            if pending is not None and pending.kind == "foundations":
                return f"{who}: took {a.card.name} from the discard pile"
            return f"{who}: took a card from the deck"
        if isinstance(a, Meld):
            return f"{who}: melded {', '.join(c.name for c in a.cards)}"
        if isinstance(a, Discard):
            return f"{who}: discarded {', '.join(c.name for c in a.cards)}"
        return f"{who}: passed"
