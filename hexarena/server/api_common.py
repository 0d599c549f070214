"""What the API's endpoints share: this thread's workspace, who a request's bearer token says it is, and a
server's text (an error, a build log) as anyone may read it."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import HTTPException, Request

from hexarena.leagues.registry import authors
from hexarena.leagues.results.report import strip_paths
from hexarena.leagues.workspace.home import Workspace

BEARER = {"WWW-Authenticate": "Bearer"}
# the registry's staging copy (submit's tempfile.mkdtemp) and a snapshot's folder (its content hash), by name
SNAPSHOT = re.compile(r"\.staging-\d+-\w+|(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
PID = re.compile(r" \(pid [^)]*\)")
ECHOED = 80  # characters of a requested name an error repeats


def echoed(name: str) -> str:
    """A name from the request as an error repeats it: quoted, and cut to ``ECHOED`` characters so that a long
    one does not come back whole."""
    if len(name) <= ECHOED:
        return repr(name)
    return f"{name[:ECHOED]!r}... ({len(name):,} characters)"


def public(text: str, home: Path | None = None) -> str:
    """``text`` without a folder of the server's or a process id, the registry's staging copy or snapshot folder
    (where an upload's build and check ran) called what it is to its author. ``home``: the workspace, whose
    path is taken out whole first (``strip_paths`` alone stops at a space in a folder's name)."""
    for folder in {str(home), str(home.resolve())} if home is not None else ():
        text = text.replace(folder + "/", "/").replace(folder, "the server's workspace")
    return SNAPSHOT.sub("the bot's folder", PID.sub("", strip_paths(text)))


# a request's write waits this long for another process's write lock, then is 503 with Retry-After: a client's
# wait, shorter than a league's (the server's own writes hold the lock for milliseconds)
REQUEST_BUSY_SECONDS = 5.0


def workspace(request: Request) -> Workspace:
    """This thread's workspace connection (opened on first use, then kept: SQLite connections stay in their
    thread). Call it in a sync endpoint's body, never from a dependency: FastAPI may run a dependency in
    another thread than the endpoint."""
    local = request.app.state.workspaces
    if getattr(local, "ws", None) is None:
        local.ws = Workspace(request.app.state.home, busy_seconds=REQUEST_BUSY_SECONDS)
    return local.ws


def author_of(request: Request, *, admin: bool = False) -> authors.Author:
    """The author of the request's ``Authorization: Bearer TOKEN``: 401 without a valid one, 403 when ``admin``
    is asked for and the author is not. Call it from a thread (it reads the database)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(401, "no token: send 'Authorization: Bearer TOKEN' (the organiser gives you one with "
                                 "'hexarena authors add NAME')", headers=BEARER)
    author = authors.authenticate(workspace(request), token.strip())
    if author is None:
        raise HTTPException(401, "the token is not valid (unknown, or revoked): ask the organiser for a new one",
                            headers=BEARER)
    if admin and not author.admin:
        raise HTTPException(403, f"author {author.name!r} is not an organiser: only an admin token "
                                 "('hexarena authors add NAME --admin') may do this")
    return author
