"""Ratings over time and calibration, read-only (JSON, no token), and the live calibration page.

    GET /api/leagues/{name}/history        every ratings snapshot of the league (``hexarena.leagues.results.history``)
    GET /api/leagues/{name}/calibration    the latest: each version "calibrating: ±X Elo after N games" or calibrated
    GET /leagues/{name}/calibration        a page showing that, fetched again every few seconds

Unknown leagues answer 404 with a one-line ``detail``.
"""

from __future__ import annotations

import html

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from hexarena.leagues.results.history import calibration_payload, history_payload
from hexarena.server.api_common import workspace
from hexarena.server.api_read import NOT_FOUND, check_league

router = APIRouter(tags=["read"])


@router.get("/api/leagues/{name}/history", responses=NOT_FOUND)
def history(request: Request, name: str) -> dict:
    """Every snapshot (after each batch of games), oldest first: each version's Elo, 95% interval and games."""
    ws = workspace(request)
    check_league(request, ws, name)
    return history_payload(ws, name)


@router.get("/api/leagues/{name}/calibration", responses=NOT_FOUND)
def calibration(request: Request, name: str) -> dict:
    """The latest snapshot: each version calibrating (95% interval wider than ±50 Elo) or calibrated."""
    ws = workspace(request)
    check_league(request, ws, name)
    return calibration_payload(ws, name)


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} — calibration</title>
<style>body{{font-family:sans-serif;margin:2em}} td,th{{padding:.2em .8em;text-align:left}}
.calibrating{{color:#a60}}</style></head>
<body><h1>{title}: calibration</h1><p id="when">loading…</p>
<table><thead><tr><th>Bot</th><th>Version</th><th>Elo</th><th>Status</th></tr></thead><tbody id="bots"></tbody></table>
<script>
const url = "/api/leagues/" + encodeURIComponent({name_json}) + "/calibration";
async function refresh() {{
  const response = await fetch(url, {{cache: "no-store"}});
  if (!response.ok) return;
  const data = await response.json();
  document.getElementById("when").textContent = data.batch ? "snapshot " + data.batch + ", taken " + data.taken
                                                           : "no ratings yet";
  const body = document.getElementById("bots");
  body.replaceChildren(...data.bots.map(bot => {{
    const row = document.createElement("tr");
    if (bot.calibrating) row.className = "calibrating";
    for (const text of [bot.bot, bot.version, Math.round(bot.elo), bot.text]) {{
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }}
    return row;
  }}));
}}
refresh();
setInterval(refresh, 3000);
</script></body></html>
"""


@router.get("/leagues/{name}/calibration", response_class=HTMLResponse, responses=NOT_FOUND)
def calibration_page(request: Request, name: str) -> HTMLResponse:
    """The live calibration view (it fetches ``/api/leagues/NAME/calibration`` every 3 seconds)."""
    import json

    ws = workspace(request)
    check_league(request, ws, name)
    return HTMLResponse(PAGE.format(title=html.escape(name), name_json=json.dumps(name)))
