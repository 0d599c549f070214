"""Local bots over tcp (issue 14 item 1): ``transport = "tcp"`` in a manifest, through the relay in the bot's sandbox.

The tcp-only test bot (``tests/bots/tcp_only``) refuses any endpoint but ``tcp://127.0.0.1:PORT``, as a ZeroMQ
without ``ipc://`` would; it plays the random bot's moves, so its games must be move for move the random bot's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from helpers import BOTS, HEXARENA, TEST_BOTS
from hypothesis import given
from hypothesis import strategies as st

from hexarena.protocol.errors import ConfigError
from hexarena.referee import sandbox
from hexarena.referee.seats.process import BotSpec
from hexarena.referee.manifest import load_manifest
from hexarena.referee.record import BoardConfig

TCP_ONLY = BotSpec("tcp-only", TEST_BOTS / "tcp_only")
RANDOM = BotSpec("random", BOTS / "random")
GREEDY = BotSpec("greedy", BOTS / "greedy")


@pytest.fixture(params=["bwrap", "unshare", "unconfined"])
def confinement(request, monkeypatch) -> str:
    if request.param == "unconfined":
        pass  # the tests make their referees with sandboxed=False
    elif request.param == "bwrap" and sandbox.bwrap() is None:
        pytest.skip("needs bubblewrap (Debian: bubblewrap)")
    elif request.param == "unshare" and sandbox.user_namespaces() is not None:
        pytest.skip(f"user namespaces do not work here: {sandbox.user_namespaces()}")
    else:
        monkeypatch.setenv(sandbox.CHOICE, request.param)
    return request.param


def test_a_bot_that_can_only_use_tcp_plays_whole_games(make_referee, tmp_path, confinement):
    referee = make_referee(sandboxed=confinement != "unconfined")
    config = BoardConfig(size="3x3")
    over_tcp = [referee.play([TCP_ONLY, GREEDY], config, game_id=f"tcp{n}", seed=n) for n in range(3)]
    over_ipc = [referee.play([RANDOM, GREEDY], config, game_id=f"ipc{n}", seed=n) for n in range(3)]
    assert [r.result.termination for r in over_tcp] == ["completed"] * 3
    assert [[m.line for m in r.moves] for r in over_tcp] == [[m.line for m in r.moves] for r in over_ipc]
    assert [r.result.scores for r in over_tcp] == [r.result.scores for r in over_ipc]
    # no Nagle in the relay: a TURN after a DRAWN waited for the bot's delayed ACK, 40 ms a move
    think = sorted(m.ms for r in over_tcp for m in r.moves if m.seat == 0)
    assert think[len(think) // 2] < 20, think
    log = (tmp_path / "logs" / "tcp0.seat0.tcp-only.log").read_text()
    assert log.startswith("tcp-only: connecting to tcp://127.0.0.1:")


def test_a_tcp_bot_whose_program_is_missing_cannot_start_as_a_zmq_bot_cannot(make_referee, tmp_path, confinement):
    """The relay in front must not hide a missing program as a crash of the relay's exec."""
    faults = {}
    for transport in ("tcp", "zmq"):
        folder = tmp_path / transport
        folder.mkdir()
        (folder / "bot.toml").write_text(f'name = "gone"\ncommand = ["./nothere"]\ntransport = "{transport}"\n')
        record = make_referee(sandboxed=confinement != "unconfined").play(
            [BotSpec("gone", folder), GREEDY], BoardConfig(size="2x2"), game_id=transport, seed=1)
        faults[transport] = (record.result.termination, record.result.forfeits[0].detail)
    assert faults["tcp"] == faults["zmq"]
    assert faults["tcp"][0] == "no_connection" and "cannot start" in faults["tcp"][1], faults


def test_a_bot_that_cannot_start_leaves_no_socket_of_its_own_behind(make_referee, tmp_path):
    """Each start binds the bot a socket (issue 31); a start that fails releases it, however many games it fails."""
    folder = tmp_path / "gone"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "gone"\ncommand = ["./nothere"]\n')
    referee = make_referee()
    for number in range(4):
        record = referee.play([BotSpec("gone", folder), GREEDY], BoardConfig(size="2x2"), game_id=f"g{number}", seed=1)
        assert record.result.termination == "no_connection"
    sockets = sorted(path.name for path in Path(referee.hub.transport._tmp).iterdir())
    assert len(sockets) == 2 and "referee.sock" in sockets, sockets  # the referee's and the greedy bot's


def test_without_the_key_the_tcp_only_bot_gets_ipc_and_cannot_play(make_referee, tmp_path):
    """The test bot really refuses ipc: the key is what makes it work."""
    folder = tmp_path / "ipc_only"
    shutil.copytree(TCP_ONLY.folder, folder)
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('transport = "tcp"\n', ""))
    record = make_referee().play([BotSpec("tcp-only", folder), GREEDY], BoardConfig(size="2x2"), game_id="ipc", seed=1)
    assert (record.result.termination, record.result.offender) == ("crashed", 0)
    assert "tcp-only: cannot use 'ipc://" in record.result.forfeits[0].detail


def test_a_malformed_transport_is_one_line_naming_the_allowed_values(tmp_path):
    folder = tmp_path / "udp"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "udp"\ncommand = ["python3", "bot.py"]\ntransport = "udp"\n')
    done = subprocess.run([*HEXARENA, "submit", str(folder), "--home", str(tmp_path / "home")], capture_output=True,
                          text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"hexarena: error: {folder}/bot.toml: field 'transport': Input should be 'zmq', 'tcp' or "
                           "'stdio' (found 'udp')\n")


@given(st.text(max_size=20).filter(lambda value: value not in ("zmq", "tcp", "stdio")))
def test_any_other_transport_is_refused_in_one_line(value):
    folder = Path(tempfile.mkdtemp(prefix="hexarena-transport-"))
    try:  # a JSON string is a TOML basic string: any text, escaped
        quoted = json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")  # TOML escapes DEL too
        (folder / "bot.toml").write_text(f'name = "x"\ncommand = ["true"]\ntransport = {quoted}\n')
        with pytest.raises(ConfigError) as refused:
            load_manifest(folder)
        assert str(refused.value) == (f"{folder}/bot.toml: field 'transport': Input should be 'zmq', 'tcp' or 'stdio' "
                                      f"(found {value!r})")
    finally:
        shutil.rmtree(folder)


def test_a_tmpdir_too_long_for_a_socket_address_puts_the_sockets_in_tmp(tmp_path):
    """A unix socket's path has 107 bytes: under a deep TMPDIR the referee's sockets go to /tmp (before: every
    match failed to bind, and every upload of the server answered 500)."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    played = subprocess.run([*HEXARENA, "match", str(BOTS / "random"), str(BOTS / "greedy"), "--size", "2x2",
                             "--games", "2", "--no-sandbox"], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "TMPDIR": str(deep)}, check=False)
    assert played.returncode == 0, played.stderr
    assert "greedy" in played.stdout and list(deep.iterdir()) == []


def test_no_folder_short_enough_for_a_socket_is_one_line(monkeypatch, tmp_path):
    from hexarena.referee import transport

    monkeypatch.setattr(transport, "socket_bases", lambda: (str(tmp_path / ("d" * 120)),))
    with pytest.raises(OSError, match="^no folder for the referee's sockets: .* set TMPDIR to a shorter one$"):
        transport.socket_folder()
