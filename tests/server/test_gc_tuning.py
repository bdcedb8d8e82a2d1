"""The server process's garbage-collector set-up (civlite serve): frozen start-up objects and
rarer collections, or Python's defaults with CIVLITE_GC_TUNING=0."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CODE = """
import gc, json
from civlite.server.run import GC_THRESHOLDS, tune_gc
before = gc.get_freeze_count()
tune_gc()
print(json.dumps({"thresholds": gc.get_threshold(), "frozen": gc.get_freeze_count() - before,
                  "expected": GC_THRESHOLDS}))
"""


@pytest.mark.parametrize("setting", [None, "0"])
def test_the_server_tunes_its_collector_unless_told_not_to(setting: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CIVLITE_GC_TUNING"}
    if setting is not None:
        env["CIVLITE_GC_TUNING"] = setting
    run = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env, timeout=60, check=True)
    out = json.loads(run.stdout)
    if setting == "0":
        assert out["thresholds"] == [700, 10, 10] and out["frozen"] == 0
    else:
        assert out["thresholds"] == list(out["expected"]) and out["frozen"] > 10_000
