from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CIVLITE_SHARED", ROOT.parent / "shared"))


def civlite_command() -> list[str]:
    """The real ``civlite`` console script of the interpreter running the tests."""
    exe = Path(sys.executable).parent / "civlite"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("civlite")
    return [found] if found else [sys.executable, "-m", "civlite"]


def load_script(path: Path) -> ModuleType:
    """Import a script (an example or a benchmark) that is not part of the package."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI needs ../shared beside the clone (looked in {SHARED})")
        pytest.skip(f"no shared folder at {SHARED}")
    return SHARED
