"""``hexarena submit FOLDER [--server URL]`` and ``hexarena bots [list | show NAME | retire NAME]``: the bot registry."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hexarena.unconfined import NoSandboxOption, choose
from hexarena.leagues.registry import catalog
from hexarena.leagues.registry.catalog import bot_history, get_bot
from hexarena.leagues.registry.resolve import resolve
from hexarena.leagues.registry.snapshot import MAX_BOT_BYTES, SHORT_HASH
from hexarena.leagues.registry import submit as submission
from hexarena.leagues.registry.submit import ensure_reference_bots, submitted
from hexarena.referee.build import BUILD_TIMEOUT
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError

if TYPE_CHECKING:
    from hexarena.referee.check import CheckItem

HomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="workspace folder (default: $HEXARENA_HOME, else ./hexarena-home)", show_default=False),
]

bots_app = typer.Typer(help="List registered bots, show a bot's versions, retire a bot.", no_args_is_help=False)


def open_workspace(home: Path | None, sandboxed: bool = True) -> Workspace:
    """The workspace, with the reference bots submitted into it if it is new (reported on stderr); their builds
    run in the sandbox unless ``sandboxed`` is False (the command's --no-sandbox)."""
    ws = Workspace(home)
    for result in ensure_reference_bots(ws, sandboxed=sandboxed):
        if not result.accepted:
            print(f"hexarena: reference bot {result.name} skipped: {result.reason}", file=sys.stderr)
        elif result.status != "unchanged":
            print(f"hexarena: reference bot {result.name} registered as {result.label}", file=sys.stderr)
    return ws


def format_table(headers: list[str], rows: list[list[str]]) -> str:
    """Plain aligned text columns, two spaces apart."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]
    lines = [headers, *rows]
    return "\n".join("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
                     for line in lines)


def when(stamp: str) -> str:
    """``2026-11-29T12:44:02.617684+00:00`` → ``2026-11-29 12:44:02 UTC``."""
    return stamp[:19].replace("T", " ") + " UTC"


def check_summary(checks: list[CheckItem]) -> str:
    if any("skipped" in reason for _, _, reason in checks):
        return "skipped"
    return f"{sum(passed for _, passed, _ in checks)}/{len(checks)} passed"


def submit(
    folder: Annotated[Path, typer.Argument(help="the bot's folder, with its bot.toml")],
    home: HomeOption = None,
    max_size: Annotated[float, typer.Option(min=0, max=10_240, help="size limit of the folder, in MB")] = MAX_BOT_BYTES / 2**20,
    build_timeout: Annotated[float, typer.Option(min=0.1, max=3600, help="seconds the build command may take")] = BUILD_TIMEOUT,
    author: Annotated[str | None, typer.Option(help="who submits: a bot's name belongs to the author who first "
                                               "submitted it [default: your user name]", show_default=False)] = None,
    no_sandbox: NoSandboxOption = False,
    server: Annotated[str | None, typer.Option(help="submit to a hexarena server instead (e.g. https://arena.example."
                                               "org): the folder is packed and uploaded, the server builds and "
                                               "checks it", show_default=False)] = None,
    token: Annotated[str | None, typer.Option(envvar="HEXARENA_TOKEN", help="your token for --server (from the "
                                              "organiser's 'hexarena authors add')", show_default=False)] = None,
) -> None:
    """Build, check and register a bot folder; the registry keeps an exact copy, one per content version."""
    if server is not None:
        local = {"--author": author is not None, "--no-sandbox": no_sandbox,
                 "--max-size": max_size != MAX_BOT_BYTES / 2**20,
                 "--build-timeout": build_timeout != BUILD_TIMEOUT}
        given = [option for option, set_ in local.items() if set_]
        if given:
            raise ConfigError(f"{', '.join(given)}: not with --server (the server builds with its own limits and "
                              "takes the author from your token)")
        submit_to_server(folder, server, token)
        return
    sandboxed = choose(no_sandbox)
    ws = Workspace(home)
    result = submission.submit(ws, folder, max_bytes=int(max_size * 2**20), build_timeout=build_timeout, author=author,
                               progress=lambda step: print(f"hexarena: {step}", file=sys.stderr, flush=True),
                               sandboxed=sandboxed)
    if not result.accepted:
        print(f"hexarena: {result.name} was not registered: {result.reason}", file=sys.stderr)
        if result.build_log.strip():
            print("build output (tail):\n" + indent(result.build_log), file=sys.stderr)
        raise typer.Exit(1)
    print(submitted(ws, result))
    if result.checks:
        print(checks_table(result.checks))
    print(f"snapshot: {result.folder}")


def submit_to_server(folder: Path, server: str, token: str | None) -> None:
    """``submit --server``: pack the folder, POST it to ``SERVER/api/bots`` (standard library only), print what a
    local submit prints; the server's one-line refusal and exit status 1 on any error answer."""
    import json
    import secrets
    import urllib.error
    import urllib.request

    from hexarena.leagues.registry.uploads import pack

    if not token:
        raise ConfigError("--server needs your token: --token TOKEN or HEXARENA_TOKEN (the organiser makes one "
                          "with 'hexarena authors add NAME')")
    if not server.startswith(("http://", "https://")):
        raise ConfigError(f"--server {server!r}: give the server's URL, http:// or https://")
    if not (folder / "bot.toml").is_file():
        raise ConfigError(f"{folder}: not a bot folder (no bot.toml)")
    boundary = secrets.token_hex(16)
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"bot.tar.gz\"\r\n"
            "Content-Type: application/gzip\r\n\r\n").encode() + pack(folder) + f"\r\n--{boundary}--\r\n".encode()
    try:
        request = urllib.request.Request(server.rstrip("/") + "/api/bots", data=body, method="POST", headers={
            "Authorization": f"Bearer {token}", "Content-Type": f"multipart/form-data; boundary={boundary}"})
    except ValueError as exc:  # urllib's parse: 'http://[' and the like
        raise ConfigError(f"--server {server!r}: not a URL ({exc})") from None
    print(f"hexarena: uploading {folder} to {server} (the server builds and checks it)", file=sys.stderr, flush=True)
    watching = UploadProgress(server.rstrip("/") + "/api/uploads/progress", token)
    try:
        with watching, urllib.request.urlopen(request, timeout=900) as response:
            answer = json.loads(response.read())
    except urllib.error.HTTPError as refused:
        try:
            answer = json.loads(refused.read())
        except ValueError:
            answer = {}
        answer = answer if isinstance(answer, dict) else {}
        detail = answer.get("detail") if isinstance(answer.get("detail"), str) else f"HTTP {refused.code}"
        print(f"hexarena: error: {server} refused the bot ({refused.code}): {detail}", file=sys.stderr)
        if answer.get("checks"):
            print(server_checks(answer, server), file=sys.stderr)
        if isinstance(answer.get("build_log"), str) and answer["build_log"].strip():
            print("build output (tail):\n" + indent(answer["build_log"]), file=sys.stderr)
        raise typer.Exit(1) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, (BrokenPipeError, ConnectionResetError)):
            raise ConfigError(f"--server {server}: the server closed the connection while the archive "
                              f"({len(body) / 2**20:.1f} MB) was being sent: it is probably over the server's size "
                              "limit; leave out data and build outputs") from None
        raise ConfigError(f"--server {server}: no answer ({reason})") from None
    if not isinstance(answer, dict) or not isinstance(answer.get("message"), str):
        raise ConfigError(f"--server {server}: the answer is not a hexarena server's (is the URL right?)")
    print(answer["message"])
    if isinstance(answer.get("checked_at"), str) and answer["checked_at"]:
        print(f"checked at {answer['checked_at']}")
    if answer.get("checks"):
        print(server_checks(answer, server))


