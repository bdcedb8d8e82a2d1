"""Shared helpers for the terminal app's tests."""

from __future__ import annotations

import asyncio
import functools
import unicodedata
from collections.abc import Callable, Coroutine
from typing import Any

from textual import events
from textual.app import _get_unicode_name_from_key
from textual.pilot import Pilot

from civlite.engine import Game, RuleSet
from civlite.tui import CivliteApp, SeatSpec, Session

SIZE = (120, 40)
FAST = RuleSet.default().with_changes(victory_ct=6)


def run_async(fn: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test on its own event loop (no pytest plugin needed)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(fn(*args, **kwargs))

    return wrapper


def screen_text(app: CivliteApp | Any) -> str:
    """What the terminal shows now, as plain text."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(s.text.rstrip() for s in strips)


async def screen_when(pilot: Pilot[Any], ready: Callable[[str], bool], limit: int = 200) -> str:
    """The screen's text once ``ready`` holds for it (a resize or a refresh is handled a few
    messages later on a loaded machine): waits on the app's message queue, never on a clock."""
    text = screen_text(pilot.app)
    for _ in range(limit):
        if ready(text):
            return text
        await pilot.pause()
        text = screen_text(pilot.app)
    return text


async def settled_screen(pilot: Pilot[Any], limit: int = 200) -> str:
    """The screen's text once two reads a pause apart agree (every widget has drawn)."""
    last = screen_text(pilot.app)
    for _ in range(limit):
        await pilot.pause()
        now = screen_text(pilot.app)
        if now == last:
            return now
        last = now
    return last


async def burst(pilot: Pilot[Any], *keys: str) -> None:
    """Send ``keys`` all at once, as fast typing, key repeat or a paste does (``pilot.press``
    waits until the app is idle after each key), then let the app handle them."""
    app = pilot.app
    driver = app._driver
    assert driver is not None
    for key in keys:
        try:
            char: str | None = unicodedata.lookup(_get_unicode_name_from_key(key))
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        driver.send_message(event)
    for _ in range(3):
        await pilot.pause()


async def settle(pilot: Pilot[Any], session: Session, limit: int = 1000) -> None:
    """Let the bots play until a human decides or the game is over."""
    for _ in range(limit):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        p = session.to_move
        if p is None or not session.is_bot(p):
            break


def session_at(state: dict[str, Any], seats: list[SeatSpec], rules: RuleSet | None = None) -> Session:
    game = Game.from_position(state, rules or RuleSet.default(), 7, [s.record_name(i) for i, s in enumerate(seats)])
    return Session(game, seats)


MELD_HAND = ["Greeks", "Romans", "Moses", "Sphinx", "Religion", "Spearmen", "Granaries", "Tribute", "Flood"]


def meld_state(hand: list[str] | None = None) -> dict[str, Any]:
    """Seat 0 in its meld phase holding the cards for a meld (and 9 cards: a fall discard follows a pass)."""
    return {
        "active": 0, "phase": "meld",
        "players": [{"hand": hand or MELD_HAND, "ct": 0},
                    {"hand": ["Celts", "Goths", "Huns"], "ct": 1}],
        "deck": ["Persians", "Hittites", "Babylonians", "Caesar", "Homer", "Pantheon", "Laws", "Legion",
                 "Roads", "Peace", "Famine"],
        "discard": ["Minoans", "Coliseum"],
    }


def action_state() -> dict[str, Any]:
    """Seat 0 in its action phase with a Leader (Vision), two Wonders and a Military."""
    return {
        "active": 0, "phase": "action",
        "players": [{"hand": ["Moses", "Sphinx", "Pantheon", "Spearmen", "Religion"], "ct": 2},
                    {"hand": ["Celts", "Goths", "Huns", "Flood"], "ct": 3}],
        "deck": ["Persians", "Hittites", "Babylonians", "Caesar", "Homer", "Laws", "Legion", "Roads", "Peace"],
        "discard": ["Minoans", "Coliseum"],
    }


def action_app() -> tuple[Session, CivliteApp]:
    """A human (seat 0) in its action phase of :func:`action_state` against a random bot."""
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    return s, CivliteApp(s, delay=0)
