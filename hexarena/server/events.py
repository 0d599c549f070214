"""Live results: the server's event stream (``GET /api/events``) and the games in progress (``/api/live/games``).

    hub = EventHub()                                   # one per server: app.state.events
    run_league(ws, league, observer=hub.observer("demo"))   # in a runner thread: every game is told here
    hub.publish("standings", {"league": "demo"})       # from any thread

Server-sent events, one JSON object per ``data:`` line, named by ``event:``:

    game_started  {league, game, seats, config, started}   seats named as the record will name them
    move          {league, game, ply, seat, line, ms}      ply: the move's index in the record's ``moves``
    game_ended    {league, game, scores, placements, termination, offender}
    standings     {league}      the league's standings (and its served site) include every game stored so far

A comment line every ``keepalive`` seconds keeps proxies from closing a quiet stream. Memory is bounded
whatever the clients do: each subscriber has a queue of ``queue_size`` events, and a subscriber that falls
that far behind is dropped (its stream ends; a browser's EventSource reconnects after ``RETRY_MS`` and
reloads what it shows, so it never shows a silently incomplete picture); at most ``max_subscribers``
streams are open (more get 503). At most ``max_live`` games in progress are remembered (the oldest is
forgotten beyond that), each with at most its board's lines as moves. A game that ends is kept, with its end,
until its league's site has been published with it (at most ``max_live`` such games): a spectator who opens
``replay.html?live=ID`` just after the end, before the site has the record, still sees the final position.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from hexarena.referee.record import BoardConfig, GameRecord
from hexarena.server.api_common import echoed

KEEPALIVE = 15.0  # seconds between keep-alive comments
QUEUE = 1000  # events a subscriber may lag behind before it is dropped
MAX_SUBSCRIBERS = 500
MAX_LIVE = 256  # games in progress remembered for spectators
RETRY_MS = 2000  # a dropped browser reconnects after this long


class Subscriber:
    """One open event stream: a bounded queue filled on its event loop's thread (``None`` ends the stream)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, size: int, league: str | None = None) -> None:
        self.loop = loop
        self.league = league  # only this league's events (None: every league's)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(size + 1)  # + 1: room for the end
        self.size = size
        self.dropped = False

    def offer(self, frame: str | None) -> None:
        """On the loop's thread: queue ``frame``; a full queue drops the subscriber (its stream ends)."""
        if self.dropped:
            return
        if frame is None or self.queue.qsize() >= self.size:
            self.dropped = True
            while not self.queue.empty():
                self.queue.get_nowait()
            frame = None
        self.queue.put_nowait(frame)


@dataclass
class LiveGame:
    """A game in progress, as spectators see it: its moves so far."""

    league: str
    game: str
    seats: list[str]
    config: BoardConfig
    started: str
    moves: list[dict] = field(default_factory=list)
    end: dict | None = None  # once it ended: scores, placements, termination, offender (the game_ended event's)
    stored: bool = False  # its record is in the store: the next publish of its league's site has it

    def summary(self) -> dict:
        return {"league": self.league, "game": self.game, "seats": self.seats, "config": self.config.model_dump(mode="json"),
                "config_label": self.config.label, "started": self.started, "moves": list(self.moves), "end": self.end}


