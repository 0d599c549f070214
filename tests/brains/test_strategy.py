"""The bots' brains: legal complete games on every option, time kept, exact play where solved."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hexarena.bots.brains import BRAINS, bot_choose
from hexarena.bots.brains.budget import move_budget
from hexarena.bots.brains.chains import Chains, chain_move, heuristic
from hexarena.bots.brains.endgame import solvable_free
from hexarena.bots.brains.mcts import Mcts
from hexarena.bots.brains.perfect import Perfect
from hexarena.bots.brains.solver import compiled, solve
from hexarena.protocol.board import make_board
from hexarena.protocol.rules import Options, Rules, State
from hexarena.referee.clock import TimeControl
from hexarena.referee.record import BoardConfig
from hexarena.referee.referee import Referee
from hexarena.referee.seats.inprocess import InProcessSpec

OPTIONS = [
    pytest.param(geometry, size, players, misere, border,
                 id=f"{geometry}-{size}-{players}p{'-misere' if misere else ''}{'-border' if border else ''}")
    for geometry, size in (("hex", "2x2"), ("square", "2x3"))
    for players in (2, 3, 4)
    for misere in (False, True)
    for border in (False, True)
]


def greedy(state, rng, seconds):
    """Close a cell if possible, else any line that offers none, else any line."""
    rules, drawn = state.rules, state.drawn
    moves = state.legal_moves()
    safe = []
    for line in moves:
        after = drawn | 1 << line
        left = [(mask & ~after).bit_count() for _, mask in rules.touches[line]]
        if 0 in left:
            return line
        if 1 not in left:
            safe.append(line)
    return rng.choice(safe or moves)


ROOMY = TimeControl.parse("30s")  # the brains keep their own time; the loop's clock only catches a runaway


def play(config: BoardConfig, brains, seed: int, seconds: float = 0.01) -> State:
    """One game of ``brains`` (one per seat, each given ``seconds`` a move) in the referee's game loop."""
    def seat(number, brain):
        return InProcessSpec(f"seat{number}", lambda game, state: brain(state, game.rng, seconds))

    with Referee(time_control=ROOMY) as referee:
        record = referee.play([seat(n, b) for n, b in enumerate(brains)], config, game_id="brains", seed=seed)
    assert record.result.termination == "completed" and not record.result.forfeits, record.result
    return record.replay()


@pytest.mark.parametrize("name", sorted(BRAINS))
@pytest.mark.parametrize(("geometry", "size", "players", "misere", "border"), OPTIONS)
def test_brain_plays_legal_complete_games(name, geometry, size, players, misere, border):
    config = BoardConfig(size=size, geometry=geometry, players=players, misere=misere, border=border)
    brains = [BRAINS[name]() for _ in range(players - 1)] + [greedy]
    final = play(config, brains, seed=players)
    assert final.drawn == final.rules.full
    assert sum(final.scores) == len(final.rules.board.cells)


def test_every_brain_in_one_four_player_game():
    final = play(BoardConfig(size="2x3", players=4), [Chains(), Mcts(), Perfect(), greedy], seed=1)
    assert sum(final.scores) == 6


@pytest.mark.parametrize(
    ("geometry", "size", "misere"), [("hex", "2x2", False), ("hex", "1x3", True), ("square", "2x2", False)]
)
def test_perfect_plays_only_best_moves_on_solved_boards(geometry, size, misere):
    config = BoardConfig(size=size, geometry=geometry, misere=misere)
    brain, not_best = Perfect(), []

    def perfect(state, rng, seconds):
        line = brain(state, rng, seconds)
        if line not in solve(state).best:
            not_best.append((state.drawn, line))
        return line

    final = play(config, [perfect, lambda state, rng, seconds: rng.choice(state.legal_moves())], seed=3, seconds=5.0)
    assert not_best == []
    # perfect play from the start keeps at least the solved value against anyone
    start_value = solve(config.rules().start()).value
    margin = final.scores[0] - final.scores[1]
    assert margin <= start_value if misere else margin >= start_value


def test_chains_takes_a_cell_that_costs_nothing():
    rules = Rules(make_board("1x2", "hex"))  # cells (1, 5, 8, 7, 4, 0) and (3, 6, 10, 9, 5, 2)
    state = rules.replay([1, 8, 7, 4, 0])  # cell 0 lacks line 5 only; cell 1 would keep 5 sides free
    line = chain_move(state, random.Random(0))
    assert line == 5 and state.apply(line).closed == (0,)


@pytest.mark.parametrize("geometry", ["hex", "square"])
def test_chain_rules_alone_beat_greedy_on_3x3(geometry):
    """Without the solver (no clock involved, so the games are the same every run)."""
    wins = 0
    for seed in range(20):
        seat = seed % 2
        final = play(BoardConfig(size="3x3", geometry=geometry), [heuristic, greedy] if seat == 0 else [greedy, heuristic], seed)
        wins += final.scores[seat] > final.scores[1 - seat]
    assert wins >= 16


