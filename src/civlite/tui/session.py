"""The game behind the terminal table: seats, bots, the log, the choices a human has.

Nothing here imports Textual, so it is tested on its own. The :class:`Session` owns
the :class:`~civlite.engine.Game` (it plays the part of a server); everything it hands
to the screens is built from ``game.view(seat)`` and events redacted for that seat.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..bots import LEVELS
from ..engine import (
    AbilityChoice,
    Action,
    Basic,
    Card,
    Choices,
    Discard,
    DiscardChoice,
    Event,
    Game,
    GameRecord,
    Meld,
    MeldChoice,
    Pass,
    RecordError,
    RuleSet,
    Suit,
    Take,
    View,
)

_NUMPY = importlib.util.find_spec("numpy") is not None
#: what the set-up screen offers for a bot seat: the named levels (``civlite.bots.LEVELS``)
#: first, then every bot by name (``make_bot`` specs); the learned ones where numpy is installed
BOT_LEVELS: tuple[str, ...] = (
    tuple(k for k, v in LEVELS.items() if _NUMPY or v.split(":")[0] not in ("expert", "champion"))
    + ("random", "heuristic", "ismcts") + (("policy", "expert") if _NUMPY else ()))
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


def seat_names(seats: Sequence[SeatSpec]) -> list[str]:
    """Each seat's name for the table and the log; two seats of one name get their seat added."""
    labels = [s.label(i) for i, s in enumerate(seats)]
    return [f"{x} ({i})" if labels.count(x) > 1 else x for i, x in enumerate(labels)]


class SeatError(ValueError):
    """A ``--seats`` entry that is neither a human nor a bot the bots package knows."""


def bot_error(spec: str) -> str | None:
    """Why ``spec`` is not a bot (the bots package's own check, with a "did you mean"), or ``None``."""
    from .. import bots

    try:
        bots.make_bot(spec, seed=0)
    except ValueError as e:
        name = bots.parse_spec(spec)[0] if ":" in spec else spec.strip().lower()
        close = difflib.get_close_matches(name, sorted(bots.BOTS), n=1, cutoff=0.6)
        if name not in bots.BOTS and close:
            return f"unknown bot {name!r}: did you mean {close[0]!r}?"
        return str(e)
    return None


def _is_bot_name(word: str) -> bool:
    from .. import bots

    key = word.strip().lower()
    return bot_error(word) is None and (key in bots.BOTS or key in bots.LEVELS)


def parse_seats(text: str) -> list[SeatSpec]:
    """``"human,random,heuristic"`` or ``"Ann,Bob,ismcts:seconds=1"``; raises :class:`SeatError`.

    Each entry is ``human``, ``human:NAME``, a bot spec (checked by the bots package, so a
    misspelt option is an error) or a human's name. A name that is a near miss of a bot's
    name (``heuristc``) is an error with a "did you mean", not a human: write ``human:NAME``
    for a player really called so.
    """
    from .. import bots

    out = []
    for i, part in enumerate(p.strip() for p in text.split(",")):
        if not part:
            raise SeatError(f"--seats: entry {i + 1} is empty (seats are separated by single commas)")
        low = part.lower()
        if low == HUMAN:
            out.append(SeatSpec(HUMAN))
            continue
        if low.startswith(HUMAN + ":"):
            out.append(SeatSpec(HUMAN, part[len(HUMAN) + 1:].strip()))
            continue
        prefixed = low.startswith(BOT_PREFIX)
        spec = part[len(BOT_PREFIX):] if prefixed else part
        if prefixed or ":" in spec or "=" in spec or _is_bot_name(spec):
            why = bot_error(spec)
            if why is not None:
                raise SeatError(f"--seats: seat {len(out)}: {why}")
            out.append(SeatSpec(spec.strip().lower() if ":" not in spec else spec.strip()))
            continue
        close = difflib.get_close_matches(low, sorted(set(bots.BOTS) | set(bots.LEVELS)), n=1, cutoff=0.75)
        if close:
            raise SeatError(f"--seats: seat {len(out)}: {part!r} is not a bot: did you mean {close[0]!r}? "
                            f"(for a player called {part!r}, write human:{part})")
        out.append(SeatSpec(HUMAN, part))
    return out


def check_writable(path: Path) -> None:
    """Raise ``OSError`` (with a clear message) unless a record can be written to ``path``;
    changes nothing on disk."""
    if path.is_dir():
        raise IsADirectoryError(f"cannot save the game to {path}: it is a directory")
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise OSError(f"cannot save the game to {path}: {e.strerror or e}") from None
    if not existed:
        path.unlink()


