"""The per-seat choices of CHOICES-CONTRACT.md built from the seat's view, used by the server
only while the engine has no ``Game.choices`` (delete this file once it has: tables.py then asks
the engine). It reads nothing the view does not hold."""
from __future__ import annotations

from typing import Any

from ..engine import Game


def choices_json(g: Game, seat: int | None, dn: int) -> dict[str, Any]:
    v = g.view(seat)
    p = v.pending
    mine = p is not None and seat is not None and p.player == seat
    kind = p.kind if mine and p is not None else None
    d: dict[str, Any] = {"seat": seat, "decision_number": dn, "kind": kind,
                         "waiting_for": p.player if p else None, "can_pass": kind in ("action", "meld"),
                         "abilities": [], "meld": None, "discard": None, "take": None}
    hand = [c for c in v.hand]
    others = [o.seat for o in v.players]
    if kind == "action":
        abil = []
        for a in v.rules.abilities:
            pay = [c.name for c in hand if c.suit == a.suit]
            abil.append({"key": a.key, "level": a.tier, "suit": int(a.suit), "name": a.name, "text": a.text,
                         "cost": a.cards, "affordable": len(pay) >= a.cards, "payable": pay,
                         "targets": others if a.targets else [], "needs_target": bool(a.targets)})
        abil.sort(key=lambda x: not x["affordable"])
        d["abilities"] = abil
    elif kind == "meld":
        slots = [{"suits": [int(s)], "cards": [c.name for c in hand if c.suit == s]} for s in v.rules.meld_suits]
        slots.append({"suits": [int(s) for s in v.rules.meld_one_of],
                      "cards": [c.name for c in hand if c.suit in v.rules.meld_one_of]})
        d["meld"] = {"possible": all(s["cards"] for s in slots), "slots": slots, "ct": v.rules.meld_ct, "draw": v.rules.meld_draw}
    elif kind in ("vision", "foundations"):
        d["take"] = {"source": "deck" if kind == "vision" else "discard",
                     "candidates": [c.name for c in (v.searching or ()) ] if kind == "vision" else [c.name for c in v.discard]}
    elif kind is not None and p is not None:
        d["discard"] = {"count": p.count, "from_cards": [c.name for c in hand], "reason": p.ability or "Fall: hand limit"}
    return d
