"""``hexarena serve``: the network service (the top floor, beside the CLI; docs/service.md).

    app.py         create_app(home, leagues): the FastAPI application and what it holds (app.state)
    api_read.py    the read API: leagues, standings, games, bots, the queue
    api_write.py   uploads (POST /api/bots) and the organiser's league runs, behind bearer tokens
    api_common.py  a thread's workspace, the request's author
    scheduler.py   the continuous leagues: one runner thread per league
    events.py      server-sent events and the games in progress (live results)

Everything here imports FastAPI: only ``hexarena serve`` imports this package, and only with the extra
``hexarena[serve]`` installed.
"""
