"""The terminal tutorial (``civlite tutorial``), driven with Pilot: the fixed deal against the
easy bot, and the coach's notes as they come (each phase, each ability once it can be paid)."""

from __future__ import annotations

from pathlib import Path

from civlite.review.tutorial import SEED
from civlite.tui.app import TutorialApp
from civlite.tui.tutorial import TutorialScreen

from .helpers import SIZE, run_async, screen_text


@run_async
async def test_the_tutorial_explains_the_turn_as_it_comes(tmp_path: Path) -> None:
    app = TutorialApp(delay=0, autosave_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TutorialScreen) and app.session is not None
        assert app.session.game.seed == SEED and app.session.humans == [0]
        titles = screen.notes
        assert any(t.startswith("Rise (R4.1)") for t in titles) and any(t.startswith("Action") for t in titles)
        assert any("You can use" in t for t in titles)
        # in the log beside the choices, never a toast over them
        assert not [n for n in app._notifications if n.title == "Tutorial"]
        assert "Tutorial: " in screen_text(app)
        said = len(screen.coach.seen) if screen.coach else 0
        await pilot.press("p")  # pass the action: the meld phase is explained next
        for _ in range(200):
            await app.workers.wait_for_complete()
            await pilot.pause()
            if screen.coach is not None and "meld" in screen.coach.seen:
                break
        assert screen.coach is not None and "meld" in screen.coach.seen and len(screen.coach.seen) > said
