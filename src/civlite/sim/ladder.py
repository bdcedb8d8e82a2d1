"""The ladder: bots rated on one scale from games between them.

Two tables, both played through :func:`civlite.sim.simulator.simulate` (seats rotated
game by game, so each bot plays every seat equally; game ``i`` of every pairing is
dealt from the same seed, so the pairings face the same deals):

* **2 players, a round robin.** Every pair of bots plays ``games`` games. The ratings
  are a Bradley–Terry model, P(a beats b) = 1 / (1 + 10^((R_b − R_a) / 400)), fitted by
  statsmodels as a binomial GLM with a logit link on all the pairs at once (a draw
  counts half a win to each side). ``prior_draws`` virtual draws per pair (default 1)
  keep a pair that never lost finite. The scale is fixed by the ``anchor`` bot, rated
  ``anchor_rating``; each rating's standard error and 95% interval are of its difference
  from the anchor, from the fit's covariance.
* **4 players (any count from 3), one against a field.** Each bot takes one seat
  against ``players - 1`` copies of a ``reference`` bot. The table gives its wins with a
  95% Wilson interval, and that rate as a multiple of the fair share ``1 / players``.

:func:`run_ladder` plays both and returns a :class:`Ladder`, which renders itself as
Markdown (:meth:`Ladder.markdown`) or JSON (:meth:`Ladder.to_json`). ``civlite ladder``
is the command.
"""

from __future__ import annotations

import itertools
import math
import platform
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .simulator import SimConfig, SimResult, simulate
from .stats import Z95, wilson

ELO = 400.0 / math.log(10.0)  # Elo points per natural-log unit of odds


@dataclass(frozen=True)
class PairResult:
    """``a`` against ``b`` at 2 players: ``score`` is a's wins plus half the draws."""

    a: str
    b: str
    games: int
    wins_a: int
    wins_b: int
    draws: int
    seconds: float

    @property
    def score(self) -> float:
        return self.wins_a + self.draws / 2


@dataclass(frozen=True)
class Rating:
    """One bot's rating: ``se`` and the interval are of its difference from the anchor."""

    bot: str
    elo: float
    se: float
    low: float
    high: float
    games: int
    score: float  # its share of the points over all its games

    @property
    def unbounded(self) -> bool:
        """It won every game or lost every game: only the virtual draws keep its rating finite
        (a bound, not an estimate), and more games do not narrow it."""
        return self.games > 0 and self.score in (0.0, 1.0)


@dataclass(frozen=True)
class FieldResult:
    """``bot`` in one seat against ``players - 1`` copies of ``reference``."""

    bot: str
    reference: str
    players: int
    games: int
    wins: int
    draws: int
    low: float  # 95% Wilson interval of the win rate
    high: float
    seconds: float

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def share(self) -> float:
        """The win rate as a multiple of the fair share (1 / players)."""
        return self.rate * self.players


