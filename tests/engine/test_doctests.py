"""Every docstring example of the engine runs (doctest), module by module.

Compiled modules (mypyc) keep no Python function objects for doctest to find, so their
examples are read from the module's source file and run in the compiled module's
namespace: the same examples, against the code that runs.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import civlite.engine

MODULES = sorted(m.name for m in pkgutil.iter_modules(civlite.engine.__path__, "civlite.engine."))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def run_examples(module: ModuleType) -> doctest.TestResults:
    path = module.__file__ or ""
    if path.endswith(".py"):
        return doctest.testmod(module, optionflags=FLAGS)
    source = Path(path).parent / (module.__name__.rpartition(".")[2] + ".py")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    parser = doctest.DocTestParser()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            if doc and ">>>" in doc:
                name = module.__name__ + ("" if isinstance(node, ast.Module) else "." + node.name)
                runner.run(parser.get_doctest(doc, dict(vars(module)), name, str(source), 0))
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = run_examples(importlib.import_module(name))
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_engine_has_examples() -> None:
    attempted = sum(run_examples(importlib.import_module(n)).attempted for n in MODULES)
    assert attempted >= 40
