"""Bodies of the ``civlite sim|report|compare|sweep`` commands (``civlite.cli`` keeps thin wrappers)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..engine import RuleSet, RuleSetError

Fail = Callable[..., Exception]


def _specs(bots: str, fail: Fail) -> tuple[str, ...]:
    from .simulator import split_bots

    try:
        return split_bots(bots, strict=True)
    except ValueError as e:
        raise fail(str(e)) from None


def check_common(*, players: int, workers: int | None, games: int | None, fail: Fail) -> None:
    """The numbers every simulating command takes: one-line errors before anything is written."""
    if not 2 <= players <= 8:
        raise fail(f"--players must be 2 to 8, got {players}")
    if workers is not None and workers < 1:
        raise fail(f"--workers must be at least 1 (leave it out to use all cores), got {workers}")
    if games is not None and games < 1:
        raise fail(f"--games must be at least 1, got {games}")


@contextmanager
def run_errors(out: Path, fail: Fail, con: Console, kept: str) -> Iterator[None]:
    """A long run's errors as one-line failures: Ctrl-C says what is ``kept`` (``{out}`` is
    filled in) and exits 130, a bad setting or a failed run is its message, an OSError names
    ``--out``."""
    try:
        yield
    except KeyboardInterrupt:
        con.print("interrupted: " + kept.format(out=out))
        raise SystemExit(130) from None
    except (ValueError, RuntimeError) as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"--out {out}: {e.strerror or e}") from None


def check_out(out: Path, *, fail: Fail, force: bool = False, resume: bool = False, may_hold: bool = False,
              flag: str = "--out") -> None:
    """Refuse an output directory that is a file, cannot be created or written, or (unless
    ``force``, ``resume`` or ``may_hold``) already holds files. Creates it; changes nothing else."""
    if out.exists() and not out.is_dir():
        raise fail(f"{flag} {out}: is a file, not a directory")
    if out.is_dir() and not (force or resume or may_hold) and any(out.iterdir()):
        raise fail(f"{flag} {out}: already holds files (a previous run?); --resume continues it, "
                   "--force overwrites it, or choose another directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise fail(f"{flag} {out}: cannot create the directory ({e.strerror or e})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise fail(f"{flag} {out}: the directory is not writable")
    try:  # os.access can say yes where writing fails (/proc, read-only mounts)
        probe = out / ".civlite-write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as e:
        raise fail(f"{flag} {out}: cannot write there ({e.strerror or e})") from None


def warning_text(message: str) -> Text:
    """``warning: message`` with the message as plain text: words in square brackets (a rules
    file's ``[deck]``, a list ``[]``) are never read as Rich markup."""
    return Text.assemble(("warning:", "bold yellow"), " ", message)


def warn_design(rules: RuleSet, players: int | None, con: Console, label: str = "") -> None:
    """Print the rule set's design warnings (``RuleSet.design_warnings``) on ``con``."""
    for w in rules.design_warnings(players):
        con.print(warning_text(f"{label}{w}"), highlight=False, soft_wrap=True)


def sim_command(*, bots: str, players: int, games: int, seed: int, rules: RuleSet, workers: int | None,
                backend: str, ray_address: str | None, out: Path, json_out: bool, fail: Fail,
                resume: bool = False, force: bool = False) -> None:
    from .simulator import SimConfig, simulate

    check_common(players=players, workers=workers, games=games, fail=fail)
    if resume and force:
        raise fail("--resume and --force do not go together: --resume keeps the run in --out, --force replaces it")
    try:
        cfg = SimConfig(bots=_specs(bots, fail), players=players, games=games, seed=seed, rules=rules)
    except ValueError as e:
        raise fail(str(e)) from None
    if backend not in ("local", "ray"):
        raise fail(f"--backend must be local or ray, got {backend!r}")
    check_out(out, fail=fail, force=force, resume=resume)
    err = Console(stderr=True, markup=False)
    warn_design(rules, players, err)
    try:
        res = simulate(cfg, out=out, workers=workers, backend=backend, ray_address=ray_address,
                       progress=sys.stderr.isatty() or not json_out, resume=resume)
    except (RuntimeError, ValueError) as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"--out {out}: {e.strerror or e}") from None
    g = res.summary["games"]
    played = g - res.resumed
    rate = played / res.seconds if res.seconds > 0 else 0.0
    note = " (interrupted: finished games kept)" if res.interrupted else ""
    kept = f" + {res.resumed} resumed" if res.resumed else ""
    err.print(f"{played} games{kept} in {res.seconds:.1f} s ({rate:.1f} games/s){note} -> {out}/", highlight=False)
    if res.config.games > games:
        err.print(f"the run already held games up to number {res.config.games}; all are kept (--resume never "
                  "shrinks a run)", highlight=False)
    if json_out:
        sys.stdout.write(json.dumps(res.summary) + "\n")
    else:
        err.print(summary_line(res.summary), highlight=False, soft_wrap=True)
    if res.interrupted:
        raise SystemExit(130)