@dataclass
class Ladder:
    bots: list[str]
    games: int
    seed: int
    anchor: str
    anchor_rating: float
    prior_draws: float
    pairs: list[PairResult] = field(default_factory=list)
    ratings: list[Rating] = field(default_factory=list)
    reference: str = ""
    field_players: int = 4
    field_games: int = 0
    field: list[FieldResult] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "bots": self.bots, "games_per_pair": self.games, "seed": self.seed,
            "model": ("Bradley-Terry (statsmodels GLM, binomial, logit), Elo = 400 log10 odds, "
                      f"{self.prior_draws:g} virtual draw(s) per pair; se and 95% interval of the "
                      "difference from the anchor"),
            "anchor": self.anchor, "anchor_rating": self.anchor_rating,
            "ratings": [asdict(r) | {"unbounded": r.unbounded} for r in self.ratings],
            "pairs": [asdict(p) | {"score": p.score} for p in self.pairs],
            "field": {"players": self.field_players, "reference": self.reference,
                      "games_per_bot": self.field_games,
                      "results": [asdict(f) | {"rate": f.rate, "share": f.share} for f in self.field]},
            "seconds": round(self.seconds, 1), "python": platform.python_version(),
        }

    def markdown(self) -> str:
        """The headline tables, best first."""
        from ..bots import resolve_level

        def label(b: str) -> str:
            spec = resolve_level(b)
            return f"`{b}`" + (f" (`{spec}`)" if spec != b else "")

        out: list[str] = []
        if self.ratings:
            out += [f"2 players, round robin, {self.games} games a pair (seats alternated); "
                    f"Elo with `{self.anchor}` at {self.anchor_rating:g}; ± is one standard error "
                    "and the interval 95%, both of the difference from the anchor.", "",
                    "| rank | bot | Elo | ± | 95% interval | games | score |",
                    "|---:|---|---:|---:|---|---:|---:|"]
            for i, r in enumerate(sorted(self.ratings, key=lambda r: -r.elo), 1):
                iv = "anchor" if r.bot == self.anchor else f"{r.low:.0f} to {r.high:.0f}"
                if r.unbounded and r.bot != self.anchor:
                    iv = ("never won: at most" if r.score == 0 else "never lost: at least") + f" {r.elo:.0f}"
                pm = "" if r.bot == self.anchor else f"{r.se:.0f}"
                out.append(f"| {i} | {label(r.bot)} | {r.elo:.0f} | {pm} | {iv} | {r.games} | {r.score:.1%} |")
            out += ["", "| pair | games | wins | losses | draws | score |", "|---|---:|---:|---:|---:|---:|"]
            for p in self.pairs:
                out.append(f"| `{p.a}` vs `{p.b}` | {p.games} | {p.wins_a} | {p.wins_b} | {p.draws} | "
                           f"{p.score / max(1, p.games):.1%} |")
        if self.field:
            n = self.field_players
            if out:
                out.append("")
            out += [f"{n} players: one seat against {n - 1} × {label(self.reference)}, {self.field_games} games "
                    f"each (seats rotated); the fair share is {1 / n:.0%}; 95% Wilson intervals.", "",
                    "| bot | games | wins | win rate | 95% interval | × fair share |",
                    "|---|---:|---:|---:|---|---:|"]
            for f in sorted(self.field, key=lambda f: -f.rate):
                out.append(f"| {label(f.bot)} | {f.games} | {f.wins} | {f.rate:.1%} | "
                           f"{f.low:.1%} to {f.high:.1%} | {f.share:.2f} |")
        return "\n".join(out)


def fit_ratings(bots: Sequence[str], pairs: Sequence[PairResult], anchor: str | None = None,
                anchor_rating: float = 0.0, prior_draws: float = 1.0) -> list[Rating]:
    """Bradley–Terry ratings of ``bots`` from the pairs' results (statsmodels' binomial GLM).

    Raises ``ValueError`` if a bot played no game or the bots do not form one connected
    set of pairings (their ratings would not be on one scale)."""
    import numpy as np
    import statsmodels.api as sm

    names = list(bots)
    if len(names) < 2:
        raise ValueError("rating needs at least two bots")
    anchor = names[0] if anchor is None else anchor
    if anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not among the bots: {', '.join(names)}")
    if prior_draws < 0:
        raise ValueError(f"prior_draws must be >= 0, got {prior_draws:g}")
    idx = {n: i for i, n in enumerate(names)}
    played = [p for p in pairs if p.games]
    _check_connected(names, played)
    free = [n for n in names if n != anchor]
    col = {n: j for j, n in enumerate(free)}
    x = np.zeros((len(played), len(free)))
    y = np.zeros((len(played), 2))
    for r, p in enumerate(played):
        if p.a in col:
            x[r, col[p.a]] = 1.0
        if p.b in col:
            x[r, col[p.b]] = -1.0
        y[r] = (p.score + prior_draws / 2, p.games - p.score + prior_draws / 2)
    with warnings.catch_warnings():
        # statsmodels' IRLS warns of a zero residual degree of freedom (one pair, one rating:
        # a binomial model's scale is 1 regardless) and of separation (a bot that never lost,
        # kept finite by the virtual draws and flagged by Rating.unbounded)
        warnings.simplefilter("ignore")
        fit = sm.GLM(y, x, family=sm.families.Binomial()).fit()
    beta = np.asarray(fit.params, dtype=float)
    cov = np.asarray(fit.cov_params(), dtype=float)
    score = dict.fromkeys(names, 0.0)
    games = dict.fromkeys(names, 0)
    for p in played:
        score[p.a] += p.score
        score[p.b] += p.games - p.score
        games[p.a] += p.games
        games[p.b] += p.games
    out: list[Rating] = []
    for n in names:
        if n == anchor:
            elo, se = anchor_rating, 0.0
        else:
            j = col[n]
            elo = anchor_rating + ELO * float(beta[j])
            se = ELO * math.sqrt(max(float(cov[j, j]), 0.0))
        out.append(Rating(n, elo, se, elo - Z95 * se, elo + Z95 * se, games[n],
                          score[n] / games[n] if games[n] else 0.0))
    out.sort(key=lambda r: idx[r.bot])
    return out


