"""Rule paths: any value of a rule set, named the way its TOML file spells it.

``victory_ct``, ``start_ct`` (per seat, any player count), ``start_ct.4`` (for 4
players only), ``meld.suits``, ``basic.W.cards``, ``advanced.M.effects``,
``basic.D`` (a whole ability: ``false`` removes it), ``deck.D`` (a suit's cards in the
deck: a count or names, R10 ``[deck]``). :func:`set_path` returns a new
:class:`RuleSet` or raises :class:`RuleSetError` naming the path; sweeps, ablation
and the tuner all change rules through it.
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Iterable
from typing import Any

from ..engine import RuleSet, RuleSetError, Suit
from ..engine.cards import ALL_CARDS
from ..engine.rules import NUMBERS, SEAT_KEYS

ABILITY_FIELDS = ("name", "cards", "effects", "rule")
#: the first parts of a rule path
TOP_KEYS = (*NUMBERS, *SEAT_KEYS, "meld", "basic", "advanced", "deck")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'victory_ct'?"`` when ``word`` is close to one of ``choices`` (difflib),
    else ``""``: appended to an "unknown key" or "no such card" message."""
    pool = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(word.lower(), list(pool), n=1, cutoff=0.6)
    return f"; did you mean {pool[close[0]]!r}?" if close else ""


def _check_card_names(path: str, value: Any) -> None:
    """A deck's card names, each a card of the game (with a "did you mean" for a misspelt one)."""
    if not isinstance(value, list):
        return
    names = [c.name for c in ALL_CARDS]
    for i, name in enumerate(value):
        if isinstance(name, str) and name not in names:
            hint = did_you_mean(name, names)
            if hint:
                raise RuleSetError(f"rule path {path!r}: [{i}] {name!r} is not a card{hint}")


def _path_help() -> str:
    return ("a rule path is a number (victory_ct), a per-seat key (start_ct, start_ct.4), meld.suits, meld.one_of, "
            "basic.<suit letter>[.cards|.effects|.name], advanced.<suit letter>[...] or deck.<suit letter>")


def set_path(rules: RuleSet, path: str, value: Any, name: str | None = None) -> RuleSet:
    """``rules`` with the value at ``path`` replaced by ``value`` (TOML/JSON form)."""
    keys = [k.strip() for k in path.split(".")]
    if not path.strip() or any(not k for k in keys):
        raise RuleSetError(f"rule path {path!r}: empty; {_path_help()}")
    d = rules.to_dict()
    top = keys[0]
    if top in NUMBERS:
        if len(keys) != 1:
            raise RuleSetError(f"rule path {path!r}: {top} is a number and has no parts")
        d[top] = value
    elif top in SEAT_KEYS:
        if len(keys) == 1:
            d[top] = value
        elif len(keys) == 2:
            if not keys[1].isdigit() and keys[1] != "default":
                raise RuleSetError(f"rule path {path!r}: after {top} comes a player count (2..8) or 'default'")
            cur = d[top]
            table = dict(cur) if isinstance(cur, dict) else ({"default": cur} if cur else {})
            table[keys[1]] = value
            d[top] = table
        else:
            raise RuleSetError(f"rule path {path!r}: too many parts; {_path_help()}")
    elif top == "meld":
        if len(keys) != 2 or keys[1] not in ("suits", "one_of"):
            hint = did_you_mean(keys[1], ("suits", "one_of")) if len(keys) == 2 else ""
            raise RuleSetError(f"rule path {path!r}: meld has 'suits' and 'one_of'{hint}")
        d["meld"][keys[1]] = value
    elif top in ("basic", "advanced"):
        if len(keys) < 2 or len(keys) > 3:
            raise RuleSetError(f"rule path {path!r}: expected {top}.<suit letter> or {top}.<suit letter>.<field>")
        letter = _letter(path, keys[1])
        table = d[top]
        if len(keys) == 2:
            table[letter] = False if value in (False, "none", "off") else value
        else:
            field = keys[2]
            if field not in ABILITY_FIELDS:
                raise RuleSetError(f"rule path {path!r}: an ability has {', '.join(ABILITY_FIELDS)}, not {field!r}"
                                   + did_you_mean(field, ABILITY_FIELDS))
            ab = table.get(letter)
            if not isinstance(ab, dict):
                raise RuleSetError(f"rule path {path!r}: the rule set has no {top} ability for suit {letter}")
            ab[field] = value
    elif top == "deck":
        if len(keys) != 2:
            raise RuleSetError(f"rule path {path!r}: expected deck.<suit letter>, e.g. deck.D")
        _check_card_names(path, value)
        deck = dict(d.get("deck") or {})
        deck[_letter(path, keys[1])] = value
        d["deck"] = deck
    else:
        raise RuleSetError(f"rule path {path!r}: unknown key {top!r}{did_you_mean(top, TOP_KEYS)}; {_path_help()}")
    d["name"] = name or f"{rules.name} {path}={format_value(value)}"
    try:
        return RuleSet.from_dict(d)
    except RuleSetError as e:
        msg = str(e).removeprefix("rules: ")
        raise RuleSetError(msg if msg.startswith(path) else f"{path}={format_value(value)}: {msg}") from None


def _letter(path: str, key: str) -> str:
    try:
        return Suit.parse(key).letter
    except ValueError as e:
        raise RuleSetError(f"rule path {path!r}: {e}") from None


def get_path(rules: RuleSet, path: str) -> Any:
    """The value at ``path`` (TOML/JSON form), or RuleSetError."""
    d: Any = copy.deepcopy(rules.to_dict())
    keys = path.split(".")
    if keys[0] in ("basic", "advanced", "deck") and len(keys) > 1:
        keys[1] = _letter(path, keys[1])
    if keys[0] == "deck" and len(keys) == 2:  # a suit the [deck] does not name keeps its count
        return d.get("deck", {}).get(keys[1], rules.suit_sizes[Suit.parse(keys[1])])
    for k in keys:
        if isinstance(d, dict) and k in d:
            d = d[k]
        else:
            raise RuleSetError(f"rule path {path!r}: no such value; {_path_help()}")
    return d


def format_value(value: Any) -> str:
    """A value as it reads in a path: ``3``, ``[0,1]``, ``steal_cards 3``, ``false``."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def parse_value(text: str) -> Any:
    """A command-line value: JSON (``3``, ``[0, 1]``, ``"x"``, ``false``) or else a bare string."""
    t = text.strip()
    try:
        return json.loads(t)
    except json.JSONDecodeError:
        return False if t.lower() in ("none", "off") else t


def split_values(spec: str) -> list[str]:
    """``a|b`` splits on bars; otherwise on commas outside brackets: ``[0,1],[0,2]`` is two values."""
    if "|" in spec:
        return [p for p in (x.strip() for x in spec.split("|")) if p]
    out, depth, cur = [], 0, ""
    for ch in spec:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [p for p in (x.strip() for x in out) if p]
