"""A stored game's bot logs, as the published site shows them (``hexarena.leagues.site.logs``).

    GET /api/games/{id}/logs/{seat}     text/plain: what seat's bot wrote during the game, with the referee's
                                        lines, each TURN marked (``--- hexarena: move K, TURN R``)

The log is looked up by the stored game (its id, or a unique prefix of at least 4 characters) and its league's
logs folder, never by a path from the request. 404 with a one-line ``detail`` for an unknown game, a seat it
does not have, a log that was not kept, or a league whose file says ``publish_logs = false``.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import PlainTextResponse

from hexarena.leagues.results import definitions
from hexarena.leagues.site.logs import log_text, seat_log
from hexarena.protocol.errors import ConfigError
from hexarena.server.api_common import workspace
from hexarena.server.api_read import NOT_FOUND, game

router = APIRouter(tags=["read"])


@router.get("/api/games/{game_id}/logs/{seat}", responses={**NOT_FOUND, 200: {"content": {"text/plain": {}}}},
            response_class=PlainTextResponse)
def game_log(request: Request, game_id: str, seat: int) -> PlainTextResponse:
    """What one seat's bot wrote during a finished game (at most 256 KiB; the server's folders left out)."""
    ws = workspace(request)
    record = game(request, game_id)  # /api/games/{id}'s lookup: 404 for an unknown, ambiguous or garbled game
    game_id = record.id
    if not 0 <= seat < len(record.seats):
        raise HTTPException(404, f"game {game_id} has seats 0-{len(record.seats) - 1}, not {seat}")
    row = ws.db.execute("SELECT league FROM games WHERE id = ?", (game_id,)).fetchone()
    try:
        shown = row is not None and definitions.league_config(ws, row[0]).publish_logs
    except ConfigError:  # its league's definition is gone: nothing says its logs may be shown
        shown = False
    if not shown:
        raise HTTPException(404, f"game {game_id}: its league does not publish its bots' logs (publish_logs = false)")
    path = seat_log(ws.logs_dir / row[0], game_id, seat)
    text = None if path is None else log_text(path)
    if text is None:
        raise HTTPException(404, f"game {game_id}: seat {seat} has no log (its bot wrote nothing in that game, "
                                 "or its log was removed)")
    return PlainTextResponse(text, headers={"X-Content-Type-Options": "nosniff"})