def _check_connected(names: Sequence[str], pairs: Sequence[PairResult]) -> None:
    seen = {names[0]}
    frontier = [names[0]]
    while frontier:
        n = frontier.pop()
        for p in pairs:
            for u, v in ((p.a, p.b), (p.b, p.a)):
                if u == n and v not in seen:
                    seen.add(v)
                    frontier.append(v)
    missing = [n for n in names if n not in seen]
    if missing:
        raise ValueError(f"no chain of games links {', '.join(missing)} to {names[0]}: "
                         "their ratings cannot be put on one scale")


def _tally(res: SimResult, bot: str) -> tuple[int, int, int]:
    """(wins of ``bot``, wins of the others, draws) over a run's games."""
    wins = other = draws = 0
    for ln in res.lines:
        st = ln["stats"]
        if st["winner"] is None:
            draws += 1
        elif ln["bots"][st["winner"]] == bot:
            wins += 1
        else:
            other += 1
    return wins, other, draws


def _slug(*specs: str) -> str:
    keep = "abcdefghijklmnopqrstuvwxyz0123456789.-"
    return "--".join("".join(c if c in keep else "_" for c in s.lower()) for s in specs)


Progress = Callable[[str], None]


def play_pair(a: str, b: str, games: int, seed: int = 1, *, out: Path | None = None,
              workers: int | None = None, resume: bool = False) -> PairResult:
    """``games`` 2-player games of ``a`` against ``b``, seats alternated."""
    if a == b:
        raise ValueError(f"a bot is not paired with itself ({a!r})")
    resuming = resume and out is not None and out.exists()
    res = simulate(SimConfig(bots=(a, b), players=2, games=games, seed=seed), out=out, workers=workers,
                   resume=resuming)
    wa, wb, d = _tally(res, a)
    seconds = res.seconds
    if out is not None:  # the pair's playing time over every run, so that a resumed ladder knows its cost
        clock = out / "seconds.txt"
        try:
            seconds += float(clock.read_text()) if resuming and clock.exists() else 0.0
        except ValueError:
            pass  # an unreadable clock: this run's time alone
        clock.write_text(f"{seconds:.1f}\n")
    return PairResult(a, b, len(res.lines), wa, wb, d, round(seconds, 1))


def play_field(bot: str, reference: str, players: int, games: int, seed: int = 1, *,
               out: Path | None = None, workers: int | None = None, resume: bool = False) -> FieldResult:
    """``bot`` in one seat against ``players - 1`` copies of ``reference``, seats rotated."""
    if bot == reference:
        raise ValueError(f"the reference {reference!r} is not played against itself")
    res = simulate(SimConfig(bots=(bot, reference), players=players, games=games, seed=seed), out=out,
                   workers=workers, resume=resume and out is not None and out.exists())
    w, _, d = _tally(res, bot)
    n = len(res.lines)
    _, lo, hi = wilson(w, n)
    return FieldResult(bot, reference, players, n, w, d, lo, hi, round(res.seconds, 1))


def _most_informative(lad: Ladder, elo: dict[str, float], worst: str, cands: Sequence[int],
                      block: int) -> int | None:
    """The pair whose next ``block`` games most shrink ``worst``'s standard error per second
    of play. The error comes from the Bradley-Terry model's information (each game between
    bots ``a`` and ``b`` adds ``q(1 - q)`` along ``a - b``, the anchor held fixed), so a pair
    that does not hold ``worst`` counts too: a bot rated through a lopsided pair is pinned
    best by the games that pin its neighbour."""
    import numpy as np

    free = [b for b in lad.bots if b != lad.anchor]
    at = {b: k for k, b in enumerate(free)}
    k2 = (math.log(10) / 400) ** 2

    def direction(p: PairResult) -> tuple[float, np.ndarray]:
        q = 1.0 / (1.0 + 10 ** ((elo[p.b] - elo[p.a]) / 400))
        d = np.zeros(len(free))
        if p.a in at:
            d[at[p.a]] += 1.0
        if p.b in at:
            d[at[p.b]] -= 1.0
        return max(q * (1.0 - q), 1e-4) * k2, d

    info = np.eye(len(free)) * 1e-9
    for p in lad.pairs:
        w, d = direction(p)
        info += p.games * w * np.outer(d, d)
    j = at.get(worst)
    if j is None:
        return None

    def var(m: np.ndarray) -> float:
        return float(np.linalg.inv(m)[j, j])

    now = var(info)
    best, best_gain = None, 0.0
    for i in cands:
        p = lad.pairs[i]
        w, d = direction(p)
        gain = (now - var(info + block * w * np.outer(d, d))) / (block * (p.seconds / max(1, p.games) + 1e-3))
        if gain > best_gain:
            best, best_gain = i, gain
    return best


