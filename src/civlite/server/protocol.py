"""The wire protocol: versioned JSON messages, validated with pydantic.

Client -> server (every message carries ``"v": 1``)::

    {"v": 1, "type": "hello", "table": "<id>", "token": "<seat token>" | null}
    {"v": 1, "type": "action", "id": "<client-chosen id>", "action": {"do": "pass"}, "decision": 12}
    {"v": 1, "type": "rematch"}
    {"v": 1, "type": "ping"}

Server -> client: ``welcome`` (after hello: the seat, the table, the seat's view and
its own redacted log), ``update`` (after each accepted action: the events as this
receiver may see them and its new view), ``ack`` (your action ``id`` is committed
as number ``seq``; ``duplicate`` when it was a resend), ``error`` (``code`` and a
``message`` naming the problem; nothing changed, the connection stays up),
``notice`` (e.g. a turn clock ran out), ``rematch`` (the next table) and ``pong``.
An action id is unique per table: a resend with the same id is acknowledged again
and never applied twice.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

VERSION = 1


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")
    v: Literal[1]


class Hello(_Msg):
    type: Literal["hello"]
    table: Annotated[str, Field(min_length=1, max_length=32)]
    token: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class ActionMsg(_Msg):
    type: Literal["action"]
    id: Annotated[str, Field(min_length=1, max_length=64)]
    action: dict[str, Any]
    #: the number of the decision this move answers (``decision_number`` of the state it was
    #: chosen from): a late or doubled answer is refused ("stale") and changes nothing
    decision: Annotated[int, Field(ge=0)] | None = None


class Rematch(_Msg):
    type: Literal["rematch"]


class Ping(_Msg):
    type: Literal["ping"]


ClientMessage = Annotated[Hello | ActionMsg | Rematch | Ping, Field(discriminator="type")]
_client = TypeAdapter(ClientMessage)


class ProtocolError(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


#: how deep a client's JSON may nest (a real message is 4 levels deep)
MAX_DEPTH = 16


def _too_deep(data: Any) -> bool:
    level: list[Any] = [data]
    for _ in range(MAX_DEPTH + 1):
        nxt: list[Any] = []
        for x in level:
            if isinstance(x, dict):
                nxt.extend(x.values())
            elif isinstance(x, list):
                nxt.extend(x)
        if not nxt:
            return False
        level = nxt
    return True


def parse_client(raw: str | bytes) -> Hello | ActionMsg | Rematch | Ping:
    """Parse one client frame; raises :class:`ProtocolError` naming the problem."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("malformed", "a message must be UTF-8 JSON text") from None
    if len(raw) > 16384:
        raise ProtocolError("malformed", "message too long (at most 16384 characters)")
    try:
        data = json.loads(raw)
    except ValueError as e:
        raise ProtocolError("malformed", f"not valid JSON: {e}") from None
    except RecursionError:
        data = _client  # a marker: too deep for the parser itself
    if data is _client or _too_deep(data):
        raise ProtocolError("malformed", f"JSON nested deeper than {MAX_DEPTH} levels")
    if not isinstance(data, dict):
        raise ProtocolError("malformed", "a message is a JSON object like {\"v\": 1, \"type\": \"ping\"}")
    if data.get("v") != VERSION or isinstance(data.get("v"), bool):
        raise ProtocolError("version", f"unsupported protocol version {data.get('v')!r}: this server speaks v={VERSION}")
    try:
        return _client.validate_python(data)
    except ValidationError as e:
        errs = e.errors()
        first = errs[0] if errs else {"msg": str(e), "loc": ()}
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise ProtocolError("malformed", f"bad message at {where or 'top level'}: {first.get('msg')}") from None


# -- server -> client (built as plain dicts; these models document and test them) ------------
class SeatInfo(BaseModel):
    seat: int
    name: str
    kind: Literal["human", "bot"]
    bot: str | None = None
    connected: bool = False


class TableSummary(BaseModel):
    id: str
    name: str
    seats: list[SeatInfo]
    rules: str
    victory_ct: int
    clock: int | None
    status: str
    turn: int = 0
    rematch: str | None = None
    rematch_of: str | None = None
    practice: bool = False  # a chosen seed: every seat sees the mark and the seed
    seed: int | None = None  # shown on practice tables only


class Welcome(BaseModel):
    v: Literal[1] = 1
    type: Literal["welcome"] = "welcome"
    seat: int | None
    table: TableSummary
    seq: int
    state: dict[str, Any]
    log: list[dict[str, Any]]
    clock: dict[str, Any] | None = None


class Update(BaseModel):
    v: Literal[1] = 1
    type: Literal["update"] = "update"
    seq: int
    by: dict[str, Any]
    events: list[dict[str, Any]]
    state: dict[str, Any]
    clock: dict[str, Any] | None = None


class Ack(BaseModel):
    v: Literal[1] = 1
    type: Literal["ack"] = "ack"
    id: str
    seq: int
    duplicate: bool = False


class Error(BaseModel):
    v: Literal[1] = 1
    type: Literal["error"] = "error"
    code: str
    message: str
    id: str | None = None


def error(code: str, message: str, id: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"v": VERSION, "type": "error", "code": code, "message": message}
    if id is not None:
        d["id"] = id
    return d


# -- REST (lobby) -------------------------------------------------------------------------
class SeatSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["human", "bot"] = "human"
    bot: Annotated[str, Field(max_length=64)] | None = None
    name: Annotated[str, Field(max_length=40)] | None = None


class CreateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(max_length=80)] = ""
    seats: Annotated[list[SeatSpec], Field(min_length=2, max_length=8)]
    rules: Annotated[str, Field(max_length=40)] = "default"
    victory_ct: Annotated[int, Field(ge=1, le=1000)] | None = None
    clock: Annotated[int, Field(ge=1, le=86400)] | None = None
    #: a practice table: its seed may be chosen (``seed``), and every seat is told and shown it.
    #: Any other table deals from a secret 128-bit seed, revealed with the record once the game is over
    practice: bool = False
    seed: Annotated[int, Field(ge=0, lt=2**63)] | None = None


class Reissue(BaseModel):
    """``POST /api/tables/{id}/seats/{seat}/invite``: the seat's current token proves its holder."""

    model_config = ConfigDict(extra="forbid")
    token: Annotated[str, Field(min_length=1, max_length=64)]
