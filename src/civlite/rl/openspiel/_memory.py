"""What each seat remembers: the events as it saw them, and the secrets its view showed it.

The information state of a seat is its view now, its dealt hand and one record per thing it
observed, oldest first. Most of what a seat observes is an engine event, redacted for it
(:meth:`civlite.engine.Event.for_seat`). Two things its view shows it are not events, and
a seat must not forget them once its view no longer shows them (perfect recall):

* the deck, by suit, while the seat decides a Vision (the view's ``searching``);
* which cards of another seat's hand it knows, by suit (the view's ``known``): that
  changes with cards the events name only by suit, such as a discard of one card of a suit
  of which the seat knew one in that hand, and another it did not.

After every action the adapter reads both from each seat's view
(:meth:`civlite.engine.Game.view_counts`, the same filter as the view: hidden information
is decided there alone) and, when one changed, adds a *note*: a record that only that seat
holds (``searched``, ``known``), placed after the action's events.
"""

from __future__ import annotations

import hashlib
import struct

from ...engine import SUIT_OF, DecisionKind, Event, Game, RuleSet
from ..encoding import obs_size
from ..spec import EVENT_KINDS, EVENT_RECORD, EVENTS_PER_TURN

_KIND_NUM = {k: i + 1 for i, k in enumerate(EVENT_KINDS)}
_RECORD = struct.Struct(f"<{EVENT_RECORD}f")
#: the events that never change what a seat knows of another's hand
_STILL = frozenset(("draw", "turn", "pass", "gain_ct", "steal_ct", "shuffle", "reshuffle", "extra_turn", "win",
                    "draw_game"))
#: the events whose public cards leave their player's hand
_LEAVING = frozenset(("discard", "activate", "meld"))
_VISION = DecisionKind.VISION


def info_tensor_size(players: int, rules: RuleSet, history: int = -1) -> int:
    """The length of ``information_state_tensor`` (``history`` -1: the whole game)."""
    return obs_size(players) + 8 + _capacity(rules, history) * EVENT_RECORD + 1


def _capacity(rules: RuleSet, history: int) -> int:
    return rules.turn_limit * EVENTS_PER_TURN + 1 if history < 0 else history


def _ability_nums(rules: RuleSet) -> dict[str, int]:
    return {a.name: (8 if a.tier == "advanced" else 0) + int(a.suit) + 1 for a in rules.abilities}


class _Config:
    """What every state of one game shares."""

    __slots__ = ("ability_num", "capacity", "n", "outcome_tables", "rules", "sampled", "seed")

    def __init__(self, rules: RuleSet, n: int, capacity: int, sampled: int, seed: int) -> None:
        self.outcome_tables: dict[int, list[tuple[int, float]]] = {}  # chance_outcomes' pairs, per count
        self.rules = rules
        self.n = n
        self.capacity = capacity
        self.sampled = sampled  # K outcomes per chance node; 0: exact chance
        self.seed = seed
        self.ability_num = _ability_nums(rules)


def _record(e: Event, seat: int, n: int, ability_num: dict[str, int]) -> tuple[float, ...]:
    row = [0.0] * EVENT_RECORD
    row[0] = _KIND_NUM.get(e.kind, len(EVENT_KINDS) + 1)
    row[1] = 0.0 if e.player is None else (e.player - seat) % n + 1
    row[2] = 0.0 if e.target is None else (e.target - seat) % n + 1
    row[3] = ability_num.get(e.ability, 0) if e.ability else 0
    if e.kind == "turn":  # whether it is an extra turn, and its number
        row[4] = float(e.extra)
        row[5] = e.turn
    else:  # cards moved (or seen), and CT
        row[4] = e.count
        row[5] = e.amount
    for card in e.cards:
        row[6 + SUIT_OF[card]] += 1.0
    for card in e.secret:
        row[14 + SUIT_OF[card]] += 1.0
    return tuple(row)


def _note(kind: str, target: int, ability: float, counts: list[int]) -> tuple[float, ...]:
    """A note's record: its kind, the seat itself as the actor (1), the target (relative, plus 1;
    0 for the deck), the ability, the cards' count and the cards by suit in the secret columns."""
    row = [0.0] * EVENT_RECORD
    row[0] = _KIND_NUM[kind]
    row[1] = 1.0
    row[2] = float(target)
    row[3] = ability
    row[4] = float(sum(counts))
    row[14:22] = [float(c) for c in counts]
    return tuple(row)


#: the fields of :class:`_Memory` (a subclass with slots of its own lists them too, for pickling)
MEMORY_SLOTS = ("cfg", "chains", "cursors", "events", "hands0", "knows", "notes", "records")


