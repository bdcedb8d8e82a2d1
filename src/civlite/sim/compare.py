"""Two runs side by side (e.g. two rule sets), with the significance of each difference.

Proportions (win rates, draw rate) use the two-proportion z-test of statsmodels with a
Newcombe interval of the difference; means (game length, melds and activations per game)
use Welch's t-test (scipy) with its interval. A comparison tests some thirty metrics at
once, so the p-values are corrected for multiple testing (statsmodels ``multipletests``:
Holm by default, which holds the family-wise error at 5%; ``fdr_bh`` for
Benjamini–Hochberg); a row is flagged significant when its corrected p is below 0.05.
For rates, ``games_to_detect`` is how many games per run would detect the observed
difference with 80% power (statsmodels power analysis).
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .simulator import load_run
from .stats import adjust, diff_ci, games_to_detect, mean_diff_ci, mean_sd, two_proportions

ALPHA = 0.05
CORRECTIONS = ("holm", "fdr_bh", "none")


def _prop_row(metric: str, k1: int, n1: int, k2: int, n2: int) -> dict[str, Any]:
    z, p = two_proportions(k1, n1, k2, n2)
    a = k1 / n1 if n1 else 0.0
    b = k2 / n2 if n2 else 0.0
    _, lo, hi = diff_ci(k1, n1, k2, n2)
    need = games_to_detect(100 * abs(b - a), base=a, two_runs=True) if b != a and 0 < a < 1 else None
    return {"metric": metric, "kind": "rate", "a": a, "b": b, "diff": b - a, "ci95": [lo, hi], "z": z, "p": p,
            "significant": p < ALPHA, "n_a": n1, "n_b": n2, "games_to_detect": need}


def _mean_row(metric: str, xs: Sequence[float], ys: Sequence[float]) -> dict[str, Any]:
    _, lo, hi, p = mean_diff_ci(xs, ys)
    a, _ = mean_sd(xs)
    b, _ = mean_sd(ys)
    return {"metric": metric, "kind": "mean", "a": a, "b": b, "diff": b - a, "ci95": [lo, hi], "z": None, "p": p,
            "significant": p < ALPHA, "n_a": len(xs), "n_b": len(ys), "games_to_detect": None}


def correct(rows: list[dict[str, Any]], method: str = "holm") -> None:
    """Add ``p_adj`` and set ``significant`` from it (``method`` none: the raw p)."""
    if method not in CORRECTIONS:
        raise ValueError(f"--correction must be one of {', '.join(CORRECTIONS)}, got {method!r}")
    if method == "none":
        for r in rows:
            r["p_adj"] = r["p"]
            r["significant"] = r["p"] < ALPHA
        return
    reject, padj = adjust([r["p"] for r in rows], method=method, alpha=ALPHA)
    for r, rej, pa in zip(rows, reject, padj, strict=True):
        r["p_adj"] = pa
        r["significant_raw"] = r["p"] < ALPHA
        r["significant"] = rej


def _bot_counts(lines: Sequence[dict[str, Any]]) -> tuple[dict[str, int], dict[str, int]]:
    inst: dict[str, int] = {}
    wins: dict[str, int] = {}
    for ln in lines:
        for spec in ln["bots"]:
            inst[spec] = inst.get(spec, 0) + 1
        w = ln["stats"]["winner"]
        if w is not None:
            wins[ln["bots"][w]] = wins.get(ln["bots"][w], 0) + 1
    return inst, wins


class PlayerCountError(ValueError):
    """Two runs with different player counts, compared without ``force``."""


def players_note(pa: int, pb: int) -> str:
    """The label of a comparison across player counts (``force``)."""
    return (f"the runs have different player counts (A {pa}, B {pb}): the fair share differs "
            f"({100 / pa:.1f}% against {100 / pb:.1f}%), so win rates and lengths are not like for like")


def compare_lines(sa: dict[str, Any], la: Sequence[dict[str, Any]], sb: dict[str, Any],
                  lb: Sequence[dict[str, Any]], correction: str = "holm", edge: float = 2.0,
                  force: bool = False) -> dict[str, Any]:
    """Every metric of run A against run B. Runs with different player counts are refused
    (:class:`PlayerCountError`) unless ``force``; then the result says so (``warning``) and the
    seat and bot rows name each run's fair share."""
    pa, pb = int(sa["players"]), int(sb["players"])
    if pa != pb and not force:
        raise PlayerCountError(f"A has {pa} players and B has {pb}: a seat's win rate is not comparable across "
                               f"player counts (fair share {100 / pa:.1f}% against {100 / pb:.1f}%); compare runs "
                               "of the same player count, or pass --force to compare them anyway (labelled)")
    fair_tag = f" (fair {100 / pa:.0f}% / {100 / pb:.0f}%)" if pa != pb else ""
    rows: list[dict[str, Any]] = []
    ia, wa = _bot_counts(la)
    ib, wb = _bot_counts(lb)
    for spec in ia:
        if spec in ib:
            rows.append(_prop_row(f"win rate: {spec}{fair_tag}", wa.get(spec, 0), ia[spec], wb.get(spec, 0),
                                  ib[spec]))
    n = min(pa, pb)
    da = [ln for ln in la if ln["stats"]["winner"] is not None]
    db = [ln for ln in lb if ln["stats"]["winner"] is not None]
    for s in range(n):
        rows.append(_prop_row(f"win rate: seat {s}{fair_tag}", sum(1 for ln in da if ln["stats"]["winner"] == s), len(da),
                              sum(1 for ln in db if ln["stats"]["winner"] == s), len(db)))
    rows.append(_prop_row("draw rate", len(la) - len(da), len(la), len(lb) - len(db), len(lb)))
    rows.append(_mean_row("turns per game", [ln["stats"]["turns"] for ln in la], [ln["stats"]["turns"] for ln in lb]))
    rows.append(_mean_row("melds per game", [len(ln["stats"]["melds"]) for ln in la],
                          [len(ln["stats"]["melds"]) for ln in lb]))
    names = list(dict.fromkeys([*sa.get("abilities", {}), *sb.get("abilities", {})]))
    for name in names:
        rows.append(_mean_row(f"{name}: activations per game",
                              [sum(acts.count(name) for acts in ln["stats"]["abilities"]) for ln in la],
                              [sum(acts.count(name) for acts in ln["stats"]["abilities"]) for ln in lb]))
    for name in names:
        ua = [(ln, s) for ln in la for s, acts in enumerate(ln["stats"]["abilities"]) if name in acts]
        ub = [(ln, s) for ln in lb for s, acts in enumerate(ln["stats"]["abilities"]) if name in acts]
        if ua and ub:
            rows.append(_prop_row(f"{name}: win rate when used",
                                  sum(1 for ln, s in ua if ln["stats"]["winner"] == s), len(ua),
                                  sum(1 for ln, s in ub if ln["stats"]["winner"] == s), len(ub)))
    correct(rows, correction)
    fair = 1 / n
    return {"a": {"rules": sa.get("rules", {}).get("name"), "games": len(la), "bots": sa.get("bots"), "players": pa},
            "b": {"rules": sb.get("rules", {}).get("name"), "games": len(lb), "bots": sb.get("bots"), "players": pb},
            "warning": players_note(pa, pb) if pa != pb else None,
            "rules_diff": rules_diff(sa.get("rules", {}), sb.get("rules", {})),
            "correction": correction, "alpha": ALPHA,
            "power": {"edge_points": edge, "power": 0.8,
                      "games_one_run": games_to_detect(edge, base=fair),
                      "games_per_run_two_runs": games_to_detect(edge, base=fair, two_runs=True)},
            "rows": rows}


