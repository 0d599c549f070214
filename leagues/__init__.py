"""Leagues: imports ``protocol``, ``referee`` and ``leagues``, never the CLI.

    workspace.py, schema.py   the workspace folder and its versioned SQLite schema
    registry.py               submitted bots: snapshots keyed by content hash, versions, resolving bot arguments
    config.py, schedule.py    league files and their schedules
    seating.py, openings.py   seat orders of a table; start positions (random safe lines, or a file)
    runner.py                 playing what is not stored yet, through an Executor
    locks.py                  one runner per league per workspace (flock)
    store.py                  every SQL statement about games and leagues
    tables.py, ratings.py     standings, crosstables, Elo with intervals
    sprt.py                   is NEW better than OLD: pentanomial Elo, LOS and the sequential test
    wording.py                result wording: game lines, summaries, Markdown
    publish.py, site/         the static results site
"""
