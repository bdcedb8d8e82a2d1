"""Builds civlite; compiles the engine's hot modules (and the AEC core beside them) with mypyc (metadata: pyproject.toml).

The modules are listed in ``src/civlite/engine/_compiled.py``. Compiling is an
optimisation: ``CIVLITE_PURE=1`` at install time, or a machine without a C compiler or
Python's headers, gives an install whose engine runs from its Python source (slower, the
same games). The digest of the compiled source is written beside the modules, so that an
edited checkout runs its source rather than stale compiled code.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

PACKAGE = Path("src/civlite")
ENGINE = PACKAGE / "engine"
compiled = runpy.run_path(str(ENGINE / "_compiled.py"))
STAMP = ENGINE / compiled["STAMP"]


def _warn(why: str) -> None:
    print(f"civlite: the engine is not compiled ({why}); it runs from its Python source", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """Builds the compiled engine, or nothing at all if that fails (never half of it)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:  # no C compiler, no Python headers, ...
            for out in self.get_outputs():
                Path(out).unlink(missing_ok=True)
            STAMP.unlink(missing_ok=True)
            _warn(f"{type(e).__name__}: {e}")


ext_modules: list[Any] = []
STAMP.unlink(missing_ok=True)
if os.environ.get("CIVLITE_PURE", "") in ("", "0"):
    try:
        from mypyc.build import mypycify
    except ImportError as e:
        _warn(f"mypyc is not importable: {e}")
    else:
        try:
            ext_modules = mypycify(
                [str(compiled["module_path"](PACKAGE, m)) for m in compiled["MODULES"]],
                opt_level="1",  # as fast as "3" here (interleaved), a third less compile time
                group_name="civlite_engine",
            )
        except (Exception, SystemExit) as e:  # mypyc's type check failed: it exits rather than raising
            ext_modules = []
            _warn(f"mypyc could not compile it: {type(e).__name__}: {e}")
        else:
            STAMP.write_text(compiled["source_digest"](PACKAGE) + "\n")

setup(ext_modules=ext_modules, cmdclass={"build_ext": OptionalBuildExt})
