"""A print-and-play deck: every card of a rule set's deck on A4 or Letter sheets (fpdf2), for a
table play-test of a variant, and a rules summary page written from the same rule set.

Each card (63 × 88 mm, nine to a sheet, with cut lines) shows its name, its suit and the suit's
two abilities as the rule set defines them: name, cost in cards of the suit and what it does
(a suit whose ability is removed says so). Extra cards of a ``[deck]`` (``Disaster 9``, ...)
are cards like the others. The summary page gives the numbers of the rule set (cards dealt,
drawn, the hand limit, the meld, the victory target, any compensation per seat) and every
ability, so that the printed deck and its rules always agree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..engine import RuleSet
from ..engine.cards import ALL_CARDS, Suit

CARD_W, CARD_H = 63.0, 88.0  # millimetres: a poker card
PAGES = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
#: a light tint per suit (R, G, B), so that suits are told apart at a glance on the table
TINTS = {"C": (225, 236, 250), "L": (250, 236, 214), "W": (226, 244, 226), "A": (240, 228, 248),
         "M": (250, 224, 224), "B": (236, 232, 220), "D": (220, 220, 220), "X": (252, 248, 208)}


def _ascii(text: str) -> str:
    """The PDF's core fonts are Latin-1: dashes and quotes as their plain forms."""
    return (text.replace("—", "-").replace("–", "-").replace("’", "'").replace("×", "x")
            .encode("latin-1", "replace").decode("latin-1"))


def _ability_lines(rules: RuleSet, suit: Suit) -> list[tuple[str, str]]:
    out = []
    for tier, table in (("Basic", rules.basic), ("Advanced", rules.advanced)):
        ab = table[int(suit)]
        if ab is None:
            out.append((f"{tier}: none", "this rule set removes it"))
        else:
            cost = f"discard {ab.cards} {suit.title} card{'s' if ab.cards != 1 else ''}"
            out.append((f"{tier}: {ab.name}", f"{cost}: {ab.words()}"))
    return out


def deck_cards(rules: RuleSet) -> list[dict[str, Any]]:
    """Every card of the deck, in deck order: name, suit and the suit's two abilities."""
    out = []
    for cid in rules.deck:
        card = ALL_CARDS[cid]
        suit = Suit(card.suit)
        out.append({"id": cid, "name": card.name, "suit": suit.title, "letter": suit.letter,
                    "abilities": _ability_lines(rules, suit)})
    return out


def _per_seat(rules: RuleSet, key: str) -> str | None:
    """``[-1, 0]``, or ``[-1, 0]; at 4 players [-1, 0, 0, 0]`` for a table by player count."""
    if not getattr(rules, key):
        return None
    value = rules.to_dict().get(key)
    if not isinstance(value, dict):
        return str(value)
    parts = [str(value["default"])] if "default" in value else []
    parts += [f"at {n} players {v}" for n, v in value.items() if n != "default"]
    return "; ".join(parts)


def summary_lines(rules: RuleSet) -> list[tuple[str, str]]:
    """The rules summary page: (heading, text) pairs from the rule set's own numbers."""
    d = rules.to_dict()
    meld = ", ".join(Suit.parse(s).title for s in d["meld"]["suits"])
    one_of = " or ".join(Suit.parse(s).title for s in d["meld"]["one_of"])
    sizes = ", ".join(f"{s.title} {rules.suit_sizes[int(s)]}" for s in Suit)
    lines = [("Players", f"{rules.min_players} to {rules.max_players}. Seat 0 plays first; play passes in seat order."),
             ("Deck", f"{len(rules.deck)} cards: {sizes}."),
             ("Set-up", f"Shuffle; deal {rules.hand_size} cards to each player. Civ Tokens (CT) come from a shared "
                        + ("unlimited supply." if rules.ct_supply is None else f"supply of {rules.ct_supply}.")),
             ("Turn", f"Rise: draw {rules.rise_draw} cards. Action: activate at most one ability by discarding the "
                      "cards it needs, or pass. Meld: play at most one meld, or pass. Fall: discard down to "
                      f"{rules.hand_limit} cards."),
             ("Meld", f"Exactly one card of each of {meld}, and one {one_of}: discard them, gain {rules.meld_ct} CT, "
                      f"then draw {rules.meld_draw} cards."),
             ("Victory", f"The game ends at once when a player holds {rules.victory_ct} CT or more; that player wins."),
             ("Drawing", "When the deck is empty, shuffle the discard pile into a new deck. The discard pile is "
                         "face up; cards paid for an ability are discarded before it takes effect.")]
    comp = [(k, _per_seat(rules, k)) for k in ("start_ct", "start_hand_bonus", "first_rise_draw")]
    words = {"start_ct": "CT each seat starts with", "start_hand_bonus": "cards dealt beyond the hand size, per seat",
             "first_rise_draw": "cards each seat draws in its first Rise"}
    text = ". ".join(f"{words[k][0].upper() + words[k][1:]}: {v}" for k, v in comp if v)
    if text:
        lines.append(("Seat compensation", text + ". Values are in seat order from seat 0; the last value holds "
                      "for later seats."))
    for s in Suit:
        abil = _ability_lines(rules, s)
        lines.append((f"{s.title} ({s.letter})", " ".join(f"{t} - {w}." for t, w in abil)))
    return lines