def run_ladder(bots: Sequence[str], *, games: int = 200, seed: int = 1, anchor: str | None = None,
               anchor_rating: float = 0.0, prior_draws: float = 1.0, reference: str | None = None,
               field_players: int = 4, field_games: int | None = None, two_player: bool = True,
               target_se: float | None = None, max_games: int | None = None,
               out: Path | None = None, workers: int | None = None, resume: bool = False,
               progress: Progress | None = None) -> Ladder:
    """Play the round robin (``two_player``) and the field table (``reference`` given), and
    fit the ratings. With ``out``, each pairing's run is kept in ``out/pairs/…`` (so
    ``resume`` replays nothing already played).

    ``target_se``: after ``games`` games a pair, keep adding games (half as many again
    each time) while some rating's standard error is above it: each time to the pair whose
    games shrink the least certain rating's error most per second of play (that bot's own
    pairs, or those that pin the bots it is rated through; close and cheap pairs first), up
    to ``max_games`` a pair (default 8 × ``games``)."""
    if out is None and target_se is not None and two_player:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="civlite-ladder-") as tmp:
            return run_ladder(bots, games=games, seed=seed, anchor=anchor, anchor_rating=anchor_rating,
                              prior_draws=prior_draws, reference=reference, field_players=field_players,
                              field_games=field_games, two_player=two_player, target_se=target_se,
                              max_games=max_games, out=Path(tmp), workers=workers, progress=progress)
    if target_se is not None and target_se <= 0:
        raise ValueError(f"target_se must be > 0 Elo, got {target_se:g}")
    names = list(dict.fromkeys(s.strip() for s in bots if s.strip()))
    if len(names) < 2 and two_player:
        raise ValueError("a round robin needs at least two bots")
    if games < 2:
        raise ValueError(f"games must be at least 2 (seats alternate), got {games}")
    if not 3 <= field_players <= 8:
        raise ValueError(f"the field table plays 3 to 8 players, got {field_players}")
    lad = Ladder(names, games, seed, anchor or names[0], anchor_rating, prior_draws,
                 reference=reference or "", field_players=field_players,
                 field_games=field_games if field_games is not None else games)
    if lad.anchor not in names:
        raise ValueError(f"anchor {lad.anchor!r} is not among the bots: {', '.join(names)}")
    t0 = time.perf_counter()
    if two_player:
        for a, b in itertools.combinations(names, 2):
            sub = out / "pairs" / _slug(a, b) if out is not None else None
            p = play_pair(a, b, games, seed, out=sub, workers=workers, resume=resume)
            lad.pairs.append(p)
            if progress:
                progress(f"{a} vs {b}: {p.score:g}/{p.games} ({p.seconds:.0f} s)")
        lad.ratings = fit_ratings(names, lad.pairs, lad.anchor, anchor_rating, prior_draws)
        if target_se is not None:
            cap = max_games if max_games is not None else 8 * games
            block = max(2, games // 2 // 2 * 2)
            while True:
                elo = {r.bot: r.elo for r in lad.ratings}
                open_ = [r for r in lad.ratings if not r.unbounded]
                if not open_:
                    break
                worst = max(open_, key=lambda r: r.se)
                if worst.se <= target_se:
                    break
                cands = [i for i, p in enumerate(lad.pairs) if p.games < cap]
                i = _most_informative(lad, elo, worst.bot, cands, block)
                if i is None:
                    break
                p = lad.pairs[i]
                more = min(cap, p.games + block)
                assert out is not None
                q = play_pair(p.a, p.b, more, seed, out=out / "pairs" / _slug(p.a, p.b), workers=workers,
                              resume=True)
                lad.pairs[i] = q  # its seconds: the pair's playing time over every run
                lad.ratings = fit_ratings(names, lad.pairs, lad.anchor, anchor_rating, prior_draws)
                if progress:
                    progress(f"{q.a} vs {q.b}: {q.score:g}/{q.games} (for {worst.bot}, ± {worst.se:.0f})")
    if reference:
        for b in names:
            if b == reference:
                continue
            sub = out / "field" / _slug(b, f"{field_players}p", reference) if out is not None else None
            f = play_field(b, reference, field_players, lad.field_games, seed, out=sub, workers=workers,
                           resume=resume)
            lad.field.append(f)
            if progress:
                progress(f"{b} vs {field_players - 1} x {reference}: {f.wins}/{f.games} ({f.seconds:.0f} s)")
    lad.seconds = time.perf_counter() - t0
    return lad
