"""The wire protocol: every message the server accepts or sends, its shape and its checks.

Client -> server (every message carries ``"v": 1``)::

    {"v": 1, "type": "hello", "table": "<id>", "token": "<seat token>" | null}
    {"v": 1, "type": "action", "id": "<client-chosen id>", "action": {"do": "pass"}, "decision": 12}
    {"v": 1, "type": "rematch"}
    {"v": 1, "type": "ping"}
    {"v": 1, "type": "chat", "text": "good luck", "name": "<a spectator's name>" | null}

Server -> client: ``welcome`` (after hello: the seat, the table, its view, its own
redacted log and the chat it may read), ``update`` (after each accepted action), ``ack`` (your action ``id`` is
committed as number ``seq``; ``duplicate`` for a resend, which is never applied twice),
``error`` (nothing changed), ``presence``, ``notice``, ``rematch``, ``chat`` and ``pong``.

Client messages are validated with pydantic (:func:`parse_client`). Server messages are
built as plain dicts by the functions below, one per message type; the models beside
them state each shape (:data:`ServerMessage`). The REST API's request bodies are in :mod:`.bodies`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..bots import LEVEL_NOTES, LEVEL_RATINGS, LEVELS
from ..engine import ALL_CARDS, SUITS, Event, Game, GameRecord, RuleSet
from .storage import TableInfo

VERSION = 1
LOG_TAIL = 400  # log entries sent on (re)connect


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


class ChatMsg(_Msg):
    """A chat line (at most 300 characters once cleaned; longer input is refused, not cut).
    A player speaks under its seat's name; a spectator under its profile's handle (``profile``:
    its key) or, without one, as "Spectator". ``name`` is not shown (kept so older clients
    still validate): nobody chats under a name they type."""

    type: Literal["chat"]
    text: Annotated[str, Field(max_length=2000)]
    name: Annotated[str, Field(max_length=64)] | None = None
    profile: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class Concede(_Msg):
    """The seat's player gives up: a bot plays on in the seat, and a rated game rates it last;
    with one seat left in play, the table ends."""

    type: Literal["concede"]


class VoteEnd(_Msg):
    """A vote to end a game stalled by a player who does not move: when every other player
    still in the game has voted, the table is closed and the stalled seat loses."""

    type: Literal["vote_end"]


ClientMessage = Annotated[Hello | ActionMsg | Rematch | Ping | ChatMsg | Concede | VoteEnd,
                          Field(discriminator="type")]
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


def parse_client(raw: str | bytes) -> Hello | ActionMsg | Rematch | Ping | ChatMsg | Concede | VoteEnd:
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


# -- server -> client: shapes -------------------------------------------------------------
class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Frame(_Out):
    v: Literal[1] = 1


class SeatInfo(_Out):
    seat: int
    name: str
    kind: Literal["human", "bot", "open"]
    bot: str | None = None
    connected: bool = False
    profile: str | None = None  # the public id of the seat's profile, if it has one


class RulesInfo(_Out):
    name: str
    victory_ct: int
    hand_limit: int
    hand_size: int
    rise_draw: int
    meld_ct: int
    meld_draw: int
    meld_suits: list[int]
    meld_one_of: list[int]
    deck: list[int]  # the deck's cards of each suit, in suit order (R10 [deck])
    abilities: list[dict[str, Any]]


class TableSummary(_Out):
    id: str
    name: str
    seats: list[SeatInfo]
    rules: RulesInfo
    clock: int | None
    status: str
    turn: int = 0
    winner: int | None = None
    rematch: str | None = None
    rematch_of: str | None = None
    practice: bool = False  # a chosen seed: every seat sees the mark and the seed
    seed: int | None = None  # shown on practice tables only
    rated: bool = False
    turn_based: bool = False  # a clock in days (``clock`` is then in seconds), played at each player's pace
    chat: Literal["all", "players"] = "all"
    abandoned: bool = False  # nobody has acted here for a while (the lobby's list marks it)
    #: a game ended early: "conceded" (one seat was left in play), "timed_out" (likewise, the
    #: other seat's clock ran out too often at a turn-based table) or "closed" (abandoned or voted)
    ended: str | None = None
    #: seats whose players left the game (conceded or left), in the order they left
    left: list[int] = []
    #: the seats that voted to end the stalled game at its current move
    votes: list[int] = []


class Clock(_Out):
    seat: int
    deadline: int  # epoch milliseconds
    seconds: int | None


class Final(_Out):
    hands: list[list[str]]
    ct: list[int]
    winner: int | None
    drawn: list[int]
    outcome: dict[str, Any]


class By(_Out):
    seat: int | None
    via: str


class _Seen(_Frame):
    """What a receiver sees of the game now: its view, its choices and the clock."""

    seq: int
    state: dict[str, Any]
    choices: dict[str, Any]
    decision_number: int
    clock: Clock | None = None
    final: Final | None = None


class ChatLineOut(_Out):
    n: int
    seat: int | None  # None: a spectator
    name: str
    text: str
    at: int  # epoch milliseconds
    profile: str | None = None  # a spectator's profile id (a player's is its seat's)


class Welcome(_Seen):
    type: Literal["welcome"] = "welcome"
    seat: int | None
    table: TableSummary
    log: list[dict[str, Any]]
    chat: list[ChatLineOut] = []
    missed_clock: int | None = None  # clock moves made for this seat while it was away


class Update(_Seen):
    type: Literal["update"] = "update"
    by: By
    events: list[dict[str, Any]]


class Ack(_Frame):
    type: Literal["ack"] = "ack"
    id: str
    seq: int
    duplicate: bool = False


class Error(_Frame):
    type: Literal["error"] = "error"
    code: str
    message: str
    id: str | None = None


class Presence(_Frame):
    type: Literal["presence"] = "presence"
    connected: list[bool]
    clock: Clock | None = None


class Notice(_Frame):
    type: Literal["notice"] = "notice"
    kind: Literal["clock", "closed", "left", "vote"]
    seat: int | None
    text: str


class Chat(_Frame):
    type: Literal["chat"] = "chat"
    line: ChatLineOut


class RematchReady(_Frame):
    type: Literal["rematch"] = "rematch"
    table: str | None


class Pong(_Frame):
    type: Literal["pong"] = "pong"
    t: int  # the server's time, epoch milliseconds


ServerMessage = Annotated[Welcome | Update | Ack | Error | Presence | Notice | RematchReady | Pong | Chat,
                          Field(discriminator="type")]
server_message = TypeAdapter(ServerMessage)


# -- server -> client: builders -----------------------------------------------------------
class TableState(Protocol):
    """What the messages about a table read of it."""

    info: TableInfo
    game: Game
    seq: int
    log: list[tuple[int, Event]]
    via: dict[int, str]
    deadline: float | None

    def connected(self) -> list[bool]: ...


def _frame(msg_type: str, **fields: Any) -> dict[str, Any]:
    return {"v": VERSION, "type": msg_type, **fields}


def ability_text(text: str) -> str:
    """The engine's effect text, tidied for players ("take 1 card", "discards its whole hand")."""
    text = text.replace(" ('all': its hand)", "").replace("discards all cards of its choice", "discards its whole hand")
    return re.sub(r"\b1 cards\b", "1 card", text)


