"""Whether the engine's hot modules run compiled or from their Python source.

``pip install`` compiles the modules of :data:`MODULES` with mypyc (``setup.py``): the same
source, type-checked, turned into C; about twice as many decisions per second. The
Python files stay beside the compiled ones and are the truth: when the compiled modules
are older than the source (an edited checkout), or ``CIVLITE_PURE=1`` is set, the engine
imports the source instead, so it never runs rules that differ from the files.

This module imports only the standard library (``setup.py`` reads :data:`MODULES`)
and is never compiled itself.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: the engine modules compiled by mypyc (``setup.py`` compiles exactly these)
MODULES = ("codec", "effects", "handlers", "state", "resolution", "view", "determinize", "game", "numeric", "aec")
#: the file beside the modules that records the digest of the source they were compiled from
STAMP = "_compiled.sha256"
_HERE = Path(__file__).resolve().parent
_PACKAGE = __name__.rpartition(".")[0]


def source_digest(folder: Path = _HERE) -> str:
    """SHA-256 over the Python source of :data:`MODULES` (in that order)."""
    h = hashlib.sha256()
    for m in MODULES:
        h.update(m.encode())
        h.update((folder / f"{m}.py").read_bytes())
    return h.hexdigest()


def _built() -> bool:
    return any((_HERE / f"game{s}").exists() for s in importlib.machinery.EXTENSION_SUFFIXES)


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Imports the Python source of the compiled modules instead of their extensions."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != _PACKAGE or name not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, _HERE / f"{name}.py")


def choose() -> str | None:
    """Decide, before the engine's modules are imported, whether the compiled ones may load.

    Returns why the source is used instead (``None``: the compiled modules load if built).
    """
    if not _built():
        return "not compiled (an install without mypyc, or a checkout run from its source)"
    if os.environ.get("CIVLITE_PURE", "") not in ("", "0"):
        reason = "CIVLITE_PURE is set"
    else:
        try:
            stamp = (_HERE / STAMP).read_text().strip()
        except OSError:
            stamp = ""
        if stamp == source_digest():
            return None
        reason = "the compiled modules are older than the source"
        warnings.warn(
            f"civlite: {reason}; running the engine from its Python source (slower). "
            "Rebuild with `pip install -e .` (or set CIVLITE_PURE=1 to silence this).",
            RuntimeWarning, stacklevel=3,
        )
    if not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())
    return reason


def is_compiled() -> bool:
    """Whether every module of :data:`MODULES` was loaded from its compiled extension."""
    mods = [sys.modules.get(f"{_PACKAGE}.{m}") for m in MODULES]
    return all(m is not None and not (m.__file__ or ".py").endswith(".py") for m in mods)


#: why the engine runs from its Python source here (``None``: compiled, if built); decided
#: when the package imports this module, before any of the engine's own modules
SOURCE_REASON: str | None = choose() if _PACKAGE else None  # (``setup.py`` runs this file bare)

