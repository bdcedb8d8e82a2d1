"""Message validation (no server needed)."""

from __future__ import annotations

import json

import pytest

from civlite.server.protocol import ActionMsg, Hello, ProtocolError, parse_client


def test_valid_messages_parse() -> None:
    m = parse_client(json.dumps({"v": 1, "type": "hello", "table": "abc", "token": None}))
    assert isinstance(m, Hello) and m.token is None
    a = parse_client(json.dumps({"v": 1, "type": "action", "id": "x1", "action": {"do": "pass"}}))
    assert isinstance(a, ActionMsg) and a.action == {"do": "pass"}


@pytest.mark.parametrize(("raw", "code"), [
    ("not json", "malformed"),
    ("[]", "malformed"),
    ('{"v": 2, "type": "ping"}', "version"),
    ('{"type": "ping"}', "version"),
    ('{"v": 1, "type": "dance"}', "malformed"),
    ('{"v": 1, "type": "action", "id": "", "action": {}}', "malformed"),
    ('{"v": 1, "type": "action", "id": "a", "action": 5}', "malformed"),
    ('{"v": 1, "type": "ping", "extra": 1}', "malformed"),
    (b"\xff\xfe", "malformed"),
    ("x" * 20000, "malformed"),
    ("[" * 1000 + "]" * 1000, "malformed"),  # deeper than the JSON parser goes
    ('{"v": 1, "type": "action", "id": "a", "action": {"do": ' + "[" * 20 + "]" * 20 + "}}", "malformed"),
])
def test_bad_messages_name_the_problem(raw: str | bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as e:
        parse_client(raw)
    assert e.value.code == code
    assert e.value.message


def test_deep_nesting_is_named() -> None:
    for raw in ("[" * 1000 + "]" * 1000, '{"v": 1, "type": "ping", "x": ' + "[" * 17 + "]" * 17 + "}"):
        with pytest.raises(ProtocolError, match="nested deeper than 16 levels"):
            parse_client(raw)
    assert parse_client('{"v": 1, "type": "action", "id": "a", "action": {"do": "pass", "cards": []}}')
