from __future__ import annotations

import pytest

from civlite.bots import make_bot


@pytest.fixture(scope="session")
def opponent_spec() -> str:
    """``heuristic`` when that bot exists, else ``random`` (the bots are built in parallel)."""
    try:
        make_bot("heuristic", seed=0)
    except ValueError:
        return "random"
    return "heuristic"
