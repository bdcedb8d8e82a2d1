from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import civlite.bots.ismcts as ismcts_mod


@pytest.fixture(scope="module")
def monkeypatch_worlds() -> Iterator[list[Any]]:
    """Record every (view, world) that the ISMCTS bot samples."""
    worlds: list[Any] = []
    real = ismcts_mod.sample_world

    def spy(view: Any, rng: Any) -> Any:
        w = real(view, rng)
        worlds.append((view, w.clone()))
        return w

    mp = pytest.MonkeyPatch()
    mp.setattr(ismcts_mod, "sample_world", spy)
    yield worlds
    mp.undo()