def summary_line(summary: dict[str, Any]) -> str:
    """``sim``'s one-line summary: win rates per bot and seat (with 95% intervals), draws, length."""
    from .stats import wilson

    g = int(summary["games"])
    n = int(summary["players"])
    if g == 0:
        return "no games finished"
    lineup = list(summary["bots"])
    seats_of = {spec: lineup.count(spec) for spec in dict.fromkeys(lineup)}
    parts = []
    for spec, k in summary["wins"].items():
        played = g * seats_of.get(spec, 1)  # seat-games: seats rotate, so each spec plays its share
        p, lo, hi = wilson(int(k), played)
        parts.append(f"{spec} {100 * p:.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]")
    decided = g - int(summary["draws"])
    seats = []
    for s, k in enumerate(summary["seat_wins"]):
        p, lo, hi = wilson(int(k), decided)
        seats.append(f"{s}: {100 * p:.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]")
    t = summary["turns"]
    return (f"wins: {'; '.join(parts)} | seat wins (fair {100 / n:.1f}%) {'; '.join(seats)} | "
            f"draws {summary['draws']} ({100 * int(summary['draws']) / g:.1f}%) | "
            f"length: median {t['p50']:g} turns ({t['p50'] / n:.1f} rounds), mean {t['mean']:.1f}, "
            f"90% within {t['p90']:.0f}")


def report_command(run: Path, out: Path | None, *, fail: Fail) -> None:
    from .report import build_report

    if not (run / "summary.json").exists():
        raise fail(f"{run}: no summary.json (is it a directory written by civlite sim?)")
    check_out(out if out is not None else run, fail=fail, may_hold=True)
    try:
        a = build_report(run, out)
    except (ValueError, KeyError) as e:
        raise fail(f"{run}: {e}") from None
    except OSError as e:
        raise fail(f"--out {out if out is not None else run}: {e.strerror or e}") from None
    con = Console(stderr=True, markup=False)
    con.print(a["first_player"], highlight=False)
    con.print(f"bots: {a['lineup']}", highlight=False)
    for b in a["bots"]:
        lo, hi = b["ci95"]
        con.print(f"  {b['bot']}: {100 * b['win_rate']:.1f}% (95% CI {100 * lo:.1f}–{100 * hi:.1f}%)", highlight=False)
    sys.stdout.write(a["files"]["report.html"] + "\n")


