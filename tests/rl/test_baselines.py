"""The baseline scripts (examples/baselines/) each run for a few seconds and write their result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("pyspiel")

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "examples" / "baselines"

RUNS = [
    ("bc", ["bc.py", "--games", "3", "--seconds", "3", "--epochs", "2"]),
    ("ppo", ["ppo.py", "--seconds", "3"]),
    ("ppo_from_bc", ["ppo.py", "--init", "{out}/bc_model.zip", "--seconds", "3"]),
    ("selfplay", ["selfplay.py", "--seconds", "3"]),
    ("nfsp", ["nfsp.py", "--seconds", "3"]),
    ("ismcts", ["ismcts.py", "--sims", "2", "--seconds", "3"]),
]


@pytest.mark.slow
def test_each_baseline_runs_and_writes_its_result(tmp_path: Path) -> None:
    for name, args in RUNS:
        args = [a.format(out=tmp_path) for a in args]
        subprocess.run([sys.executable, str(HERE / args[0]), *args[1:], "--eval-games", "2", "--seed", "0",
                        "--out", str(tmp_path)], check=True, cwd=ROOT, timeout=600)
        result = json.loads((tmp_path / f"{name}.json").read_text())
        assert result["baseline"] == name and set(result["against"]) == {"random", "heuristic", "expert"}
        for t in result["against"].values():
            assert t["games"] >= 2 and 0 <= t["wins"] <= t["games"] and t["interval95"][0] <= t["win_rate"]
    subprocess.run([sys.executable, str(HERE / "run_all.py"), "--table-only", "--out", str(tmp_path)], check=True,
                   cwd=ROOT, timeout=120)
    table = (tmp_path / "table.md").read_text()
    assert table.count("\n") == 2 + len(RUNS)
