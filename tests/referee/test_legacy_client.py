"""Bots written for hexarena 0.1 import the client library as ``protocol.client``: they keep playing, sandboxed or
not (referee/legacy/protocol puts that name on a Python bot's path as ``hexarena.protocol``)."""

from __future__ import annotations

import pytest
from helpers import FAST, bot

from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_bot_importing_protocol_client_plays_whole_games(sandboxed):
    with Referee(time_control=FAST, sandboxed=sandboxed) as referee:
        records = [referee.play([bot("legacy_client"), bot("random")], BoardConfig(size="2x2"), game_id=f"g{n}", seed=n)
                   for n in range(2)]
    assert [r.result.termination for r in records] == ["completed", "completed"]
    assert all(len(r.moves) == 19 for r in records)  # 2x2 hex: every one of its 19 lines drawn
