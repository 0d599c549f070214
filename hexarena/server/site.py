"""The results site of every league the server runs, kept current and served with its live script.

    site = LiveSite(home, ["demo"], app.state.events)   # publishes HOME/site/demo now, again as games are stored
    app.include_router(site.router); site.start() … site.stop()

    /                               the leagues, each a link to its site, in the results site's look
    /site.css                       the results site's stylesheet, for the server's own pages
    /leagues/NAME/                  the league's site as ``hexarena publish`` writes it (index, bot pages, games,
                                    replay, data and exports), its pages with ``live.js`` added
    /leagues/NAME/replay.html?live=GAME    a game in progress, followed move by move
    /live.js                        subscribes to /api/events and updates the page in place

Why publish rather than render pages on request: ``hexarena.leagues.site.publish`` stays the one writer of the site (the
live pages are the static pages, nothing is rendered twice), a request costs a file read whoever asks (a
hundred spectators do not recompute the standings a hundred times when a game ends), and a burst of finished
games is one publish: a record stored marks its league dirty, and a background thread publishes each dirty
league after ``DEBOUNCE`` seconds, then announces ``standings`` so that the pages fetch the new files. The
folder is the one ``hexarena publish`` writes by default (HOME/site/NAME); a static copy (``hexarena
publish``) has no live script, so it never tries to reach a server.
"""

from __future__ import annotations

import html
import json
import logging
import threading
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from hexarena.leagues.site.publish import MANIFEST, SITE, publish
from hexarena.leagues.workspace.home import Layout, Workspace
from hexarena.protocol.errors import ConfigError, HexarenaError
from hexarena.referee.record import GameRecord
from hexarena.server.api_common import echoed
from hexarena.server.events import EventHub

DEBOUNCE = 0.2  # seconds a stored record waits for others before its league is published
LIVE_SCRIPT = '<script src="../../live.js"></script>\n</head>'  # pages sit at /leagues/NAME/<page>
# served pages only: the way back to the list of leagues, the first link of the page's header
SERVED_BY = '<a class="served-by" href="../../" title="every league on this server">← All leagues</a>'
BACK_LINK = f"<nav>\n    {SERVED_BY}"
NO_CACHE = {"Cache-Control": "no-cache"}  # the files change as games end: always revalidate
log = logging.getLogger("hexarena.server.site")


