"""Every docstring example of the engine runs (doctest), module by module."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import civlite.engine

MODULES = sorted(m.name for m in pkgutil.iter_modules(civlite.engine.__path__, "civlite.engine."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_engine_has_examples() -> None:
    attempted = sum(doctest.testmod(importlib.import_module(n)).attempted for n in MODULES)
    assert attempted >= 40
