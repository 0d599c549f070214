"""The server's log: one line on stderr per thing that happened, as text or as JSON (``--log-format json``).

    configure("json")                                               once, by ``hexarena serve``
    event("league_finished", "league club: 12 games played in 3.1 s", league="club", played=12)

Text lines read ``hexarena serve: MESSAGE``; JSON lines are one object each, ``{"time", "level", "event",
"message", ...fields}``, for an operator's log collector. The events: ``watchdog`` (how bots' memory and CPU
time are watched), ``listening``, ``league_started``,
``league_finished``, ``league_failed``, ``upload`` (registered, unchanged or refused, with the status code),
``stopping`` (on SIGTERM or Ctrl-C: the games in flight, abandoned and replayed by the next start) and
``internal_error``. Every logger under ``hexarena`` writes through the same handler (the server's at INFO, the
referee's and the leagues' warnings, e.g. ``hexarena.referee.observers``), and so do uvicorn's warnings (a
malformed request: event ``uvicorn.error``), so a JSON log holds nothing but JSON lines.
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
from datetime import UTC, datetime

LOGGER = "hexarena.server"
PACKAGE = "hexarena"  # every module's logger: the referee's and the leagues' warnings in the server's log
UVICORN = "uvicorn"  # its loggers (uvicorn.error: bad requests); ``hexarena serve`` runs it with log_config=None
FORMATS = ("text", "json")
log = logging.getLogger(LOGGER)


def event(name: str, message: str, level: int = logging.INFO, **fields: object) -> None:
    log.log(level, message, extra={"event": name, "fields": fields})


class _Formatter(logging.Formatter):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if self.kind == "text":
            text = f"hexarena serve: {message}"
            if record.exc_info:
                text += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
            return text
        line = {"time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
                "level": record.levelname.lower(), "event": getattr(record, "event", record.name),
                "message": message, **getattr(record, "fields", {})}
        if record.exc_info:
            line["traceback"] = "".join(traceback.format_exception(*record.exc_info))
        return json.dumps(line, default=str)


def configure(kind: str = "text") -> None:
    """Send the server's log to stderr in ``kind`` (``FORMATS``); again: the format changes, one handler stays."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Formatter(kind))
    for logger in (logging.getLogger(PACKAGE), logging.getLogger(UVICORN)):
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.propagate = False
    logging.getLogger(PACKAGE).setLevel(logging.WARNING)
    log.setLevel(logging.INFO)
