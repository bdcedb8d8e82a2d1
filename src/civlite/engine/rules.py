"""Rule sets as data (R10).

Every number that the rules mark *(variant)* and both ability tables live in a
:class:`RuleSet`. A designer writes a TOML file holding only what differs from the
default; :meth:`RuleSet.from_toml` merges it over :meth:`RuleSet.default` and
reports any bad key by name.

Abilities are composed from a small set of effect primitives (:data:`EFFECT_OPS`),
written as short strings in the file: ``"steal_cards 3"``, ``"gain_ct 2"``,
``"target_discards all"`` (:mod:`.abilities`); the values that are more than a number
(per-seat tables, suit lists, the deck) are read by :mod:`.rulefile`.

>>> rules = RuleSet.from_dict({"victory_ct": 15, "basic": {"W": {"effects": ["gain_ct 2"]}}})
>>> rules.victory_ct, rules.basic[Suit.WONDER].effects, rules.basic[Suit.WONDER].words()
(15, (Effect(op='gain_ct', amount=2),), 'gain 2 CT')
>>> eval(repr(rules)) == rules
True
>>> RuleSet.from_dict({"victory": 15})
Traceback (most recent call last):
civlite.engine.abilities.RuleSetError: rules: unknown key 'victory'; the keys are: ...
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .abilities import DEFAULT_ABILITIES, Ability, Effect, RuleSetError
from .cards import (
    CARDS,
    MAJOR_SUITS,
    MINOR_SUITS,
    NAMES,
    SUIT_LETTERS,
    SUIT_OF,
    SUITS,
    Suit,
)
from .effects import ALL, EFFECT_OPS
from .rulefile import SeatValues, deck_table, parse_deck, parse_seat_values, parse_suit, parse_suits

__all__ = ["ALL", "EFFECT_OPS", "Ability", "Effect", "RuleSet", "RuleSetError"]


#: the numbers a rule set holds, with their defaults and the rules they change
NUMBERS: dict[str, tuple[int | None, str]] = {
    "min_players": (2, "R2.1"),
    "max_players": (8, "R2.1"),
    "hand_size": (5, "R2.1 initial deal"),
    "rise_draw": (2, "R4.1"),
    "hand_limit": (7, "R4.4"),
    "victory_ct": (20, "R8.1"),
    "meld_ct": (5, "R7.2"),
    "meld_draw": (5, "R7.2"),
    "ct_supply": (None, "R1.3 (none = unlimited)"),
    "turn_limit": (500, "R8.2"),
}

#: per-seat compensation keys (values in turn order, the first player first) and what
#: they set; see :meth:`RuleSet.per_seat`
SEAT_KEYS: dict[str, str] = {
    "start_ct": "R2.1 CT each seat starts with",
    "start_hand_bonus": "R2.1 cards dealt beyond hand_size (or fewer, if negative)",
    "first_rise_draw": "R4.1 cards drawn in each seat's first Rise (instead of rise_draw)",
}

#: the default deck: the 112 cards of the designer's card list (R1.1), by id
STANDARD_DECK: tuple[int, ...] = tuple(c.id for c in CARDS)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """All the variable parts of the rules (R10). ``RuleSet.default()`` is the rules exactly."""

    name: str = "default"
    min_players: int = 2
    max_players: int = 8
    hand_size: int = 5
    rise_draw: int = 2
    hand_limit: int = 7
    victory_ct: int = 20
    meld_ct: int = 5
    meld_draw: int = 5
    ct_supply: int | None = None
    turn_limit: int = 500
    meld_suits: tuple[Suit, ...] = MAJOR_SUITS
    meld_one_of: tuple[Suit, ...] = MINOR_SUITS
    abilities: tuple[Ability, ...] = DEFAULT_ABILITIES
    #: compensation for the order of play (SEAT_KEYS); empty: none
    start_ct: SeatValues = ()
    start_hand_bonus: SeatValues = ()
    first_rise_draw: SeatValues = ()
    #: the ids of the deck's cards, ascending (``[deck]`` in a file; default the 112 of R1.1)
    deck: tuple[int, ...] = STANDARD_DECK
    # derived lookup tables, filled in __post_init__
    basic: tuple[Ability | None, ...] = field(default=(), compare=False, repr=False)
    advanced: tuple[Ability | None, ...] = field(default=(), compare=False, repr=False)
    #: the deck's cards of each suit (8 counts)
    suit_sizes: tuple[int, ...] = field(default=(), compare=False, repr=False)
    #: one more than the deck's largest card id: the length of a per-card table
    deck_span: int = field(default=0, compare=False, repr=False)
    #: derived tables the engine computes once per rule set (not part of the rules)
    cache: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    def __getstate__(self) -> tuple[Any, ...]:
        """Pickled without its ``cache`` (derived tables, made again when asked for)."""
        return tuple(getattr(self, f.name) for f in fields(self) if f.name != "cache")

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for f, value in zip([f for f in fields(self) if f.name != "cache"], state, strict=True):
            object.__setattr__(self, f.name, value)
        object.__setattr__(self, "cache", {})

    def __post_init__(self) -> None:
        self._validate()
        basic: list[Ability | None] = [None] * 8
        advanced: list[Ability | None] = [None] * 8
        for a in self.abilities:
            (basic if a.tier == "basic" else advanced)[a.suit] = a
        object.__setattr__(self, "basic", tuple(basic))
        object.__setattr__(self, "advanced", tuple(advanced))
        sizes = [0] * 8
        for c in self.deck:
            sizes[SUIT_OF[c]] += 1
        object.__setattr__(self, "suit_sizes", tuple(sizes))
        object.__setattr__(self, "deck_span", self.deck[-1] + 1 if self.deck else 0)

    @property
    def standard_deck(self) -> bool:
        """Whether the deck is the 112 cards of R1.1 (the default)."""
        return self.deck == STANDARD_DECK

    # -- construction -------------------------------------------------------------
    @classmethod
    def default(cls) -> RuleSet:
        return _DEFAULT

    @classmethod
    def named(cls, name: str) -> RuleSet:
        """A rule set that comes with civlite (:data:`BUILTIN_RULES`): ``"default"``, the
        designer's game, or ``"balanced"``, the same game with every seat's chance fair at 2
        to 6 players (``civlite/engine/rulesets/balanced.toml``).

        >>> RuleSet.named("balanced").per_seat("first_rise_draw", 4)
        (2, 2, 3, 4)
        """
        if name == "default":
            return _DEFAULT
        if name not in BUILTIN_RULES:
            raise RuleSetError(f"no rule set named {name!r} comes with civlite; they are: {', '.join(BUILTIN_RULES)}")
        from importlib.resources import files

        data = tomllib.loads(files("civlite.engine").joinpath("rulesets", f"{name}.toml").read_text(encoding="utf-8"))
        return cls.from_dict(data, where=f"{name}.toml")

    @classmethod
    def load(cls, spec: str | Path) -> RuleSet:
        """A rule-set file, or the name of one that comes with civlite (:meth:`named`) where no
        file of that name exists: what every ``--rules`` option takes."""
        p = Path(spec)
        if not p.exists():
            if str(spec) in BUILTIN_RULES:
                return cls.named(str(spec))
            if p.suffix == "" and len(p.parts) == 1:  # a name, not a path: say which names there are
                import difflib

                near = difflib.get_close_matches(str(spec), BUILTIN_RULES, n=1)
                raise RuleSetError(f"no rule-set file {str(spec)!r}, and no built-in rule set of that name"
                                   + (f" (did you mean {near[0]!r}?)" if near else "")
                                   + f"; the built-in ones are: {', '.join(BUILTIN_RULES)}")
        return cls.from_toml(p)

    @classmethod
    def from_toml(cls, path: str | Path) -> RuleSet:
        """Load a rule-set file: only the keys it gives differ from the default."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as e:
            raise RuleSetError(f"cannot read rule-set file {str(p)!r}: {e.strerror}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise RuleSetError(f"{p.name}: not valid TOML: {e}") from None
        data.setdefault("name", p.stem)
        return cls.from_dict(data, where=p.name)

    @classmethod
    def from_dict(cls, data: Any, where: str = "rules") -> RuleSet:
        """Build from a mapping (TOML or JSON form), merging over the default."""
        if not isinstance(data, dict):
            raise RuleSetError(f"{where}: a rule set is a table of keys, got {type(data).__name__}")
        base = _DEFAULT
        known = {"name", "meld", "basic", "advanced", "deck", "description"} | set(NUMBERS) | set(SEAT_KEYS)
        unknown = sorted(set(data) - known)
        if unknown:
            raise RuleSetError(
                f"{where}: unknown key {unknown[0]!r}; the keys are: {', '.join(sorted(known))}"
            )
        changes: dict[str, Any] = {}
        if "name" in data:
            if not isinstance(data["name"], str) or not data["name"].strip():
                raise RuleSetError(f"{where}: 'name' must be a non-empty string")
            changes["name"] = data["name"]
        for key in NUMBERS:
            if key not in data:
                continue
            value = data[key]
            if key == "ct_supply" and (value is None or value == "unlimited"):
                changes[key] = None
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise RuleSetError(f"{where}: {key!r} must be a whole number, got {value!r}")
            changes[key] = value
        for key in SEAT_KEYS:
            if key in data:
                changes[key] = parse_seat_values(data[key], f"{where}: {key}")
        if "meld" in data:
            meld = data["meld"]
            if not isinstance(meld, dict):
                raise RuleSetError(f"{where}: 'meld' must be a table with 'suits' and 'one_of'")
            bad = sorted(set(meld) - {"suits", "one_of"})
            if bad:
                raise RuleSetError(f"{where}: unknown key 'meld.{bad[0]}'; expected 'suits' and 'one_of'")
            for k, attr in (("suits", "meld_suits"), ("one_of", "meld_one_of")):
                if k in meld:
                    changes[attr] = parse_suits(meld[k], f"{where}: meld.{k}")
        if "deck" in data:
            changes["deck"] = parse_deck(data["deck"], f"{where}: deck")
        abilities = {(a.tier, a.suit): a for a in base.abilities}
        for tier in ("basic", "advanced"):
            if tier not in data:
                continue
            table = data[tier]
            if not isinstance(table, dict):
                raise RuleSetError(f"{where}: {tier!r} must be a table keyed by suit letter, e.g. [{tier}.M]")
            for suit_key, spec in table.items():
                w = f"{where}: {tier}.{suit_key}"
                suit = parse_suit(suit_key, w)
                if spec is False or spec == "none":
                    abilities.pop((tier, suit), None)
                    continue
                if not isinstance(spec, dict):
                    raise RuleSetError(f"{w}: must be a table with name, cards and effects")
                bad = sorted(set(spec) - {"name", "cards", "effects", "rule"})
                if bad:
                    raise RuleSetError(f"{w}: unknown key {bad[0]!r}; expected name, cards, effects")
                old = abilities.get((tier, suit))
                name = spec.get("name", old.name if old else None)
                if not isinstance(name, str) or not name.strip():
                    raise RuleSetError(f"{w}.name: a new ability needs a name")
                cards = spec.get("cards", old.cards if old else (1 if tier == "basic" else None))
                if not isinstance(cards, int) or isinstance(cards, bool) or cards < 1:
                    raise RuleSetError(f"{w}.cards: must be a whole number >= 1, got {cards!r}")
                if "effects" in spec:
                    effs = spec["effects"]
                    if isinstance(effs, str):
                        effs = [effs]
                    if not isinstance(effs, list) or not effs:
                        raise RuleSetError(f"{w}.effects: must be a non-empty list like ['gain_ct 2']")
                    effects = tuple(Effect.parse(e, f"{w}.effects[{i}]") for i, e in enumerate(effs))
                elif old is not None:
                    effects = old.effects
                else:
                    raise RuleSetError(f"{w}.effects: a new ability needs effects")
                rule = spec.get("rule", old.rule if old else ("R5" if tier == "basic" else "R6"))
                if not isinstance(rule, str):
                    raise RuleSetError(f"{w}.rule: must be a string like 'R6'")
                abilities[(tier, suit)] = Ability(name, suit, tier, cards, effects, rule)
        order = {(a.tier, a.suit): i for i, a in enumerate(base.abilities)}
        changes["abilities"] = tuple(
            sorted(abilities.values(), key=lambda a: order.get((a.tier, a.suit), 99))
        )
        try:
            return replace(base, **changes)
        except RuleSetError as e:
            raise RuleSetError(f"{where}: {e}") from None

    def with_changes(self, **changes: Any) -> RuleSet:
        """A copy with some numbers changed: ``rules.with_changes(victory_ct=15)``."""
        bad = sorted(set(changes) - set(NUMBERS) - set(SEAT_KEYS) - {"name"})
        if bad:
            raise RuleSetError(
                f"unknown rule-set number {bad[0]!r}; the numbers are: {', '.join([*NUMBERS, *SEAT_KEYS])}"
            )
        merged = self.to_dict()
        merged.update(changes)
        return RuleSet.from_dict(merged)

    def _validate(self) -> None:
        for key in NUMBERS:
            v = getattr(self, key)
            if key == "ct_supply" and v is None:
                continue
            if not isinstance(v, int) or isinstance(v, bool):
                raise RuleSetError(f"{key!r} must be a whole number, got {v!r}")
        lows = {"min_players": 2, "max_players": 2, "hand_size": 0, "rise_draw": 0,
                "hand_limit": 0, "victory_ct": 1, "meld_ct": 0, "meld_draw": 0,
                "ct_supply": 0, "turn_limit": 1}
        for key, low in lows.items():
            v = getattr(self, key)
            if v is not None and v < low:
                raise RuleSetError(f"{key!r} must be at least {low}, got {v}")
        if self.max_players > 8:
            raise RuleSetError(f"'max_players' must be at most 8 (the action encoding's limit), got {self.max_players}")
        if self.min_players > self.max_players:
            raise RuleSetError(f"'min_players' ({self.min_players}) is more than 'max_players' ({self.max_players})")
        if len(set(self.meld_suits)) != len(self.meld_suits) or set(self.meld_suits) & set(self.meld_one_of):
            raise RuleSetError("meld: a suit may appear once, in 'suits' or in 'one_of'")
        if not self.meld_suits and not self.meld_one_of:
            raise RuleSetError("meld: needs at least one suit")
        lows = {"start_ct": 0, "start_hand_bonus": -self.hand_size, "first_rise_draw": 0}
        for key, low in lows.items():
            for players, values in getattr(self, key):
                where = f"{key}[{players} players]" if players else key
                if players and not 2 <= players <= 8:
                    raise RuleSetError(f"{key}: a player count must be 2..8, got {players}")
                if not values or len(values) > (players or 8):
                    raise RuleSetError(
                        f"{where}: give 1 to {players or 8} values (one per seat in turn order), got {len(values)}"
                    )
                for v in values:
                    if not isinstance(v, int) or isinstance(v, bool) or v < low:
                        raise RuleSetError(f"{where}: values must be whole numbers >= {low}, got {v!r}")
                    if key == "start_ct" and v >= self.victory_ct:
                        raise RuleSetError(f"{where}: {v} CT would win at once (victory_ct is {self.victory_ct})")
        if self.ct_supply is not None:
            for n in range(self.min_players, self.max_players + 1):
                total = sum(self.per_seat("start_ct", n) or ())
                if total > self.ct_supply:
                    raise RuleSetError(f"start_ct: {n} players start with {total} CT, more than ct_supply {self.ct_supply}")
        if self.deck != STANDARD_DECK:
            if list(self.deck) != sorted(set(self.deck)) or not all(
                    isinstance(c, int) and 0 <= c < len(NAMES) for c in self.deck):
                raise RuleSetError("deck: must be card ids, ascending and each once")
            need = self.min_players * self.hand_size
            if len(self.deck) < need:
                raise RuleSetError(
                    f"deck: {len(self.deck)} cards cannot deal the hands: {self.min_players} players "
                    f"(min_players) of hand_size {self.hand_size} need {need} (R3.1)")
        seen: set[tuple[str, Suit]] = set()
        names = [a.name for a in self.abilities]
        if len(set(names)) != len(names):
            dup = next(x for x in names if names.count(x) > 1)
            raise RuleSetError(f"two abilities are named {dup!r}; names must be unique")
        for a in self.abilities:
            if (a.tier, a.suit) in seen:
                raise RuleSetError(f"two {a.tier} abilities for suit {a.suit.letter}")
            seen.add((a.tier, a.suit))

    def design_warnings(self, players: int | None = None) -> tuple[str, ...]:
        """Designs that are valid but cannot work as meant (for ``players``, or every player
        count the rule set allows): each a sentence naming the keys. The engine plays them all
        the same; ``civlite rules``, ``sim`` and ``tune`` print these before they start."""
        out: list[str] = []
        counts = range(self.min_players, self.max_players + 1) if players is None else range(players, players + 1)
        if self.ct_supply is not None and self.ct_supply < self.victory_ct:
            out.append(f"victory_ct {self.victory_ct} cannot be reached: the supply holds only {self.ct_supply} CT "
                       "(ct_supply), so every game ends in a draw at the turn limit (R1.3, R8.2)")
        sizes = self.suit_sizes
        lacking = [s for s in self.meld_suits if not sizes[s]]
        if self.meld_one_of and not any(sizes[s] for s in self.meld_one_of):
            lacking += list(self.meld_one_of)
        if lacking:
            names = " or ".join(SUITS[s].name.title() for s in lacking)
            out.append(f"no meld can ever be made: the deck holds no {names} cards ([deck], meld.suits, "
                       "meld.one_of), so melds give neither CT nor cards (R7)")
        gains = (self.meld_ct > 0 and not lacking) or any(e.op == "gain_ct" for a in self.abilities for e in a.effects)
        if not gains:
            best = max((max(self.per_seat("start_ct", n) or (0,)) for n in counts), default=0)
            out.append(f"victory_ct {self.victory_ct} cannot be reached: no meld (meld_ct 0) or ability (gain_ct) "
                       f"creates CT and no seat starts with more than {best}, so every game is a draw at the turn "
                       "limit")
        deck = len(self.deck)
        big = []
        for n in counts:
            bonus = self.per_seat("start_hand_bonus", n) or (0,) * n
            deal = sum(max(0, self.hand_size + b) for b in bonus)
            if deal > deck:
                big.append((n, deal))
        if big:
            which = (f"{big[0][0]} players: {big[0][1]}" if len(big) == 1 else
                     f"{big[0][0]} to {big[-1][0]} players: {big[0][1]} to {big[-1][1]}")
            out.append(f"hand_size {self.hand_size}: the deal is larger than the deck ({which} cards; the deck holds "
                       f"{deck}), so the deal stops short (R3.1) and some seats get fewer cards than the rule says")
        most_dealt = max((self.hand_size + max(self.per_seat("start_hand_bonus", n) or (0,)) for n in counts),
                         default=self.hand_size)
        most_drawn = max([self.rise_draw] + [max(self.per_seat("first_rise_draw", n) or (0,)) for n in counts])
        most_held = max(self.hand_limit, most_dealt) + most_drawn  # the most a hand holds at the Action phase
        for a in self.abilities:
            held = self.suit_sizes[a.suit]
            label = f"{a.tier}.{a.suit.letter} ({a.name})"
            if a.cards > held:
                out.append(f"{label} costs {a.cards} cards but the deck holds only {held} {SUITS[a.suit].name.title()} "
                           "cards: it can never be used")
            elif a.cards > most_held:
                out.append(f"{label} costs {a.cards} cards but a hand holds at most {most_held} at the Action phase "
                           f"(hand_limit {self.hand_limit} after the Fall, then the Rise draw): it can never be used")
            elif a.cards > self.hand_limit:
                out.append(f"{label} costs {a.cards} cards, more than hand_limit {self.hand_limit}: only a hand that "
                           "has just drawn above the limit can pay for it")
        return tuple(out)

    def per_seat(self, key: str, players: int) -> tuple[int, ...] | None:
        """A per-seat key (SEAT_KEYS) for ``players`` players, in turn order (the first
        player first), or ``None`` when it does not apply. A list shorter than the number
        of players repeats its last value: ``start_ct = [0, 1]`` gives 0, 1, 1, 1 with 4."""
        table = dict(getattr(self, key))
        values = table.get(players, table.get(0))
        if not values:
            return None
        return tuple(values[min(i, len(values) - 1)] for i in range(players))

    # -- output -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The full rule set as plain data (JSON/TOML-ready); ``from_dict`` inverts it."""
        out: dict[str, Any] = {"name": self.name}
        for key in NUMBERS:
            out[key] = getattr(self, key)
        for key in SEAT_KEYS:
            table = getattr(self, key)
            if not table or (len(table) == 1 and table[0][0] == 0):
                out[key] = list(table[0][1]) if table else []
            else:
                out[key] = {str(n) if n else "default": list(v) for n, v in table}
        out["meld"] = {
            "suits": [SUIT_LETTERS[s] for s in self.meld_suits],
            "one_of": [SUIT_LETTERS[s] for s in self.meld_one_of],
        }
        for tier in ("basic", "advanced"):
            out[tier] = {
                SUIT_LETTERS[a.suit]: {
                    "name": a.name, "cards": a.cards,
                    "effects": [str(e) for e in a.effects], "rule": a.rule,
                }
                for a in self.abilities if a.tier == tier
            }
            # an ability of the default that this rule set removed stays removed (from_dict merges)
            for a in DEFAULT_ABILITIES:
                if a.tier == tier and SUIT_LETTERS[a.suit] not in out[tier]:
                    out[tier][SUIT_LETTERS[a.suit]] = False
        if self.deck != STANDARD_DECK:  # only then: the default's files and records stay as they were
            out["deck"] = deck_table(self.deck)
        return out

    def to_toml(self) -> str:
        """The full rule set as a TOML document a designer can edit."""
        d = self.to_dict()
        lines = [f"# Civ Lite rule set (R10 of the rules). Effects: {', '.join(EFFECT_OPS)}.",
                 f"name = {json.dumps(d['name'])}"]
        for key, (_, ref) in NUMBERS.items():
            v = d[key]
            if v is None:
                lines.append(f"# {key} = 100   # {ref}")
            else:
                lines.append(f"{key} = {v}   # {ref}")
        for key, ref in SEAT_KEYS.items():
            v = d[key]
            text = json.dumps(v) if isinstance(v, list) else (
                "{ " + ", ".join(f"{n} = {json.dumps(x)}" for n, x in v.items()) + " }")
            lines.append(f"{key} = {text}   # {ref}, per seat in turn order")
        lines += [f"{tier}.{letter} = false   # removed" for tier in ("basic", "advanced")
                  for letter, a in d[tier].items() if a is False]
        lines += ["", "[meld]", f"suits = {json.dumps(d['meld']['suits'])}",
                  f"one_of = {json.dumps(d['meld']['one_of'])}"]
        for tier in ("basic", "advanced"):
            for letter, a in d[tier].items():
                if a is False:
                    continue
                lines += ["", f"[{tier}.{letter}]", f"name = {json.dumps(a['name'])}",
                          f"cards = {a['cards']}", f"effects = {json.dumps(a['effects'])}",
                          f"rule = {json.dumps(a['rule'])}"]
        if "deck" in d:
            lines += ["", f"[deck]   # cards per suit, or their names; {len(self.deck)} cards"]
            lines += [f"{letter} = {json.dumps(v)}" for letter, v in d["deck"].items()]
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        if self == _DEFAULT:
            return "RuleSet.default()"
        return f"RuleSet.from_dict({self.to_dict()!r})"


_DEFAULT = RuleSet()
#: the rule sets that come with civlite, by name (:meth:`RuleSet.named`)
BUILTIN_RULES = ("default", "balanced")
