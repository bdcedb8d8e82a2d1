"""Research interfaces: PettingZoo (``civlite.rl.pettingzoo``), Gymnasium
(``civlite.rl.gymnasium``) and OpenSpiel (``civlite.rl.openspiel``).

They need the ``rl`` extra (``pip install civlite[rl]``); this package itself
imports nothing optional, so ``import civlite.rl`` always works.
"""
