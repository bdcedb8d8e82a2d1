"""The ``civlite`` command."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from typer.core import TyperGroup

try:  # Typer 0.2x carries its own copy of click; older ones use click itself
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover
    from click import exceptions as click_errors  # type: ignore[no-redef]

class _OneLineErrors(TyperGroup):
    """Bad arguments of a command (``--seed abc``, an unknown option) are one-line errors on stderr
    with exit status 2, like the errors the commands raise themselves, not a framed usage box."""

    def invoke(self, ctx: Any) -> Any:
        name = next(iter([*(getattr(ctx, "_protected_args", None) or ()), *ctx.args]), None)
        try:
            return super().invoke(ctx)
        except click_errors.NoArgsIsHelpError:
            raise
        except click_errors.UsageError as e:
            command = ctx.command_path + (f" {name}" if name in self.commands else "")
            where = getattr(e, "ctx", None)
            if where is not None and where is not ctx:
                command = where.command_path
            raise _fail(_usage_text(e, command)) from None


def _usage_text(e: Any, command: str) -> str:
    """``--seed must be a whole number, got 'abc'`` for a value of the wrong kind, else click's own
    message; with where to read about the command."""
    opts = [o for o in getattr(getattr(e, "param", None), "opts", ()) if o.startswith("-")]
    cause = e.__cause__
    errors = getattr(cause, "errors", None)
    if isinstance(e, click_errors.BadParameter) and opts and callable(errors):
        first = (errors() or [{}])[0]
        kind = {"int_parsing": "a whole number", "int_from_float": "a whole number",
                "float_parsing": "a number", "bool_parsing": "true or false"}.get(str(first.get("type")))
        if kind is not None:
            return f"{max(opts, key=len)} must be {kind}, got {first.get('input')!r} (see {command} --help)"
    return f"{e.format_message()} (see {command} --help)"


app = typer.Typer(
    cls=_OneLineErrors,
    name="civlite",
    help="Civ Lite: Ancients — rules engine, bots, balance lab, online and terminal play.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,  # a traceback must never print a hand
    add_completion=False,
)
err = Console(stderr=True)


def _fail(message: str, code: int = 2) -> typer.Exit:
    from rich.text import Text

    # the message is user text (a rules file's "[deck]", a path): never read as Rich markup
    err.print(Text.assemble(("error:", "bold red"), " ", message), highlight=False, soft_wrap=True)
    return typer.Exit(code)


def load_rules(path: Optional[Path]):  # type: ignore[no-untyped-def]
    from .engine import RuleSet, RuleSetError

    if path is None:
        return RuleSet.default()
    try:
        return RuleSet.load(path)
    except RuleSetError as e:
        raise _fail(_suggest(str(e))) from None


def _suggest(message: str) -> str:
    """A rules file's error with a "did you mean" for a misspelt key or card name."""
    import re

    from .sim.paths import did_you_mean

    m = re.search(r"unknown key '([^']+)'; the keys are: (.*)$", message)
    if m:
        return message + did_you_mean(m.group(1), m.group(2).split(", "))
    m = re.search(r"'([^']+)' is not a \w+ card; they are (.*?) \(then", message)
    if m:
        return message + did_you_mean(m.group(1), m.group(2).split(", "))
    return message


@app.command()
def scenario(file: Annotated[Path, typer.Argument(help="scenario file (JSON: rules, state, actions)")]) -> None:
    """Play a scenario file and print the result as one JSON object.

    Every field, the result and each case of exit status 2: the page "Scenario files" of the documentation (docs/scenarios.md).
    """
    from . import scenario as sc

    try:
        result = sc.run(sc.load(file))
    except sc.ScenarioError as e:
        sys.stderr.write(f"civlite scenario: {file}: {e}\n")
        raise typer.Exit(2) from None
    sys.stdout.write(json.dumps(result) + "\n")


