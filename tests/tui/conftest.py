"""The terminal app saves every game; in tests it saves into a temporary directory."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def save_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$CIVLITE_SAVE_DIR``: where the app saves games no ``--save`` names (never the user's data dir)."""
    d = tmp_path / "saves"
    monkeypatch.setenv("CIVLITE_SAVE_DIR", str(d))
    return d


@pytest.fixture(autouse=True)
def no_hand_off_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests press keys as soon as the app is idle: no grace after a hot-seat hand-off (the
    grace's own tests set it back, tests/tui/test_hand_off.py)."""
    from civlite.tui import dialogs

    monkeypatch.setattr(dialogs, "HANDOFF_GRACE", 0.0)