class UploadProgress:
    """While the upload's request waits, the server's step of it (GET /api/uploads/progress, once a second), one
    line on stderr per new step and a line every ``EVERY`` seconds of the same step: the build and the check
    take a while. A server without that endpoint (or any failure) shows nothing more."""

    EVERY = 15.0

    def __init__(self, url: str, token: str) -> None:
        import threading

        self.url, self.token = url, token
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True, name="upload-progress")

    def __enter__(self) -> UploadProgress:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(timeout=5)

    def _watch(self) -> None:
        import json
        import urllib.request

        shown, said = None, 0.0
        request = urllib.request.Request(self.url, headers={"Authorization": f"Bearer {self.token}"})
        while not self.done.wait(1.0):
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    answer = json.loads(response.read())
                step, seconds = answer.get("step"), float(answer.get("seconds", 0))
            except (OSError, ValueError, TypeError, AttributeError):
                return
            if not isinstance(step, str) or self.done.is_set():
                continue
            if step != shown or seconds - said >= self.EVERY:
                print(f"hexarena: server: {step} ({seconds:.0f} s)", file=sys.stderr, flush=True)
                shown, said = step, seconds


def server_checks(answer: dict, server: str) -> str:
    """The table of a server answer's ``checks``; ConfigError if they are not a hexarena server's."""
    from hexarena.referee.check import CheckItem

    try:
        return checks_table([CheckItem(str(c["name"]), bool(c["passed"]), str(c["detail"])) for c in answer["checks"]])
    except (KeyError, TypeError):
        raise ConfigError(f"--server {server}: the answer is not a hexarena server's (is the URL right?)") from None


