"""The REST API's request bodies (the lobby, seats, profiles, mutes, blocks, reports), each a
pydantic model that refuses what it does not name; :mod:`.protocol` re-exports them beside
the WebSocket's messages."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from .social_store import MAX_MUTES


class SeatSpec(BaseModel):
    """A seat of a new table: a player's (with an invite link), a bot's, or ``open`` (anyone
    may take it from the lobby). ``profile``: the secret key of the profile the creator plays
    this seat with (rated tables)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["human", "bot", "open"] = "human"
    bot: Annotated[str, Field(max_length=64)] | None = None
    name: Annotated[str, Field(max_length=40)] | None = None
    profile: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class CreateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(max_length=80)] = ""
    seats: Annotated[list[SeatSpec], Field(min_length=2, max_length=8)]
    rules: Annotated[str, Field(max_length=40)] = "default"
    victory_ct: Annotated[int, Field(ge=1, le=1000)] | None = None
    clock: Annotated[int, Field(ge=1, le=86400)] | None = None
    #: a turn-based table: each decision may take this many days (its clock runs while its
    #: player is away); not with ``clock``. At most a week: the time after which a table where
    #: no player has moved is closed (CIVLITE_CLOSE_SECONDS' default)
    clock_days: Annotated[int, Field(ge=1, le=7)] | None = None
    #: the bot (a spec or a level) that decides for a seat whose clock ran out; none: the safest
    #: legal move is made for it (a pass, or else the discard that costs its hand least)
    stand_in: Annotated[str, Field(max_length=64)] | None = None
    #: a practice table: its seed may be chosen (``seed``), and every seat is told and shown it.
    #: Any other table deals from a secret 128-bit seed, revealed with the record once the game is over
    practice: bool = False
    seed: Annotated[int, Field(ge=0, lt=2**63)] | None = None
    #: a rated table: its end moves the ratings of the seats' profiles (every human seat needs one)
    rated: bool = False
    #: ``players``: spectators' chat lines are shown to spectators only
    chat: Literal["all", "players"] = "all"


class TakeSeat(BaseModel):
    """``POST /api/tables/{id}/take``: an open seat (``seat``, or the first one) for whoever asks first."""

    model_config = ConfigDict(extra="forbid")
    seat: Annotated[int, Field(ge=0, le=7)] | None = None
    name: Annotated[str, Field(max_length=40)] | None = None
    profile: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class StartTable(BaseModel):
    """``POST /api/tables/{id}/start``: the creator (with the table's host token) starts it now,
    with bots of level ``bot`` in the seats still open."""

    model_config = ConfigDict(extra="forbid")
    token: Annotated[str, Field(min_length=1, max_length=64)]
    bot: Annotated[str, Field(max_length=64)] = "medium"


class NewProfile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=40)]


class ProfileKey(BaseModel):
    """A request made as a profile: its secret key proves it (``name``: a new name, when renaming)."""

    model_config = ConfigDict(extra="forbid")
    key: Annotated[str, Field(min_length=1, max_length=64)]
    name: Annotated[str, Field(min_length=1, max_length=40)] | None = None


class MailOptIn(BaseModel):
    """``POST /api/profiles/me/mail``: the profile's address for turn mails (``address``: set
    it, and a confirmation mail is sent; ``""``: remove it; none: only read it)."""

    model_config = ConfigDict(extra="forbid")
    key: Annotated[str, Field(min_length=1, max_length=64)]
    address: Annotated[str, Field(max_length=254)] | None = None


#: what a mute names: ``p:<profile id>`` (that player at every table), ``t:<table id>:<seat>``
#: (a seat without a profile) or ``t:<table id>:w`` (that table's spectators)
MUTE_TARGET = r"^(p:[A-Za-z0-9]{1,24}|t:[A-Za-z0-9_-]{1,32}:(w|[0-9]{1,2}))$"
MuteTarget = Annotated[str, Field(pattern=MUTE_TARGET, max_length=64)]


class BlockChange(BaseModel):
    """``POST /api/profiles/me/blocks``: the profile's blocks (profile ids), after unblocking
    ``unblock`` then blocking ``block`` (both empty: only read them)."""

    model_config = ConfigDict(extra="forbid")
    key: Annotated[str, Field(min_length=1, max_length=64)]
    block: Annotated[list[Annotated[str, Field(pattern=r"^[A-Za-z0-9]{1,24}$")]], Field(max_length=100)] = []
    unblock: Annotated[list[Annotated[str, Field(pattern=r"^[A-Za-z0-9]{1,24}$")]], Field(max_length=100)] = []


class Report(BaseModel):
    """``POST /api/reports``: a profile reports chat line ``line`` to the server's operator."""

    model_config = ConfigDict(extra="forbid")
    key: Annotated[str, Field(min_length=1, max_length=64)]
    line: Annotated[int, Field(ge=1)]
    reason: Annotated[str, Field(max_length=400)] = ""


class MuteChange(BaseModel):
    """``POST /api/profiles/me/mutes``: the profile's mutes, after unmuting ``unmute`` then
    muting ``mute`` (both empty: only read them)."""

    model_config = ConfigDict(extra="forbid")
    key: Annotated[str, Field(min_length=1, max_length=64)]
    mute: Annotated[list[MuteTarget], Field(max_length=MAX_MUTES)] = []
    unmute: Annotated[list[MuteTarget], Field(max_length=MAX_MUTES)] = []


class Reissue(BaseModel):
    """``POST /api/tables/{id}/seats/{seat}/invite``: the seat's current token proves its holder."""

    model_config = ConfigDict(extra="forbid")
    token: Annotated[str, Field(min_length=1, max_length=64)]
