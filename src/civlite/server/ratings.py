"""Ratings of rated tables, with OpenSkill (Plackett-Luce, 2 to 8 seats).

Each profile has a rating (mu, sigma); what is shown and ranked is mu - 3 sigma. A bot keeps
the fixed rating of its level on the ladder (``/api/meta``'s levels: Elo with medium at
1500), turned into OpenSkill's scale; a seat with no profile plays as a new player and is not
stored. A finished rated game is rated once: its rows in ``ratings`` are keyed by profile and
table, so rating it again (a restart, a reload, another process) changes nothing."""

from __future__ import annotations

import asyncio
import logging

from ..bots import LEVEL_RATINGS
from .social_store import MU, SIGMA, Result, SocialStore
from .state import Table

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


def ranks(t: Table) -> list[int]:
    """Each seat's place, 1 for the winner; the others by their CT (ties share a place)."""
    outcome = t.game.outcome()
    assert outcome is not None
    ct = list(outcome.ct)
    out = []
    for s in range(len(ct)):
        if outcome.winner is not None and s == outcome.winner:
            out.append(1)
            continue
        better = sum(1 for o in range(len(ct)) if o != s and (o == outcome.winner or ct[o] > ct[s]))
        out.append(better + 1)
    return out


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
        if not t.info.rated or not t.game.is_over:
            return False
        places = ranks(t)
        results = []
        for i, s in enumerate(t.info.seats):
            pid = s.get("profile")
            if s.get("kind") == "bot":
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