class EventHub:
    """The server's events and the games in progress; ``publish`` and the observers are safe from any thread."""

    def __init__(self, *, keepalive: float = KEEPALIVE, queue_size: int = QUEUE, max_subscribers: int = MAX_SUBSCRIBERS,
                 max_live: int = MAX_LIVE) -> None:
        self.keepalive = keepalive
        self.queue_size = queue_size
        self.max_subscribers = max_subscribers
        self.max_live = max_live
        # called instead of announcing ``standings`` when a record is stored: the served site re-publishes
        # first, then announces (hexarena.server.site)
        self.on_stored: Callable[[str, GameRecord], None] | None = None
        self._lock = threading.Lock()
        self._subscribers: set[Subscriber] = set()
        self._live: OrderedDict[str, LiveGame] = OrderedDict()
        self._ended_games: OrderedDict[str, LiveGame] = OrderedDict()  # ended, not yet in their league's site
        self._next_id = 0
        self._closed = False

    # ---- publishing -------------------------------------------------------------------------------

    def publish(self, kind: str, data: dict) -> None:
        """Send one event to every open stream that follows its league (from any thread)."""
        league = data.get("league")
        with self._lock:
            subscribers = [s for s in self._subscribers if s.league is None or s.league == league]
            if not subscribers:
                return
            self._next_id += 1
            frame = f"id: {self._next_id}\nevent: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
        _deliver(subscribers, frame)

    def observer(self, league: str) -> LeagueEvents:
        """What ``run_league(..., observer=...)`` hands down to the game loop for ``league``."""
        return LeagueEvents(self, league)

    def close(self) -> None:
        """End every open stream (the server is shutting down) and refuse new ones."""
        with self._lock:
            self._closed = True
            subscribers = list(self._subscribers)
        _deliver(subscribers, None)

    # ---- games in progress ------------------------------------------------------------------------

    def live_games(self, league: str | None = None) -> list[dict]:
        """The games in progress (not those that ended)."""
        with self._lock:
            return [game.summary() for game in self._live.values() if league is None or game.league == league]

    def live_game(self, game_id: str) -> dict | None:
        """A game in progress, or one that ended and is not in its league's site yet (its ``end`` set)."""
        with self._lock:
            game = self._live.get(game_id) or self._ended_games.get(game_id)
            return None if game is None else game.summary()

    def stored_games(self, league: str) -> list[str]:
        """The ended games of ``league`` whose records are stored: a publish of its site that starts now has them."""
        with self._lock:
            return [game.game for game in self._ended_games.values() if game.league == league and game.stored]

    def forget(self, game_ids: list[str]) -> None:
        """These ended games are in their league's published site now: a spectator is sent to their records."""
        with self._lock:
            for game_id in game_ids:
                self._ended_games.pop(game_id, None)

    def _started(self, game: LiveGame) -> None:
        with self._lock:
            self._live[game.game] = game
            while len(self._live) > self.max_live:
                self._live.popitem(last=False)
        self.publish("game_started", {"league": game.league, "game": game.game, "seats": game.seats,
                                      "config": game.config.model_dump(mode="json"), "started": game.started})

    def _moved(self, league: str, game_id: str, move: dict) -> None:
        with self._lock:
            game = self._live.get(game_id)
            if game is not None:
                game.moves.append(move)
        self.publish("move", {"league": league, "game": game_id, **move})

    def _ended(self, league: str, record: GameRecord) -> None:
        result = record.result
        end = {"scores": result.scores, "placements": result.placements, "termination": result.termination,
               "offender": result.offender}
        with self._lock:
            game = self._live.pop(record.id, None)
            if game is not None:  # kept with its end until its league's site has it
                game.end = end
                self._ended_games[record.id] = game
                while len(self._ended_games) > self.max_live:
                    self._ended_games.popitem(last=False)
        self.publish("game_ended", {"league": league, "game": record.id, **end})

    def _stored(self, game_id: str) -> None:
        with self._lock:
            if (game := self._ended_games.get(game_id)) is not None:
                game.stored = True

    # ---- streams ----------------------------------------------------------------------------------

    def full(self) -> bool:
        """No stream can open: the hub is closed or has ``max_subscribers`` streams open."""
        with self._lock:
            return self._closed or len(self._subscribers) >= self.max_subscribers

    async def stream(self, league: str | None = None) -> AsyncIterator[str]:
        """The text of one event stream (of one league's events, or all): its events as they come, a keep-alive
        comment when quiet. It subscribes when the response starts (a client gone before leaves nothing behind)."""
        subscriber = Subscriber(asyncio.get_running_loop(), self.queue_size, league)
        with self._lock:
            if self._closed:
                return
            self._subscribers.add(subscriber)
        try:
            yield f"retry: {RETRY_MS}\n: connected\n\n"
            while True:
                try:
                    frame = await asyncio.wait_for(subscriber.queue.get(), self.keepalive)
                except TimeoutError:
                    frame = ": keep-alive\n\n"
                if frame is None:
                    return
                yield frame
        finally:
            with self._lock:
                self._subscribers.discard(subscriber)


