"""The read API (JSON, no token): leagues, standings, games, one game's record, bots, the queue.

    GET /api/leagues                               every league of the workspace (and whether it runs here)
    GET /api/leagues/{name}/standings              what the published standings.json holds (hexarena.leagues.results.report)
    GET /api/leagues/{name}/games?bot=&config=&offset=&limit=    newest first, paged (limit at most 200)
    GET /api/games/{id}                            one game's record (no paths of the server's machine)
    GET /api/bots, GET /api/bots/{name}            registered bots, one bot's versions
    GET /api/queue                                 per served league: running, queued, idle or error; games left

Unknown names answer 404 with a one-line ``detail``; bad query parameters 422 (FastAPI's validation).
Standings are computed once per change of the league's games (``store.games_stamp``) and kept.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import BaseModel, ConfigDict

from hexarena.leagues.registry.catalog import BotInfo, bot_history, get_bot, list_bots
from hexarena.leagues.registry.snapshot import SHORT_HASH
from hexarena.leagues.results import definitions, store
from hexarena.leagues.results.report import league_snapshot, standings_payload, strip_paths, without_paths
from hexarena.protocol.errors import ConfigError
from hexarena.referee.record import GameRecord
from hexarena.server.api_common import echoed, public, workspace

router = APIRouter(tags=["read"])
NOT_FOUND = {404: {"description": "no such league, game or bot (one-line `detail`)"}}
MAX_PAGE = 200


class LeagueOut(BaseModel):
    name: str
    description: str
    served: bool  # played continuously by this server (--league)
    games_total: int  # games in its current schedule
    games_played: int


class StandingsRow(BaseModel):
    model_config = ConfigDict(extra="allow")  # every column of the published standings.json

    rank: int
    bot: str
    games: int
    points: float
    elo: float | None = None
    elo_low: float | None = None
    elo_high: float | None = None


class StandingsOut(BaseModel):
    league: str
    generated: str
    facts: dict[str, Any]
    standings: list[StandingsRow]


class GameSummary(BaseModel):
    id: str
    configuration: str
    seats: list[str]
    scores: list[int] | None
    placements: list[int] | None
    termination: str
    offender: int | None
    started: str | None
    finished: str | None


class GamesPage(BaseModel):
    league: str
    total: int  # games matching the filters
    offset: int
    limit: int
    games: list[GameSummary]


class BotOut(BaseModel):
    name: str
    author: str
    versions: int
    latest: str  # name@hash of the latest version
    submitted: str
    retired: str | None


class VersionOut(BaseModel):
    version: str  # name@hash (short hash)
    hash: str
    submitted: str
    language: str
    description: str
    checks: list[dict[str, Any]]


class BotDetail(BotOut):
    history: list[VersionOut]  # every submission, oldest first


class QueueEntry(BaseModel):
    league: str
    state: str  # running, queued (about to run), idle (every scheduled game played), error
    games_total: int
    games_played: int
    games_left: int
    last_run: str | None
    last_error: str | None


def _not_found(exc: ConfigError, name: str) -> HTTPException:
    """404 with the error's first line, without the server's folders (it names the workspace), and the requested
    ``name`` in it cut as ``echoed`` cuts it."""
    return HTTPException(404, strip_paths(str(exc).splitlines()[0].replace(repr(name), echoed(name))))


def check_league(request: Request, ws, name: str) -> None:
    """404 unless ``name`` is a league of the workspace or one this server plays (maybe not stored yet: its
    first run has not begun)."""
    if name in request.app.state.scheduler.runners:
        return
    try:
        definitions.league_config(ws, name)
    except ConfigError as exc:
        raise _not_found(exc, name) from None


@router.get("/api/leagues")
def leagues(request: Request) -> list[LeagueOut]:
    """Every league of the workspace, with its progress; ``served``: played continuously by this server."""
    ws = workspace(request)
    served = request.app.state.scheduler.runners
    counts = store.schedule_counts(ws)
    found = []
    for name in sorted(set(counts) | set(served)):
        description = served[name].config.description if name in served else _description(ws, name)
        total, played = counts.get(name, (0, 0))
        found.append(LeagueOut(name=name, description=description, served=name in served, games_total=total,
                               games_played=played))
    return found


def _description(ws, name: str) -> str:
    try:
        return definitions.league_config(ws, name).description
    except ConfigError:  # a garbled stored definition: listed all the same ('hexarena doctor' names it)
        return ""


_standings_cache: dict[tuple, dict] = {}
_standings_lock = threading.Lock()


@router.get("/api/leagues/{name}/standings", responses=NOT_FOUND)
def standings(request: Request, name: str) -> StandingsOut:
    """Standings with ratings and 95% intervals: the content of the published ``standings.json``."""
    ws = workspace(request)
    check_league(request, ws, name)
    key = (str(request.app.state.home), name, *store.games_stamp(ws, name))
    with _standings_lock:
        payload = _standings_cache.get(key)
    if payload is None:
        try:
            with league_snapshot(ws, name) as view:  # its facts stream the games: of the same snapshot
                payload = standings_payload(view)
        except ConfigError:  # no finished game of its current schedule yet
            payload = {"league": name, "generated": "", "facts": {}, "standings": []}
        with _standings_lock:
            for old in [k for k in _standings_cache if k[:2] == key[:2]]:
                del _standings_cache[old]
            _standings_cache[key] = payload
    return StandingsOut.model_validate(payload)


@router.get("/api/leagues/{name}/games", responses=NOT_FOUND)
def games(request: Request, name: str,
          bot: Annotated[str | None, Query(max_length=100, description="games this bot sat in")] = None,
          config: Annotated[str | None, Query(max_length=100, description="a board configuration label")] = None,
          offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
          limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50) -> GamesPage:
    """The league's stored games (current schedule), newest first, filtered by bot and configuration, paged."""
    ws = workspace(request)
    check_league(request, ws, name)
    total, page = store.games_page(ws, name, bot=bot, configuration=config, offset=offset, limit=limit)
    return GamesPage(league=name, total=total, offset=offset, limit=limit,
                     games=[GameSummary.model_validate(game) for game in page])