def compare_command(run_a: Path, run_b: Path, out: Path | None, json_out: bool, *, fail: Fail,
                    correction: str = "holm", edge: float = 2.0, force: bool = False) -> None:
    from .compare import CORRECTIONS, ci_text, compare_runs, fmt, write_compare

    if correction not in CORRECTIONS:
        raise fail(f"--correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    if not 0 < edge < 50:
        raise fail(f"--edge must be between 0 and 50 points, got {edge:g}")

    from .compare_matrix import compare_balance, compare_balance_md, is_balance_dir

    if is_balance_dir(run_a) and is_balance_dir(run_b):  # two balance reports: cell by cell
        try:
            cmp = compare_balance(run_a, run_b, correction if correction != "none" else "none")
            md = compare_balance_md(cmp)
            if out is not None:
                check_out(out, fail=fail, may_hold=True)
                (out / "compare.md").write_text(md, encoding="utf-8")
                (out / "compare.json").write_text(json.dumps(cmp, indent=1) + "\n", encoding="utf-8")
        except (ValueError, KeyError) as e:
            raise fail(str(e)) from None
        except OSError as e:
            raise fail(f"--out {out}: {e.strerror or e}") from None
        sys.stdout.write(json.dumps(cmp) + "\n" if json_out else md)
        return
    for r in (run_a, run_b):
        if not (r / "summary.json").exists():
            raise fail(f"{r}: no summary.json (is it a directory written by civlite sim, or by civlite balance?)")
    if out is not None:
        check_out(out, fail=fail, may_hold=True)
    try:
        res = compare_runs(run_a, run_b, correction, edge, force=force)
        if out is not None:
            write_compare(res, out)
    except (ValueError, KeyError) as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"--out {out}: {e.strerror or e}") from None
    if json_out:
        sys.stdout.write(json.dumps(res) + "\n")
        return
    con = Console(markup=False)
    if res["warning"]:
        con.print(warning_text(f"{res['warning']} (compared with --force)"), highlight=False,
                  soft_wrap=True)
    if res["rules_diff"]:
        con.print("rule-set differences: " + "; ".join(res["rules_diff"]), highlight=False)
    con.print(f"A: {run_a} ({res['a']['games']} games); B: {run_b} ({res['b']['games']} games)", highlight=False)
    # five columns that fit 80 characters; the raw p and the games to detect are in --json and --out
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column("metric", justify="left", overflow="fold", max_width=30)
    for col in ("A", "B", "B − A (95% CI)", f"p {res['correction']}"):
        t.add_column(col, justify="right", no_wrap=True)
    for r in res["rows"]:
        style = "bold yellow" if r["significant"] else None
        lo, hi = ci_text(r).split(" … ")
        metric = r["metric"].replace(": activations per game", " uses").replace(": win rate when used",
                                                                                 " win% if used")
        t.add_row(metric, fmt(r, "a"), fmt(r, "b"), f"{fmt(r, 'diff').removesuffix(' pts')} ({lo} to {hi})",
                  f"{r['p_adj']:.2g}" + (" *" if r["significant"] else "  "), style=style)
    con.print(t)
    pw = res["power"]
    con.print(f"*: significant after {res['correction']} correction over {len(res['rows'])} tests (alpha {res['alpha']}); "
              "rates in percent, changes in points; uses: activations per game; "
              f"a first-seat edge of {pw['edge_points']:g} points takes {pw['games_one_run']} games to detect in one run, "
              f"{pw['games_per_run_two_runs']} games per run to tell two runs apart (80% power)", highlight=False)


def cards_command(*, rules: RuleSet, out: Path, paper: str, fail: Fail) -> None:
    """``civlite cards``: the print-and-play deck of a rule set as a PDF."""
    try:
        from .deck_pdf import PAGES, write_deck_pdf
    except ImportError as e:  # pragma: no cover - fpdf2 comes with the sim extra
        raise fail(f"cards needs fpdf2: pip install 'civlite[sim]' ({e})") from None
    if paper.lower() not in PAGES:
        raise fail(f"--paper must be one of {', '.join(PAGES)}, got {paper!r}")
    if out.exists() and out.is_dir():
        raise fail(f"--out {out}: is a directory, not a file")
    try:
        res = write_deck_pdf(rules, out, paper.lower())
    except ImportError as e:
        raise fail(f"cards needs fpdf2: pip install 'civlite[sim]' ({e})") from None
    except OSError as e:
        raise fail(f"--out {out}: {e.strerror or e}") from None
    Console(stderr=True, markup=False).print(
        f"{res['cards']} cards on {res['pages'] - 1} sheets ({res['per_page']} a sheet) and a rules summary page "
        f"-> {out}", highlight=False)


