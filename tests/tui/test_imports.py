"""The terminal app's modules import one another without a cycle, and only the app knows the app."""

from __future__ import annotations

import pytest

grimp = pytest.importorskip("grimp")

PACKAGE = "civlite.tui"


def tui_imports() -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports (type-only imports too)."""
    graph = grimp.build_graph("civlite", include_external_packages=False, exclude_type_checking_imports=False)
    mods = {m for m in graph.modules if m.startswith(PACKAGE + ".")}
    return {m: {n for n in graph.find_modules_directly_imported_by(m) if n in mods} for m in mods}


def test_no_import_cycle() -> None:
    imports = tui_imports()
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> None:
        if m in path:
            pytest.fail("import cycle: " + " -> ".join([*path[path.index(m):], m]))
        if m in done:
            return
        for n in sorted(imports[m]):
            visit(n, [*path, m])
        done.add(m)

    for m in sorted(imports):
        visit(m, [])


def test_screens_never_import_the_app() -> None:
    importers = {m for m, deps in tui_imports().items() if f"{PACKAGE}.app" in deps}
    assert importers == set()
