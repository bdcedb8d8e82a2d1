"""The compiled engine (mypyc, built by ``pip install``) and its Python source are one engine.

``pip install`` compiles the modules of ``civlite.engine._compiled.MODULES``; these tests
play the same seeded games with both (the source through ``CIVLITE_PURE=1`` in a second
process) and compare every event, view, numeric view, clone and record; and check that an edited
source is never shadowed by stale compiled modules.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import civlite.engine as engine
from civlite.engine import _compiled

# plays seeded random games (2-8 players; compact and concrete actions, clones, views,
# bad input) and prints one digest line per game plus whether the engine was compiled
PLAY = r"""
import hashlib, json, random, sys
import civlite.engine as e
from civlite.engine import Game, GameRecord, IllegalActionError, Pass, RuleSet, sample_world

def digest(seed):
    n = 2 + seed % 7
    rng = random.Random(seed)
    g = Game(n, seed=seed)
    h = hashlib.sha256()
    stores = [e.ObservationStore(n, e.NUM_ACTIONS) for _ in range(n)]  # written in place
    steps = 0
    while not g.is_over and steps < 3000:
        steps += 1
        seat = g.to_move
        ids = g.legal_ids()
        h.update(repr(ids).encode())
        if steps % 3 == 0:  # the numeric view (native vectors compiled, lists and struct interpreted)
            h.update(e.numeric_observation(g, seat, ids, e.NUM_ACTIONS))
            h.update(e.numeric_batch([g] * n, list(range(n))))
            for k in (seat, (seat + steps) % n):
                st = stores[k]
                st.write(g, k, ids if k == seat else [])
                h.update(bytes(st.values) + bytes(st.mask))
        if steps % 29 == 0:  # values past the clip
            c = g.clone()
            c.supply = 5000
            c.ct[seat] = 1200
            h.update(e.numeric_view(c, seat))
        if steps % 11 == 0:
            h.update(repr(g.view(seat)).encode())
            h.update(repr(g.choices(seat)).encode())
        if steps % 17 == 0:
            c = g.clone()
            for _ in range(5):
                if c.is_over:
                    break
                c.apply_id(rng.choice(c.legal_ids()))
            h.update(json.dumps(c.state_json(), sort_keys=True).encode())
        if steps % 23 == 0 and not g.is_discard_decision:
            w = sample_world(g.view(seat), random.Random(seed + steps))
            h.update(repr(sorted(w.hands[seat])).encode())
        if steps % 13 == 0:
            try:
                g.apply_id(10**6)
            except IllegalActionError as err:
                h.update(str(err).encode())
        if steps == 1:
            g.quiet = seed % 4 == 3
        if steps % 5 == 0 and not g.is_discard_decision:
            acts = g.legal_actions()
            events = g.apply(acts[rng.randrange(len(acts))])
        else:
            events = g.apply_id(ids[rng.randrange(len(ids))])
        for ev in events:
            h.update(repr(ev).encode())
            h.update(ev.describe(None).encode())
    h.update(json.dumps(GameRecord.of(g).to_json(), sort_keys=True).encode())
    h.update(repr(g.outcome()).encode())
    return h.hexdigest()

