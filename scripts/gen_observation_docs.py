#!/usr/bin/env python3
"""Write docs/observation.md from the code (civlite.bots.features.SPEC), so the two cannot drift."""

from __future__ import annotations

from pathlib import Path

from civlite.bots.features import BASE_SIZE, OPPONENTS, SCALE, spec_table

PAGE = Path(__file__).resolve().parents[1] / "docs" / "observation.md"

HEAD = f"""# The size-independent observation

The `expert` and `champion` bots read one encoding of a seat's view whose length does not
depend on the number of seats (`civlite.bots.features.encode`). It holds the seat's own
features, then {OPPONENTS} opponent slots in turn order (slot 1 is the next seat to play after
the viewer); slots past the table's last opponent are zero, with `present` off. Summaries
pooled over the opponents and a one-hot of the table's size follow, then the rest of the
position, and last **summaries of the seat's own hand**, read from the rule set's meld and
abilities (R5 to R8): how many cards it lacks for a meld and of which suits, the cards it
could spend and still meld, whether the discard pile holds the one card it lacks, which
abilities or meld reach the victory CT this turn, and which searching abilities (Vision,
Foundations) would fetch the one card a meld lacks. Counts (cards, CT) are
multiplied by {SCALE:g}. Everything comes from the seat's view alone.

The summaries are functions of values the encoding already holds (the hand, the discard
pile, the cards seen, the CT still needed) and of the rule set, but a network of this size
learns them poorly from the counts alone: trained on the same positions, the 3-, 4- and
6-player networks that read them win 4.5 to 6 points more of their games against
`heuristic` (see the bots page, Training). Networks trained before them read the first
{BASE_SIZE} values, which did not change; `civlite.bots.features.complete` adds the
summaries to encodings stored before them.

This page is generated from `civlite.bots.features.SPEC` by `scripts/gen_observation_docs.py`;
a test fails when it is out of date.

"""


def main() -> None:
    PAGE.write_text(HEAD + spec_table() + "\n")


if __name__ == "__main__":
    main()