def _deliver(subscribers: list[Subscriber], frame: str | None) -> None:
    """Hand ``frame`` to the subscribers: one wake-up of each event loop for all its streams (the server has one),
    not one per stream, so a move costs the loop the same with 500 spectators as with one."""
    by_loop: dict[asyncio.AbstractEventLoop, list[Subscriber]] = {}
    for subscriber in subscribers:
        by_loop.setdefault(subscriber.loop, []).append(subscriber)
    for loop, group in by_loop.items():
        try:
            loop.call_soon_threadsafe(_offer_all, group, frame)
        except RuntimeError:  # its loop is closed: the server is stopping
            pass


def _offer_all(subscribers: list[Subscriber], frame: str | None) -> None:
    for subscriber in subscribers:
        subscriber.offer(frame)


class LeagueEvents:
    """The observer of one league's games (``hexarena.leagues.running.runner.LeagueObserver``): called from the runner's threads."""

    def __init__(self, hub: EventHub, league: str) -> None:
        self.hub = hub
        self.league = league

    def started(self, game_id: str, seats: list[str], config: BoardConfig) -> None:
        self.hub._started(LiveGame(self.league, game_id, list(seats), config,
                                   datetime.now(UTC).isoformat(timespec="milliseconds")))

    def moved(self, game_id: str, ply: int, seat: int, line: int, ms: float) -> None:
        self.hub._moved(self.league, game_id, {"ply": ply, "seat": seat, "line": line, "ms": ms})

    def ended(self, record: GameRecord) -> None:
        self.hub._ended(self.league, record)

    def stored(self, record: GameRecord) -> None:
        self.hub._stored(record.id)
        if self.hub.on_stored is not None:  # the served site publishes it, then forgets it and announces
            self.hub.on_stored(self.league, record)
        else:
            self.hub.forget([record.id])
            self.hub.publish("standings", {"league": self.league})


# ---- the HTTP side --------------------------------------------------------------------------------

class LiveMove(BaseModel):
    ply: int
    seat: int
    line: int
    ms: float


class LiveEnd(BaseModel):
    scores: list[int]
    placements: list[int]
    termination: str
    offender: int | None


class LiveGameOut(BaseModel):
    """A game in progress and its moves so far (``board``: its geometry, for a spectator's viewer)."""

    league: str
    game: str
    seats: list[str]
    config: dict
    config_label: str
    started: str
    moves: list[LiveMove]
    end: LiveEnd | None = None  # a game that has just ended, not yet in its league's site: how it ended
    board: dict | None = None


router = APIRouter(tags=["live"])


def hub_of(request: Request) -> EventHub:
    return request.app.state.events


@router.get("/api/events", include_in_schema=False)  # a stream that never ends: no place in a fuzzed schema
async def events(request: Request, league: Annotated[str | None, Query(max_length=60)] = None) -> StreamingResponse:
    """Server-sent events: game_started, move, game_ended, standings (see ``hexarena.server.events``); with
    ``?league=NAME`` only that league's (a page of one league is not sent every other league's moves)."""
    hub = hub_of(request)
    if hub.full():
        raise HTTPException(503, f"no event stream can open now (at most {hub.max_subscribers} are open, or the "
                                 "server is stopping); try again later")
    return StreamingResponse(hub.stream(league), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.get("/api/live/games")
def live_games(request: Request, league: Annotated[str | None, Query(max_length=60)] = None) -> list[LiveGameOut]:
    """The games in progress (of one league, with ``?league=``), each with its moves so far."""
    return [LiveGameOut(**game) for game in hub_of(request).live_games(league)]


@router.get("/api/live/games/{game_id}", responses={404: {"description": "no game in progress has this id"}})
def live_game(request: Request, game_id: str) -> LiveGameOut:
    """One game in progress, its moves so far and its board's geometry; a game that has just ended, with ``end``,
    until its league's site has its record (a finished game: ``/api/games/{id}``)."""
    game = hub_of(request).live_game(game_id)
    if game is None:
        raise HTTPException(404, f"no game in progress has the id {echoed(game_id)} (a finished game is at /api/games/ID)")
    config = BoardConfig.model_validate(game["config"])
    return LiveGameOut(**game, board=config.board().drawing(border=config.border))  # as a published site's boards
