"""Helpers of the in-process server tests: a connection that keeps its frames, client
messages, and waiting on the event loop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from civlite.server.state import Conn


class Frames(Conn):
    """A connection that keeps every frame queued for it."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[dict[str, Any]] = []

    def send_text(self, text: str) -> None:
        self.frames.append(json.loads(text))
        super().send_text(text)


def msg(**m: Any) -> str:
    """A client frame of protocol version 1."""
    return json.dumps({"v": 1, **m})


async def until(pred: Callable[[], bool], timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)