@app.command()
def demo(
    players: Annotated[int, typer.Option("--players", "-p", help="number of players (2-8)")] = 2,
    seed: Annotated[int, typer.Option(help="random seed of the game (the deal Game(players, seed=S) deals)")] = 1,
    rules: Annotated[Optional[Path], typer.Option(help="rule-set TOML file, or a built-in rule set: default, balanced")] = None,
    bots: Annotated[str, typer.Option(help="comma-separated bot specs, one per seat or one for all")] = "random",
) -> None:
    """Play one seeded game between bots and print the dealt hands, then the game turn by turn, citing the rules."""
    from .engine import ALL_CARDS, Event, Game

    rs = load_rules(rules)
    try:
        game = Game(players=players, seed=seed, rules=rs)
    except ValueError as e:
        raise _fail(str(e)) from None
    policies = _policies(bots, players, seed)
    out = Console()
    out.rule(f"Civ Lite: {players} players, seed {seed}, rules {rs.name!r}")
    # the deal (one seed, one deal: the same hands as every interface's reset(seed=S)); seat 0's
    # first Rise draw follows in the log
    rise = [c for e in game.opening_events if e.kind == "draw" for c in e.secret]
    for seat, hand in enumerate(game.hands):
        dealt = [c for c in hand if c not in rise] if seat == 0 else hand
        out.print(f"seat {seat} was dealt {', '.join(ALL_CARDS[c].name for c in dealt)}", highlight=False)

    def show(events: Sequence[Event]) -> None:
        for ev in events:
            style = "bold yellow" if ev.kind in ("turn", "win", "draw_game") else ""
            if ev.kind == "turn":
                cts = "  ".join(f"s{i}:{c}" for i, c in enumerate(game.ct))
                out.rule(f"turn {ev.turn} · seat {ev.player} · CT {cts}", style="dim")
            else:
                out.print(ev.describe(), style=style, highlight=False)

    show(game.opening_events)  # the first turn and its Rise happen in Game(...)
    while not game.is_over:
        p = game.to_move
        assert p is not None
        show(game.apply(policies[p](game, p)))
    outcome = game.outcome()
    assert outcome is not None
    style = "bold" if outcome.is_draw else "bold green"
    out.print(f"[{style}]{outcome.describe()} after {game.turn} turns[/]")


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
    file: Annotated[Optional[Path], typer.Argument(help="rule-set TOML (or a built-in rule set: default, balanced) to check and print")] = None,
) -> None:
    """Print a rule set (the default, or FILE after checking it) as editable TOML; warn (on stderr)
    about designs that cannot work."""
    from rich.text import Text

    rs = load_rules(file)
    for w in rs.design_warnings():
        err.print(Text.assemble(("warning:", "bold yellow"), " ", w), highlight=False, soft_wrap=True)
    sys.stdout.write(rs.to_toml())


