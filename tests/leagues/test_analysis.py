"""The solver's analysis of stored games (``hexarena.leagues.results.analysis``, ``hexarena analyse``) against a plain
full search by the rules engine, on 2x2 and 2x3 hex, normal and misère."""

from __future__ import annotations

import json
import random
import sqlite3
import sys

import pytest
from helpers import cli

from hexarena.leagues.results import definitions, store
from hexarena.leagues.results.analyses import analysis_of, league_analyses, stored_analysis
from hexarena.leagues.results.analysis import analyse, loser, side
from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.workspace.home import Workspace
from hexarena.referee.record import BoardConfig, GameRecord, MoveRecord, Result

sys.setrecursionlimit(10_000)


def plain_values(config: BoardConfig, opening: list[int]):
    """Seat 0's final margin under perfect play of any position reached from ``opening``: memoised negamax over
    every free line by ``State.apply`` (no solver, no reductions)."""
    sign = -1 if config.misere else 1
    known: dict[int, int] = {}  # drawn lines -> the mover's margin over the open cells (misère: negated)

    def future(state) -> int:  # it depends on the drawn lines alone, not on who took which cell
        if state.drawn not in known:
            best = None
            for line in state.legal_moves():
                step = state.apply(line)
                after = future(step.state)
                value = len(step.closed) * sign + after if step.again else -after
                best = value if best is None else max(best, value)
            known[state.drawn] = 0 if best is None else best
        return known[state.drawn]

    def value_of(state) -> int:
        mover_future = future(state) * sign
        return state.scores[0] - state.scores[1] + (mover_future if state.to_move == 0 else -mover_future)

    return value_of


def played_game(config: BoardConfig, seed: int, opening: list[int] = ()) -> GameRecord:
    """A game of two sloppy players (random lines, a capture when there is one), recorded as the referee does."""
    rng = random.Random(seed)
    state = config.rules().replay(opening)
    moves = []
    while not state.is_over():
        legal = state.legal_moves()
        captures = [line for line in legal if state.apply(line).closed]
        line = rng.choice(captures) if captures and rng.random() < 0.7 else rng.choice(legal)
        step = state.apply(line)
        moves.append(MoveRecord(seat=state.to_move, line=line, closed=list(step.closed)))
        state = step.state
    outcome = state.outcome()
    return GameRecord(id=f"g-{config.size}-{int(config.misere)}-{seed}", config=config, seats=["a", "b"],
                      moves=moves, opening=list(opening),
                      result=Result(scores=list(outcome.scores), placements=list(outcome.placements)))


# the whole game on 2x2 (19 free lines: seconds of plain search, so slow); 2x3 from a start position of 11 lines
CASES = [pytest.param("2x2", misere, [], id=f"2x2-{'misere' if misere else 'normal'}", marks=pytest.mark.slow)
         for misere in (False, True)]
CASES += [pytest.param("2x3", misere, [0, 3, 5, 8, 11, 13, 14, 19, 22, 24, 26],
                       id=f"2x3-{'misere' if misere else 'normal'}") for misere in (False, True)]


@pytest.mark.parametrize(("size", "misere", "opening"), CASES)
def test_every_value_is_the_plain_search_and_the_losing_move_is_the_first_drop(size, misere, opening):
    config = BoardConfig(size=size, geometry="hex", misere=misere)
    value_of = plain_values(config, opening)
    checked_losing = 0
    for seed in range(6):
        record = played_game(config, seed, opening)
        analysis = analyse(record, budget=60)
        states = [config.rules().replay(opening)]
        for move in record.moves:
            states.append(states[-1].apply(move.line).state)
        expected = [value_of(state) for state in states]
        assert analysis.values == expected
        assert analysis.solved_positions == len(states)
        assert analysis.values[-1] == record.result.scores[0] - record.result.scores[1]
        for index, move in enumerate(record.moves):
            cost = side(expected[index], move.seat, misere) - side(expected[index + 1], move.seat, misere)
            assert analysis.costs[index] == cost >= 0
            # best lines: exactly the lines that keep the mover's value, listed only where the move was not one
            keeping = [line for line in states[index].legal_moves()
                       if value_of(states[index].apply(line).state) == expected[index]]
            assert analysis.best[index] == ([] if cost == 0 else keeping)
        seat = loser(record)
        sides = [side(v, seat, misere) for v in expected] if seat is not None else []
        drops = [i for i in range(len(sides) - 1) if sides[i] >= 0 > sides[i + 1]]
        assert analysis.losing_move == (drops[0] if drops else None)
        if drops:
            assert record.moves[drops[0]].seat == seat  # only one's own move can lose one's game
            checked_losing += 1
    assert checked_losing >= 2  # the sloppy games do have losing moves to check


