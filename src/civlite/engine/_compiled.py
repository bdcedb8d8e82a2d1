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

#: the modules compiled by mypyc, in one group (``setup.py`` compiles exactly these), named
#: under the ``civlite`` package: the engine's hot modules, the research interfaces'
#: per-step core, which calls the engine natively from inside the group, and the networks'
#: observation encoding (``bots.features``: half of a ``hard`` decision from source, and it
#: reads the engine's views natively from inside the group)
MODULES = ("engine.codec", "engine.effects", "engine.handlers", "engine.state", "engine.resolution", "engine.view",
           "engine.determinize", "engine.game", "engine.numeric", "rl.aec", "bots.features")
#: the file beside the modules that records the digest of the source they were compiled from
STAMP = "_compiled.sha256"
_HERE = Path(__file__).resolve().parent
#: the ``civlite`` folder, under which :data:`MODULES` are named
_ROOT = _HERE.parent
_PACKAGE = __name__.rpartition(".")[0]
_TOP = _PACKAGE.rpartition(".")[0]


def module_path(root: Path, module: str) -> Path:
    """The source file of ``module`` (a name of :data:`MODULES`) under the ``civlite`` folder ``root``."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def source_digest(root: Path = _ROOT) -> str:
    """SHA-256 over the Python source of :data:`MODULES` (in that order), under the
    ``civlite`` folder ``root``."""
    h = hashlib.sha256()
    for m in MODULES:
        h.update(m.encode())
        h.update(module_path(root, m).read_bytes())
    return h.hexdigest()


def _built() -> bool:
    return any((_HERE / f"game{s}").exists() for s in importlib.machinery.EXTENSION_SUFFIXES)


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Imports the Python source of the compiled modules instead of their extensions."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        top, _, name = fullname.partition(".")
        if top != _TOP or name not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, module_path(_ROOT, name))


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
    """Whether the engine's modules of :data:`MODULES`, and any other of them imported so
    far, were loaded from their compiled extensions."""
    for m in MODULES:
        mod = sys.modules.get(f"{_TOP}.{m}")
        if mod is None and m.startswith("engine."):
            return False
        if mod is not None and (mod.__file__ or ".py").endswith(".py"):
            return False
    return True


#: why the engine runs from its Python source here (``None``: compiled, if built); decided
#: when the package imports this module, before any of the engine's own modules
SOURCE_REASON: str | None = choose() if _PACKAGE else None  # (``setup.py`` runs this file bare)

