"""Making tables: a lobby's set-up checked (rule set, bots, seed), the seats named, the
secrets chosen (table id, seat tokens, the deal's seed), the table stored and loaded."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..engine import RuleSet, RuleSetError
from .bodies import CreateTable
from .botspecs import check_bot_spec
from .leases import Leases
from .names import safe_name
from .protocol import ProtocolError
from .ratings import RATED_LEVELS
from .registry import Registry
from .social_store import PAIR_GAMES, PAIR_WINDOW_DAYS, SocialStore
from .state import token_digest
from .storage import Store, TableInfo

log = logging.getLogger("civlite.server")

#: rule sets offered by the lobby (any table may also change victory_ct)
RULESETS: dict[str, RuleSet] = {
    "default": RuleSet.default(),
    "quick": RuleSet.default().with_changes(name="quick", victory_ct=10),
    "balanced": RuleSet.named("balanced"),
}
#: default names of bot seats, distinct at a table (a name a player gave is skipped)
BOT_NAMES = ("Nefertiti", "Ashoka", "Pericles", "Cyrus", "Boudica", "Zenobia", "Sargon", "Tomyris")  # no card names
#: bits of the secret a table's deal comes from (Python's ``random.Random`` takes the whole int)
SECRET_BITS = 128
#: the rule set every rated table plays, unless the operator names another of the offered ones
#: (``CIVLITE_RATED_RULES``): ratings compare games of one game, which no table's creator chooses
RATED_RULES = "default"
#: the longest rule-set name a table may ask for (``CreateTable.rules``)
MAX_RULES_NAME = 40


def new_table_id() -> str:
    return secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")


def new_token() -> str:
    """A seat token (only its digest is stored)."""
    return secrets.token_urlsafe(18)


def secret_seed() -> int:
    """The seed of a deal nobody may know: nobody can search the seeds from their own hand."""
    return secrets.randbits(SECRET_BITS)


def offered_rulesets(extra: Sequence[RuleSet] = ()) -> dict[str, RuleSet]:
    """The lobby's rule sets: :data:`RULESETS` and an operator's own (``civlite serve --rules
    FILE``), each by its name; raises ``ValueError`` when a name is taken."""
    out = dict(RULESETS)
    for r in extra:
        if len(r.name) > MAX_RULES_NAME:
            raise ValueError(f"rule set name {r.name!r} has {len(r.name)} characters; a table names its rule set in "
                             f"at most {MAX_RULES_NAME}: give the file a shorter name = \"...\"")
        if r.name in out:
            raise ValueError(f"rule set name {r.name!r} is taken; give the file another name = \"...\"")
        out[r.name] = r
    return out


def load_rulesets(paths: Sequence[str | Path]) -> list[RuleSet]:
    """The rule sets of TOML files (``civlite serve --rules FILE``); ``ValueError`` names a
    broken file and what is wrong in it."""
    out = []
    for p in paths:
        try:
            out.append(RuleSet.from_toml(p))
        except RuleSetError as e:
            raise ValueError(str(e)) from None
    return out


def rules_of(spec: CreateTable, rulesets: Mapping[str, RuleSet], rated_rules: str = RATED_RULES) -> RuleSet:
    """The table's rule set: one the lobby offers, with its victory_ct changed if asked, for as
    many seats as it plays; a rated table plays ``rated_rules`` as they are."""
    if spec.rules not in rulesets:
        raise ProtocolError("bad_rules", f"unknown rule set {spec.rules!r}; the rule sets are: {', '.join(rulesets)}")
    rules = rulesets[spec.rules]
    if spec.rated:
        if spec.rules != rated_rules or (spec.victory_ct is not None and spec.victory_ct != rules.victory_ct):
            raise ProtocolError("rated_rules", f"a rated table plays the {rated_rules!r} rules as they are (victory "
                                f"at {rulesets[rated_rules].victory_ct} CT), so that ratings compare one game; "
                                "other rules are for unrated tables")
        if spec.practice or spec.seed is not None:
            raise ProtocolError("rated_practice", "a rated table deals from a secret seed and gives no hints: it "
                                "cannot be a practice table (make an unrated practice table instead)")
    try:
        if spec.victory_ct is not None and spec.victory_ct != rules.victory_ct:
            rules = rules.with_changes(victory_ct=spec.victory_ct)
    except RuleSetError as e:
        raise ProtocolError("bad_rules", str(e)) from None
    n = len(spec.seats)
    if not rules.min_players <= n <= rules.max_players:
        raise ProtocolError("bad_seats", f"the rule set {rules.name!r} plays {rules.min_players} to "
                            f"{rules.max_players} players, not {n}")
    return rules


def seats_of(spec: CreateTable) -> tuple[list[dict[str, Any]], list[str | None]]:
    """The stored seats and each human seat's token (``None`` for a bot)."""
    seats: list[dict[str, Any]] = []
    tokens: list[str | None] = []
    humans = 0
    given = [safe_name(s.name) for s in spec.seats]
    bot_names = iter(n for n in BOT_NAMES if n not in given)
    for i, s in enumerate(spec.seats):
        if s.kind == "open":  # anyone may take it from the lobby; its token is made then
            seats.append({"kind": "open", "bot": None, "name": ""})
            tokens.append(None)
        elif s.kind == "bot":
            try:
                level = check_bot_spec(s.bot or "random")
            except ValueError as e:
                raise ProtocolError("bad_bot", f"Seat {i + 1}'s bot: {e}") from None
            if spec.rated and level not in RATED_LEVELS:
                raise ProtocolError("bad_bot", f"Seat {i + 1}: a rated table's bots are the ladder's levels "
                                    f"({', '.join(RATED_LEVELS)}), whose ratings are fixed; {level!r} has none")
            seats.append({"kind": "bot", "bot": level, "name": given[i] or next(bot_names, f"Bot {i + 1}")})
            tokens.append(None)
        else:
            humans += 1
            tok = new_token()
            seats.append({"kind": "human", "bot": None, "name": given[i] or f"Player {humans}",
                          "token_sha256": token_digest(tok)})  # the token itself is stored nowhere
            tokens.append(tok)
    return seats, tokens