def rules_json(rules: RuleSet) -> dict[str, Any]:
    """Public rule facts for clients (no cards)."""
    return {
        "name": rules.name, "victory_ct": rules.victory_ct, "hand_limit": rules.hand_limit,
        "hand_size": rules.hand_size, "rise_draw": rules.rise_draw, "meld_ct": rules.meld_ct,
        "meld_draw": rules.meld_draw,
        "meld_suits": [int(s) for s in rules.meld_suits], "meld_one_of": [int(s) for s in rules.meld_one_of],
        "deck": list(rules.suit_sizes),  # cards per suit (R10 [deck]), in suit order
        "abilities": [{"name": a.name, "suit": int(a.suit), "tier": a.tier, "cards": a.cards, "targets": a.targets,
                       "text": ability_text(a.text), "rule": a.rule, "key": a.key} for a in rules.abilities],
    }


def summary(info: TableInfo, connected: list[bool] | None = None, turn: int | None = None,
            rules: RuleSet | None = None) -> dict[str, Any]:
    """A table's public facts (:class:`TableSummary`)."""
    rules = rules or info.ruleset()
    conn = connected or [False] * len(info.seats)
    return {
        "id": info.id, "name": info.name,
        "seats": [{"seat": i, "name": s.get("name", f"Seat {i + 1}"), "kind": s.get("kind", "human"),
                   "bot": s.get("bot"), "connected": conn[i] or s.get("kind") == "bot", "profile": s.get("profile")}
                  for i, s in enumerate(info.seats)],
        "rules": rules_json(rules), "clock": info.clock, "status": info.status,
        "turn": turn if turn is not None else (info.turn or 0), "rated": info.rated,
        "turn_based": bool(info.options.get("turn_based")),
        "chat": "players" if info.options.get("chat") == "players" else "all",
        "winner": info.winner, "rematch": info.rematch, "rematch_of": info.rematch_of,
        # a practice table's seed was chosen by its creator, who may know every card: all see it
        "practice": info.seeded, "seed": info.seed if info.seeded else None, "abandoned": False,
        "ended": info.options.get("ended"),
        "left": sorted((i for i, s in enumerate(info.seats) if s.get("left")), key=lambda i: info.seats[i]["left"]),
        "votes": list((info.options.get("votes") or {}).get("seats", [])),
    }