class LiveSite:
    """The served, self-updating sites of ``leagues`` in the workspace at ``home``."""

    def __init__(self, home: Path, leagues: list[str], hub: EventHub, debounce: float = DEBOUNCE) -> None:
        self.home = Path(home)
        self.sites = Layout(home).site_dir
        self.leagues = list(dict.fromkeys(leagues))
        self.hub = hub
        self.debounce = debounce
        self._dirty = set(self.leagues)  # published once at start: the site shows the games stored before
        self._wake = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None
        hub.on_stored = self.stored
        self.router = self._routes()

    def folder(self, league: str) -> Path:
        return self.sites / league

    # ---- publishing -------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._publisher, name="site-publisher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def stored(self, league: str, record: GameRecord) -> None:
        """A league runner stored ``record``: publish its league soon (from the runner's thread)."""
        with self._wake:
            self._dirty.add(league)
            self._wake.notify()

    def _publisher(self) -> None:
        while True:
            with self._wake:
                while not self._dirty and not self._stopping:
                    self._wake.wait()
                if self._stopping:
                    return
                self._wake.wait(self.debounce)  # more records of the same burst join this publish
                leagues, self._dirty = sorted(self._dirty), set()
            for league in leagues:
                self.publish(league)

    def publish(self, league: str) -> None:
        """Write the league's site (the one writer: ``hexarena.leagues.site.publish``), then tell the pages."""
        stored = self.hub.stored_games(league)  # games that have just ended, stored before this publish reads
        try:
            with Workspace(self.home) as ws:
                publish(ws, league, self.folder(league))
            self.hub.forget(stored)  # in the site now: a spectator of one is sent to its record
        except ConfigError:  # no finished game yet: the placeholder page is served
            pass
        except HexarenaError as exc:  # a full disk: the old site stays served, the next game tries again
            log.warning("league %s: the site was not published: %s", league, exc)
        except Exception:  # a bug must not stop the publisher thread: the next game tries again
            log.exception("league %s: the site was not published", league)
        self.hub.publish("standings", {"league": league})

    # ---- serving ----------------------------------------------------------------------------------

    def _routes(self) -> APIRouter:
        router = APIRouter(include_in_schema=False)  # pages, not the API

        @router.get("/")
        def leagues() -> HTMLResponse:
            return HTMLResponse(self._index(), headers=NO_CACHE)

        @router.get("/live.js")
        def live_script() -> FileResponse:
            return FileResponse(SITE / "live.js", media_type="text/javascript", headers=NO_CACHE)

        @router.get("/site.css")
        def stylesheet() -> FileResponse:
            return FileResponse(SITE / "site.css", media_type="text/css", headers=NO_CACHE)

        @router.get("/leagues/{league}")
        def league_root(league: str) -> RedirectResponse:
            self._known(league)
            return RedirectResponse(f"{league}/")

        @router.get("/leagues/{league}/{path:path}")
        def league_file(league: str, path: str) -> Response:
            self._known(league)
            return self._file(league, path or "index.html")

        return router

    def _index(self) -> str:
        """The list of leagues: each with its games, bots, leader and last game, as its published site has them."""
        rows = "".join(_league_row(name, self.folder(name) / "standings.json") for name in self.leagues)
        table = (f'<div class="card"><table id="leagues"><thead><tr><th>League</th><th class="num">Games</th>'
                 f'<th class="num">Bots</th><th>Leader</th><th class="fold">Last game</th></tr></thead>'
                 f'<tbody>{rows}</tbody></table></div>' if rows else
                 '<div class="card"><p class="muted">No league: the server was started without --league.</p></div>')
        return _page("hexarena", "", "<h1>Leagues</h1><p class=\"sub\">The leagues this server plays; each links to its "
                                     "results, updated as games end.</p>" + table)

    def _known(self, league: str) -> None:
        if league not in self.leagues:
            served = ", ".join(self.leagues) or "none"
            raise HTTPException(404, f"no league {echoed(league)} on this server (leagues: {served})")

    def _file(self, league: str, path: str) -> Response:
        """A file of the league's published site; its pages with the live script."""
        folder = self.folder(league).resolve()
        missing = HTTPException(404, f"no file {echoed(path)} in the site of {league!r}")
        if "\x00" in path or "\\" in path or Path(path).is_absolute() or any(p.startswith(".") for p in Path(path).parts):
            raise missing  # the published site has no hidden file (its manifest stays private)
        try:
            target = (folder / path).resolve()
            found = folder in target.parents and target.is_file()
        except OSError:  # a name too long for the file system
            raise missing from None
        if not found:
            if path == "index.html" and not (folder / MANIFEST).is_file():
                return HTMLResponse(_waiting(league), headers=NO_CACHE)
            raise missing
        if target.suffix != ".html":
            return FileResponse(target, headers=NO_CACHE)
        page = target.read_text(encoding="utf-8").replace("</head>", LIVE_SCRIPT, 1).replace("<nav>", BACK_LINK, 1)
        return HTMLResponse(page, headers=NO_CACHE)


def _page(title: str, up: str, main: str, *, league: str = "") -> str:
    """A page of the server's own (the list of leagues, a league's waiting page) in the results site's look: its
    stylesheet and header. ``up``: the path from the page to the server's root ("" or "../../")."""
    brand = f'<a class="brand" href="./">⬡ {html.escape(league or "hexarena")}</a>'
    nav = SERVED_BY if league else '<a class="here" href="./">Leagues</a><a href="docs">API (/docs)</a>'
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{html.escape(title)}</title>'
            f'<link rel="icon" href="data:,"><link rel="stylesheet" href="{up}site.css"></head><body>'
            f'<header class="top">{brand}<nav>{nav}</nav></header><main>{main}</main></body></html>')


def _league_row(league: str, standings: Path) -> str:
    """One league of the list: its figures from its published ``standings.json``, or that none has finished yet."""
    name = html.escape(league)
    link = f'<td class="bot"><a href="leagues/{name}/">{name}</a></td>'
    try:
        data = json.loads(standings.read_text(encoding="utf-8"))
        facts, rows = data["facts"], data["standings"]
        leader = html.escape(str(rows[0]["bot"])) if rows else "—"
        return (f'<tr>{link}<td class="num">{int(facts["games"])}</td><td class="num">{int(facts["bots"])}</td>'
                f'<td>{leader}</td><td class="muted fold">{html.escape(str(facts["last"]))} UTC</td></tr>')
    except (OSError, ValueError, KeyError, TypeError, IndexError):  # not published yet (or being replaced)
        return f'<tr>{link}<td class="muted" colspan="4">no game finished yet</td></tr>'


def _waiting(league: str) -> str:
    """The index of a league without a finished game: live.js lists its games in progress and reloads on the first."""
    name = html.escape(league)
    return _page(f"{league} · hexarena", "../../",
                 f'<h1>{name}</h1><p id="waiting">No game of {name} has finished yet; this page shows the first as '
                 'soon as it is stored.</p><script src="../../live.js"></script>', league=league)
