"""The game behind the terminal table: the session, its saves and its log, and replays.

Nothing here imports Textual, so it is tested on its own. The :class:`Session` owns
the :class:`~civlite.engine.Game` (it plays the part of a server); everything it hands
to the screens is built from ``game.view(seat)`` and events redacted for that seat.
Seats are described in :mod:`.seats`, a human's choices in :mod:`.choices`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..engine import Action, Basic, Choices, Discard, Event, Game, GameRecord, Meld, RecordError, RuleSet, Take, View
from .choices import Choice, check_discard, check_meld, check_pay, choices_for, hand_by_suit, meld_possible
from .recap import event_line
from .seats import BOT_LEVELS, BOT_PREFIX, HUMAN, SeatError, SeatSpec, bot_error, parse_seats, seat_names

__all__ = [
    "BOT_LEVELS",
    "BOT_PREFIX",
    "HUMAN",
    "Choice",
    "Replay",
    "SeatError",
    "SeatSpec",
    "Session",
    "autosave_dir",
    "bot_error",
    "check_discard",
    "check_meld",
    "check_pay",
    "check_writable",
    "choices_for",
    "event_line",
    "hand_by_suit",
    "last_unfinished",
    "loggable",
    "meld_possible",
    "new_autosave_path",
    "parse_seats",
    "seat_names",
    "unfinished_games",
]


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


def _not_begun(record: GameRecord) -> bool:
    """Whether no player (no human seat) has moved yet in ``record`` (a bots-only game: no move at all)."""
    humans = {i for i, n in enumerate(record.players) if not n.startswith(BOT_PREFIX)}
    if not humans:
        return not record.actions
    g = record.initial()
    for a in record.actions:
        if g.to_move in humans:
            return False
        g.apply(a)
    return True


def unfinished_games(directory: Path | None = None) -> tuple[Path | None, list[str]]:
    """The most recently saved game in the autosave directory that is not over and in which a
    player has made a move, and why each newer file was passed over (``"civlite-....json: not a
    civlite record ..."``)."""
    d = directory or autosave_dir()
    try:
        files = sorted(d.glob("civlite-*.json"), key=lambda f: f.stat().st_mtime, reverse=True)
    except OSError:
        return None, []
    skipped: list[str] = []
    for f in files[:20]:
        try:
            record = GameRecord.load(f)
            if record.replay().is_over:
                why = "the game is over"
            elif _not_begun(record):
                why = "quit before any player moved"
            else:
                return f, skipped
        except (RecordError, ValueError, OSError) as e:
            why = f"cannot be read ({e})"
        skipped.append(f"{f.name}: {why}")
    return None, skipped


def last_unfinished(directory: Path | None = None) -> Path | None:
    """The game :func:`unfinished_games` finds, if any."""
    return unfinished_games(directory)[0]


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
    #: lines of one seat's own log that are not events (an automatic meld pass, R9.1): (how
    #: many events came before it, the seat, the line); never shown to another seat
    notes: list[tuple[int, int, str]] = field(default_factory=list)

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

    def log_lines(self, seat: int | None, *, you: bool = False) -> list[str]:
        """The log as ``seat`` may read it (its redacted view of every event, and its own
        notes); with ``you``, in the second person for that seat."""
        names = self.names
        mine = [(at, line) for at, s, line in self.notes if s == seat and seat is not None]
        kept = {id(e) for e in loggable(self.events)}
        out: list[str] = []
        for i, e in enumerate(self.events):
            out += [line for at, line in mine if at == i]
            if id(e) in kept:
                out.append(event_line(e, seat, names, you=you))
        return out + [line for at, line in mine if at >= len(self.events)]

    @property
    def begun(self) -> bool:
        """Whether a player has moved (a game quit before is not offered by ``--continue``)."""
        return not _not_begun(GameRecord.of(self.game))

    def note(self, seat: int, line: str) -> None:
        """A line for ``seat``'s own log only (``"R9.1 ..."``)."""
        self.notes.append((len(self.events), seat, line))

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
        GameRecord.of(self.game).save(path)
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
