"""Research interfaces: PettingZoo, Gymnasium and OpenSpiel.

* ``civlite.rl.pettingzoo.env(players=2, rules=None, render_mode=None)``: an AEC
  environment (agents ``player_0`` ..), observations ``{"observation", "action_mask"}``;
* ``civlite.rl.gymnasium.SingleAgentEnv(opponents=["heuristic"], ...)``: one learning
  seat against :func:`civlite.bots.make_bot` bots;
* ``import civlite.rl.openspiel`` registers the OpenSpiel game ``python_civlite``
  (explicit chance node per card drawn or stolen, ``resample_from_infostate`` for
  OpenSpiel's ISMCTSBot);
* ``civlite.rl.encoding``: the shared fixed-shape encoding of a seat's view.

They need the ``rl`` extra (``pip install civlite[rl]``: numpy, gymnasium,
pettingzoo, open_spiel); this package itself imports nothing optional, so
``import civlite.rl`` always works. Examples: ``examples/train_policy_gradient.py``
(REINFORCE in numpy), ``examples/openspiel_ismcts.py``; head to head:
``benchmarks/vs_openspiel.py``.
"""
