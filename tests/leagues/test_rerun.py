"""``hexarena rerun``: a stored game of registered, deterministic bots played again says identical; with another
version in one seat it names the first move that differs; versions gone from the registry are named."""

from __future__ import annotations

import pytest
from helpers import FAST, cli, fixture_home, make_workspace

from hexarena.leagues.registry.resolve import resolve
from hexarena.leagues.results import store
from hexarena.leagues.workspace.home import Workspace
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee
from hexarena.referee.seats.process import BotSpec


def stored_game(home, seats=("greedy", "random"), size="3x3"):
    ws = make_workspace(home)
    bots = [resolve(ws, name) for name in seats]
    with Referee(time_control=FAST) as referee:
        record = referee.play([BotSpec(b.name, b.folder, version=b.version) for b in bots],
                              BoardConfig(size=size, geometry="hex"), game_id="rerun-1", seed=21, prelude=[0, 5])
    assert store.save_game(ws, "tiny", record)
    ws.close()
    return record


@pytest.mark.slow
def test_a_rerun_of_deterministic_bots_is_identical_and_another_version_names_the_first_difference(tmp_path, capsys):
    home = tmp_path / "home"
    record = stored_game(home)
    assert record.versions and record.opening == [0, 5]
    status, out, err = cli(capsys, "rerun", "rerun-1", "--home", str(home))
    assert (status, err) == (0, "")
    assert out == (f"identical: rerun-1, {len(record.moves)} moves and the result (completed, "
                   f"{'-'.join(map(str, record.result.scores))}) the same\n")
    # greedy's seat played by random's registered version: it parts at greedy's first move that is not random's
    random_version = record.versions[1]
    status, out, err = cli(capsys, "rerun", "rerun-1", "--home", str(home), "--bot", f"greedy={random_version}")
    assert status == 1, err
    first = out.splitlines()[0]
    assert first.startswith("differs at move ") and ", rerun seat 0 (greedy) line " in first
    index = int(first.split()[3].rstrip(":")) - 1
    assert f"stored seat 0 (greedy) line {record.moves[index].line}," in first
    assert out.splitlines()[1] == ("the position before it (lines drawn: "
                                   f"{', '.join(str(m.line) for m in record.moves[:index]) or 'none'}):")


def test_a_rerun_names_the_versions_the_registry_lacks_and_a_bad_bot_option(tmp_path, capsys):
    home = tmp_path / "home"
    record = stored_game(home, size="2x2")
    ghost = record.model_copy(update={"id": "ghost-1", "versions": ["ghost@0123456789", record.versions[1]],
                                      "seats": ["ghost", "random"]})
    with Workspace(home) as ws:
        assert store.save_game(ws, "tiny", ghost)
    status, out, err = cli(capsys, "rerun", "ghost-1", "--home", str(home))
    assert (status, out) == (2, "")
    assert err == "hexarena: error: game ghost-1: not in the registry any more: ghost@0123456789 (seat 0)\n"
    status, _, err = cli(capsys, "rerun", "rerun-1", "--home", str(home), "--bot", "nobody=bots/random")
    assert status == 2 and err.startswith("hexarena: error: --bot nobody=…: no seat of game rerun-1 plays 'nobody'")
    status, _, err = cli(capsys, "rerun", "nope", "--home", str(home))
    assert status == 2 and len(err.splitlines()) == 1 and "'nope' is not in the workspace" in err
    # a --bot version that is not there: resolve's own words, not "not in the registry any more"
    status, _, err = cli(capsys, "rerun", "rerun-1", "--home", str(home), "--bot", f"greedy={tmp_path / 'nowhere'}")
    assert status == 2 and err == (f"hexarena: error: --bot greedy={tmp_path / 'nowhere'}: {tmp_path / 'nowhere'}: "
                                   "not a bot folder (no such directory)\n")
    status, _, err = cli(capsys, "rerun", "rerun-1", "--home", str(home), "--bot", "greedy=greedy@ffffffff")
    assert status == 2 and err.startswith("hexarena: error: --bot greedy=greedy@ffffffff: 'greedy@ffffffff' matches "
                                          "no version of bot 'greedy' (versions: ")
    for bad in ("greedy", "greedy=", "=bots/random"):
        status, out, err = cli(capsys, "rerun", "rerun-1", "--home", str(home), "--bot", bad)
        assert (status, out, err) == (2, "", f"hexarena: error: --bot {bad!r}: give NAME=FOLDER or NAME=name@hash\n")


def test_a_record_of_an_older_release_is_analysed_and_replayed_and_its_rerun_refused_in_one_line(tmp_path, capsys):
    """The workspace of commit 957ae21: records without notes, cpu_ms or versions."""
    home = fixture_home(tmp_path)
    with Workspace(home) as ws:
        game = ws.db.execute("SELECT id FROM games ORDER BY id LIMIT 1").fetchone()[0]
    status, out, err = cli(capsys, "analyse", game, "--home", str(home))
    assert (status, err) == (0, "") and " positions solved in " in out.splitlines()[-1]
    status, out, err = cli(capsys, "replay", game, "--home", str(home), "--delay", "0")
    assert (status, err) == (0, "") and "notes:" not in out and out.splitlines()[-1].startswith("result: ")
    status, out, err = cli(capsys, "rerun", game, "--home", str(home))
    assert (status, out) == (2, "") and err == (
        f"hexarena: error: game {game} was recorded before versions were kept: its bots' versions are unknown, so it "
        "cannot be rerun exactly (replace every seat's bot with --bot NAME=FOLDER)\n")
