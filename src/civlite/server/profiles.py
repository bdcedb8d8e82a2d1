"""Profiles: a name plus a secret key kept by the browser (no password, no e-mail). The key
is the profile: a link holding it (``/restore#key=...``) restores the profile on another
device, and asking for a new key revokes every link made before. A profile's chat mutes are
kept with it (at most ``MAX_MUTES``), so they follow it to every device."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from .names import safe_name
from .protocol import ProtocolError
from .social_store import MAX_MUTES, Profile, SocialStore

log = logging.getLogger("civlite.server")
R = TypeVar("R")


def profile_json(p: Profile) -> dict[str, Any]:
    return {"id": p.id, "name": p.name, "rating": round(p.rating, 2), "mu": round(p.mu, 3),
            "sigma": round(p.sigma, 3), "games": p.games}


def restore_link(key: str) -> str:
    """The link that restores a profile (the key in the fragment, which browsers never send)."""
    return f"/restore#key={key}"


class Profiles:
    def __init__(self, social: SocialStore) -> None:
        self.social = social

    async def _run(self, fn: Callable[..., R], *args: Any) -> R:
        try:
            return await asyncio.to_thread(fn, *args)
        except Exception as e:
            log.warning("profiles: storage failed: %s: %s", type(e).__name__, e)
            raise ProtocolError("unavailable", f"storage is not answering ({type(e).__name__}): "
                                "nothing changed, try again in a moment") from None

    async def _by_key(self, key: str) -> Profile:
        p = await self._run(self.social.profile_by_key, key)
        if p is None:
            raise ProtocolError("bad_key", "this profile key is not valid: it was replaced (restore the profile "
                                "from its newest link) or never existed")
        return p

    async def create(self, name: str) -> dict[str, Any]:
        clean = safe_name(name)
        if not clean:
            raise ProtocolError("bad_name", "a profile needs a name (control and direction characters are removed)")
        p, key = await self._run(self.social.create_profile, clean[:40])
        return {**profile_json(p), "key": key, "restore": restore_link(key)}

    async def mine(self, key: str, name: str | None = None) -> dict[str, Any]:
        p = await self._by_key(key)
        if name is not None:
            clean = safe_name(name)
            if not clean:
                raise ProtocolError("bad_name", "a profile needs a name")
            renamed = await self._run(self.social.rename, key, clean[:40])
            p = renamed or p
        return {**profile_json(p), "restore": restore_link(key)}

    async def new_key(self, key: str) -> dict[str, Any]:
        p = await self._by_key(key)
        new = await self._run(self.social.new_key, key)
        if new is None:
            raise ProtocolError("bad_key", "this profile key was replaced meanwhile: use the newest one")
        return {**profile_json(p), "key": new, "restore": restore_link(new)}

    async def mutes(self, key: str, mute: list[str], unmute: list[str]) -> dict[str, Any]:
        """The profile's mutes after unmuting ``unmute`` then muting ``mute``; refused, with
        nothing changed, past ``MAX_MUTES``."""
        p = await self._by_key(key)
        if not mute and not unmute:
            return {"mutes": await self._run(self.social.mutes, p.id), "max": MAX_MUTES}
        done, now = await self._run(self.social.change_mutes, p.id, mute, unmute, MAX_MUTES)
        if not done:
            raise ProtocolError("too_many_mutes", f"a profile keeps at most {MAX_MUTES} mutes (this one has "
                                f"{len(now)}): unmute someone first; nothing changed")
        return {"mutes": now, "max": MAX_MUTES}

    async def public(self, profile_id: str) -> dict[str, Any]:
        p = await self._run(self.social.get_profile, profile_id)
        if p is None:
            raise ProtocolError("no_profile", f"there is no profile {profile_id!r}")
        history = await self._run(self.social.history, profile_id)
        games = await self._run(self.social.games, profile_id, f'"profile": "{profile_id}"')
        return {**profile_json(p), "history": history, "tables": games}

    async def leaderboard(self) -> list[dict[str, Any]]:
        rows = await self._run(self.social.leaderboard)
        return [{"rank": i + 1, **profile_json(p)} for i, p in enumerate(rows)]
