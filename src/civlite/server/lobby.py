"""Making tables: a lobby's set-up checked (rule set, bots, seed), the seats named, the
secrets chosen (table id, seat tokens, the deal's seed), the table stored and loaded."""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from typing import Any

from ..engine import RuleSet, RuleSetError
from .botspecs import check_bot_spec
from .leases import Leases
from .protocol import CreateTable, ProtocolError
from .registry import Registry
from .state import token_digest
from .storage import Store, TableInfo

log = logging.getLogger("civlite.server")

#: rule sets offered by the lobby (any table may also change victory_ct)
RULESETS: dict[str, RuleSet] = {
    "default": RuleSet.default(),
    "quick": RuleSet.default().with_changes(name="quick", victory_ct=10),
}
#: default names of bot seats, distinct at a table (a name a player gave is skipped)
BOT_NAMES = ("Nefertiti", "Ashoka", "Pericles", "Cyrus", "Boudica", "Zenobia", "Sargon", "Tomyris")  # no card names
#: bidirectional controls (an RLO would reverse the text after it) and other invisible format marks
_UNSAFE = re.compile("[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
#: bits of the secret a table's deal comes from (Python's ``random.Random`` takes the whole int)
SECRET_BITS = 128


def safe_name(name: str | None) -> str:
    """A player or table name with control and bidirectional-override characters removed and
    spaces collapsed ("" when nothing is left). Clients still isolate names (<bdi>)."""
    return " ".join(_UNSAFE.sub("", name or "").split())


def new_table_id() -> str:
    return secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")


def new_token() -> str:
    """A seat token (only its digest is stored)."""
    return secrets.token_urlsafe(18)


def secret_seed() -> int:
    """The seed of a deal nobody may know: nobody can search the seeds from their own hand."""
    return secrets.randbits(SECRET_BITS)


def rules_of(spec: CreateTable) -> RuleSet:
    if spec.rules not in RULESETS:
        raise ProtocolError("bad_rules", f"unknown rule set {spec.rules!r}; the rule sets are: {', '.join(RULESETS)}")
    rules = RULESETS[spec.rules]
    try:
        if spec.victory_ct is not None and spec.victory_ct != rules.victory_ct:
            rules = rules.with_changes(victory_ct=spec.victory_ct)
    except RuleSetError as e:
        raise ProtocolError("bad_rules", str(e)) from None
    return rules


def seats_of(spec: CreateTable) -> tuple[list[dict[str, Any]], list[str | None]]:
    """The stored seats and each human seat's token (``None`` for a bot)."""
    seats: list[dict[str, Any]] = []
    tokens: list[str | None] = []
    humans = 0
    given = [safe_name(s.name) for s in spec.seats]
    bot_names = iter(n for n in BOT_NAMES if n not in given)
    for i, s in enumerate(spec.seats):
        if s.kind == "bot":
            try:
                level = check_bot_spec(s.bot or "random")
            except ValueError as e:
                raise ProtocolError("bad_bot", f"Seat {i + 1}'s bot: {e}") from None
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


class Lobby:
    def __init__(self, store: Store, registry: Registry, leases: Leases) -> None:
        self.store = store
        self.registry = registry
        self.leases = leases

    async def create_table(self, spec: CreateTable) -> tuple[TableInfo, list[str | None]]:
        """Store and load a new table; returns it and each seat's token (``None`` for a bot)."""
        rules = rules_of(spec)
        seats, tokens = seats_of(spec)
        seed = seed_of(spec)
        options: dict[str, Any] = {}
        if spec.stand_in is not None:
            try:
                options["stand_in"] = check_bot_spec(spec.stand_in)
            except ValueError as e:
                raise ProtocolError("bad_bot", f"the clock's stand-in: {e}") from None
        try:
            info = await asyncio.to_thread(
                self.store.create_table, id=new_table_id(), name=safe_name(spec.name) or f"{len(seats)}-seat table",
                rules=rules.to_dict(), seed=seed, seats=seats, clock=spec.clock, seeded=spec.practice,
                lease=self.leases.for_new_table(), options=options)
        except Exception as e:
            log.warning("a table could not be stored: %s: %s", type(e).__name__, e)
            raise ProtocolError("unavailable", f"the table could not be stored ({type(e).__name__}): "
                                "try again in a moment") from None
        table = await self.registry.get(info.id)
        assert table is not None
        return info, tokens
