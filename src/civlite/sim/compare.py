"""Two runs side by side (e.g. two rule sets), with the significance of each difference.

Proportions (win rates, draw rate) use a two-proportion z-test; means (game length,
melds and activations per game) use Welch's test with the normal approximation.
A difference is flagged significant at p < 0.05 (no correction for the number of
metrics: read a lone borderline flag among many with care).
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .simulator import load_run
from .stats import mean_sd, two_proportions, welch

ALPHA = 0.05


def _prop_row(metric: str, k1: int, n1: int, k2: int, n2: int) -> dict[str, Any]:
    z, p = two_proportions(k1, n1, k2, n2)
    a = k1 / n1 if n1 else 0.0
    b = k2 / n2 if n2 else 0.0
    return {"metric": metric, "kind": "rate", "a": a, "b": b, "diff": b - a, "z": z, "p": p,
            "significant": p < ALPHA, "n_a": n1, "n_b": n2}


def _mean_row(metric: str, xs: Sequence[float], ys: Sequence[float]) -> dict[str, Any]:
    z, p = welch(xs, ys)
    a, _ = mean_sd(xs)
    b, _ = mean_sd(ys)
    return {"metric": metric, "kind": "mean", "a": a, "b": b, "diff": b - a, "z": z, "p": p,
            "significant": p < ALPHA, "n_a": len(xs), "n_b": len(ys)}


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


def compare_lines(sa: dict[str, Any], la: Sequence[dict[str, Any]], sb: dict[str, Any],
                  lb: Sequence[dict[str, Any]]) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    ia, wa = _bot_counts(la)
    ib, wb = _bot_counts(lb)
    for spec in ia:
        if spec in ib:
            rows.append(_prop_row(f"win rate: {spec}", wa.get(spec, 0), ia[spec], wb.get(spec, 0), ib[spec]))
    n = min(int(sa["players"]), int(sb["players"]))
    da = [ln for ln in la if ln["stats"]["winner"] is not None]
    db = [ln for ln in lb if ln["stats"]["winner"] is not None]
    for s in range(n):
        rows.append(_prop_row(f"win rate: seat {s}", sum(1 for ln in da if ln["stats"]["winner"] == s), len(da),
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
    return {"a": {"rules": sa.get("rules", {}).get("name"), "games": len(la), "bots": sa.get("bots")},
            "b": {"rules": sb.get("rules", {}).get("name"), "games": len(lb), "bots": sb.get("bots")},
            "rules_diff": rules_diff(sa.get("rules", {}), sb.get("rules", {})),
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


def compare_runs(run_a: str | Path, run_b: str | Path) -> dict[str, Any]:
    sa, la = load_run(run_a, light=True)
    sb, lb = load_run(run_b, light=True)
    res = compare_lines(sa, la, sb, lb)
    res["a"]["dir"] = str(run_a)
    res["b"]["dir"] = str(run_b)
    return res


def fmt(row: dict[str, Any], which: str) -> str:
    v = row[which]
    if row["kind"] == "rate":
        return f"{100 * v:.1f}%" if which != "diff" else f"{100 * v:+.1f} pts"
    return f"{v:.2f}" if which != "diff" else f"{v:+.2f}"


def render_html(res: dict[str, Any]) -> str:
    e = html.escape
    rows = "".join(
        f"<tr{' class=sig' if r['significant'] else ''}><td>{e(r['metric'])}</td><td>{fmt(r, 'a')}</td>"
        f"<td>{fmt(r, 'b')}</td><td>{fmt(r, 'diff')}</td><td>{r['p']:.3g}</td>"
        f"<td>{'yes' if r['significant'] else ''}</td></tr>" for r in res["rows"])
    diff = "".join(f"<li><code>{e(d)}</code></li>" for d in res["rules_diff"]) or "<li>none</li>"
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Civ Lite: compare runs</title>
<style>body {{ font-family: system-ui, sans-serif; max-width: 1000px; margin: 2em auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
td:first-child {{ text-align: left; }} tr.sig {{ background: #fff3cd; font-weight: bold; }}</style></head><body>
<h1>A: {e(str(res['a']['rules']))} ({res['a']['games']} games) vs B: {e(str(res['b']['rules']))} ({res['b']['games']} games)</h1>
<p>Rule-set differences:</p><ul>{diff}</ul>
<p>Highlighted rows differ significantly (p &lt; {ALPHA}; two-proportion z-test for rates, Welch's test for means).</p>
<table><tr><th>metric</th><th>A</th><th>B</th><th>B − A</th><th>p</th><th>significant</th></tr>{rows}</table>
</body></html>
"""


def write_compare(res: dict[str, Any], out: str | Path) -> None:
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    (d / "compare.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    (d / "compare.html").write_text(render_html(res), encoding="utf-8")