def rules_diff(ra: dict[str, Any], rb: dict[str, Any], prefix: str = "") -> list[str]:
    """The rule-set keys that differ, as ``key: a -> b`` lines."""
    out = []
    for k in sorted(set(ra) | set(rb)):
        va, vb = ra.get(k), rb.get(k)
        if va == vb or k == "name":
            continue
        if isinstance(va, dict) and isinstance(vb, dict):
            out.extend(rules_diff(va, vb, f"{prefix}{k}."))
        else:
            out.append(f"{prefix}{k}: {json.dumps(va)} -> {json.dumps(vb)}")
    return out


def compare_runs(run_a: str | Path, run_b: str | Path, correction: str = "holm", edge: float = 2.0,
                 force: bool = False) -> dict[str, Any]:
    sa, la = load_run(run_a, light=True)
    sb, lb = load_run(run_b, light=True)
    if not la or not lb:
        raise ValueError(f"{run_a if not la else run_b}: no games in games.jsonl")
    res = compare_lines(sa, la, sb, lb, correction, edge, force=force)
    res["a"]["dir"] = str(run_a)
    res["b"]["dir"] = str(run_b)
    return res


def fmt(row: dict[str, Any], which: str) -> str:
    v = row[which]
    if row["kind"] == "rate":
        return f"{100 * v:.1f}%" if which != "diff" else f"{100 * v:+.1f} pts"
    return f"{v:.2f}" if which != "diff" else f"{v:+.2f}"