@router.get("/api/games/{game_id}", responses=NOT_FOUND)
def game(request: Request, game_id: str) -> GameRecord:
    """One finished game's record (every move, the result, faults with the server's paths left out)."""
    try:
        data = store.game_data(workspace(request), game_id) if len(game_id) >= 4 else None
    except ConfigError as exc:
        raise _not_found(exc, game_id) from None
    if data is None:
        raise HTTPException(404, f"no finished game has the id {echoed(game_id)} (ids are listed by "
                                 "/api/leagues/NAME/games; at least 4 characters of one)")
    try:
        return without_paths(GameRecord.model_validate(data))
    except ValueError:  # pydantic's ValidationError: a garbled stored record
        raise HTTPException(404, f"game {echoed(game_id)}: its stored record is garbled (see 'hexarena doctor')") from None


@router.get("/api/bots")
def bots(request: Request) -> list[BotOut]:
    """Every registered bot (retired ones too), by name."""
    return [_bot_out(info) for info in list_bots(workspace(request))]


@router.get("/api/bots/{name}", responses=NOT_FOUND)
def bot(request: Request, name: str) -> BotDetail:
    """One bot and every submission of it."""
    ws = workspace(request)
    try:
        info = get_bot(ws, name)
        history = bot_history(ws, name)
    except ConfigError as exc:
        raise _not_found(exc, name) from None
    return BotDetail(**_bot_out(info).model_dump(), history=[
        VersionOut(version=f"{name}@{v.hash[:SHORT_HASH]}", hash=v.hash, submitted=v.submitted,
                   language=v.manifest.language, description=v.manifest.description,
                   checks=[{"name": n, "passed": p, "detail": d} for n, p, d in v.checks]) for v in history])


def _bot_out(info: BotInfo) -> BotOut:
    return BotOut(name=info.name, author=info.author, versions=info.versions,
                  latest=f"{info.name}@{info.latest[:SHORT_HASH]}", submitted=info.submitted,
                  retired=info.retired)


@router.get("/api/queue")
def queue(request: Request) -> list[QueueEntry]:
    """The leagues this server plays: what each is doing, and how many of its scheduled games are left."""
    counts = store.schedule_counts(workspace(request))
    entries = []
    for name, runner in sorted(request.app.state.scheduler.runners.items()):
        total, played = counts.get(name, (0, 0))
        entries.append(QueueEntry(league=name, state=runner.state, games_total=total, games_played=played,
                                  games_left=total - played, last_run=runner.last_run,
                                  last_error=runner.last_error and public(runner.last_error)))
    return entries


class UploadPlace(BaseModel):
    author: str
    building: bool  # one of this author's uploads is being built and checked now
    waiting: int  # this author's uploads waiting for a build slot
    position: int  # the place of their next waiting upload among all waiting ones (1: next to start; 0: none)
    estimate_seconds: float  # until it starts, if every build takes the mean of the recent ones


class UploadQueue(BaseModel):
    slots: int  # builds at once, at most one per author
    mean_build_seconds: float
    authors: list[UploadPlace]


@router.get("/api/queue/uploads")
def upload_queue(request: Request) -> UploadQueue:
    """The uploads being built and waiting: each author's place in the fair queue and an estimate of the wait."""
    building = request.app.state.uploads.building
    return UploadQueue(slots=building.slots, mean_build_seconds=round(building.mean_seconds(), 1),
                       authors=[UploadPlace(author=p.author, building=p.building, waiting=p.waiting,
                                            position=p.position, estimate_seconds=round(p.estimate_seconds, 1))
                                for p in building.plan()])