games = int(sys.argv[1])
print(json.dumps({"compiled": e.COMPILED, "digests": [digest(s) for s in range(games)]}))
"""


def _run(env_extra: dict[str, str], games: int) -> dict[str, object]:
    env = dict(os.environ, **env_extra)
    out = subprocess.run([sys.executable, "-c", PLAY, str(games)], capture_output=True, text=True, env=env,
                         check=False, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_the_installed_engine_is_compiled_where_the_test_command_expects_it() -> None:
    # ./scripts/test sets CIVLITE_EXPECT_COMPILED=1: a build that silently fell back to the
    # source (no compiler, a stale build) must not pass for the compiled engine
    if os.environ.get("CIVLITE_EXPECT_COMPILED") != "1":
        pytest.skip("CIVLITE_EXPECT_COMPILED is not set")
    assert engine.COMPILED, engine.SOURCE_REASON
    assert engine.SOURCE_REASON is None


def test_compiled_and_source_engines_play_the_same_games() -> None:
    if not engine.COMPILED:
        pytest.skip(f"the engine is not compiled here ({engine.SOURCE_REASON})")
    compiled = _run({"CIVLITE_PURE": "0"}, 60)
    source = _run({"CIVLITE_PURE": "1"}, 60)
    assert compiled["compiled"] is True
    assert source["compiled"] is False
    assert compiled["digests"] == source["digests"]


def test_an_edited_source_is_run_instead_of_stale_compiled_modules(tmp_path: Path) -> None:
    if not engine.COMPILED:
        pytest.skip(f"the engine is not compiled here ({engine.SOURCE_REASON})")
    pkg = Path(engine.__file__).resolve().parents[1]  # .../civlite
    root = tmp_path / "site"
    shutil.copytree(pkg, root / "civlite", ignore=shutil.ignore_patterns("__pycache__", "static"))
    for lib in pkg.parent.glob("civlite_engine__mypyc*"):  # the compiled group's shared library
        shutil.copy2(lib, root / lib.name)
    probe = "import json, civlite.engine as e; print(json.dumps([e.COMPILED, e.SOURCE_REASON]))"

    def state(**env: str) -> tuple[list[object], str]:
        out = subprocess.run([sys.executable, "-W", "always", "-c", probe], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=str(root), **env), check=True)
        return json.loads(out.stdout), out.stderr

    assert state(CIVLITE_PURE="0")[0] == [True, None]  # the copy, unedited, runs compiled
    handlers = root / "civlite" / "engine" / "handlers.py"
    handlers.write_text(handlers.read_text() + "\nEDITED = True\n")
    (compiled, reason), err = state(CIVLITE_PURE="0")
    assert compiled is False
    assert reason == "the compiled modules are older than the source"
    assert "older than the source" in err and "pip install -e ." in err
    # and the edit is what runs
    out = subprocess.run([sys.executable, "-c", "from civlite.engine import handlers; print(handlers.EDITED)"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(root)), check=True)
    assert out.stdout.strip() == "True"


def test_the_source_digest_covers_every_compiled_module() -> None:
    root = Path(_compiled.__file__).parents[1]  # the civlite folder
    assert all(_compiled.module_path(root, m).exists() for m in _compiled.MODULES)
    assert _compiled.source_digest(root) == _compiled.source_digest()
    assert "_compiled" not in _compiled.MODULES  # the chooser itself always runs from source


def test_the_build_requires_every_package_the_compiled_modules_import() -> None:
    """mypyc type-checks the compiled modules in pip's isolated build environment: a
    third-party package they import that the build does not require fails the install
    of a clean clone (a checkout with an old ``build/`` cache hides it)."""
    root = Path(_compiled.__file__).parents[1]
    imported: set[str] = set()
    for m in _compiled.MODULES:
        for node in ast.walk(ast.parse(_compiled.module_path(root, m).read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {n for n in imported if n not in sys.stdlib_module_names and n != "civlite"}
    pyproject = tomllib.loads((root.parents[1] / "pyproject.toml").read_text())
    required = {Requirement(r).name.replace("-", "_") for r in pyproject["build-system"]["requires"]}
    # mypy brings these two itself (its own dependencies)
    missing = third_party - required - {"mypy_extensions", "librt"}
    assert not missing, f"add {sorted(missing)} to [build-system] requires in pyproject.toml"


# encodes the views of seeded games at every table size with the networks' observation
# (``civlite.bots.features``, compiled in the same group) and prints a digest
ENCODE = r"""
import hashlib, json, random, sys
from civlite.bots import features
from civlite.engine import Game

h = hashlib.sha256()
for seed in range(int(sys.argv[1])):
    n = 2 + seed % 7
    rng = random.Random(seed)
    g = Game(n, seed=seed)
    while not g.is_over:
        seat = g.to_move
        h.update(features.encode(g.view(seat)).tobytes())
        ids = g.legal_ids()
        g.apply_id(ids[rng.randrange(len(ids))])
print(json.dumps({"compiled": not features.__file__.endswith(".py"), "digest": h.hexdigest()}))
"""


def test_compiled_and_source_observation_encodings_agree() -> None:
    if not engine.COMPILED:
        pytest.skip(f"the engine is not compiled here ({engine.SOURCE_REASON})")
    assert "bots.features" in _compiled.MODULES
    runs = []
    for pure in ("0", "1"):
        out = subprocess.run([sys.executable, "-c", ENCODE, "40"], capture_output=True, text=True,
                             env=dict(os.environ, CIVLITE_PURE=pure), check=False, timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    assert [r["compiled"] for r in runs] == [True, False]
    assert runs[0]["digest"] == runs[1]["digest"]
