"""The server's FastAPI application: the read API, uploads, continuous leagues and the live events.

    app = create_app(home, [Path("leagues/club.toml")])     # uvicorn.run(app, ...) (hexarena serve)

    app.state.home        the workspace folder (the same one the CLI uses)
    app.state.events      the one ``EventHub`` (``hexarena.server.events``: SSE, games in progress)
    app.state.scheduler   the continuous leagues (``hexarena.server.scheduler``), started with the app
    app.state.uploads     the upload limits and the per-author rate (``hexarena.server.api_write``)

Every request thread gets its own ``Workspace`` (``api_common.workspace``). Any error the code did not mean
is answered 500 with one line and no traceback (which goes to the server's stderr); a misbehaving bot or
upload never stops the server.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi_offline import FastAPIOffline

from hexarena.server import api_history, api_logs, api_read, api_write, events, lifecycle
from hexarena.server.scheduler import LeagueScheduler
from hexarena.server.site import LiveSite
from hexarena.leagues.errors import WorkspaceBusy
from hexarena.leagues.registry.submit import ensure_reference_bots, remove_stale_staging
from hexarena.leagues.registry.uploads import remove_stale_scratch
from hexarena.leagues.workspace.files import remove_stale_temp
from hexarena.referee.transport import SOCKET_PREFIX, socket_bases
from hexarena.leagues.schedule.config import load_league
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError


def create_app(home: Path, leagues: list[Path], *, limits: api_write.UploadLimits | None = None,
               retry: float | None = None, pin_cores: bool = False) -> FastAPI:
    """The application over the workspace ``home``, playing the league files ``leagues`` continuously.

    ConfigError (one line) for a league file that cannot be read, is given twice, or turns its sandbox off:
    uploaded code runs only in the sandbox. ``pin_cores``: each league's games at once on cores of their own
    (``hexarena serve --pin-cores``).
    """
    configs = []
    for path in leagues:
        config = load_league(path)
        if not config.sandbox:
            raise ConfigError(f"--league {path}: sandbox = false: a served league runs uploaded code, which runs "
                              "only in the sandbox; remove the line")
        if config.name in {c.name for c, _ in configs}:
            raise ConfigError(f"--league {path}: league {config.name!r} is given twice")
        configs.append((config, str(path)))
    with Workspace(home) as ws:  # migrate once, before any request; seed the reference bots of a new workspace
        ensure_reference_bots(ws)
        remove_stale_staging(ws)  # what a server SIGKILLed mid-upload left: its staging copies, unpacked uploads,
    remove_stale_scratch()  # and its referees' socket folders
    remove_stale_temp(SOCKET_PREFIX, socket_bases())

    hub = events.EventHub()
    site = LiveSite(home, [config.name for config, _ in configs], hub)  # the results site, kept current
    scheduler = LeagueScheduler(home, configs, observer=hub.observer, pin_cores=pin_cores,
                                **({"retry": retry} if retry is not None else {}))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        site.start()
        scheduler.start()
        try:
            yield
        finally:
            flying = hub.live_games()
            lifecycle.event("stopping", f"stopping: {len(flying)} {'game' if len(flying) == 1 else 'games'} in flight "
                                        "abandoned, they will be replayed", in_flight=len(flying),
                            games=[game.get("game") for game in flying])
            scheduler.stop()
            site.stop()
            hub.close()

    # /docs and /redoc with their scripts served by the app (fastapi-offline): FastAPI's own pages load them from a
    # CDN, a blank page on a machine without internet
    app = FastAPIOffline(title="hexarena", version="1", lifespan=lifespan, static_url="/docs/assets",
                  description="Dots and Hexagons bot leagues: upload bots, read standings, games and the queue. "
                              "Writes need `Authorization: Bearer TOKEN` (`hexarena authors add NAME`).")
    app.state.home = home
    app.state.events = hub
    app.state.scheduler = scheduler
    app.state.uploads = api_write.UploadState(limits or api_write.UploadLimits())
    app.state.workspaces = threading.local()
    app.include_router(api_read.router)
    app.include_router(api_history.router)
    app.include_router(api_logs.router)  # a game's bot logs
    app.include_router(api_write.router)
    app.include_router(events.router)
    app.include_router(site.router)
    app.add_exception_handler(WorkspaceBusy, _busy)
    app.add_exception_handler(Exception, _internal_error)
    return app


BUSY_RETRY_SECONDS = 10  # Retry-After of a 503 for a database another process keeps locked


async def _busy(request: Request, exc: WorkspaceBusy) -> JSONResponse:
    lifecycle.log.warning("%s %s: %s", request.method, request.url.path, exc,
                          extra={"event": "database_busy", "fields": {"path": request.url.path}})
    return JSONResponse({"detail": "the server's database is held locked by another process; nothing was changed: "
                                   "try again shortly"}, status_code=503,
                        headers={"Retry-After": str(BUSY_RETRY_SECONDS)})


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    lifecycle.log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc,
                        extra={"event": "internal_error", "fields": {"path": request.url.path}})
    return JSONResponse({"detail": "internal error (the server's log has the details)"}, status_code=500)