def store_game(home, record: GameRecord) -> None:
    with Workspace(home) as ws:
        assert store.save_game(ws, "tiny", record)


def test_analyse_prints_the_json_once_made_and_stored(tmp_path, capsys):
    home = tmp_path / "home"
    record = played_game(BoardConfig(size="2x2", geometry="hex"), seed=3)
    store_game(home, record)
    status, out, err = cli(capsys, "analyse", record.id[:6], "--home", str(home), "--json")
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert list(data) == ["game", "values", "costs", "losing_move", "best", "solved_positions", "seconds"]
    assert data["game"] == record.id and len(data["values"]) == len(record.moves) + 1
    assert len(data["costs"]) == len(data["best"]) == len(record.moves)
    assert data["solved_positions"] == len(record.moves) + 1
    with sqlite3.connect(home / "hexarena.db") as db:
        assert json.loads(db.execute("SELECT analysis FROM analyses WHERE game = ?", (record.id,)).fetchone()[0]) == data
    # never recomputed: the stored row (its seconds, too) comes back, whatever the budget
    status, again, _ = cli(capsys, "analyse", record.id, "--home", str(home), "--json", "--budget", "100")
    assert (status, json.loads(again)) == (0, data)
    status, text, _ = cli(capsys, "analyse", record.id, "--home", str(home))
    assert status == 0 and text.splitlines()[1] == f"start: {data['values'][0]:+d}"
    assert f"{len(record.moves) + 1} positions solved" in text.splitlines()[-1]


def test_a_partial_analysis_says_how_many_positions_it_solved_and_a_larger_budget_completes_it(tmp_path, capsys):
    home = tmp_path / "home"
    record = played_game(BoardConfig(size="4x4", geometry="hex"), seed=1)
    store_game(home, record)
    status, out, _ = cli(capsys, "analyse", record.id, "--home", str(home), "--budget", "0.2")
    total = len(record.moves) + 1
    assert status == 0
    with Workspace(home) as ws:
        partial, budget = stored_analysis(ws, record.id)
    assert budget == 0.2 and 0 < partial.solved_positions < total
    assert partial.values[0] is None and partial.values[-1] is not None
    assert f"solved {partial.solved_positions} of {total} positions within the budget" in out
    # the late positions are solved first: every None comes before every value
    assert partial.values == [None] * (total - partial.solved_positions) + partial.values[-partial.solved_positions:]
    with Workspace(home) as ws:  # the same budget again: the stored one, not a new search
        assert analysis_of(ws, record, 0.2) == partial


def test_three_players_and_a_missing_game_are_one_line(tmp_path, capsys):
    home = tmp_path / "home"
    config = BoardConfig(size="2x2", geometry="hex", players=3)
    state = config.rules().start()
    step = state.apply(0)
    record = GameRecord(id="three", config=config, seats=["a", "b", "c"],
                        moves=[MoveRecord(seat=0, line=0)], result=Result(scores=[0, 0, 0], placements=[1, 1, 1]))
    assert not step.closed
    store_game(home, record)
    status, out, err = cli(capsys, "analyse", "three", "--home", str(home))
    assert (status, out) == (2, "")
    assert err == "hexarena: error: game three has 3 players: the analysis covers 2-player games only (the solver's)\n"
    status, out, err = cli(capsys, "analyse", "nope", "--home", str(home), "--json")
    assert (status, out) == (2, "") and len(err.splitlines()) == 1 and "game 'nope' is not in the workspace" in err