def checks_table(checks: list[CheckItem]) -> str:
    return format_table(["CHECK", "RESULT", "DETAIL"],
                        [[name, "PASS" if passed else "FAIL", reason] for name, passed, reason in checks])  # as check's


def indent(text: str) -> str:
    return "\n".join("  " + line for line in text.rstrip().splitlines())


@bots_app.callback(invoke_without_command=True)
def bots(ctx: typer.Context, home: HomeOption = None) -> None:
    """List registered bots (the default), show a bot's versions, retire a bot."""
    ctx.obj = home
    if ctx.invoked_subcommand is None:
        list_bots(ctx, home)


@bots_app.command("list")
def list_bots(ctx: typer.Context, home: HomeOption = None) -> None:
    """Every registered bot: versions, latest version, when it was submitted, author, status."""
    ws = open_workspace(home or ctx.obj)
    infos = catalog.list_bots(ws)
    if not infos:
        print("no bots registered yet; add one with 'hexarena submit FOLDER'")
        return
    print(format_table(
        ["NAME", "VERSIONS", "LATEST", "SUBMITTED", "AUTHOR", "STATUS"],
        [[i.name, str(i.versions), i.latest[:SHORT_HASH], when(i.submitted), i.author or "-",
          "retired" if i.retired else "active"] for i in infos]))


@bots_app.command("show")
def show(ctx: typer.Context, name: Annotated[str, typer.Argument(help="a registered bot's name, or NAME@HASH "
                                                                      "to mark that version")],
         home: HomeOption = None) -> None:
    """A bot's history: every submission with its hash, time, check result and source folder."""
    ws = open_workspace(home or ctx.obj)
    asked = resolve(ws, name, verify=False).version_hash if "@" in name else None
    name = name.partition("@")[0]
    info = get_bot(ws, name)
    history = bot_history(ws, name)
    latest = history[-1].manifest
    print(f"{info.name} by {info.author or '(no author)'}: "
          + (f"retired {when(info.retired)}" if info.retired else "active"))
    print(f"command: {' '.join(latest.command)}" + (f"  (build: {' '.join(latest.build)})" if latest.build else ""))
    print(f"language: {latest.language or '-'}  transport: {latest.transport}")
    if latest.description:
        print(f"description: {latest.description}")
    print()
    print(format_table(
        ["#", "VERSION", "SUBMITTED", "CHECK", "FROM"],
        [[str(n) + (" *" if v.hash == asked else ""), f"{name}@{v.hash[:SHORT_HASH]}", when(v.submitted),
          check_summary(v.checks), v.source] for n, v in enumerate(history, 1)]))
    if asked is not None:
        print(f"* the version asked for, {name}@{asked[:SHORT_HASH]}")


@bots_app.command("retire")
def retire(ctx: typer.Context, name: Annotated[str, typer.Argument(help="a registered bot's name")],
           home: HomeOption = None) -> None:
    """Take a bot out of future leagues; its versions and past games stay. Submitting it again brings it back."""
    ws = open_workspace(home or ctx.obj)
    if catalog.retire(ws, name):
        print(f"retired {name}: it leaves future leagues; its past games stay")
    else:
        print(f"{name} was already retired")


def register(app: typer.Typer) -> None:
    app.command()(submit)
    app.add_typer(bots_app, name="bots")