@app.command()
def play(
    seats: Annotated[Optional[str], typer.Option(
        "--seats", "-s",
        help="comma-separated seats, each 'human', 'human:NAME', a name, or a bot spec (random, heuristic, "
             "ismcts, ismcts:seconds=1); given: the game starts at once, else a set-up screen opens")] = None,
    rules: Annotated[Optional[Path], typer.Option(help="rule-set TOML file, or a built-in rule set: default, balanced")] = None,
    seed: Annotated[Optional[int], typer.Option(help="random seed of the game")] = None,
    resume: Annotated[Optional[Path], typer.Option(help="a saved game (record file) to play on")] = None,
    cont: Annotated[bool, typer.Option("--continue", "-c",
                                       help="play on the last unfinished game saved in the user data dir")] = False,
    save: Annotated[Optional[Path], typer.Option(
        help="save the record to this file after every move (default: a new file in the user data dir)")] = None,
    delay: Annotated[float, typer.Option(
        help="seconds a bot waits before it moves, 0 to 60 (the speed; + and - change it)")] = 0.6,
) -> None:
    """Play in the terminal (Textual app): humans hot-seat and bots, at one table."""
    try:
        from .tui import CivliteApp, Session, parse_seats
        from .tui.screens import SetupScreen
        from .tui.session import check_writable, unfinished_games
    except ImportError as e:  # pragma: no cover - depends on the install
        raise _fail(f"the terminal app needs the tui extra: pip install 'civlite[tui]' ({e})") from None
    from .engine import RecordError
    from .tui.options import delay_error

    why = delay_error(delay)
    if why is not None:
        raise _fail(f"--delay: {why}")
    rs = load_rules(rules)
    passed_over: list[str] = []
    if cont:
        if resume is not None:
            raise _fail("--continue and --resume both name a game to play on: give one")
        resume, skipped = unfinished_games()
        passed_over = [f"--continue skipped {why}" for why in skipped]
        for line in passed_over:
            err.print(line, highlight=False, soft_wrap=True)
        if resume is None:
            raise _fail("--continue: no unfinished game is saved (civlite play starts a new one)")
    session = None
    try:
        if save is not None:
            check_writable(save)
        specs = parse_seats(seats) if seats is not None else None
        if resume is not None:
            session = Session.resume(resume, seats=specs, save_path=save)
        elif specs is not None:
            session = Session.new(specs, rules=rs, seed=seed, save_path=save)
    except (RecordError, ValueError, OSError) as e:
        raise _fail(str(e)) from None
    if cont and session is not None:
        session.notices += passed_over  # said again at the table (this output is hidden while it runs)
    setup = SetupScreen(rules_path=str(rules) if rules else "", seed="" if seed is None else str(seed))
    tui = CivliteApp(session, delay=delay, save_path=save, setup=setup)
    tui.run()
    if tui.session is not None and tui.session.save_path is not None and not tui.session.game.is_over:
        also = "(or --continue)" if tui.session.begun else "(not --continue: no player has moved yet)"
        err.print(f"The game is saved in {tui.session.save_path}: "
                  f"civlite play --resume {tui.session.save_path} {also} plays on.", highlight=False)
    if tui.return_code:
        raise typer.Exit(tui.return_code)


@app.command()
def replay(file: Annotated[Path, typer.Argument(help="a saved game (record file)")]) -> None:
    """Step through a saved game in the terminal, forward and back."""
    try:
        from .tui import Replay, ReplayApp
    except ImportError as e:  # pragma: no cover - depends on the install
        raise _fail(f"the terminal app needs the tui extra: pip install 'civlite[tui]' ({e})") from None
    from .engine import RecordError

    try:
        rec = Replay.load(file)
    except (RecordError, ValueError) as e:
        raise _fail(str(e)) from None
    tui = ReplayApp(rec)
    tui.run()
    if tui.return_code:
        raise typer.Exit(tui.return_code)