def sweep_command(*, param: str, bots: str, players: int, games: int, seed: int, rules: RuleSet,
                  workers: int | None, backend: str, out: Path, json_out: bool, fail: Fail,
                  force: bool = False) -> None:
    from .paths import format_value
    from .simulator import SimConfig
    from .sweep import check_param, parse_param, sweep

    check_common(players=players, workers=workers, games=games, fail=fail)
    if backend not in ("local", "ray"):
        raise fail(f"--backend must be local or ray, got {backend!r}")
    try:
        name, values = parse_param(param)
        check_param(rules, name, values)
    except (ValueError, RuleSetError) as e:
        raise fail(str(e)) from None
    specs = _specs(bots, fail)
    try:
        for n in (values if name == "players" else [players]):
            SimConfig(bots=specs, players=int(n), games=games, seed=seed, rules=rules)
    except ValueError as e:
        raise fail(str(e)) from None
    check_out(out, fail=fail, force=force)
    con = Console(stderr=True, markup=False)

    def on_value(v: Any) -> None:
        con.print(Text(f"{name} = {format_value(v)}", style="bold"), highlight=False)

    try:
        res: dict[str, Any] = sweep(name, values, specs, players, games, seed, rules, out, workers=workers,
                                    backend=backend, progress=sys.stderr.isatty() or not json_out,
                                    on_value=on_value)
    except ValueError as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"--out {out}: {e.strerror or e}") from None
    if json_out:
        sys.stdout.write(json.dumps(res) + "\n")
    else:
        con.print(f"sweep written to {out}/sweep.html", highlight=False)


def parse_counts(text: str, fail: Fail, flag: str = "--players") -> list[int]:
    """``2`` or ``2,3,4,6``: player counts, each 2 to 8 and named once."""
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise fail(f"{flag} {text!r}: a player count or counts separated by commas, e.g. 2,3,4,6") from None
    if not counts:
        raise fail(f"{flag} {text!r}: no player count")
    for n in counts:
        if not 2 <= n <= 8:
            raise fail(f"{flag} must be 2 to 8, got {n}")
    if len(set(counts)) != len(counts):
        raise fail(f"{flag} {text!r}: a count is named twice")
    return counts