class _Memory:
    """The events since the deal, the seats' notes, and each seat's records and their digest."""

    __slots__ = MEMORY_SLOTS

    cfg: _Config
    game: Game | None

    def _init_memory(self, cfg: _Config) -> None:
        n = cfg.n
        self.cfg = cfg
        self.hands0: list[list[int]] = [[] for _ in range(n)]  # each seat's dealt hand, as this world knows it
        self.events: list[Event] = []  # every event since the deal (this world's truth; redacted when read)
        self.notes: list[tuple[int, int, tuple[float, ...]]] = []  # (events before it, seat, record)
        self.records: list[list[tuple[float, ...]]] = [[] for _ in range(n)]  # per seat, filled when asked
        self.cursors: list[tuple[int, int]] = [(0, 0)] * n  # per seat: events and notes read into records
        self.chains: list[tuple[int, bytes]] = [(0, b"")] * n  # per seat: records digested, digest
        #: per seat: the suit counts of the cards it knows in each hand (relative to it) when last read
        self.knows: list[list[list[int]] | None] = [None] * n

    def _copy_memory(self, c: _Memory) -> None:
        c.cfg = self.cfg
        c.hands0 = self.hands0  # never changed in place once dealt
        c.events = self.events[:]
        c.notes = self.notes[:]
        c.records = [r[:] for r in self.records]
        c.cursors = self.cursors[:]
        c.chains = self.chains[:]
        c.knows = self.knows[:]

    def _resampled_memory(self, c: _Memory, seat: int, world: Game) -> None:
        """``c``'s memory in a world sampled for ``seat``: the events as it saw them, its own notes,
        records and digest; the other seats start with no notes, their knowledge read from the world."""
        m = self._synced()
        if m is not self:
            m._resampled_memory(c, seat, world)
            return
        n = self.cfg.n
        c.cfg = self.cfg
        c.hands0 = [self.hands0[s] if s == seat else [] for s in range(n)]
        c.events = [e.for_seat(seat) for e in self.events]
        c.notes = [x for x in self.notes if x[1] == seat]
        mine = self.seat_records(seat)
        c.records = [mine[:] if s == seat else [] for s in range(n)]
        c.cursors = [(len(c.events), len(c.notes)) if s == seat else (0, 0) for s in range(n)]
        c.chains = [self.chains[s] if s == seat else (0, b"") for s in range(n)]
        c.knows = [self.knows[seat] if s == seat else world.view_counts(s)[2] for s in range(n)]

    def all_events(self) -> list[Event]:
        """Every event since the deal, unredacted (this world's truth)."""
        return self._synced().events

    # -- notes ----------------------------------------------------------------------
    def observe(self, g: Game, events: list[Event]) -> None:
        """After an action's ``events`` (already appended): note what the seats' views show
        of hidden cards that the events do not hold (see the module's notes)."""
        if g.over:
            return
        if g.pending_kind is _VISION:
            seat = g.to_move
            assert seat is not None
            _, _, _, searching, _, ability = g.view_counts(seat)
            num = float(self.cfg.ability_num.get(ability.name, 0)) if ability is not None else 0.0
            self.notes.append((len(self.events), seat, _note("searched", 0, num, searching)))
        if not events or not self._may_know(events):
            return
        knows = self.knows
        notes = self.notes
        at = len(self.events)
        n = self.cfg.n
        for seat in range(n):
            known = g.view_counts(seat)[2]  # per seat relative to it (0: itself, all zeros)
            before = knows[seat]
            if known != before:
                for k in range(1, n):
                    row = known[k]
                    if before is None and not any(row):
                        continue
                    if before is None or row != before[k]:
                        notes.append((at, seat, _note("known", k + 1, 0.0, row)))
                knows[seat] = known

    def _may_know(self, events: list[Event]) -> bool:
        """Whether ``events`` may have changed what some seat knows of another's hand: a look, a
        steal, a take (or a kind not known here) may; cards leaving a hand (paid, discarded,
        melded) only if some other seat knew a card of their suits there; a draw, a turn, a pass,
        CT or a shuffle never do (a card drawn from the deck is known to no other seat)."""
        knows = self.knows
        n = self.cfg.n
        for e in events:
            kind = e.kind
            if kind in _STILL:
                continue
            x = e.player
            if kind not in _LEAVING or x is None:
                return True
            for q in range(n):
                rows = knows[q]
                if q == x or rows is None:
                    continue
                row = rows[(x - q) % n]
                for c in e.cards:
                    if row[SUIT_OF[c]]:
                        return True
        return False

    # -- records --------------------------------------------------------------------
    def _synced(self) -> _Memory:
        """The memory that is up to date with this state: itself here; a state that keeps its
        memory elsewhere (the implicit game's, built when first asked) returns that."""
        return self

    def seat_records(self, seat: int) -> list[tuple[float, ...]]:
        """The seat's records, oldest first: the events as it saw them and its own notes, in the
        order they happened (each encoded once per seat, when first asked)."""
        m = self._synced()
        if m is not self:
            return m.seat_records(seat)
        records = self.records[seat]
        done, noted = self.cursors[seat]
        events = self.events
        notes = self.notes
        if done < len(events) or noted < len(notes):
            n = self.cfg.n
            nums = self.cfg.ability_num
            while True:
                if noted < len(notes) and notes[noted][0] <= done:
                    _, who, rec = notes[noted]
                    noted += 1
                    if who == seat:
                        records.append(rec)
                elif done < len(events):
                    records.append(_record(events[done].for_seat(seat), seat, n, nums))
                    done += 1
                else:
                    break
            self.cursors[seat] = (done, noted)
        return records

    def kept(self, seat: int) -> tuple[list[tuple[float, ...]], int]:
        """The records the tensor keeps and the count of those that no longer fit."""
        records = self.seat_records(seat)
        cap = self.cfg.capacity
        if len(records) <= cap:
            return records, 0
        return records[len(records) - cap:] if cap else [], len(records) - cap

    def history_digest(self, seat: int) -> str:
        """A digest of the records the tensor keeps (and the dropped count), kept up to date by chaining."""
        m = self._synced()
        if m is not self:
            return m.history_digest(seat)
        kept, dropped = self.kept(seat)
        if dropped:  # a window: digest it whole
            h = hashlib.blake2b(digest_size=16)
            for r in kept:
                h.update(_RECORD.pack(*r))
            return f"{dropped}+{h.hexdigest()}"
        done, digest = self.chains[seat]
        if done < len(kept):
            for r in kept[done:]:
                digest = hashlib.blake2b(digest + _RECORD.pack(*r), digest_size=16).digest()
            self.chains[seat] = (len(kept), digest)
        return f"{len(kept)}:{digest.hex()}"
