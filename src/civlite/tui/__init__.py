"""Play Civ Lite in the terminal: a Textual app (``civlite play``, ``civlite replay FILE``).

Needs the ``tui`` extra (``pip install -e '.[tui]'``).

- ``civlite play`` opens the set-up screen (2–8 seats, each a human or a bot level, a
  rule-set file, a seed, the bot delay, or a saved game to resume);
  ``civlite play --seats Ann,heuristic,random [--rules F] [--seed N] [--save F] [--delay S]``
  starts at once (a misspelt bot is an error with a "did you mean"); ``--resume F`` plays a
  saved record on (and saves back to it), ``--continue`` the last unfinished game.
- Every game is saved after every move (``--save F``, else a new file in the user data dir,
  ``$CIVLITE_SAVE_DIR`` overrides it); ``q`` asks before it quits a game in progress.
- The game's end shows the standings and every hand; ``v`` shows the whole discard pile.
- Humans share the screen (hot-seat): a "pass to seat N" screen hides the table
  between them. Everything drawn comes from ``game.view(seat)`` and events redacted
  for that seat; with no human at the table it is a spectator's view.
- ``s`` saves the game as a record; ``civlite replay F`` steps through it (→ ←, t, v).
- ``?`` shows the keys and the rules (``RULES.md``, shipped in this package).

Modules, none of them importing Textual up to :mod:`.session`: :mod:`.seats` (who plays each
seat), :mod:`.choices` (a human's choices), :mod:`.recap` (what happened, in words for one
seat: the second-person log, the "since your turn" strip), :mod:`.session` (the game, its
saves and log, replays); then :mod:`.widgets` (the table's panels), :mod:`.options` (what the screens share),
the screens :mod:`.dialogs`, :mod:`.setup`, :mod:`.table` and :mod:`.replay` (all of them
by name in :mod:`.screens`), and :mod:`.app`, the only module that knows the app: the screens
tell it what the player chose by messages. ``civlite.tcss`` is the stylesheet.
"""

from __future__ import annotations

from .app import CivliteApp, ReplayApp
from .options import SPEEDS
from .session import (
    BOT_LEVELS,
    HUMAN,
    Choice,
    Replay,
    SeatError,
    SeatSpec,
    Session,
    autosave_dir,
    choices_for,
    parse_seats,
)

__all__ = [
    "BOT_LEVELS", "HUMAN", "SPEEDS", "Choice", "CivliteApp", "Replay", "ReplayApp", "SeatError", "SeatSpec",
    "Session", "autosave_dir", "choices_for", "parse_seats",
]