def ci_text(row: dict[str, Any]) -> str:
    lo, hi = row["ci95"]
    if row["kind"] == "rate":
        return f"{100 * lo:+.1f} … {100 * hi:+.1f}"
    return f"{lo:+.2f} … {hi:+.2f}"


def _chart(res: dict[str, Any]) -> str:
    """The differences with their 95% intervals (significant ones in colour), as an embedded PNG."""
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = [r for r in res["rows"] if r["kind"] == "rate"]
    means = [r for r in res["rows"] if r["kind"] == "mean" and r["ci95"][0] > -1e9]
    fig, axes = plt.subplots(1, 2, figsize=(12, max(3.0, 0.28 * max(len(rates), len(means)) + 1.2)))
    for ax, rows, scale, unit in ((axes[0], rates, 100, "points"), (axes[1], means, 1, "per game")):
        ys = list(range(len(rows)))
        d = [scale * r["diff"] for r in rows]
        err = [[scale * (r["diff"] - r["ci95"][0]) for r in rows], [scale * (r["ci95"][1] - r["diff"]) for r in rows]]
        colours = ["#e45756" if r["significant"] else "#9ab" for r in rows]
        ax.barh(ys, d, xerr=err, color=colours, capsize=2)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(ys, [r["metric"] for r in rows], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(f"B − A ({unit}), 95% CI")
    axes[0].set_title("rates (red: significant after correction)", fontsize=10)
    axes[1].set_title("means", fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="differences B − A with 95% intervals" src="data:image/png;base64,{data}">'


def render_html(res: dict[str, Any]) -> str:
    e = html.escape
    rows = "".join(
        f"<tr{' class=sig' if r['significant'] else ''}><td>{e(r['metric'])}</td><td>{fmt(r, 'a')}</td>"
        f"<td>{fmt(r, 'b')}</td><td>{fmt(r, 'diff')}</td><td>{ci_text(r)}</td><td>{r['p']:.3g}</td>"
        f"<td>{r['p_adj']:.3g}</td><td>{'yes' if r['significant'] else ''}</td>"
        f"<td>{r['games_to_detect'] if r['games_to_detect'] is not None else ''}</td></tr>" for r in res["rows"])
    pw = res["power"]
    corr = {"holm": "Holm", "fdr_bh": "Benjamini–Hochberg", "none": "no"}[res["correction"]]
    diff = "".join(f"<li><code>{e(d)}</code></li>" for d in res["rules_diff"]) or "<li>none</li>"
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Civ Lite: compare runs</title>
<style>body {{ font-family: system-ui, sans-serif; max-width: 1000px; margin: 2em auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
td:first-child {{ text-align: left; }} tr.sig {{ background: #fff3cd; font-weight: bold; }}
.warn {{ background: #fdecea; border-left: 4px solid #e45756; padding: 0.5em 1em; }}</style></head><body>
<h1>A: {e(str(res['a']['rules']))} ({res['a']['games']} games) vs B: {e(str(res['b']['rules']))} ({res['b']['games']} games)</h1>
{f'<p class="warn"><b>Warning</b>: {e(res["warning"])} (compared with --force).</p>' if res.get("warning") else ""}
<p>Rule-set differences:</p><ul>{diff}</ul>
<p>Bots: A {e(' vs '.join(dict.fromkeys(res['a']['bots'] or [])))}; B {e(' vs '.join(dict.fromkeys(res['b']['bots'] or [])))}.</p>
<p>Highlighted rows differ significantly: {corr} correction for the {len(res['rows'])} tests, corrected p &lt; {ALPHA}
(two-proportion z-test for rates, Welch's t-test for means; 95% intervals of the difference: Newcombe, Welch).
"Games to detect": games per run that would detect the observed difference of a rate with 80% power.
To detect a first-seat edge of {pw['edge_points']:g} points against the fair share takes {pw['games_one_run']} games in one
run; to tell two runs apart by {pw['edge_points']:g} points, {pw['games_per_run_two_runs']} games per run.</p>
{_chart(res)}
<table><tr><th>metric</th><th>A</th><th>B</th><th>B − A</th><th>95% CI</th><th>p</th><th>corrected p</th>
<th>significant</th><th>games to detect</th></tr>{rows}</table>
</body></html>
"""


def write_compare(res: dict[str, Any], out: str | Path) -> None:
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    (d / "compare.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    (d / "compare.html").write_text(render_html(res), encoding="utf-8")
