"""Profiles: a name plus a secret key kept by the browser (no password, no e-mail). The key
is the profile: a link holding it (``/restore#key=...``) restores the profile on another
device, and asking for a new key revokes every link made before. A profile's chat mutes are
kept with it (at most ``MAX_MUTES``), so they follow it to every device."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from .names import safe_name
from .protocol import ProtocolError, invite_link
from .social_store import MAX_BLOCKS, MAX_MUTES, NameTaken, Profile, SocialStore

log = logging.getLogger("civlite.server")
R = TypeVar("R")


def profile_json(p: Profile) -> dict[str, Any]:
    return {"id": p.id, "name": p.name, "rating": round(p.rating, 2), "mu": round(p.mu, 3),
            "sigma": round(p.sigma, 3), "games": p.games}


#: handles nobody may take: the names the server gives seats, bots and spectators
_RESERVED = re.compile(r"^(player|seat|bot|spectator|watching|admin|operator|moderator)\s*\d*$", re.IGNORECASE)


def check_handle(name: str, reserved: tuple[str, ...] = ()) -> str:
    """A handle as typed, made safe; raises ``bad_name`` for an empty or reserved one."""
    clean = safe_name(name)[:40]
    if not clean:
        raise ProtocolError("bad_name", "a profile needs a name (control and direction characters are removed)")
    if _RESERVED.match(clean) or clean.casefold() in {r.casefold() for r in reserved}:
        raise ProtocolError("bad_name", f"{clean!r} is a name the server gives to seats, bots or spectators: "
                            "choose another")
    return clean


def restore_link(key: str) -> str:
    """The link that restores a profile (the key in the fragment, which browsers never send)."""
    return f"/restore#key={key}"


class Profiles:
    """``reserved``: names a handle may not take (the bots' seat names); ``rotate_seats(profile
    id)``: new tokens for the profile's seats at unfinished tables (when its key is replaced),
    as ``(table, seat, token)``."""

    def __init__(self, social: SocialStore, reserved: tuple[str, ...] = (),
                 rotate_seats: Callable[[str], Awaitable[list[tuple[str, int, str]]]] | None = None) -> None:
        self.social = social
        self.reserved = reserved
        self.rotate_seats = rotate_seats

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

    async def of_key(self, key: str) -> Profile:
        """The profile of ``key`` (refused with ``bad_key`` when it is not a profile's current key)."""
        return await self._by_key(key)

    async def create(self, name: str) -> dict[str, Any]:
        """A new profile with the handle ``name``: unique (compared without case, width or
        spaces) and chosen once."""
        clean = check_handle(name, self.reserved)
        try:
            p, key = await asyncio.to_thread(self.social.create_profile, clean)
        except NameTaken:
            raise ProtocolError("name_taken", f"the name {clean!r} belongs to another player: choose another "
                                "(names are compared without case or spaces)") from None
        except Exception as e:
            log.warning("profiles: storage failed: %s: %s", type(e).__name__, e)
            raise ProtocolError("unavailable", f"storage is not answering ({type(e).__name__}): "
                                "nothing changed, try again in a moment") from None
        return {**profile_json(p), "key": key, "restore": restore_link(key)}

    async def mine(self, key: str, name: str | None = None) -> dict[str, Any]:
        """The profile of ``key``; a handle is chosen once, so ``name`` must be the one it has."""
        p = await self._by_key(key)
        if name is not None and safe_name(name) != p.name:
            raise ProtocolError("name_fixed", f"a profile's name is chosen once, when it is made: this one is "
                                f"{p.name!r} (make a new profile for another name)")
        return {**profile_json(p), "restore": restore_link(key)}

    async def new_key(self, key: str) -> dict[str, Any]:
        """A new key: the old one, every restore link holding it and every seat link taken with
        the profile at an unfinished table stop working; the seats' new links are returned."""
        p = await self._by_key(key)
        new = await self._run(self.social.new_key, key)
        if new is None:
            raise ProtocolError("bad_key", "this profile key was replaced meanwhile: use the newest one")
        seats = await self.rotate_seats(p.id) if self.rotate_seats is not None else []
        return {**profile_json(p), "key": new, "restore": restore_link(new),
                "seats": [{"table": t, "seat": s, "invite": invite_link(t, tok)} for t, s, tok in seats]}

    async def blocks(self, key: str, block: list[str], unblock: list[str]) -> dict[str, Any]:
        """The profile's blocks after unblocking ``unblock`` then blocking ``block``: a blocked
        profile's chat is hidden from it and the two are never seated at one table."""
        p = await self._by_key(key)
        if not block and not unblock:
            return {"blocks": await self._run(self.social.blocks, p.id), "max": MAX_BLOCKS}
        done, now = await self._run(self.social.change_blocks, p.id, block, unblock, MAX_BLOCKS)
        if not done:
            raise ProtocolError("too_many_blocks", f"a profile keeps at most {MAX_BLOCKS} blocks: unblock someone "
                                "first; nothing changed")
        # a blocked profile's chat is hidden wherever this profile reads: a mute of it, which
        # the profile's devices apply (unblocking lifts it); past the mutes' bound, the block holds alone
        await self._run(self.social.change_mutes, p.id, [f"p:{b}" for b in now if b in block],
                        [f"p:{u}" for u in unblock], MAX_MUTES)
        return {"blocks": now, "max": MAX_BLOCKS}

    async def report(self, key: str, line: int, reason: str) -> dict[str, Any]:
        """Report chat line ``line`` (its number) to the server's operator."""
        p = await self._by_key(key)
        found = await self._run(self.social.chat_line, line)
        if found is None:
            raise ProtocolError("no_line", f"there is no chat line {line}")
        why = safe_name(reason)[:200] or "no reason given"
        fresh = await self._run(self.social.report, p.id, line, why)
        return {"reported": line, "table": found[0], "new": fresh}

    async def reports(self) -> list[dict[str, Any]]:
        return await self._run(self.social.reports)

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