def autosave_dir() -> Path:
    """Where games are saved when no ``--save`` file is named: ``$CIVLITE_SAVE_DIR``, else
    ``games/`` in the user data directory (platformdirs)."""
    env = os.environ.get("CIVLITE_SAVE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir("civlite", appauthor=False)) / "games"


def new_autosave_path(directory: Path | None = None) -> Path:
    d = directory or autosave_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = d / f"civlite-{stamp}.json"
    n = 1
    while path.exists():
        n += 1
        path = d / f"civlite-{stamp}-{n}.json"
    return path


def last_unfinished(directory: Path | None = None) -> Path | None:
    """The most recently saved game in the autosave directory that is not over, if any."""
    d = directory or autosave_dir()
    try:
        files = sorted(d.glob("civlite-*.json"), key=lambda f: f.stat().st_mtime, reverse=True)
    except OSError:
        return None
    for f in files[:20]:
        try:
            if not GameRecord.load(f).replay().is_over:
                return f
        except (RecordError, ValueError, OSError):
            continue
    return None


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer to the pending decision, as shown in the choice list."""

    label: str
    action: Action | None  # None: opens the meld builder
    detail: str = ""
    key: str = ""  # a stable id, for tests: "pass", "basic:W", "advanced:M>2", "take:C", "meld:D", "build"
    ability: AbilityChoice | None = None  # the engine's ability choice (its payable cards: the pay picker)
    target: int | None = None


def event_line(event: Event, seat: int | None, names: Sequence[str] | None = None) -> str:
    """One log line as ``seat`` may read it; ``None`` is a spectator (public facts only).
    ``names``: the players' names, used instead of "seat N".

    (``Event.describe`` redacts the event for that reader.)
    """
    return event.describe(seat, names=names or None)


def loggable(events: Sequence[Event]) -> list[Event]:
    """The events worth a log line: a meld's CT gain is already said by the meld's own line."""
    out: list[Event] = []
    for e in events:
        prev = out[-1] if out else None
        if (e.kind == "gain_ct" and prev is not None and prev.kind == "meld" and prev.player == e.player
                and prev.amount == e.amount):
            continue
        out.append(e)
    return out


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


@dataclass
class Session:
    """A game being played at the table: the game, who plays each seat, the bots, the log."""

    game: Game
    seats: list[SeatSpec]
    events: list[Event] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    save_path: Path | None = None
    bots: dict[int, object] = field(default_factory=dict)
    #: why the last automatic save failed (``None``: the record on disk is up to date)
    save_error: str | None = None
    #: seats whose meld decision is passed by itself when no meld is possible (R9.1: a player's
    #: setting, on by default for every human)
    auto_pass_meld: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        from ..bots import make_bot

        if len(self.seats) != self.game.num_players:
            raise ValueError(f"{len(self.seats)} seat specs for {self.game.num_players} seats")
        for seat, spec in enumerate(self.seats):
            if spec.is_human:
                self.auto_pass_meld.add(seat)
                continue
            try:
                self.bots[seat] = make_bot(spec.kind, seed=self.game.seed % 1_000_003 * 16 + seat)
            except ValueError as e:
                raise SeatError(f"seat {seat}: {bot_error(spec.kind) or e}") from None

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
        return self.names[seat]

    @property
    def names(self) -> list[str]:
        return seat_names(self.seats)

    def view(self, seat: int | None) -> View:
        return self.game.view(seat)

    def choices(self, seat: int | None) -> Choices:
        """The engine's per-seat choices (what ``seat`` may do now; nothing unless it decides)."""
        return self.game.choices(seat)

    def choice_list(self, seat: int | None) -> list[Choice]:
        return choices_for(self.choices(seat), self.names)

    def log_lines(self, seat: int | None) -> list[str]:
        """The log as ``seat`` may read it (its redacted view of every event)."""
        names = self.names
        return [event_line(e, seat, names) for e in loggable(self.events)]

    # -- playing ---------------------------------------------------------------
    def apply(self, action: Action, decision: int | None = None) -> list[Event]:
        """Apply a human's action, answering decision number ``decision`` when given (raises
        ``IllegalActionError``, or its ``StaleDecisionError`` for an answer to a decision already
        answered, and changes nothing)."""
        events = self.game.apply(action, decision=decision)
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
        """Save to ``save_path`` (if any); a failure is kept in ``save_error``, never raised."""
        if self.save_path is None:
            return
        try:
            self.save(self.save_path)
        except OSError as e:
            self.save_error = f"cannot save to {self.save_path}: {e.strerror or e}"
        else:
            self.save_error = None

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
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

    @property
    def names(self) -> list[str]:
        return seat_names([SeatSpec.from_record_name(n) for n in self.record.players])

    def log_lines(self, seat: int | None) -> list[str]:
        names = self.names
        return [event_line(e, seat, names) for evs in self.events[: self.step + 1] for e in loggable(evs)]

    def action_text(self) -> str:
        """The action that led to this step, in public terms (a card taken from the deck stays secret)."""
        if self.step == 0:
            return "the deal"
        a = self.record.actions[self.step - 1]
        before = self.games[self.step - 1]
        who = self.names[before.to_move] if before.to_move is not None else "?"
        pending = before.pending
        if isinstance(a, Basic):  # Advanced too
            # the ability's name as the engine's own events of this step say it (no rule lookup here)
            name = next((e.ability for e in self.events[self.step] if e.ability), a.do)
            target = f" on {self.names[a.target]}" if a.target is not None else ""
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