@app.command()
def review(
    file: Annotated[Path, typer.Argument(help="a finished game's record file")],
    seat: Annotated[int, typer.Option("--seat", "-s", help="the seat whose decisions are rated (from 0)")],
    budget: Annotated[int, typer.Option(help="search iterations per decision (more: steadier estimates)")] = 800,
    seed: Annotated[int, typer.Option(help="the search's seed (the same seed, the same review)")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object instead of a table")] = False,
    workers: Annotated[Optional[int], typer.Option(help="processes to rate in (default: one a core)")] = None,
) -> None:
    """Rate every decision of one seat in a finished game, from what that seat could see."""
    from .review.cli import review_command

    review_command(file=file, seat=seat, budget=budget, seed=seed, json_out=json_out, workers=workers,
                   fail=_fail)


@app.command()
def tutorial(
    delay: Annotated[float, typer.Option(help="seconds the tutor bot waits before it moves")] = 0.6,
) -> None:
    """A first game that teaches: a fixed practice deal against the easy bot, each phase, ability
    and the meld explained as you meet them."""
    try:
        from .tui.app import TutorialApp
    except ImportError as e:  # pragma: no cover - depends on the install
        raise _fail(f"the terminal app needs the tui extra: pip install 'civlite[tui]' ({e})") from None
    if delay < 0:
        raise _fail(f"--delay must be 0 or more seconds, got {delay:g}")
    tui = TutorialApp(delay=delay)
    tui.run()
    if tui.return_code:
        raise typer.Exit(tui.return_code)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8000,
    db: Annotated[Optional[str], typer.Option(
        help="database URL: sqlite:///file.db or postgresql://user@host/db (default: SQLite in the user data dir)")] = None,
    bot_delay: Annotated[Optional[float], typer.Option(help="seconds a bot waits before it plays (default 0.8)")] = None,
    rate_limit: Annotated[Optional[float], typer.Option(
        help="messages a second one connection may send (default 20, bursts of twice that; 0: no limit)")] = None,
    bot_processes: Annotated[Optional[int], typer.Option(
        help="worker processes in which search bots think (default: one per core; 0: in threads)")] = None,
    allow_host: Annotated[Optional[list[str]], typer.Option(
        help="a Host name to serve besides loopback and --host, e.g. play.example.org (repeatable; '*': any)")] = None,
    allow_origin: Annotated[Optional[list[str]], typer.Option(
        help="another origin whose pages may open the WebSocket, e.g. https://example.org (repeatable)")] = None,
    ssl_keyfile: Annotated[Optional[str], typer.Option(help="TLS private key (PEM), with --ssl-certfile")] = None,
    ssl_certfile: Annotated[Optional[str], typer.Option(help="TLS certificate chain (PEM), with --ssl-keyfile")] = None,
    tables_per_minute: Annotated[Optional[float], typer.Option(
        help="tables one client address may create a minute (default 10; 0: no limit)")] = None,
    connections_per_address: Annotated[Optional[int], typer.Option(
        help="WebSockets one client address may hold open (default 32)")] = None,
    trust_proxy: Annotated[Optional[list[str]], typer.Option(
        help="a reverse proxy's address or network whose X-Forwarded-For names the client (repeatable; "
        "default: none)")] = None,
    abandoned_seconds: Annotated[Optional[float], typer.Option(
        help="a table where nobody has acted this long is marked abandoned in the lobby (default 3600)")] = None,
    close_seconds: Annotated[Optional[float], typer.Option(
        help="an abandoned table is closed after this long without a move (default 604800; 0: never)")] = None,
    rules: Annotated[Optional[list[Path]], typer.Option(
        help="a rule-set TOML file the lobby offers beside its own, by its name (repeatable)")] = None,
    log_level: Annotated[Optional[str], typer.Option(
        help="the least level logged: critical, error, warning, info or debug (default CIVLITE_LOG_LEVEL, "
        "else warning)")] = None,
) -> None:
    """Play online: start the web server (lobby, tables, bots in seats) and print its URL."""
    try:
        from .server.run import serve as run_server
    except ImportError as e:
        raise _fail(f"the server needs the play extra: pip install 'civlite[play]' ({e})") from None
    settings: dict[str, Any] = {k: v for k, v in (("tables_per_minute", tables_per_minute),
                                  ("connections_per_address", connections_per_address),
                                  ("trusted_proxies", trust_proxy), ("abandoned_seconds", abandoned_seconds),
                                  ("close_seconds", close_seconds)) if v is not None}
    if rules:
        from .server.lobby import offered_rulesets

        settings["rulesets"] = [load_rules(p) for p in rules]
        try:
            offered_rulesets(settings["rulesets"])
        except ValueError as e:
            raise _fail(str(e)) from None
    run_server(host, port, db, bot_delay, log_level=log_level, rate_limit=rate_limit, bot_processes=bot_processes,
               allow_hosts=allow_host, allow_origins=allow_origin, ssl_keyfile=ssl_keyfile,
               ssl_certfile=ssl_certfile, **settings)