def test_a_league_analyses_its_two_player_games_once_and_skips_three_players_and_garbled_records(tmp_path):
    two = [played_game(BoardConfig(size="2x2", geometry="hex"), seed) for seed in (1, 2, 3)]
    three = GameRecord(id="three", config=BoardConfig(size="2x2", geometry="hex", players=3), seats=["a", "b", "c"],
                       moves=[MoveRecord(seat=0, line=0)], result=Result(scores=[0, 0, 0], placements=[1, 1, 1]))
    with Workspace(tmp_path / "home") as ws:
        league = parse_league('name = "tiny"\nparticipants = ["a", "b", "c"]\n[[boards]]\nsize = "2x2"\n')
        definitions.save_rows(ws, league, [(r.id, 0, "2x2 hex", "[]", n) for n, r in enumerate([*two, three])])
        for record in [*two, three]:
            assert store.save_game(ws, "tiny", record)
        with ws.transaction() as db:  # a record damaged on disk: the store's warning, not the analysis's
            db.execute("UPDATE games SET record = '{\"id\": 1' WHERE id = ?", (two[2].id,))
        found = league_analyses(ws, "tiny", 10.0)
        assert sorted(found) == sorted(r.id for r in two[:2])
        assert all(a["solved_positions"] == len(a["values"]) for a in found.values())
        assert league_analyses(ws, "tiny", 10.0) == found  # stored: the same rows, nothing analysed again
        assert league_analyses(ws, "tiny", 0) == found  # budget 0: only what is stored


def test_a_workspace_that_refuses_writes_still_gets_its_analyses_unsaved(tmp_path):
    record = played_game(BoardConfig(size="2x2", geometry="hex"), seed=4)
    with Workspace(tmp_path / "home") as ws:
        league = parse_league('name = "tiny"\nparticipants = ["a", "b"]\n[[boards]]\nsize = "2x2"\n')
        definitions.save_rows(ws, league, [(record.id, 0, "2x2 hex", "[]", 0)])
        assert store.save_game(ws, "tiny", record)
        ws.db.execute("PRAGMA query_only = 1")  # as a full disk or a read-only file refuses the row
        found = league_analyses(ws, "tiny", 10.0)
        assert list(found) == [record.id] and found[record.id] == analyse(record, 10.0).to_json() | {
            "seconds": found[record.id]["seconds"]}
        ws.db.execute("PRAGMA query_only = 0")
        assert ws.db.execute("SELECT COUNT(*) FROM analyses").fetchone()[0] == 0


def test_a_publish_analyses_at_most_its_share_of_a_big_league_the_schedules_last_first(tmp_path):
    games = [played_game(BoardConfig(size="2x2", geometry="hex"), seed) for seed in (5, 6, 7)]
    with Workspace(tmp_path / "home") as ws:
        league = parse_league('name = "tiny"\nparticipants = ["a", "b"]\n[[boards]]\nsize = "2x2"\n')
        definitions.save_rows(ws, league, [(r.id, 0, "2x2 hex", "[]", n) for n, r in enumerate(games)])
        for record in games:
            assert store.save_game(ws, "tiny", record)
        assert list(league_analyses(ws, "tiny", 10.0, most=2)) == [games[2].id, games[1].id]
        assert sorted(league_analyses(ws, "tiny", 10.0, most=2)) == sorted(r.id for r in games)  # the next one goes on


@pytest.mark.parametrize("python", ["process", "no python"])
def test_a_publishs_analyses_made_in_a_process_of_their_own_are_those_made_here_and_are_stored_after(
        tmp_path, monkeypatch, caplog, python):
    """``Analysing`` (publish) analyses the games without one in another process while the caller reads on: the
    same analyses as ``league_analyses`` makes here (and made here where that process cannot start, with a warning
    that says so), stored only by ``save``; the stored ones come with them."""
    from hexarena.leagues.results.analyses import Analysing

    games = [played_game(BoardConfig(size="2x2", geometry="hex"), seed) for seed in (8, 9, 10)]
    if python == "no python":
        monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    with Workspace(tmp_path / "home") as ws:
        league = parse_league('name = "tiny"\nparticipants = ["a", "b"]\n[[boards]]\nsize = "2x2"\n')
        definitions.save_rows(ws, league, [(r.id, 0, "2x2 hex", "[]", n) for n, r in enumerate(games)])
        for record in games:
            assert store.save_game(ws, "tiny", record)
        assert list(league_analyses(ws, "tiny", 10.0, most=1)) == [games[2].id]  # made here and stored
        analysing = Analysing(ws, "tiny", 10.0, most=2)
        found = analysing.analyses()
        assert list(found) == [games[1].id, games[0].id, games[2].id]  # the new ones first, as league_analyses
        assert {game: {**a, "seconds": 0} for game, a in found.items()} == {
            r.id: analyse(r, 10.0).to_json() | {"seconds": 0} for r in reversed(games[:2])} | {
            games[2].id: {**found[games[2].id], "seconds": 0}}
        assert ws.db.execute("SELECT COUNT(*) FROM analyses").fetchone()[0] == 1  # not stored yet
        analysing.close()
        analysing.save(ws)
        assert league_analyses(ws, "tiny", 10.0) == found  # stored: nothing made again
    said = ("the analysis process (python -m hexarena.leagues.results.analyses) failed (it did not start: No such file "
            "or directory); its 2 games are analysed in this process instead")
    assert [r.getMessage() for r in caplog.records] == ([] if python == "process" else [said])


