"""``hexarena serve``: the workspace as a network service (uploads, read API, continuous leagues, live results).

FastAPI and uvicorn are the optional extra ``hexarena[serve]``: without it the command is one line saying so.
Uploaded bots run only in the sandbox: there is no ``--no-sandbox`` here, and a machine where no sandbox
can be made (neither bubblewrap nor the kernel's namespaces) is refused before the server starts.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from hexarena.protocol.errors import ConfigError

HOME_HELP = "workspace folder (default: $HEXARENA_HOME, else ./hexarena-home)"


def serve(
    host: Annotated[str, typer.Option(help="address to listen on; keep the loopback default behind a TLS reverse "
                                           "proxy (docs/service.md)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="port to listen on")] = 8000,
    league: Annotated[list[Path] | None, typer.Option("--league", help="a league file to play continuously (a new "
                                                                       "bot version's games start at once); "
                                                                       "repeat for more")] = None,
    home: Annotated[Path | None, typer.Option("--home", help=HOME_HELP, show_default=False)] = None,
    upload_rate: Annotated[int, typer.Option(min=1, max=10_000, help="uploads per author per minute")] = 10,
    max_upload: Annotated[float, typer.Option(min=0.01, max=1024, help="size limit of an uploaded archive, "
                                                                       "in MB")] = 20,
    build_timeout: Annotated[float, typer.Option(min=1, max=86_400, help="seconds one upload's build may take")] = 300,
    max_snapshot: Annotated[float, typer.Option(min=1, max=100_000, help="size limit of a bot's folder after its "
                                                                         "build, in MB")] = 200,
    header_timeout: Annotated[float, typer.Option(min=0.1, max=3600, help="seconds a request's headers may take to "
                                                                          "arrive (slow clients: docs/service.md)")] = 10,
    log_format: Annotated[str, typer.Option(help="the log on stderr: 'text' lines, or 'json' (one object a line, "
                                                 "for a log collector)")] = "text",
    pin_cores: Annotated[bool, typer.Option("--pin-cores", help="each league's games at once: each game's referee "
                                            "and bots on a core of their own, the leagues' games taking the cores in "
                                            "turn (faster when games fill the cores; a bot cannot use a second core "
                                            "then)")] = False,
) -> None:
    """Serve the workspace over HTTP: authors upload bots (POST /api/bots, a token from 'hexarena authors add'),
    the --league files are played continuously, results are read at /api/... (schema at /docs)."""
    try:
        import uvicorn

        from hexarena.server.api_write import UploadLimits
        from hexarena.server import lifecycle
        from hexarena.server.app import create_app
        from hexarena.server.http import LIMITS, with_header_timeout
    except ImportError as exc:
        raise ConfigError(f"hexarena serve needs the server's packages ({exc.name} is missing): "
                          "pip install 'hexarena[serve]'") from None
    from hexarena.leagues.workspace.home import default_home
    from hexarena.referee import sandbox

    if log_format not in lifecycle.FORMATS:
        raise ConfigError(f"--log-format {log_format!r}: allowed: {', '.join(lifecycle.FORMATS)}")
    lifecycle.configure(log_format)

    if sandbox.path() is None:  # every bot, build and check of the server runs sandboxed (RefereeSettings' default)
        raise ConfigError(f"hexarena serve runs uploaded bots only in the sandbox, and none can be made here: "
                          f"{sandbox.describe()}; install bubblewrap (apt-get install bubblewrap)")
    _check_listen(host, port)
    from hexarena.referee import watchdog
    from hexarena.referee.exiting import keep_teardown

    # a server gains nothing from a quick exit, and its request and league threads open connections whose last
    # holders are not all known at its end (a stop with Ctrl-C left the write-ahead log 3 times in 6 without this)
    keep_teardown()

    workspace = home if home is not None else default_home()
    app = create_app(workspace, list(league or []),
                     limits=UploadLimits(max_archive=int(max_upload * 2**20), per_minute=upload_rate,
                                         build_timeout=build_timeout, max_snapshot=int(max_snapshot * 2**20)),
                     pin_cores=pin_cores)
    lifecycle.event("watchdog", watchdog.describe())  # once the league files are read: a bad one is the only line
    leagues = sorted(app.state.scheduler.runners)
    lifecycle.event("listening", f"workspace {workspace}, leagues: {', '.join(leagues) or 'none'}; listening on "
                                 f"http://{host}:{port} (API schema at /docs)", workspace=str(workspace), leagues=leagues,
                    url=f"http://{host}:{port}")
    uvicorn.run(app, host=host, port=port, log_level="warning", log_config=None, timeout_graceful_shutdown=5,
                http=with_header_timeout(header_timeout), **LIMITS)


def _check_listen(host: str, port: int) -> None:
    """ConfigError (one line) if uvicorn could not listen on host:port. uvicorn itself only logs a failed bind
    and exits, after the app's startup has begun the leagues: this probe refuses before anything starts."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind(address)
    except OSError as exc:  # in use, not an address of this machine, a host name that does not resolve
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def register(app: typer.Typer) -> None:
    app.command()(serve)
