"""(slow) A few seconds of each stage of the league with exploiters: the exploiter's training
and measure, the hardening against it, the gate; a finished run goes on when given more rounds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_league_rounds_exploit_harden_gate_and_resume(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    run_dir = tmp_path / "league"
    tiny = ["--dir", str(run_dir), "--seed", "5", "--exploit-steps", "600", "--exploit-eval-every", "300",
            "--exploit-eval-games", "2", "--measure-games", "6", "--harden-updates", "1", "--harden-steps", "256",
            "--harden-parallel", "4", "--harden-eval-games", "2", "--gate-games", "6", "--gate-games4", "4"]

    def league(rounds: int) -> list[dict[str, object]]:
        done = subprocess.run([sys.executable, str(ROOT / "examples" / "league.py"), "--rounds", str(rounds), *tiny],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        return [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines()]

    log = league(0)  # only the measure of the starting network
    assert [r["stage"] for r in log] == ["exploit"]
    assert 0.0 <= float(log[0]["exploiter_score"]) <= 1.0  # type: ignore[arg-type]
    assert (run_dir / "exploiter-0.npz").exists()
    state = json.loads((run_dir / "state.json").read_text())
    assert state["stage"] == "done" and state["exploiters"] == [str(run_dir / "exploiter-0.npz")]

    log = league(1)  # the finished run goes on: harden, gate, then the next exploiter
    assert [r["stage"] for r in log] == ["exploit", "harden", "gate", "exploit"]
    gate = log[2]
    assert isinstance(gate["accepted"], bool) and gate["games"] == 6
    state = json.loads((run_dir / "state.json").read_text())
    expected = str(run_dir / "net-1.npz") if gate["accepted"] else str(run_dir / "net-0.npz")
    assert state["current"] == gate["current_after"] == expected == log[3]["network"]
    assert len(state["exploiters"]) == 2 and state["round"] == 1 and state["stage"] == "done"
    # the candidate trained against the first exploiter
    args = json.loads((run_dir / "candidate-0.log.jsonl").read_text().splitlines()[0])["args"]
    assert args["exploiters"] == [str(run_dir / "exploiter-0.npz")]

    assert league(1) == log  # nothing left to do: the log is unchanged
