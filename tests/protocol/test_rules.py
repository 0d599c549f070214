"""The rules engine: invariants over random games of every option, and exact tiny results."""

import pickle
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hexarena.protocol.board import make_board
from hexarena.protocol.rules import Options, Rules, State
from hexarena.protocol.errors import IllegalMove

configs = st.builds(
    lambda geometry, rows, cols, players, misere, border: Rules(
        make_board((rows, cols), geometry), Options(players, misere, border)
    ),
    st.sampled_from(["hex", "square"]),
    st.integers(1, 4),
    st.integers(1, 4),
    st.integers(2, 4),
    st.booleans(),
    st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(rules=configs, data=st.data())
def test_random_games_keep_every_invariant(rules, data):
    state = rules.start()
    board = rules.board
    seen = set(rules.board.border) if rules.options.border else set()
    assert state.drawn.bit_count() == len(seen)
    while not state.is_over():
        moves = state.legal_moves()
        assert moves == sorted(moves) and not seen & set(moves)
        line = data.draw(st.sampled_from(moves))
        mover = state.to_move
        step = state.apply(line)
        seen.add(line)
        assert len(step.closed) <= 2
        assert set(step.closed) <= set(board.line_cells()[line])
        for cell in step.closed:
            assert set(board.cells[cell]) <= seen
        assert step.again == bool(step.closed)
        assert step.state.to_move == (mover if step.again else (mover + 1) % rules.options.players)
        assert step.state.scores[mover] == state.scores[mover] + len(step.closed)
        state = step.state
    assert seen == set(range(len(board.lines)))
    outcome = state.outcome()
    # a cell whose sides are all border (hex 1x1, square 1x1) is closed before the first move: nobody's
    start = rules.start()
    unowned = sum(1 for cell in board.cells if all(start.drawn >> line & 1 for line in cell))
    assert sum(outcome.scores) == len(board.cells) - unowned
    assert state.owners.count(-1) == unowned
    assert [state.owners.count(seat) for seat in range(rules.options.players)] == list(outcome.scores)
    for a in range(rules.options.players):
        for b in range(rules.options.players):
            better = outcome.scores[a] < outcome.scores[b] if rules.options.misere else outcome.scores[a] > outcome.scores[b]
            if better:
                assert outcome.placements[a] < outcome.placements[b]
            if outcome.scores[a] == outcome.scores[b]:
                assert outcome.placements[a] == outcome.placements[b]
    assert min(outcome.placements) == 1


def test_illegal_moves_are_refused():
    state = Rules(make_board("2x2")).start()
    with pytest.raises(IllegalMove, match="out of range"):
        state.apply(19)
    with pytest.raises(IllegalMove, match="out of range"):
        state.apply(-1)
    with pytest.raises(IllegalMove, match="already drawn"):
        state.apply(3).state.apply(3)
    bordered = Rules(make_board("2x2"), Options(border=True)).start()
    with pytest.raises(IllegalMove, match="already drawn"):
        bordered.apply(make_board("2x2").border[0])


def test_one_line_can_close_two_hexagons():
    rules = Rules(make_board("1x2"))
    shared = next(line for line, cells in enumerate(rules.board.line_cells()) if len(cells) == 2)
    others = [line for line in range(len(rules.board.lines)) if line != shared]
    state = rules.replay(others)
    step = state.apply(shared)
    assert step.closed == (0, 1) and step.again
    assert step.state.scores[state.to_move] == 2


def test_placements_share_places_and_follow_misere():
    rules = Rules(make_board("1x3"), Options(players=3))
    state = State(rules, 0, (0b001, 0b010, 0b100), 0, 0)  # owned: one cell each
    assert state.outcome().placements == (1, 1, 1)
    state = State(rules, 0, (0b011, 0b100, 0), 0, 0)
    assert state.outcome() == ((2, 1, 0), (1, 2, 3))
    assert state.forfeit(0).outcome().placements == (3, 1, 2)
    misere_rules = Rules(make_board("1x3"), Options(players=3, misere=True))
    misere = State(misere_rules, 0, (0b011, 0, 0), 0, 0)
    assert misere.outcome().placements == (3, 1, 1)
    assert misere.outcome().result_for(1) == "draw" and misere.outcome().result_for(0) == "loss"


def test_forfeited_seat_is_skipped_and_placed_last():
    rules = Rules(make_board("2x2"), Options(players=3))
    state = rules.start().forfeit(1)
    assert state.to_move == 0
    state = state.apply(0).state
    assert state.to_move == 2  # seat 1 is skipped
    state = state.apply(1).state
    assert state.to_move == 0
    assert state.outcome().placements[1] == 3
    two = Rules(make_board("2x2")).start().apply(0).state.forfeit(1)
    assert two.is_over() and two.outcome().placements == (1, 2)


@cache
def _negamax(rules: Rules, drawn: int) -> int:
    """Plain exhaustive search: the mover's future cells minus the opponent's."""
    if drawn == rules.full:
        return 0
    best = None
    for line in range(len(rules.board.lines)):
        if drawn >> line & 1:
            continue
        after = drawn | 1 << line
        closed = sum(1 for cell, mask in rules.touches[line] if after & mask == mask)
        value = closed + _negamax(rules, after) if closed else -_negamax(rules, after)
        best = value if best is None else max(best, value)
    return best


def test_square_1x1_second_player_wins_one_nil():
    rules = Rules(make_board("1x1", "square"))
    assert _negamax(rules, rules.start().drawn) == -1


@pytest.mark.parametrize(
    "size, geometry, border, value",
    [
        ("1x1", "hex", False, -1),  # six lines: the second player draws the last one
        ("1x2", "square", False, 0),  # seven lines: the players split the two boxes
        ("1x3", "hex", True, 3),  # two free lines: the first closes an end cell, the second the other two
    ],
)
def test_tiny_boards_exact(size, geometry, border, value):
    rules = Rules(make_board(size, geometry), Options(border=border))
    assert _negamax(rules, rules.start().drawn) == value


def test_free_count_is_the_number_of_legal_moves():
    rules = Rules(make_board("2x3"), Options(border=True))
    state = rules.start()
    while not state.is_over():
        assert state.free_count() == len(state.legal_moves())
        state = state.apply(state.legal_moves()[-1]).state
    assert state.free_count() == 0


def test_a_state_is_a_value_of_bitmasks():
    rules = Rules(make_board("1x2"), Options(players=3))
    shared = next(line for line, cells in enumerate(rules.board.line_cells()) if len(cells) == 2)
    state = rules.replay([line for line in range(rules.lines) if line != shared])
    step = state.apply(shared)
    after, closed, again = step  # a Step unpacks like the tuple it was
    assert step == (after, (0, 1), True) and closed == (0, 1) and again
    assert after.owned[after.to_move] == 0b11 and sum(after.owned) == 0b11
    assert after.owners == (after.to_move, after.to_move) and after.scores[after.to_move] == 2
    assert after == rules.replay([*[line for line in range(rules.lines) if line != shared], shared])
    copy = pickle.loads(pickle.dumps(after))  # to a worker process: its own Rules, the same position
    assert (copy.drawn, copy.owned, copy.to_move, copy.legal_moves()) == (after.drawn, after.owned, after.to_move, [])
    out = state.forfeit(state.to_move)
    assert out.forfeited == 1 << state.to_move and out.to_move != state.to_move
    with pytest.raises(IllegalMove, match="out of range"):
        state.apply("3")