def balance_command(*, skills: str, players: str, games: int, seed: int, rules: RuleSet, workers: int | None,
                    backend: str, mixed: bool, mixed_games: int | None, out: Path, json_out: bool, fail: Fail,
                    force: bool = False, edge: float = 1.5, resume: bool = False) -> None:
    """``civlite balance``: self-play at each skill level and the mixed tables, at one player count
    (the tables) or several (the balance matrix); print the report."""
    from .balance import balance, tables_md
    from .matrix import matrix, matrix_md
    from .simulator import SimConfig

    counts = parse_counts(players, fail)
    check_common(players=counts[0], workers=workers, games=games, fail=fail)
    if mixed_games is not None and mixed_games < 1:
        raise fail(f"--mixed-games must be at least 1, got {mixed_games}")
    if not 0 < edge < 50:
        raise fail(f"--edge must be between 0 and 50 points, got {edge:g}")
    if backend not in ("local", "ray"):
        raise fail(f"--backend must be local or ray, got {backend!r}")
    if resume and force:
        raise fail("--resume and --force do not go together: --resume keeps the runs in --out, --force replaces them")
    specs = _specs(skills, fail)
    if len(set(specs)) != len(specs):
        raise fail(f"--skills {skills!r}: a level is named twice")
    try:
        for spec in specs:
            for n in counts:
                SimConfig(bots=(spec,), players=n, games=games, seed=seed, rules=rules)
    except ValueError as e:
        raise fail(str(e)) from None
    check_out(out, fail=fail, force=force, resume=resume)
    con = Console(stderr=True, markup=False)
    for n in counts:
        warn_design(rules, n, con, f"{n} players: " if len(counts) > 1 else "")
    with run_errors(out, fail, con, "the finished runs are kept in {out}/ (--resume continues)"):
        if len(counts) == 1:
            doc = balance(specs, counts[0], games, seed, rules, out, workers=workers, backend=backend, mixed=mixed,
                          mixed_games=mixed_games, on_run=lambda s: con.print(f"playing {s}", highlight=False),
                          resume=resume)
        else:
            doc = matrix(counts, specs, games, seed, rules, out, edge=edge, workers=workers, backend=backend,
                         mixed=mixed, mixed_games=mixed_games, resume=resume,
                         on_run=lambda s: con.print(f"playing {s}", highlight=False))
    if json_out:
        sys.stdout.write(json.dumps(doc) + "\n")
    else:
        sys.stdout.write(tables_md(doc) if len(counts) == 1 else matrix_md(doc))
    con.print(f"written to {out}/" + ("balance.html, balance.md, balance.json, skills.png" if len(counts) == 1 else
                                      "matrix.html, matrix.md, matrix.json, matrix.png (one balance report a "
                                      "player count in p<N>/)"), highlight=False)


def ablate_command(*, bots: str, players: int, games: int, seed: int, rules: RuleSet, workers: int | None,
                   backend: str, mode: str, only: str | None, out: Path, json_out: bool, fail: Fail,
                   force: bool = False, correction: str = "holm") -> None:
    from .ablate import CORRECTIONS, MODES, ablate, write_ablation
    from .simulator import SimConfig

    check_common(players=players, workers=workers, games=games, fail=fail)
    if mode not in MODES:
        raise fail(f"--mode must be one of {', '.join(MODES)}, got {mode!r}")
    if correction not in CORRECTIONS:
        raise fail(f"--correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    if backend not in ("local", "ray"):
        raise fail(f"--backend must be local or ray, got {backend!r}")
    specs = _specs(bots, fail)
    try:
        SimConfig(bots=specs, players=players, games=games, seed=seed, rules=rules)
    except ValueError as e:
        raise fail(str(e)) from None
    names = [x.strip() for x in only.split(",")] if only else None
    if names is not None and not all(names):
        raise fail(f"--only {only!r}: an empty ability name")
    check_out(out, fail=fail, force=force)
    con = Console(stderr=True, markup=False)
    w = workers or os.cpu_count() or 1
    try:
        res = ablate(rules, specs, players, games, seed, mode=mode, workers=w, backend=backend, only=names,
                     correction=correction,
                     on_ability=lambda name: con.print(f"playing {games} games: {name}", highlight=False))
        write_ablation(res, out)
    except (ValueError, RuntimeError) as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"--out {out}: {e.strerror or e}") from None
    if json_out:
        sys.stdout.write(json.dumps(res) + "\n")
        return
    Console(markup=False).print(ablation_table(res))
    con.print(f"written to {out}/ablation.html", highlight=False)


