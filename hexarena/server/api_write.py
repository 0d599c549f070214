"""The write API (``Authorization: Bearer TOKEN``): uploading a bot, starting a league's run.

    POST /api/bots                  multipart field ``file``: a .tar.gz or .zip of a bot folder
        201  a new bot or a new version     {"bot": "name@hash", "status", "message", "checks", ...}
        200  unchanged (or a retired bot's latest version again: reactivated)
        401  no token, or not a valid one (unknown, revoked)
        403  the bot's name belongs to another author
        413  the archive or its unpacked content over the caps, or too many files
        415  not a multipart/form-data body
        422  not an archive, an unsafe entry (absolute, '..', link, special file), a broken bot.toml, a failed
             build or check: ``detail`` is the one line the CLI prints, ``checks`` the check's items
        429  over the author's upload rate (``UploadLimits.per_minute``)
    GET  /api/uploads/progress      the author's upload in progress: its step ("building ...", "checking ...")
                                    and the seconds since it began (what ``submit --server`` shows meanwhile)
    POST /api/leagues/{name}/run    an admin token: the league plans and runs again now (202)

An upload is checked at the strictest time control of the served leagues the bot will enter (participants
``all`` or its name; ``LeagueScheduler.strictest_time_control``), named in the answer's ``checked_at`` and in a
refusal; a bot that enters none is checked at the check's own limit (``referee.check.CHECK_TIME``).

The upload is the same pipeline as ``hexarena submit`` (``hexarena.leagues.registry.submit.submit``: manifest, copy and hash,
build and check in the sandbox) on the archive unpacked by ``hexarena.leagues.registry.uploads`` into a private temp folder,
always removed. The body is read with a cap (no Content-Length needed to refuse a huge one); the slow build
and check run in a worker thread, ``builds`` at once and at most one per author, taking turns
(``hexarena.server.build_queue``; ``GET /api/queue/uploads`` shows each author's place), so the server keeps
answering reads meanwhile; a build has the organiser's time bound (``--build-timeout``) and size bound after it
(``--max-snapshot``). A new
version wakes the continuous leagues (``hexarena.server.scheduler``).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import ClientDisconnect

from hexarena.leagues.errors import NameTaken, UploadRefused
from hexarena.leagues.registry import uploads
from hexarena.leagues.registry.snapshot import MAX_BOT_BYTES, MAX_SNAPSHOT_BYTES
from hexarena.leagues.registry.submit import submit, submitted
from hexarena.leagues.results.wording import escaped
from hexarena.protocol.errors import ConfigError, OutOfSpace, is_out_of_space
from hexarena.referee.build import BUILD_TIMEOUT
from hexarena.referee.check import CHECK_TIME, CheckItem
from hexarena.referee.manifest import load_manifest
from hexarena.server import lifecycle
from hexarena.server.api_common import author_of, echoed, public, workspace
from hexarena.server.build_queue import BuildQueue

router = APIRouter(tags=["write"])
MULTIPART_SLACK = 64 * 1024  # bytes of multipart framing allowed beyond the archive itself
DRAIN_FACTOR = 4  # a refused body up to this many times the cap is read to its end (the 413 then reaches the client)
BUILD_LOG_TAIL = 4000  # characters of a failed build's output sent back


@dataclass(frozen=True)
class UploadLimits:
    max_archive: int = uploads.MAX_ARCHIVE_BYTES  # bytes as sent
    max_bytes: int = MAX_BOT_BYTES  # bytes once unpacked
    max_files: int = uploads.MAX_FILES
    per_minute: int = 10  # uploads per author per minute
    builds: int = 2  # builds and checks at once (each starts the bot a dozen times), at most one per author
    build_timeout: float = BUILD_TIMEOUT  # seconds one build may take
    max_snapshot: int = MAX_SNAPSHOT_BYTES  # bytes a bot's folder may hold after its build


@dataclass
class UploadState:
    limits: UploadLimits
    recent: dict[str, deque[float]] = field(default_factory=lambda: defaultdict(deque))
    lock: threading.Lock = field(default_factory=threading.Lock)
    # waited for on the event loop, before a worker thread is taken: uploads queued behind the builds must not
    # hold the threads every read endpoint runs on; a queue per author, each upload's step in it
    # (``hexarena.server.build_queue``)
    building: BuildQueue = field(init=False)

    def __post_init__(self) -> None:
        self.building = BuildQueue(self.limits.builds)

    def admit(self, author: str) -> None:
        """Count one upload of ``author``; 429 if it would be over the rate (a sliding minute)."""
        now = time.monotonic()
        with self.lock:
            times = self.recent[author]
            while times and now - times[0] >= 60:
                times.popleft()
            if len(times) >= self.limits.per_minute:
                wait = 60 - (now - times[0])
                raise HTTPException(429, f"over the upload rate of {self.limits.per_minute} per minute for author "
                                         f"{author!r}; try again in {wait:.0f} s",
                                    headers={"Retry-After": str(max(1, round(wait)))})
            times.append(now)


class CheckItemOut(BaseModel):
    """A check item (``hexarena.referee.check.CheckItem``) as the API answers it: its reason is ``detail``."""

    name: str
    passed: bool
    detail: str

    @classmethod
    def of(cls, item: CheckItem, home: Path | None = None) -> CheckItemOut:
        return cls(name=item.name, passed=item.passed, detail=public(item.reason, home))


class UploadOut(BaseModel):
    bot: str  # name@hash (short hash)
    name: str
    hash: str
    status: str  # registered (a new bot), new_version, unchanged, reactivated
    message: str  # the line 'hexarena submit' prints
    author: str
    checks: list[CheckItemOut]
    checked_at: str = ""  # the time control of the check, and whose ("league club's time control 200ms")


class ProgressOut(BaseModel):
    step: str | None  # None: no upload of this author in progress
    seconds: float = 0.0  # since the upload began


class Refused(BaseModel):
    detail: str
    checks: list[CheckItemOut] = []
    build_log: str = ""


UPLOAD_BODY = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["file"],
    "properties": {"file": {"type": "string", "format": "binary",
                            "description": "a .tar.gz or .zip of the bot's folder (bot.toml at its top)"}}}}}}}


@router.post("/api/bots", status_code=201, openapi_extra=UPLOAD_BODY, responses={
    200: {"model": UploadOut, "description": "unchanged: already the latest version"},
    401: {"model": Refused}, 403: {"model": Refused}, 413: {"model": Refused}, 415: {"model": Refused},
    422: {"model": Refused}, 429: {"model": Refused}})
async def upload(request: Request) -> UploadOut:
    """Register a bot from an archive of its folder: the pipeline of ``hexarena submit`` (build and check in the
    sandbox). The name is the uploading author's from then on."""
    state: UploadState = request.app.state.uploads
    author = await run_in_threadpool(author_of, request)
    try:
        state.admit(author.name)
        data = await _read_file_field(request, state.limits)
        async with state.building.slot(author.name) as queued:
            queued.say("unpacking the archive")
            status, body = await run_in_threadpool(_submit, request, state.limits, author.name, data, queued.say)
    except HTTPException as exc:
        _said(author.name, exc.status_code, str(exc.detail))
        raise
    _said(author.name, status, body.get("message") or body["detail"], body.get("bot"))
    return JSONResponse(body, status_code=status)


