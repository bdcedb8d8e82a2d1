"""Game records: rule set, seed, players and actions, as JSON; replayed exactly.

>>> from civlite.engine import Game
>>> g = Game(players=3, seed=11)
>>> while not g.over and g.turn < 20:
...     _ = g.apply_id(g.legal_ids()[-1])
>>> again = GameRecord.from_json(GameRecord.of(g).dumps()).replay()
>>> again.state_json() == g.state_json()
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .actions import Action, action_from_json
from .game import Game
from .rules import RuleSet

FORMAT = "civlite-record/1"


class RecordError(ValueError):
    """A record file that cannot be read or replayed."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game as rule set, seed, players and actions (and its result): :meth:`of` a game,
    :meth:`replay` to get the game back."""

    rules: RuleSet
    seed: int
    players: tuple[str, ...]
    first: int
    actions: tuple[Action, ...]
    start: dict[str, Any] | None = None  # a from_position start, else a dealt game
    winner: int | None = None
    over: bool = False
    turns: int = 0

    @classmethod
    def of(cls, game: Game) -> GameRecord:
        """The record of ``game`` so far: replays to it."""
        return cls(
            rules=game.rules, seed=game.seed, players=game.names, first=game._first,
            start=game._start, actions=game.actions,
            winner=game.winner, over=game.over, turns=game.turn,
        )

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "players": list(self.players),
            "first": self.first,
            "actions": [a.to_json() for a in self.actions],
            "result": {"over": self.over, "winner": self.winner, "turns": self.turns},
        }
        if self.start is not None:
            d["start"] = self.start
        return d

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as e:
                raise RecordError(f"record is not valid JSON: {e}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f"not a civlite record: expected \"format\": \"{FORMAT}\"")
        try:
            rules = RuleSet.from_dict(data["rules"], where="record.rules")
            actions = tuple(action_from_json(a) for a in data["actions"])
            res = data.get("result", {})
            return cls(
                rules=rules, seed=int(data["seed"]), players=tuple(data["players"]),
                first=int(data.get("first", 0)), actions=actions, start=data.get("start"),
                winner=res.get("winner"), over=bool(res.get("over", False)), turns=int(res.get("turns", 0)),
            )
        except KeyError as e:
            raise RecordError(f"record has no {e.args[0]!r}") from None
        except (TypeError, ValueError) as e:
            raise RecordError(f"bad record: {e}") from None

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise RecordError(f"cannot read {str(path)!r}: {e.strerror}") from None
        return cls.from_json(text)

    def initial(self) -> Game:
        """The game before any action."""
        if self.start is not None:
            return Game.from_position(self.start["state"], self.rules, self.start["seed"], self.players)
        return Game(players=list(self.players), seed=self.seed, rules=self.rules, first=self.first)

    def replay(self) -> Game:
        """Play the actions again; the result is identical to the recorded game."""
        g = self.initial()
        for i, a in enumerate(self.actions):
            try:
                g.apply(a)
            except ValueError as e:
                raise RecordError(f"action {i} ({a.to_json()}) does not replay: {e}") from None
        return g

    def replay_events(self) -> list[tuple[Action | None, list[Any]]]:
        """Each action with the events it caused (the first entry: the set-up's)."""
        g = self.initial()
        out: list[tuple[Action | None, list[Any]]] = [(None, list(g.opening_events))]
        for a in self.actions:
            out.append((a, g.apply(a)))
        return out
