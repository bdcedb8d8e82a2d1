"""Online play: FastAPI server, storage, tables, bots in seats (see protocol.py for the wire format)."""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]