def ablation_table(res: dict[str, Any]) -> Table:
    """``ablate``'s table: paired changes (or strength swings) with intervals and corrected p-values."""
    corr = res["correction"]
    if res["mode"] == "strength":
        t = Table(title=f"ability strength: {res['games']} paired games per case; focus seat's win rate when only "
                        f"it may use the ability, when only it may not (fair {100 / res['players']:.1f}%)")
        for col in ("ability", "only it may", "only it may not", "swing (pts)", "95% CI", f"p ({corr})"):
            t.add_column(col, justify="left" if col == "ability" else "right")
        for r in sorted(res["rows"], key=lambda r: -r["swing"]["diff"]):
            s = r["swing"]
            t.add_row(r["ability"], f"{100 * r['only']['win_rate']:.1f}%", f"{100 * r['denied']['win_rate']:.1f}%",
                      f"{100 * s['diff']:+.1f}", f"{100 * s['ci95'][0]:+.1f} … {100 * s['ci95'][1]:+.1f}",
                      f"{s['p_adj']:.3g}", style="bold yellow" if s["significant"] else None)
        return t
    b = res["base"]["seat0"]
    t = Table(title=f"ablation ({res['mode']}): {res['games']} paired games per rule set; unchanged: seat 0 wins "
                    f"{100 * b['win_rate']:.1f}%, {res['base']['length_mean']:.1f} turns")
    for col in ("ability", "seat 0 change (pts)", "95% CI", f"p ({corr})", "length change", "95% CI", f"p ({corr}) "):
        t.add_column(col, justify="left" if col == "ability" else "right")
    for r in sorted(res["rows"], key=lambda r: -abs(r["seat0"]["diff"])):
        s, ln = r["seat0"], r["length"]
        t.add_row(r["ability"], f"{100 * s['diff']:+.1f}", f"{100 * s['ci95'][0]:+.1f} … {100 * s['ci95'][1]:+.1f}",
                  f"{s['p_adj']:.3g}", f"{ln['diff']:+.2f}", f"{ln['ci95'][0]:+.2f} … {ln['ci95'][1]:+.2f}",
                  f"{ln['p_adj']:.3g}", style="bold yellow" if s["significant"] or ln["significant"] else None)
    return t


def tune_command(*, space: Path, out: Path, workers: int | None, backend: str, json_out: bool, fail: Fail,
                 force: bool = False, overrides: dict[str, Any] | None = None) -> None:
    from .tune import TuneError, load_space, tune

    if workers is not None and workers < 1:
        raise fail(f"--workers must be at least 1 (leave it out to use all cores), got {workers}")
    if backend not in ("local", "ray"):
        raise fail(f"--backend must be local or ray, got {backend!r}")
    try:
        sp = load_space(space, overrides)
    except (TuneError, ValueError) as e:
        raise fail(str(e)) from None
    check_out(out, fail=fail, force=force)
    con = Console(stderr=True, markup=False)
    for n in sp.players:
        warn_design(sp.rules, n, con, f"the base rules at {n} players: " if len(sp.players) > 1 else "the base rules: ")
    from .tune import variant_warnings

    for params, warnings in variant_warnings(sp):
        for w in warnings:
            con.print(warning_text(f"the variant {params}: {w}"), highlight=False, soft_wrap=True)
    try:
        res = tune(sp, out, workers=workers, backend=backend, log=lambda s: con.print(s, highlight=False))
    except ImportError as e:
        raise fail(f"tune needs Optuna: pip install 'civlite[sim]' ({e})") from None
    except (ValueError, RuntimeError) as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"--out {out}: {e.strerror or e}") from None
    files = sorted(str(out / r["file"]) for r in res["trials"] if "file" in r)
    con.print((f"passed the confirmation: {', '.join(files)}" if files else
               "no variant passed the confirmation: no best-N.toml written")
              + f"; report: {out}/tune.md", highlight=False)
    if json_out:
        sys.stdout.write(json.dumps(res) + "\n")