def test_a_publish_whose_analysis_process_fails_says_so_in_one_line_and_the_site_still_has_every_analysis(
        tmp_path, capfd, monkeypatch):
    """The process a publish analyses in (``Analysing``) cannot import hexarena (a broken install: a package on
    PYTHONPATH shadows it; the publishing process has it imported already): one warning line naming that process and
    quoting its stderr's last line, no traceback; the games are analysed in the publishing process instead, shown and
    stored."""
    broken = tmp_path / "broken" / "hexarena"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text('raise RuntimeError("a broken install of hexarena")\n')
    games = [played_game(BoardConfig(size="2x2", geometry="hex"), seed) for seed in (11, 12)]
    home, out = tmp_path / "home", tmp_path / "site"
    with Workspace(home) as ws:
        league = parse_league('name = "tiny"\nparticipants = ["a", "b"]\n[[boards]]\nsize = "2x2"\n')
        definitions.save_rows(ws, league, [(r.id, 0, "2x2 hex", "[]", n) for n, r in enumerate(games)])
        for record in games:
            assert store.save_game(ws, "tiny", record)
    monkeypatch.setenv("PYTHONPATH", str(broken.parent))
    monkeypatch.chdir(tmp_path)  # not the repository's folder: its hexarena/ would come first on the child's path
    status, _, err = cli(capfd, "publish", "tiny", "--out", str(out), "--home", str(home))
    assert status == 0 and "Traceback" not in err
    assert err.splitlines() == [(
        "hexarena: warning: the analysis process (python -m hexarena.leagues.results.analyses) failed (exit status 1: "
        "RuntimeError: a broken install of hexarena); its 2 games are analysed in this process instead")]
    chunk = (out / "games" / "chunk-0.js").read_text(encoding="utf-8")
    assert chunk.count('"analysis":{') == len(games)  # the site is whole
    with Workspace(home) as ws:
        assert sorted(stored_analysis(ws, r.id)[0].to_json()["game"] for r in games) == sorted(r.id for r in games)


def test_the_analyses_a_dead_analysis_process_finished_are_kept_and_only_the_others_made_here(tmp_path, monkeypatch,
                                                                                              caplog):
    """The analysis process answers one line per analysis as each is made: where it dies (here a real process, the
    ``python`` it is started with, that answers the first game and half a line, then is killed by SIGKILL), the
    whole lines are kept and only the other games are analysed here, after one warning that says so."""
    from hexarena.leagues.results.analyses import Analysing

    games = [played_game(BoardConfig(size="2x2", geometry="hex"), seed) for seed in (13, 14, 15)]
    first = analyse(games[2], 10.0).to_json() | {"seconds": 123.0}  # the schedule's last first; marked as its own
    (tmp_path / "answered.jsonl").write_text(json.dumps(first) + '\n{"game": "g-2x2', encoding="utf-8")
    dying = tmp_path / "python"
    dying.write_text(f'#!/bin/sh\ncat {tmp_path / "answered.jsonl"} > "$5"\necho "Traceback (most recent call last):"'
                     ' >&2\necho MemoryError >&2\nkill -9 $$\n')
    dying.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(dying))
    with Workspace(tmp_path / "home") as ws:
        league = parse_league('name = "tiny"\nparticipants = ["a", "b"]\n[[boards]]\nsize = "2x2"\n')
        definitions.save_rows(ws, league, [(r.id, 0, "2x2 hex", "[]", n) for n, r in enumerate(games)])
        for record in games:
            assert store.save_game(ws, "tiny", record)
        analysing = Analysing(ws, "tiny", 10.0)
        found = analysing.analyses()
        analysing.close()
    assert list(found) == [r.id for r in reversed(games)] and found[games[2].id] == first  # kept, not made again
    assert [{**found[r.id], "seconds": 0} for r in games[:2]] == [analyse(r, 10.0).to_json() | {"seconds": 0}
                                                                   for r in games[:2]]
    assert [r.getMessage() for r in caplog.records] == [(
        "the analysis process (python -m hexarena.leagues.results.analyses) failed (killed by signal 9: MemoryError); "
        "the 2 of its 3 games it had not analysed are analysed in this process instead")]
