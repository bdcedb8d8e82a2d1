"""Research interfaces: PettingZoo, Gymnasium and OpenSpiel.

* ``civlite.rl.pettingzoo.env(players=2, rules=None, render_mode=None)``: an AEC
  environment (agents ``player_0`` ..), observations ``{"observation", "action_mask"}``;
* ``civlite.rl.gymnasium.SingleAgentEnv(opponents=["heuristic"], ...)``: one learning
  seat against :func:`civlite.bots.make_bot` bots;
* ``import civlite.rl.openspiel`` registers the OpenSpiel games ``python_civlite`` and
  ``python_civlite_2p`` (explicit chance node per card drawn or stolen, a sampled chance
  model for CFR, or none with ``chance="implicit"``; ``resample_from_infostate`` for
  OpenSpiel's ISMCTSBot);
* ``civlite.rl.sb3_masking``: PettingZoo's SB3 action-mask tutorial wrapper, for Gymnasium 1.x;
* ``civlite.rl.encoding``: the shared fixed-shape encoding of a seat's view.

They need the ``rl`` extra (``pip install civlite[rl]``: numpy, gymnasium,
pettingzoo, open_spiel); this package itself imports nothing optional, so
``import civlite.rl`` always works. Examples: ``examples/train_policy_gradient.py``
(REINFORCE in numpy), ``examples/openspiel_ismcts.py``, the baselines in
``examples/baselines/``; head to head: ``benchmarks/vs_openspiel.py``.
"""