def ladder_command(*, bots: str, games: int, seed: int, anchor: str | None, anchor_rating: float,
                   reference: str, field_players: int, field_games: int | None, two_player: bool,
                   target_se: float | None, max_games: int | None, workers: int | None, out: Path,
                   json_out: bool, fail: Fail, resume: bool = False, force: bool = False) -> None:
    """``civlite ladder``: play, fit, print the tables and write ladder.json and ladder.md."""
    from ..bots import make_bot
    from .ladder import run_ladder

    specs = _specs(bots, fail)
    check_common(players=field_players, workers=workers, games=games, fail=fail)
    if len(set(specs)) < 2:
        raise fail("--bots: the ladder needs at least two different bots")
    if games < 2 or games % 2:
        raise fail(f"--games must be even and at least 2 (seats alternate), got {games}")
    if field_players < 3:
        raise fail(f"--field-players must be 3 to 8 (2 players is the round robin), got {field_players}")
    if field_games is not None and field_games < 1:
        raise fail(f"--field-games must be at least 1, got {field_games}")
    if target_se is not None and target_se <= 0:
        raise fail(f"--target-se must be above 0 Elo, got {target_se:g}")
    if max_games is not None and max_games < games:
        raise fail(f"--max-games ({max_games}) is below --games ({games})")
    if anchor is not None and anchor not in specs:
        raise fail(f"--anchor {anchor!r} is not one of --bots ({', '.join(specs)})")
    if not two_player and not reference:
        raise fail("nothing to play: --no-round-robin and no --reference")
    for spec in (*specs, *([reference] if reference else [])):
        try:
            make_bot(spec, seed=0)
        except ValueError as e:
            raise fail(str(e)) from None
    if resume and force:
        raise fail("--resume and --force do not go together")
    check_out(out, fail=fail, force=force, resume=resume)
    con = Console(stderr=True, markup=False)
    with run_errors(out, fail, con, "the games played so far are kept in {out}/ (--resume continues)"):
        lad = run_ladder(specs, games=games, seed=seed, anchor=anchor, anchor_rating=anchor_rating,
                         reference=reference or None, field_players=field_players, field_games=field_games,
                         two_player=two_player, target_se=target_se, max_games=max_games, out=out,
                         workers=workers, resume=resume,
                         progress=lambda line: con.print(line, highlight=False, soft_wrap=True))
    doc = lad.to_json()
    md = lad.markdown()
    try:
        (out / "ladder.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        (out / "ladder.md").write_text(md + "\n", encoding="utf-8")
    except OSError as e:
        raise fail(f"--out {out}: {e.strerror or e}") from None
    if json_out:
        sys.stdout.write(json.dumps(doc) + "\n")
        return
    _print_ladder(lad, Console(markup=False))
    con.print(f"{lad.seconds:.0f} s -> {out}/ladder.json, {out}/ladder.md", highlight=False)


def _print_ladder(lad: Any, con: Console) -> None:
    if lad.ratings:
        t = Table(title=f"2 players: Elo ({lad.anchor} = {lad.anchor_rating:g}), ± one standard error")
        for col, just in (("rank", "right"), ("bot", "left"), ("Elo", "right"), ("±", "right"),
                          ("95% interval", "left"), ("games", "right"), ("score", "right")):
            t.add_column(col, justify=just)  # type: ignore[arg-type]
        for i, r in enumerate(sorted(lad.ratings, key=lambda r: -r.elo), 1):
            anchor = r.bot == lad.anchor
            iv = "anchor" if anchor else f"{r.low:.0f} to {r.high:.0f}"
            if r.unbounded and not anchor:
                iv = "never won" if r.score == 0 else "never lost"
            t.add_row(str(i), r.bot, f"{r.elo:.0f}", "" if anchor else f"{r.se:.0f}", iv, str(r.games),
                      f"{r.score:.1%}")
        con.print(t)
    if lad.field:
        n = lad.field_players
        t = Table(title=f"{n} players: one seat against {n - 1} × {lad.reference} (fair share {1 / n:.0%})")
        for col in ("bot", "games", "wins", "win rate", "95% interval", "× fair"):
            t.add_column(col, justify="left" if col in ("bot", "95% interval") else "right")
        for f in sorted(lad.field, key=lambda f: -f.rate):
            t.add_row(f.bot, str(f.games), str(f.wins), f"{f.rate:.1%}", f"{f.low:.1%} to {f.high:.1%}",
                      f"{f.share:.2f}")
        con.print(t)