def test_mcts_keeps_its_time():
    rules = Rules(make_board("4x4", "hex"))
    state = rules.start()
    # its own thinking (this thread's CPU time) stops at its 0.1 s; the wall clock only catches a search that never
    # stops (a loaded machine can stretch 0.1 s of wall time past 0.2 s: measured 0.115 s under load)
    started, thought = time.monotonic(), time.thread_time()
    Mcts()(state, random.Random(0), 0.1)
    assert time.thread_time() - thought < 0.2
    assert time.monotonic() - started < 2


def test_perfect_falls_back_within_its_time_on_a_big_board():
    rules = Rules(make_board("3x3", "hex"))
    state = rules.start()
    started = time.monotonic()
    line = Perfect()(state, random.Random(0), 0.2)
    assert state.is_legal(line)
    assert time.monotonic() - started < 0.35


@pytest.mark.parametrize(
    ("left_ms", "free", "players", "critical", "per_move", "increment_ms", "seconds"),
    [
        (300, 40, 2, False, True, 0, 0.18),  # fixed 300 ms a move: 60 %
        (300, 40, 2, True, True, 0, 0.205),  # critical: 80 %, but 15 % + 50 ms stay back
        (10_000, 40, 2, False, False, 0, 1.0),  # a 10 s bank over ~10 own moves
        (10_000, 40, 2, True, False, 0, 2.0),  # twice that in the critical phase
        (10_000, 40, 2, False, False, 100, 1.08),  # plus 80 % of the increment
        (60_000, 4, 2, False, False, 0, 30.0),  # a bank is shared over at least 2 moves
        (100, 10, 3, False, False, 0, 0.035),  # almost out of time: 85 % - 50 ms
        (None, 10, 2, False, True, 0, 0.5),  # no clock known
    ],
)
def test_move_budget(left_ms, free, players, critical, per_move, increment_ms, seconds):
    assert move_budget(left_ms, left_ms, free, players, critical, per_move, increment_ms) == pytest.approx(seconds)


def test_bot_choose_reads_the_clock():
    class Turn:
        left_ms = limit_ms = 100

    class Spec:
        move_ms, increment_ms = 100, 0

    class Message:
        time = Spec()

    class Game:
        clock, message, rng = Turn(), Message(), random.Random(0)

    seen = []

    def brain(state, rng, seconds):
        seen.append(seconds)
        return state.legal_moves()[0]

    rules = Rules(make_board("1x1"))
    assert bot_choose(brain)(Game(), rules.start()) == 0
    assert seen == [pytest.approx(0.035)]


@pytest.mark.parametrize(("seconds", "free_c", "free_python"),
                         [(0.05, 22, 22), (0.25, 25, 22), (0.5, 26, 24), (1.0, 27, 26), (4.0, 29, 30)])
def test_perfect_tries_the_solver_on_as_many_lines_as_its_time_allows(seconds, free_c, free_python):
    assert solvable_free(seconds) == (free_c if compiled() else free_python)


def test_perfect_puts_a_share_of_its_bank_into_the_solve():
    state = Rules(make_board("4x4")).start()
    brain = Perfect()
    assert brain.budget(state, 10_000, 10_000, False, 100) == pytest.approx(4.08)
    assert brain.budget(state, 200, 200, True, 0) == pytest.approx(0.12)  # 85 % of the limit less 50 ms
    assert brain.budget(state, 1_000, 1_000, True, 0) == pytest.approx(0.8)
    three = Rules(make_board("4x4"), Options(players=3)).start()
    assert brain.budget(three, 10_000, 10_000, False, 100) == move_budget(10_000, 10_000, 63, 3, False, False, 100)


@pytest.mark.slow
@pytest.mark.parametrize("bot", ["chains", "mcts", "perfect"])
def test_bot_process_beats_random_in_a_short_match(bot):
    """The real bot: started by the referee, speaking the protocol, seats swapped."""
    root = Path(__file__).resolve().parents[2]
    code = "from hexarena.cli import main; main()"
    command = [sys.executable, "-c", code, "match", f"bots/{bot}", "bots/random", "--size", "2x2",
               "--games", "2", "--time", "2s", "--seed", "8", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=root, check=False)
    assert done.returncode == 0, done.stderr
    games = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(games) == 2
    mine = theirs = 0
    for game in games:
        assert game["result"]["termination"] == "completed"
        assert game["result"]["forfeits"] == []
        seat = game["seats"].index(bot)
        mine += game["result"]["scores"][seat]
        theirs += game["result"]["scores"][1 - seat]
    assert mine > theirs
