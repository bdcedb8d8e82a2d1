"""The ``civlite`` command."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

app = typer.Typer(
    name="civlite",
    help="Civ Lite: Ancients — rules engine, bots, balance lab, online and terminal play.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
err = Console(stderr=True)


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def load_rules(path: Optional[Path]):  # type: ignore[no-untyped-def]
    from .engine import RuleSet, RuleSetError

    if path is None:
        return RuleSet.default()
    try:
        return RuleSet.from_toml(path)
    except RuleSetError as e:
        raise _fail(str(e)) from None


@app.command()
def scenario(file: Annotated[Path, typer.Argument(help="scenario file (SCENARIOS.md)")]) -> None:
    """Play a scenario file and print the result as one JSON object (SCENARIOS.md)."""
    from . import scenario as sc

    try:
        result = sc.run(sc.load(file))
    except sc.ScenarioError as e:
        sys.stderr.write(f"civlite scenario: {file}: {e}\n")
        raise typer.Exit(2) from None
    sys.stdout.write(json.dumps(result) + "\n")


@app.command()
def demo(
    players: Annotated[int, typer.Option("--players", "-p", help="number of players (2-8)")] = 3,
    seed: Annotated[int, typer.Option(help="random seed of the game")] = 1,
    rules: Annotated[Optional[Path], typer.Option(help="rule-set TOML file")] = None,
    bots: Annotated[str, typer.Option(help="comma-separated bot specs, one per seat or one for all")] = "random",
) -> None:
    """Play one seeded game between bots and print it turn by turn, citing the rules."""
    from .engine import Game

    rs = load_rules(rules)
    try:
        game = Game(players=players, seed=seed, rules=rs)
    except ValueError as e:
        raise _fail(str(e)) from None
    policies = _policies(bots, players, seed)
    out = Console()
    out.rule(f"Civ Lite: {players} players, seed {seed}, rules {rs.name!r}")
    while not game.is_over:
        p = game.to_move
        assert p is not None
        action = policies[p](game, p)
        for ev in game.apply(action):
            style = "bold yellow" if ev.kind in ("turn", "win", "draw_game") else ""
            if ev.kind == "turn":
                cts = "  ".join(f"s{i}:{c}" for i, c in enumerate(game.ct))
                out.rule(f"turn {ev.amount} · seat {ev.player} · CT {cts}", style="dim")
            else:
                out.print(ev.describe(None), style=style, highlight=False)
    if game.winner is not None:
        out.print(f"[bold green]seat {game.winner} wins with {game.ct[game.winner]} CT after {game.turn} turns[/]")
    else:
        out.print(f"[bold]draw between seats {list(game.drawn)} after {game.turn} turns[/]")


def _policies(spec: str, players: int, seed: int):  # type: ignore[no-untyped-def]
    """Bot policies per seat: (game, seat) -> action, built on each seat's view."""
    specs = [s.strip() for s in spec.split(",") if s.strip()] or ["random"]
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise _fail(f"--bots gives {len(specs)} bots for {players} seats")
    from .bots import decide, make_bot

    out = []
    for seat, s in enumerate(specs):
        try:
            bot = make_bot(s, seed=seed * 1000 + seat)
        except ValueError as e:
            raise _fail(str(e)) from None
        out.append(lambda g, p, bot=bot: decide(bot, g))
    return out


@app.command()
def rules(
    file: Annotated[Optional[Path], typer.Argument(help="rule-set TOML to check and print")] = None,
) -> None:
    """Print a rule set (the default, or FILE after checking it) as editable TOML."""
    sys.stdout.write(load_rules(file).to_toml())


def main() -> None:
    app()


if __name__ == "__main__":
    main()
