"""Ratings of rated tables, with OpenSkill (Plackett-Luce, 2 to 8 seats).

Each profile has a rating (mu, sigma); what is shown and ranked is mu - 3 sigma. A bot keeps
the fixed rating of its level on the ladder (``/api/meta``'s levels: Elo with medium at
1500), turned into OpenSkill's scale; a seat with no profile plays as a new player and is not
stored. A player who concedes, leaves or stalls the game until it is closed is rated last
(:func:`ranks`): walking away never avoids a loss. A finished rated game is rated once: its rows in ``ratings`` are keyed by profile and
table, so rating it again (a restart, a reload, another process) changes nothing."""

from __future__ import annotations

import asyncio
import logging

from ..bots import LEVEL_RATINGS
from ..engine import Game
from .social_store import MU, SIGMA, Result, SocialStore
from .state import Table
from .storage import TableInfo

log = logging.getLogger("civlite.server")

#: the levels a rated table may seat (those with a rating on the ladder)
RATED_LEVELS = tuple(k for k, v in LEVEL_RATINGS.items() if v is not None)
#: OpenSkill points per Elo point: a 400-point Elo gap (10 to 1 odds) is about 7.9 mu with
#: OpenSkill's beta of 25/6 (Phi(d / (sqrt 2 beta)) = 0.91)
MU_PER_ELO = 7.9 / 400
#: a bot's rating is known well: a small sigma (it is never updated)
BOT_SIGMA = 1.0


def bot_rating(level: str) -> tuple[float, float]:
    elo = LEVEL_RATINGS.get(level)
    return (MU + (elo - 1500) * MU_PER_ELO if elo is not None else MU), BOT_SIGMA


def left_order(info: TableInfo, game: Game) -> dict[int, int]:
    """The seats whose players left the game, each with when it left (1 first): those that
    conceded or left (``left`` on the seat), then, at a table closed before its game ended (its
    players abandoned it, or voted to end it), the seat whose decision it was, which stalled it."""
    out = {i: int(s["left"]) for i, s in enumerate(info.seats) if s.get("left")}
    if info.status == "closed" and not game.is_over and game.pending is not None:
        stalled = game.pending.player
        if stalled not in out and info.seats[stalled].get("kind") == "human":
            out[stalled] = max(out.values(), default=0) + 1
    return out


def ranks(t: Table) -> list[int]:
    """Each seat's place, 1 for the best. Seats whose players stayed come first: the winner,
    then the others by their CT (ties share a place); then the seats whose players left, the
    last to leave first (so whoever left earliest is last). A game that did not end (closed)
    ranks its staying seats by CT."""
    outcome = t.game.outcome()
    ct = list(outcome.ct) if outcome is not None else list(t.game.ct)
    winner = outcome.winner if outcome is not None else None
    left = left_order(t.info, t.game)
    stayed = [s for s in range(len(ct)) if s not in left]

    def key(s: int) -> tuple[int, int]:
        return (1 if s == winner else 0, ct[s])

    out = [0] * len(ct)
    for s in stayed:
        out[s] = 1 + sum(1 for o in stayed if key(o) > key(s))
    for s, when in left.items():
        out[s] = len(stayed) + 1 + sum(1 for w in left.values() if w > when)
    return out


def decided(t: Table) -> bool:
    """Whether the table's result is known: its game is over, or the table was closed with a
    seat to blame (a player left or stalled it)."""
    return t.game.is_over or (t.info.status == "closed" and bool(left_order(t.info, t.game)))


def new_ratings(results: list[Result]) -> list[tuple[float, float]]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in results]
    rated = model.rate(teams, ranks=[r.rank for r in results])
    return [(team[0].mu, team[0].sigma) for team in rated]


class Ratings:
    def __init__(self, social: SocialStore) -> None:
        self.social = social

    def rate_now(self, t: Table) -> bool:
        """Rate ``t``'s finished game (blocking); False when it was rated already (or is not rated)."""
        if not t.info.rated or not decided(t):
            return False
        places = ranks(t)
        results = []
        for i, s in enumerate(t.info.seats):
            pid = s.get("profile")
            if s.get("kind") == "bot" and not pid:  # a seat left by its player is rated as that player
                mu, sigma = bot_rating(str(s.get("bot")))
                results.append(Result(i, places[i], None, mu, sigma))
                continue
            p = self.social.get_profile(str(pid)) if pid else None
            results.append(Result(i, places[i], p.id if p else None, p.mu if p else MU, p.sigma if p else SIGMA))
        if not any(r.profile_id for r in results):
            return False
        return self.social.rate(t.id, results, new_ratings(results))

    async def rate(self, t: Table) -> None:
        """Rate a game that just ended (its failure is logged, and tried again when the table is loaded)."""
        try:
            await asyncio.to_thread(self.rate_now, t)
        except Exception as e:
            log.warning("table %s: the ratings could not be stored now: %s: %s", t.id, type(e).__name__, e)
