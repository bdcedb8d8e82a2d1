"""The balance lab: simulations between bots, reports, comparisons and parameter sweeps.

* :func:`simulate` runs a :class:`SimConfig` (multiprocessing or Ray) and writes a run
  directory (``games.jsonl`` + ``summary.json``);
* :func:`civlite.sim.report.build_report` turns a run directory into HTML + PNGs;
* :func:`civlite.sim.compare.compare_runs` sets two runs side by side with significance;
* :func:`civlite.sim.sweep.sweep` runs one simulation per value of a rule-set number.
"""

from .simulator import (
    SUMMARY_KEYS,
    SimConfig,
    SimResult,
    derive_seed,
    load_run,
    play_game,
    simulate,
    split_bots,
    summarize,
)

__all__ = ["SUMMARY_KEYS", "SimConfig", "SimResult", "derive_seed", "load_run", "play_game", "simulate", "split_bots", "summarize"]