def _said(author: str, status: int, text: str, bot: str | None = None) -> None:
    """The server's log line of an upload: registered (201), unchanged (200) or refused, and why."""
    outcome = "refused" if status >= 400 else "accepted"
    lifecycle.event("upload", f"upload by {author}: {outcome} ({status}): {text}", author=author, status=status,
                    bot=bot, outcome=outcome)


@router.get("/api/uploads/progress", responses={401: {"model": Refused}})
def progress(request: Request) -> ProgressOut:
    """The step of your upload in progress (build, check), and the seconds since the upload began."""
    step = request.app.state.uploads.building.progress(author_of(request).name)
    return ProgressOut(step=None) if step is None else ProgressOut(step=step[0], seconds=step[1])


async def _read_file_field(request: Request, limits: UploadLimits) -> bytes:
    """The bytes of the multipart field ``file``; 413 past the cap (counted as the body arrives), 422 if absent."""
    if "multipart/form-data" not in request.headers.get("content-type", ""):
        raise HTTPException(415, "send the archive as multipart/form-data in the field 'file'")
    cap = limits.max_archive + MULTIPART_SLACK
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        await _drain(request, DRAIN_FACTOR * cap)
        raise _too_large(limits)
    stream = request.stream()

    async def capped():
        seen = 0
        async for chunk in stream:
            seen += len(chunk)
            if seen > cap:
                raise _TooLarge
            yield chunk

    try:
        form = await MultiPartParser(request.headers, capped(), max_files=1, max_fields=4).parse()
    except _TooLarge:
        await _drain(request, DRAIN_FACTOR * cap, stream)
        raise _too_large(limits) from None
    except MultiPartException as exc:
        raise HTTPException(422, f"the form cannot be read ({exc.message}); send one field 'file'") from None
    except ClientDisconnect:  # the client went away mid-body: the upload's one log line says so, no traceback
        raise HTTPException(400, "the upload was cut off by its client before its end; nothing was kept") from None
    except OSError as exc:  # the form spools a large file to TMPDIR
        if is_out_of_space(exc):
            raise _disk_full() from None
        raise
    try:
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            raise HTTPException(422, "no file in the form: send the archive in the multipart field 'file'")
        return await upload.read()
    finally:
        await form.close()