# -- balance lab (civlite.sim) ------------------------------------------------------
@app.command()
def sim(
    bots: Annotated[str, typer.Option(help="comma-separated bot specs: the line-up, padded with the last spec")] = "heuristic,random",
    players: Annotated[int, typer.Option("--players", "-p", help="players per game")] = 2,
    games: Annotated[int, typer.Option("--games", "-n", help="number of games")] = 1000,
    seed: Annotated[int, typer.Option(help="seed of the run (game i is seeded from (seed, i))")] = 1,
    rules: Annotated[Optional[Path], typer.Option(help="rule-set TOML file, or a built-in rule set: default, balanced")] = None,
    workers: Annotated[Optional[int], typer.Option(help="worker processes (default: all cores)")] = None,
    backend: Annotated[str, typer.Option(help="local (multiprocessing) or ray")] = "local",
    ray_address: Annotated[Optional[str], typer.Option(help="address of a Ray cluster (default: a local ray.init)")] = None,
    out: Annotated[Path, typer.Option(help="output directory (games.jsonl, summary.json)")] = Path("sim-out"),
    json_out: Annotated[bool, typer.Option("--json", help="print summary.json on stdout")] = False,
    resume: Annotated[bool, typer.Option(help="continue the run in --out: play only the games it lacks "
                                               "(same bots, players, seed and rules; --games may be larger, "
                                               "never smaller: the games it holds are kept)")] = False,
    force: Annotated[bool, typer.Option(help="overwrite a run already in --out")] = False,
) -> None:
    """Simulate many games between bots (seats rotated) and write records and a summary."""
    from .sim import cli as simcli

    simcli.sim_command(bots=bots, players=players, games=games, seed=seed, rules=load_rules(rules),
                       workers=workers, backend=backend, ray_address=ray_address, out=out,
                       json_out=json_out, fail=_fail, resume=resume, force=force)


@app.command()
def export(
    run: Annotated[Path, typer.Argument(help="a civlite sim run (its --out folder, or its games.jsonl)")],
    out: Annotated[Path, typer.Option(help="output folder (decisions.parquet)")] = Path("dataset"),
) -> None:
    """Write a run's games as Parquet, one row per decision: seat, numeric view, legal mask, action, outcome."""
    try:
        from .rl.dataset import export_run
    except ImportError as e:  # pragma: no cover - depends on the install
        raise _fail(f"export needs numpy and pyarrow: pip install 'civlite[rl]' ({e})") from None
    from .engine import RecordError

    if not run.exists():
        raise _fail(f"{run}: no such run (give a civlite sim --out folder or its games.jsonl)")
    try:
        res = export_run(run, out)
    except (RecordError, ValueError) as e:
        raise _fail(f"{run}: {e}") from None
    except OSError as e:
        raise _fail(f"{e.filename or run}: {e.strerror or e}") from None
    err.print(f"{res.games} games, {res.rows} decisions -> {res.path}", highlight=False)


@app.command()
def dataset(
    out: Annotated[Path, typer.Option(help="output folder: games/ (the records) and decisions.parquet")] = Path("dataset"),
    games: Annotated[int, typer.Option("--games", "-n", help="number of self-play games")] = 1000,
    players: Annotated[int, typer.Option("--players", "-p", help="players per game")] = 2,
    bot: Annotated[str, typer.Option(help="the bot of every seat (default: hard, the best fast bot)")] = "hard",
    seed: Annotated[int, typer.Option(help="seed of the run (game i is seeded from (seed, i))")] = 1,
    rules: Annotated[Optional[Path], typer.Option(help="rule-set TOML file, or a built-in rule set: default, balanced")] = None,
    workers: Annotated[Optional[int], typer.Option(help="worker processes (default: all cores)")] = None,
    force: Annotated[bool, typer.Option(help="overwrite a data set already in --out")] = False,
) -> None:
    """Make a data set of strong self-play games in one command: simulate, then export to Parquet."""
    from .sim import cli as simcli

    simcli.sim_command(bots=bot, players=players, games=games, seed=seed, rules=load_rules(rules),
                       workers=workers, backend="local", ray_address=None, out=out / "games",
                       json_out=False, fail=_fail, force=force)
    export(run=out / "games", out=out)


