"""The bots this server offers and the budget it allows them: bot specs checked, and the bot
of a seat built from its spec with its search capped."""

from __future__ import annotations

import importlib.util
import logging

from ..bots import LEVELS, OPTIONS, Bot, make_bot, parse_spec

log = logging.getLogger("civlite.server")

#: the learned bots (and the levels that play them) need numpy: offered only where it is installed
_NUMPY = importlib.util.find_spec("numpy") is not None
#: the named levels offered (``civlite.bots.LEVELS``), weakest first
OFFERED_LEVELS = tuple(k for k, v in LEVELS.items() if _NUMPY or v.split(":")[0] not in ("expert", "champion"))
#: every bot spec name a table may use: the levels, then the bots themselves
BOT_LEVELS = OFFERED_LEVELS + ("random", "heuristic", "ismcts") + (("policy", "expert") if _NUMPY else ())

#: a search bot's budget per decision on this server: more is refused at table creation, and
#: every search also stops after MAX_BOT_SECONDS whatever its spec says (one huge spec would
#: otherwise hold a worker process, and every table waiting on it, for hours)
MAX_BOT_ITERATIONS = 20_000
MAX_BOT_SECONDS = 5.0


def check_bot_spec(spec: str) -> str:
    """The spec, checked: an unknown bot or option, a bad value or a budget past the server's
    caps raises ``ValueError`` naming the problem."""
    name, opts = parse_spec(spec)
    if name not in BOT_LEVELS:
        raise ValueError(f"unknown bot {name!r}; this server offers: {', '.join(BOT_LEVELS)}")
    it, sec = opts.get("iterations"), opts.get("seconds")
    if isinstance(it, (int, float)) and it > MAX_BOT_ITERATIONS:
        raise ValueError(f"bot spec {spec!r}: at most iterations={MAX_BOT_ITERATIONS} on this server")
    if isinstance(sec, (int, float)) and sec > MAX_BOT_SECONDS:
        raise ValueError(f"bot spec {spec!r}: at most seconds={MAX_BOT_SECONDS:g} on this server")
    make_bot(spec, seed=0)  # the bot's own checks (option names and values)
    return spec.strip()


def bot_for(spec: str, seed: int | None) -> tuple[Bot, str]:
    """The bot of a seat's spec, its budget capped (``seconds`` at most MAX_BOT_SECONDS, for a
    search bot even when the spec sets only iterations); a spec this server refuses (e.g. a
    table stored before the caps) plays as the capped default of its level, with a warning."""
    try:
        check_bot_spec(spec)
    except ValueError as e:
        level = parse_spec(spec)[0] if spec.strip() else "random"
        log.warning("bot spec %r refused (%s): the seat plays %s", spec, e,
                    level if level in BOT_LEVELS else "random")
        spec = level if level in BOT_LEVELS else "random"
    name, opts = parse_spec(spec)
    if "seconds" in OPTIONS.get(name, ()) and "seconds" not in opts:
        if "iterations" in OPTIONS[name] and "iterations" not in opts:  # keep the default budget
            default = getattr(make_bot(name, seed=0), "iterations", None)
            if default is not None:
                opts["iterations"] = default
        opts["seconds"] = MAX_BOT_SECONDS
        spec = name + ":" + ",".join(f"{k}={v}" for k, v in opts.items())
    return make_bot(spec, seed=seed), spec
