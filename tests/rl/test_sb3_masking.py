"""PettingZoo's SB3 action-mask tutorial runs on civlite with Gymnasium 1.x through civlite.rl.sb3_masking."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("sb3_contrib")

from pettingzoo.utils import BaseWrapper
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker

from civlite.rl.pettingzoo import env as civlite_env
from civlite.rl.sb3_masking import SB3ActionMaskWrapper, mask_fn


def test_the_tutorial_trains_on_civlite() -> None:
    e = SB3ActionMaskWrapper(civlite_env(players=2))
    obs, info = e.reset(seed=0)
    assert obs.shape == e.observation_space.shape and info == {}
    masked = ActionMasker(e, mask_fn)
    model = MaskablePPO(MaskableActorCriticPolicy, masked, seed=0, n_steps=64, batch_size=32, n_epochs=1)
    model.learn(total_timesteps=64)
    assert model.num_timesteps >= 64
    # a masked action is always legal
    for _ in range(20):
        mask = e.action_mask()
        action, _ = model.predict(e.observe(e.agent_selection), action_masks=mask)
        assert mask[int(action)]
        _, _, term, trunc, _ = e.step(int(action))
        if term or trunc:
            e.reset(seed=1)


def test_the_published_wrapper_alone_is_refused() -> None:
    """The tutorial's wrapper as published (a BaseWrapper only) is what Gymnasium 1.x refuses."""

    class Published(BaseWrapper):  # type: ignore[misc]
        def reset(self, seed: int | None = None, options: Any = None) -> Any:
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

    e = Published(civlite_env(players=2))
    e.reset(seed=0)
    with pytest.raises(TypeError, match=r"gymnasium\.Env"):
        ActionMasker(e, mask_fn)