def seed_of(spec: CreateTable) -> int:
    if spec.seed is not None and not spec.practice:
        raise ProtocolError("seed_needs_practice", "a chosen seed is allowed only on a practice table "
                            "(\"practice\": true), which every seat sees marked with its seed")
    if spec.practice:  # the seed is shown to every seat: a shorter one reads better
        return spec.seed if spec.seed is not None else secrets.randbelow(2**31)
    return secret_seed()


async def with_profiles(social: SocialStore, spec: CreateTable, seats: list[dict[str, Any]]) -> None:
    """The profiles the creator named (by their keys) on their seats; a rated table's player
    seats must each have one."""
    for i, s in enumerate(spec.seats):
        if s.profile is not None:
            if s.kind != "human":
                raise ProtocolError("bad_seat", f"Seat {i + 1}: only a player's seat has a profile")
            p = await asyncio.to_thread(social.profile_by_key, s.profile)
            if p is None:
                raise ProtocolError("bad_key", f"Seat {i + 1}: this profile key is not valid (it may have been "
                                    "replaced): restore the profile from its newest link")
            seats[i]["profile"] = p.id
            seats[i]["name"] = p.name  # a profile's seat shows its handle, never another name
        elif spec.rated and s.kind == "human":
            raise ProtocolError("needs_profile", f"Seat {i + 1}: on a rated table every player's seat has a profile "
                                "(or leave it open: whoever takes it brings theirs)")
    ids = [s["profile"] for s in seats if s.get("profile")]
    if len(ids) != len(set(ids)):
        raise ProtocolError("bad_seat", "one profile may hold one seat of a table")
    for i, seat in enumerate(seats):
        if seat["kind"] == "human" and not seat.get("profile") and await asyncio.to_thread(social.handle_taken,
                                                                                             seat["name"]):
            raise ProtocolError("name_taken", f"Seat {i + 1}: {seat['name']!r} is a player's handle; a seat without "
                                "that player's profile takes another name")
    names = [str(x["name"]).casefold() for x in seats if x["kind"] != "open"]
    if len(names) != len(set(names)):
        raise ProtocolError("bad_seat", "two seats of a table have the same name: give each its own")
    await fair_company(social, ids, spec.rated)


