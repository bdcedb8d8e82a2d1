"""Builds civlite; compiles the engine's hot modules with mypyc (metadata: pyproject.toml).

The modules are listed in ``src/civlite/engine/_compiled.py``. ``CIVLITE_PURE=1`` at
install time builds without compiling (the engine then runs from its Python source).
The digest of the compiled source is written beside the modules, so that an edited
checkout runs its source rather than stale compiled code.
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path

from setuptools import setup

ENGINE = Path("src/civlite/engine")
compiled = runpy.run_path(str(ENGINE / "_compiled.py"))
ext_modules = []
if os.environ.get("CIVLITE_PURE", "") in ("", "0"):
    from mypyc.build import mypycify

    ext_modules = mypycify(
        [str(ENGINE / f"{m}.py") for m in compiled["MODULES"]],
        opt_level="3",
        group_name="civlite_engine",
    )
    (ENGINE / compiled["STAMP"]).write_text(compiled["source_digest"](ENGINE) + "\n")
else:
    (ENGINE / compiled["STAMP"]).unlink(missing_ok=True)

setup(ext_modules=ext_modules)