def write_deck_pdf(rules: RuleSet, out: str | Path, paper: str = "a4") -> dict[str, Any]:
    """Write the deck and its rules summary to ``out``; return what was written (pages, cards)."""
    from fpdf import FPDF

    if paper not in PAGES:
        raise ValueError(f"--paper must be one of {', '.join(PAGES)}, got {paper!r}")
    pw, ph = PAGES[paper]
    cards = deck_cards(rules)
    pdf = FPDF(unit="mm", format=(pw, ph))
    pdf.set_auto_page_break(False)
    pdf.set_margins(15.0, 15.0, 15.0)
    pdf.set_title(_ascii(f"Civ Lite: Ancients - print-and-play deck ({rules.name})"))
    pdf.set_creator("civlite cards")
    # the rules summary
    pdf.add_page()
    margin = 15.0
    pdf.set_xy(margin, margin)
    pdf.set_font("Helvetica", "B", 16)
    _para(pdf, pw - 2 * margin, 8, _ascii(f"Civ Lite: Ancients - rule set {rules.name}"), "LMARGIN")
    pdf.set_font("Helvetica", "", 10)
    _para(pdf, pw - 2 * margin, 5, _ascii(f"A print-and-play deck of {len(cards)} cards for a table play-test. "
                                              "Cut along the grey lines. The numbers below are this rule set's."), "LMARGIN")
    pdf.ln(3)
    for head, text in summary_lines(rules):
        pdf.set_font("Helvetica", "B", 11)
        _para(pdf, pw - 2 * margin, 6, _ascii(head), "LMARGIN")
        pdf.set_font("Helvetica", "", 10)
        _para(pdf, pw - 2 * margin, 5, _ascii(text), "LMARGIN")
        pdf.ln(1.5)
    # the cards: a 3 x 3 grid per sheet
    cols, rows = int(pw // CARD_W), int(ph // CARD_H)
    x0, y0 = (pw - cols * CARD_W) / 2, (ph - rows * CARD_H) / 2
    per_page = cols * rows
    for i, card in enumerate(cards):
        if i % per_page == 0:
            pdf.add_page()
        k = i % per_page
        x, y = x0 + (k % cols) * CARD_W, y0 + (k // cols) * CARD_H
        _card(pdf, card, x, y)
    pdf.output(str(out))
    return {"file": str(out), "pages": pdf.page_no(), "cards": len(cards), "per_page": per_page, "paper": paper,
            "rules": rules.name}


def _para(pdf: Any, w: float, h: float, text: str, new_x: str) -> None:
    """A left-aligned paragraph; the next one starts below it at the margin or at this one's left."""
    from fpdf.enums import Align, XPos, YPos

    pdf.multi_cell(w, h, text, new_x=XPos.LMARGIN if new_x == "LMARGIN" else XPos.LEFT, new_y=YPos.NEXT,
                   align=Align.L)


def _card(pdf: Any, card: dict[str, Any], x: float, y: float) -> None:
    pad = 4.0
    w = CARD_W - 2 * pad
    pdf.set_draw_color(170, 170, 170)
    pdf.set_line_width(0.2)
    pdf.set_fill_color(*TINTS[card["letter"]])
    pdf.rect(x, y, CARD_W, CARD_H, style="DF")
    pdf.set_text_color(0, 0, 0)
    pdf.set_xy(x + pad, y + pad)
    pdf.set_font("Helvetica", "B", 13)
    _para(pdf, w, 6, _ascii(card["name"]), "LEFT")
    pdf.set_font("Helvetica", "I", 10)
    _para(pdf, w, 5, _ascii(f"{card['suit']} ({card['letter']})"), "LEFT")
    pdf.set_draw_color(120, 120, 120)
    pdf.line(x + pad, pdf.get_y() + 1.5, x + CARD_W - pad, pdf.get_y() + 1.5)
    pdf.set_y(pdf.get_y() + 3.5)
    for head, text in card["abilities"]:
        pdf.set_x(x + pad)
        pdf.set_font("Helvetica", "B", 10)
        _para(pdf, w, 5, _ascii(head), "LEFT")
        pdf.set_font("Helvetica", "", 9)
        _para(pdf, w, 4.3, _ascii(text[0].upper() + text[1:] + "."), "LEFT")
        pdf.set_y(pdf.get_y() + 3)
