"""Running a league: play what is not stored yet, store each game as it ends.

    runner.py      ``run_league``: resolve the bots, schedule, play the missing games, store them
    jobs.py        one game as an executor gets it, and how a referee plays it
    executors/     where the games are played: this machine's referee pool, or a Dask cluster
    progress.py    the progress line while a league runs
    estimate.py    how long the games still to play will take (``league run --dry-run``)
"""