@app.command()
def report(
    run: Annotated[Path, typer.Argument(help="a run directory written by civlite sim")],
    out: Annotated[Optional[Path], typer.Option(help="where to write report.html and PNGs (default: RUN)")] = None,
) -> None:
    """Write a self-contained HTML balance report (with PNG charts) for a simulation run."""
    from .sim import cli as simcli

    simcli.report_command(run, out, fail=_fail)


@app.command()
def compare(
    run_a: Annotated[Path, typer.Argument(help="first run directory")],
    run_b: Annotated[Path, typer.Argument(help="second run directory")],
    out: Annotated[Optional[Path], typer.Option(help="also write compare.html there")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the comparison as JSON")] = False,
    correction: Annotated[str, typer.Option(help="multiple-test correction: holm, fdr_bh (Benjamini-Hochberg) or none")] = "holm",
    edge: Annotated[float, typer.Option(help="power analysis: games needed to detect an edge of this many points")] = 2.0,
    force: Annotated[bool, typer.Option(help="compare runs of different player counts anyway (the result says so)")] = False,
) -> None:
    """Compare two runs side by side; flag the significant differences (corrected for multiple tests)."""
    from .sim import cli as simcli

    simcli.compare_command(run_a, run_b, out, json_out, fail=_fail, correction=correction, edge=edge, force=force)


@app.command()
def balance(
    skills: Annotated[str, typer.Option(help="comma-separated bot specs or level names, weakest first")] = "heuristic,policy,expert",
    players: Annotated[str, typer.Option("--players", "-p", help="a player count, or several (2,3,4,6): the balance matrix")] = "2",
    edge: Annotated[float, typer.Option(help="the goal: every seat within its fair share ± this many points (the matrix's verdicts)")] = 1.5,
    resume: Annotated[bool, typer.Option(help="keep the games --out already holds; play only the rest")] = False,
    games: Annotated[int, typer.Option("--games", "-n", help="self-play games per skill level")] = 2000,
    seed: Annotated[int, typer.Option(help="seed: every level plays the same deals")] = 1,
    rules: Annotated[Optional[Path], typer.Option(help="rule-set TOML file, or a built-in rule set: default, balanced")] = None,
    mixed: Annotated[bool, typer.Option("--mixed/--no-mixed", help="also play each later level in one seat against an earlier one in the others")] = True,
    mixed_games: Annotated[Optional[int], typer.Option(help="games per mixed table (default: --games)")] = None,
    workers: Annotated[Optional[int], typer.Option(help="worker processes (default: all cores)")] = None,
    backend: Annotated[str, typer.Option(help="local (multiprocessing) or ray")] = "local",
    out: Annotated[Path, typer.Option(help="output directory (balance.html/.md/.json, skills.png, one run per table)")] = Path("balance-out"),
    json_out: Annotated[bool, typer.Option("--json", help="print balance.json on stdout")] = False,
    force: Annotated[bool, typer.Option(help="overwrite a report already in --out")] = False,
) -> None:
    """Fairness at every skill level (and, with several --players, at every table size: the balance matrix)."""
    from .sim import cli as simcli

    simcli.balance_command(skills=skills, players=players, games=games, seed=seed, rules=load_rules(rules),
                           workers=workers, backend=backend, mixed=mixed, mixed_games=mixed_games, out=out,
                           json_out=json_out, fail=_fail, force=force, edge=edge, resume=resume)


@app.command()
def cards(
    file: Annotated[Optional[Path], typer.Argument(help="rule-set TOML, or a built-in rule set: default, balanced (default: the standard rules)")] = None,
    out: Annotated[Path, typer.Option(help="the PDF to write")] = Path("deck.pdf"),
    paper: Annotated[str, typer.Option(help="a4 or letter")] = "a4",
) -> None:
    """Print-and-play: every card of the rule set's deck (name, suit, both abilities) and a rules summary, as a PDF."""
    from .sim import cli as simcli

    simcli.cards_command(rules=load_rules(file), out=out, paper=paper, fail=_fail)


@app.command()
def sweep(
    param: Annotated[str, typer.Option(help="rule path and values: victory_ct=12..24:4, basic.W.cards=1,2, "
                                            "start_ct=[0,0],[0,1], advanced.M.effects='steal_cards 3|steal_cards 4'")],
    bots: Annotated[str, typer.Option(help="comma-separated bot specs")] = "heuristic",
    players: Annotated[int, typer.Option("--players", "-p")] = 2,
    games: Annotated[int, typer.Option("--games", "-n", help="games per value")] = 500,
    seed: Annotated[int, typer.Option()] = 1,
    rules: Annotated[Optional[Path], typer.Option(help="base rule-set TOML file, or a built-in rule set: default, balanced")] = None,
    workers: Annotated[Optional[int], typer.Option()] = None,
    backend: Annotated[str, typer.Option()] = "local",
    out: Annotated[Path, typer.Option(help="output directory (one run per value + sweep.html)")] = Path("sweep-out"),
    json_out: Annotated[bool, typer.Option("--json", help="print sweep.json on stdout")] = False,
    force: Annotated[bool, typer.Option(help="overwrite a sweep already in --out")] = False,
) -> None:
    """Run one simulation per value of a rule path (any rule, not only numbers) and plot each metric against it."""
    from .sim import cli as simcli

    simcli.sweep_command(param=param, bots=bots, players=players, games=games, seed=seed,
                         rules=load_rules(rules), workers=workers, backend=backend, out=out,
                         json_out=json_out, fail=_fail, force=force)


@app.command()
def ablate(
    bots: Annotated[str, typer.Option(help="comma-separated bot specs")] = "heuristic",
    players: Annotated[int, typer.Option("--players", "-p")] = 2,
    games: Annotated[int, typer.Option("--games", "-n", help="games per rule set")] = 500,
    seed: Annotated[int, typer.Option()] = 1,
    rules: Annotated[Optional[Path], typer.Option(help="base rule-set TOML file, or a built-in rule set: default, balanced")] = None,
    mode: Annotated[str, typer.Option(help="off: remove each ability in turn; dearer: one card more; strength: "
                                           "one seat alone may use it, then alone may not")] = "off",
    correction: Annotated[str, typer.Option(help="correction over the abilities: holm or fdr_bh")] = "holm",
    only: Annotated[Optional[str], typer.Option(help="comma-separated ability names or paths (basic.W)")] = None,
    workers: Annotated[Optional[int], typer.Option()] = None,
    backend: Annotated[str, typer.Option()] = "local",
    out: Annotated[Path, typer.Option(help="output directory (ablation.html, ablation.json)")] = Path("ablate-out"),
    json_out: Annotated[bool, typer.Option("--json", help="print ablation.json on stdout")] = False,
    force: Annotated[bool, typer.Option(help="overwrite an ablation already in --out")] = False,
) -> None:
    """Turn each ability off (or make it dearer) in turn; measure the change in seat edge, length and win rates."""
    from .sim import cli as simcli

    simcli.ablate_command(bots=bots, players=players, games=games, seed=seed, rules=load_rules(rules),
                          workers=workers, backend=backend, mode=mode, only=only, out=out, json_out=json_out,
                          fail=_fail, force=force, correction=correction)


@app.command()
def tune(
    space: Annotated[Path, typer.Argument(help="tuning space TOML: a tune table, a goal table and param tables (see examples/tune/ and civlite.sim.tune)")],
    out: Annotated[Path, typer.Option(help="output directory (best-N.toml, tune.json, tune.md)")] = Path("tune-out"),
    trials: Annotated[Optional[int], typer.Option(help="variants to try (overrides the file)")] = None,
    games: Annotated[Optional[int], typer.Option("--games", "-n", help="most games per variant (overrides the file)")] = None,
    seed: Annotated[Optional[int], typer.Option(help="seed (overrides the file)")] = None,
    workers: Annotated[Optional[int], typer.Option(help="worker processes (default: all cores)")] = None,
    backend: Annotated[str, typer.Option(help="local (multiprocessing) or ray")] = "local",
    json_out: Annotated[bool, typer.Option("--json", help="print tune.json on stdout")] = False,
    force: Annotated[bool, typer.Option(help="overwrite a tuning run already in --out")] = False,
) -> None:
    """Search a declared space of rule changes (Optuna, with pruning) for a fair, well-paced variant."""
    from .sim import cli as simcli

    simcli.tune_command(space=space, out=out, workers=workers, backend=backend, json_out=json_out, fail=_fail,
                        force=force, overrides={"trials": trials, "games": games, "seed": seed})


@app.command()
def ladder(
    bots: Annotated[str, typer.Option(help="comma-separated bot specs or level names")] = "easy,medium,hard,champion",
    games: Annotated[int, typer.Option("--games", "-n", help="games per pair at 2 players (even: seats alternate)")] = 200,
    seed: Annotated[int, typer.Option(help="seed: game i of every pairing is dealt from (seed, i)")] = 1,
    anchor: Annotated[Optional[str], typer.Option(help="the bot that fixes the scale (default: medium if listed, else the first)")] = None,
    anchor_rating: Annotated[float, typer.Option(help="the anchor's rating")] = 1500.0,
    reference: Annotated[str, typer.Option(help="the field table: each bot against copies of this one ('' for none)")] = "medium",
    field_players: Annotated[int, typer.Option(help="players at the field table")] = 4,
    field_games: Annotated[Optional[int], typer.Option(help="games per bot at the field table (default: --games)")] = None,
    round_robin: Annotated[bool, typer.Option("--round-robin/--no-round-robin", help="play the 2-player round robin")] = True,
    target_se: Annotated[Optional[float], typer.Option(help="add games until every rating's standard error is at most this (Elo)")] = None,
    max_games: Annotated[Optional[int], typer.Option(help="with --target-se: most games per pair (default 8 x --games)")] = None,
    workers: Annotated[Optional[int], typer.Option(help="worker processes (default: all cores)")] = None,
    out: Annotated[Path, typer.Option(help="output directory (ladder.json, ladder.md, every pairing's games)")] = Path("ladder-out"),
    json_out: Annotated[bool, typer.Option("--json", help="print ladder.json on stdout")] = False,
    resume: Annotated[bool, typer.Option(help="keep the games --out already holds; play only the rest")] = False,
    force: Annotated[bool, typer.Option(help="overwrite a ladder already in --out")] = False,
) -> None:
    """Rate bots: a 2-player round robin (Bradley-Terry Elo with intervals) and one bot against a field."""
    from .sim import cli as simcli
    from .sim.simulator import split_bots

    if anchor is None:
        try:
            names = split_bots(bots)
        except ValueError:
            names = ()
        anchor = "medium" if "medium" in names else (names[0] if names else None)
    simcli.ladder_command(bots=bots, games=games, seed=seed, anchor=anchor, anchor_rating=anchor_rating,
                          reference=reference, field_players=field_players, field_games=field_games,
                          two_player=round_robin, target_se=target_se, max_games=max_games, workers=workers,
                          out=out, json_out=json_out, fail=_fail, resume=resume, force=force)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