def company_refusal(social: SocialStore, ids: Sequence[str], rated: bool) -> ProtocolError | None:
    """Why these profiles may not sit at one table (blocking: run in a thread, or inside a
    seat change's transaction), or None: one of them blocked another, or, at a rated table,
    two of them have played :data:`PAIR_GAMES` rated games together lately."""
    if len(set(ids)) < 2:
        return None
    if social.blocked_among(ids):
        return ProtocolError("blocked", "a player at this table has blocked another of its players: they are never "
                             "seated together")
    if rated and social.pair_games(ids) >= PAIR_GAMES:
        return ProtocolError("rated_pair_limit", f"two of these players have played {PAIR_GAMES} rated games "
                             f"together in the last {PAIR_WINDOW_DAYS} days, as many as count: play unrated, or "
                             "rated with others")
    return None


async def fair_company(social: SocialStore, ids: Sequence[str], rated: bool) -> None:
    """Raise :func:`company_refusal`'s refusal, if any."""
    refused = await asyncio.to_thread(company_refusal, social, ids, rated)
    if refused is not None:
        raise refused


class Lobby:
    def __init__(self, store: Store, social: SocialStore, registry: Registry, leases: Leases,
                 rulesets: Mapping[str, RuleSet], rated_rules: str = RATED_RULES) -> None:
        self.store = store
        self.rulesets = rulesets
        if rated_rules not in rulesets:
            raise ValueError(f"the rated tables' rule set {rated_rules!r} is not offered; the rule sets are: "
                             f"{', '.join(rulesets)}")
        self.rated_rules = rated_rules
        self.social = social
        self.registry = registry
        self.leases = leases

    async def create_table(self, spec: CreateTable) -> tuple[TableInfo, list[str | None], str | None]:
        """Store and load a new table; returns it, each seat's token (``None`` for a bot or an
        open seat) and, when seats are open, the host token that starts it early."""
        rules = rules_of(spec, self.rulesets, self.rated_rules)
        seats, tokens = seats_of(spec)
        await with_profiles(self.social, spec, seats)
        seed = seed_of(spec)
        options: dict[str, Any] = {}
        host = None
        if any(s["kind"] == "open" for s in seats):
            host = new_token()
            options["host_sha256"] = token_digest(host)
        if spec.chat == "players":
            options["chat"] = "players"
        clock = spec.clock
        if spec.clock_days is not None:
            if spec.clock is not None:
                raise ProtocolError("bad_clock", "a table has a clock in seconds (clock) or in days (clock_days, "
                                    "a turn-based table), not both")
            clock = spec.clock_days * 86400
            options["turn_based"] = spec.clock_days
        if spec.stand_in is not None:
            try:
                options["stand_in"] = check_bot_spec(spec.stand_in)
            except ValueError as e:
                raise ProtocolError("bad_bot", f"the clock's stand-in: {e}") from None
        try:
            info = await asyncio.to_thread(
                self.store.create_table, id=new_table_id(), name=safe_name(spec.name) or f"{len(seats)}-seat table",
                rules=rules.to_dict(), seed=seed, seats=seats, clock=clock, seeded=spec.practice,
                lease=self.leases.for_new_table(), options=options, rated=spec.rated)
        except Exception as e:
            log.warning("a table could not be stored: %s: %s", type(e).__name__, e)
            raise ProtocolError("unavailable", f"the table could not be stored ({type(e).__name__}): "
                                "try again in a moment") from None
        table = await self.registry.get(info.id)
        assert table is not None
        return info, tokens, host