async def _drain(request: Request, budget: int, stream=None) -> None:
    """Read and drop the rest of a refused body, ``budget`` bytes at most: a client still sending it then reads
    the 413 instead of a broken pipe; past the budget the connection is simply closed."""
    seen = 0
    try:
        async for chunk in stream if stream is not None else request.stream():
            seen += len(chunk)
            if seen > budget:
                return
    except Exception:  # noqa: BLE001 - the client went away: nothing to drain
        return


class _TooLarge(Exception):
    pass


def _too_large(limits: UploadLimits) -> HTTPException:
    return HTTPException(413, f"the upload is over the limit of {limits.max_archive / 2**20:g} MB")


def _submit(request: Request, limits: UploadLimits, author: str, data: bytes,
            progress: Callable[[str], None]) -> tuple[int, dict[str, Any]]:
    """In a worker thread: unpack, submit as ``author``; the answer's status and body (module docstring)."""
    try:
        with uploads.unpacked(data, max_bytes=limits.max_bytes, max_files=limits.max_files,
                              max_archive=limits.max_archive) as folder:
            try:
                entered = request.app.state.scheduler.strictest_time_control(load_manifest(folder).name)
                control, checked_at = entered or (None, f"the check's own time control {CHECK_TIME}")
                result = submit(workspace(request), folder, author=author, max_bytes=limits.max_bytes,
                                source=f"upload by {author}", build_timeout=limits.build_timeout,
                                max_snapshot_bytes=limits.max_snapshot, time_control=control,
                                author_from="your token's account", time_source=checked_at if entered else "",
                                progress=progress)
            except ConfigError as exc:  # the manifest, the copy: name the archive's files, not the temp folder
                raise type(exc)(_relative(str(exc), folder)) from None
    except UploadRefused as exc:
        raise HTTPException(413 if exc.too_large else 422, escaped(str(exc))) from None
    except NameTaken as exc:
        raise HTTPException(403, escaped(str(exc))) from None
    except OutOfSpace:
        raise _disk_full() from None
    except ConfigError as exc:
        raise HTTPException(422, escaped(str(exc).splitlines()[0])) from None
    home = request.app.state.home
    checks = [CheckItemOut.of(item, home) for item in result.checks]
    if not result.accepted:
        body = Refused(detail=f"{result.name} was not registered: {public(result.reason, home)}", checks=checks,
                       build_log=public(result.build_log[-BUILD_LOG_TAIL:], home))
        return 422, body.model_dump()
    message = submitted(workspace(request), result)
    if result.status != "unchanged":
        request.app.state.scheduler.wake()
    body = UploadOut(bot=result.label, name=result.name, hash=result.version_hash, status=result.status,
                     message=message, author=author, checks=checks,
                     checked_at=checked_at if result.status != "unchanged" else "").model_dump()
    return 201 if result.status in ("registered", "new_version") else 200, body


def _disk_full() -> HTTPException:
    return HTTPException(507, "the server's disk is full; nothing was registered: tell the organiser")


def _relative(message: str, folder) -> str:
    return message.replace(f"{folder}/", "").replace(str(folder), "the bot's folder")


class RunOut(BaseModel):
    league: str
    state: str


@router.post("/api/leagues/{name}/run", status_code=202, responses={
    401: {"model": Refused}, 403: {"model": Refused}, 404: {"model": Refused}})
def run(request: Request, name: str) -> RunOut:
    """The organiser (an admin token): plan and run the league again now (it runs after any run in progress)."""
    author_of(request, admin=True)
    scheduler = request.app.state.scheduler
    if name not in scheduler.runners:
        served = ", ".join(sorted(scheduler.runners)) or "none"
        raise HTTPException(404, f"league {echoed(name)} is not run by this server (served leagues: {served}; "
                                 "give it to 'hexarena serve --league FILE')")
    scheduler.wake(name)
    return RunOut(league=name, state=scheduler.runners[name].state)