def table_json(t: TableState) -> dict[str, Any]:
    """The summary of a table in memory (who is connected, the turn)."""
    return summary(t.info, t.connected(), t.game.turn, t.game.rules)


def clock_json(t: TableState) -> dict[str, Any] | None:
    if t.deadline is None or t.game.pending is None:
        return None
    return {"seat": t.game.pending.player, "deadline": int(t.deadline * 1000), "seconds": t.info.clock}


def entry(t: TableState, seq: int, e: Event, seat: int | None) -> dict[str, Any]:
    """One log entry as ``seat`` may see it, with its action's number (and ``via`` for a bot
    or clock move)."""
    d = dict(e.to_json(seat), seq=seq)
    via = t.via.get(seq)
    if via is not None:
        d["via"] = via
    return d


def final_json(t: TableState) -> dict[str, Any] | None:
    """Once the game is over, every hand and CT is public (as the record is)."""
    if not t.game.is_over:
        return None
    outcome = t.game.outcome()
    assert outcome is not None
    truth = t.game.state_json()
    return {"hands": [p["hand"] for p in truth["players"]], "ct": list(outcome.ct),
            "winner": outcome.winner, "drawn": list(outcome.drawn), "outcome": outcome.to_json()}


def choices_json(t: TableState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may choose now (the engine's per-seat choices) and the decision's number,
    which a move names so that a late or doubled answer is refused."""
    c = t.game.choices(seat).to_json()
    for a in c.get("abilities", ()):
        a["text"] = ability_text(a["text"])
    return {"choices": c, "decision_number": t.game.decision_number}


def welcome(t: TableState, seat: int | None, missed: int = 0,
            chat: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """:class:`Welcome`: ``missed`` clock moves made for the seat while it was away; ``chat``:
    the lines of the table's chat this seat may read."""
    w = _frame("welcome", seat=seat, table=table_json(t), seq=t.seq, state=t.game.view(seat).to_json(),
               **choices_json(t, seat), log=[entry(t, s, e, seat) for s, e in t.log[-LOG_TAIL:]],
               clock=clock_json(t), chat=list(chat))
    final = final_json(t)
    if final is not None:
        w["final"] = final
    if missed:
        w["missed_clock"] = missed
    return w


def update(t: TableState, seq: int, events: Iterable[Event], seat: int, via: str, reader: int | None,
           clock: dict[str, Any] | None, final: dict[str, Any] | None) -> dict[str, Any]:
    """:class:`Update` for ``reader`` after move ``seq`` of ``seat`` (``clock`` and ``final`` as
    :func:`clock_json` and :func:`final_json` give them, the same for every reader)."""
    msg = _frame("update", seq=seq, by={"seat": seat, "via": via}, events=[entry(t, seq, e, reader) for e in events],
                 state=t.game.view(reader).to_json(), **choices_json(t, reader), clock=clock)
    if final is not None:
        msg["final"] = final
    return msg


def ack(id: str, seq: int, duplicate: bool) -> dict[str, Any]:
    return _frame("ack", id=id, seq=seq, duplicate=duplicate)


def error(code: str, message: str, id: str | None = None) -> dict[str, Any]:
    d = _frame("error", code=code, message=message)
    if id is not None:
        d["id"] = id
    return d


def presence(t: TableState) -> dict[str, Any]:
    return _frame("presence", connected=t.connected(), clock=clock_json(t))


def left_notice(seat: int, text: str) -> dict[str, Any]:
    """:class:`Notice` that ``seat``'s player left the game (conceded)."""
    return _frame("notice", kind="left", seat=seat, text=text)


def vote_notice(seat: int, text: str) -> dict[str, Any]:
    """:class:`Notice` that ``seat`` voted to end the stalled game."""
    return _frame("notice", kind="vote", seat=seat, text=text)


def clock_notice(seat: int, text: str) -> dict[str, Any]:
    """:class:`Notice` that ``seat``'s clock ran out."""
    return _frame("notice", kind="clock", seat=seat, text=text)


def closed_notice(text: str) -> dict[str, Any]:
    """:class:`Notice` that the table was closed (abandoned)."""
    return _frame("notice", kind="closed", seat=None, text=text)


def chat(line: Mapping[str, Any]) -> dict[str, Any]:
    """:class:`Chat`: one line of the table's chat."""
    return _frame("chat", line=dict(line))


def rematch(table_id: str | None) -> dict[str, Any]:
    """:class:`RematchReady`: the table the rematch is played at."""
    return _frame("rematch", table=table_id)


def pong() -> dict[str, Any]:
    return _frame("pong", t=int(time.time() * 1000))


# -- REST (lobby): the request bodies are in .bodies ----------------------------------------
#: the HTTP status of a refusal, by its code (any other code: 422)
HTTP_STATUS = {"unavailable": 503, "not_stored": 503, "busy": 503, "no_table": 404, "bad_token": 403,
               "no_profile": 404, "bad_key": 403, "seat_taken": 409, "not_open": 409, "not_host": 403,
               "too_many_mutes": 409, "name_taken": 409, "name_fixed": 409, "already_seated": 409,
               "blocked": 403, "rated_pair_limit": 409, "too_many_blocks": 409, "no_line": 404,
               "not_operator": 403}


def refusal(code: str, detail: str) -> dict[str, Any]:
    """The body of a refused HTTP request."""
    return {"code": code, "detail": detail}


def invite_link(table_id: str, token: str) -> str:
    """A seat's invite link (the token in the fragment, which browsers never send)."""
    return f"/t/{table_id}#k={token}"


def table_created(info: TableInfo, tokens: Sequence[str | None], host: str | None = None) -> dict[str, Any]:
    """``POST /api/tables``: the table's summary with each seat's invite link and a spectator's
    (``host``: the token that starts a table with open seats before they are all taken)."""
    out = summary(info)
    for s, tok in zip(out["seats"], tokens, strict=True):
        s["invite"] = invite_link(info.id, tok) if tok else None
    out["spectate"] = f"/t/{info.id}"
    if host is not None:
        out["host"] = host
    return out


def invite(table_id: str, seat: int, token: str) -> dict[str, Any]:
    """``POST /api/tables/{id}/seats/{seat}/invite``: the seat's new link."""
    return {"seat": seat, "invite": invite_link(table_id, token)}


def record(t: TableState) -> dict[str, Any]:
    """``GET /api/tables/{id}/record``: a finished game's full record."""
    rec: dict[str, Any] = GameRecord.of(t.game).to_json()
    return rec


def replay(t: TableState, seat: int | None) -> dict[str, Any]:
    """A finished game step by step as ``seat`` saw it (``None``: a spectator): each action's
    events redacted for that reader and the reader's view after it. Only for a game that is
    over (the record is public then), so a replay can never show a live game's hidden cards."""
    if not t.game.is_over:
        raise ProtocolError("not_over", "the replay is published when the game is over")
    if seat is not None and not 0 <= seat < len(t.info.seats):
        raise ProtocolError("bad_seat", f"this table has seats 0 to {len(t.info.seats) - 1} (counted from 0): not {seat}")
    g = GameRecord.of(t.game).initial()
    steps = [{"seq": 0, "by": None, "events": [dict(e.to_json(seat), seq=0) for e in g.opening_events],
              "state": g.view(seat).to_json()}]
    for i, action in enumerate(GameRecord.of(t.game).actions, start=1):
        # records kept before the server stamped each action with its seat: the seat that was to decide
        player = action.player if action.player is not None else (g.pending.player if g.pending else None)
        events = g.apply(action)
        steps.append({"seq": i, "by": {"seat": player, "via": t.via.get(i, "human")},
                      "events": [entry(t, i, e, seat) for e in events], "state": g.view(seat).to_json()})
    return {"table": table_json(t), "seat": seat, "steps": steps, "final": final_json(t)}


def meta(rulesets: Mapping[str, RuleSet], bots: Sequence[str], levels: Sequence[str]) -> dict[str, Any]:
    """``GET /api/meta``: the cards, suits, rule sets, bots and levels this server offers.

    The cards are every card a deck may hold (:data:`~civlite.engine.cards.ALL_CARDS`): the
    112 of R1.1 and the extras a rule set's ``[deck]`` may add (``Disaster 9``), so a
    client finds the suit of any card it is shown."""
    return {
        "protocol": VERSION,
        "cards": [{"name": c.name, "suit": int(c.suit)} for c in ALL_CARDS],
        "suits": [{"index": int(s), "name": s.name.title(), "letter": s.name[0]} for s in SUITS],
        "rulesets": {k: rules_json(r) for k, r in rulesets.items()},
        "bots": list(bots),
        "levels": [{"name": k, "bot": LEVELS[k], "rating": LEVEL_RATINGS[k], "note": LEVEL_NOTES[k]}
                   for k in levels],
    }


def health() -> dict[str, str]:
    return {"status": "ok"}
