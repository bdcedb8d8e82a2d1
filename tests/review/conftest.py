from __future__ import annotations

import pytest

from civlite.engine import GameRecord

from .records import RECORD


@pytest.fixture(scope="session")
def record() -> GameRecord:
    return GameRecord.load(RECORD)
