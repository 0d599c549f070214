"""The pool of referee threads behind ``league run`` and ``sprt`` (referee/pool.py), with in-process seats."""

from __future__ import annotations

import threading

import pytest

from referee.clock import TimeControl
from referee.inprocess import InProcessSpec
from referee.pool import RefereePool
from referee.record import BoardConfig
from referee.referee import Referee

FIRST_FREE = InProcessSpec("first", lambda game, state: state.legal_moves()[0])
LAST_FREE = InProcessSpec("last", lambda game, state: state.legal_moves()[-1])
CONFIG = BoardConfig(size="2x2")


def make_referee() -> Referee:
    return Referee(time_control=TimeControl.parse("1s"))


def test_every_item_is_played_once_on_warm_referees():
    referees = set()

    def play(referee: Referee, number: int):
        referees.add(id(referee))
        return referee.play([FIRST_FREE, LAST_FREE], CONFIG, game_id=f"g{number}", seed=number)

    pool = RefereePool(make_referee, 2)
    try:
        first = sorted(record.id for record in pool.map(play, range(10)))
        second = sorted(record.id for record in pool.map(play, range(10, 14)))  # the same threads and referees
    finally:
        pool.close()
    assert first == sorted(f"g{n}" for n in range(10)) and second == sorted(f"g{n}" for n in range(10, 14))
    assert len(referees) <= 2


def test_a_workers_exception_is_raised_by_map_not_a_hang():
    def broken(referee: Referee, number: int):
        if number == 3:
            raise RuntimeError("a referee bug")
        return number

    pool = RefereePool(make_referee, 1)
    try:
        with pytest.raises(RuntimeError, match="a referee bug"):
            list(pool.map(broken, range(6)))
    finally:
        pool.close()


def test_a_referee_that_cannot_be_made_is_raised_by_map():
    def no_referee() -> Referee:
        raise OSError("cannot bind the referee socket")

    pool = RefereePool(no_referee, 2)
    with pytest.raises(OSError, match="cannot bind"):
        list(pool.map(lambda referee, item: item, range(3)))
    pool.close()


def test_close_plays_no_work_that_has_not_started():
    started, release = threading.Event(), threading.Event()
    done = []

    def slow(referee: Referee, number: int):
        started.set()
        release.wait(10)
        done.append(number)
        return number

    pool = RefereePool(make_referee, 1)
    results = pool.map(slow, range(5))
    waiter = threading.Thread(target=lambda: next(results, None))
    waiter.start()
    assert started.wait(10)
    closer = threading.Thread(target=pool.close)
    closer.start()  # waits for the game in flight, then stops
    release.set()
    closer.join(10)
    waiter.join(10)
    assert not closer.is_alive() and done == [0]
