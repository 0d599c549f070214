"""hexarena/server/build_queue.py: build slots shared fairly among authors, and the queue's plan."""

from __future__ import annotations

import asyncio

import pytest

from hexarena.server.build_queue import DEFAULT_SECONDS, BuildQueue


async def uploads(queue: BuildQueue, plan: list[tuple[str, float]], order: list[str], peek=None) -> None:
    """Each ``(author, seconds)`` an upload arriving in that order, building for that long."""

    async def one(number: int, author: str, seconds: float) -> None:
        async with queue.slot(author):
            order.append(f"{author}{number}")
            await asyncio.sleep(seconds)

    tasks = []
    for number, (author, seconds) in enumerate(plan):
        tasks.append(asyncio.create_task(one(number, author, seconds)))
        await asyncio.sleep(0)  # arrivals in this order: the task queues up before the next is made (a timed
        # gap of 5 ms could stretch past the first builds' 50 ms on a loaded machine, reordering the queue)
    if peek is not None:
        peek(queue.plan())
    await asyncio.gather(*tasks)


@pytest.mark.slow
def test_one_author_holds_one_slot_and_another_author_is_served_at_once():
    order: list[str] = []
    places = []
    # alice sends four slow builds first; bob and carol then one each: with two slots, bob's starts at once
    plan = [("alice", 0.3)] * 4 + [("bob", 0.1), ("carol", 0.1)]
    asyncio.run(uploads(BuildQueue(2), plan, order, peek=places.extend))
    assert order == ["alice0", "bob4", "carol5", "alice1", "alice2", "alice3"]
    shown = {p.author: (p.building, p.waiting, p.position) for p in places}
    assert shown == {"alice": (True, 3, 2), "bob": (True, 0, 0), "carol": (False, 1, 1)}
    carol = next(p for p in places if p.author == "carol")
    assert 0 < carol.estimate_seconds <= DEFAULT_SECONDS  # the next slot to free: bob's, begun just now


def test_turns_go_round_the_authors_waiting():
    order: list[str] = []
    plan = [("alice", 0.05)] * 3 + [("bob", 0.05)] * 3
    asyncio.run(uploads(BuildQueue(1), plan, order))
    assert order == ["alice0", "bob3", "alice1", "bob4", "alice2", "bob5"]


def test_a_waiter_that_goes_away_gives_its_place_up():
    async def scenario() -> list[str]:
        queue, order = BuildQueue(1), []

        async def one(name: str, seconds: float) -> None:
            async with queue.slot(name):
                order.append(name)
                await asyncio.sleep(seconds)

        first = asyncio.create_task(one("alice", 0.1))
        await asyncio.sleep(0)  # alice builds (a step of the loop, not a timed wait alice's build could outlast)
        gone = asyncio.create_task(one("bob", 0.1))
        await asyncio.sleep(0)  # bob waits
        gone.cancel()
        await asyncio.gather(first, one("carol", 0), return_exceptions=True)
        assert queue.plan() == []
        return order

    assert asyncio.run(scenario()) == ["alice", "carol"]


def test_progress_is_each_authors_upload_building_then_the_next_one_waiting():
    """GET /api/uploads/progress reads this: a second upload of the same author waiting must not hide (or, once
    the first ends, lose) the step of the one building."""

    async def scenario() -> list:
        queue, seen = BuildQueue(2), []
        first_built, second_may_end = asyncio.Event(), asyncio.Event()

        async def first() -> None:
            async with queue.slot("alice") as upload:
                upload.say("building alpha: make")
                await first_built.wait()

        async def second() -> None:
            async with queue.slot("alice") as upload:
                upload.say("checking beta")
                seen.append(queue.progress("alice")[0])
                await second_may_end.wait()

        assert queue.progress("alice") is None
        tasks = [asyncio.create_task(first())]
        await asyncio.sleep(0.01)
        tasks.append(asyncio.create_task(second()))
        await asyncio.sleep(0.05)
        assert queue.progress("alice")[0] == "building alpha: make" and queue.progress("alice")[1] >= 0.05
        assert queue.progress("bob") is None
        first_built.set()
        await asyncio.sleep(0.01)
        second_may_end.set()
        await asyncio.gather(*tasks)
        seen.append(queue.progress("alice"))
        return seen

    assert asyncio.run(scenario()) == ["checking beta", None]
