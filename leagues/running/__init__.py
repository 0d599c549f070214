"""Running leagues: the games not stored yet, played through an executor and stored as each one ends.

    runner.py       run_league: resolve, schedule, resume, play, store; league_settings (the league file's
                    RefereeSettings); the plan a dry run or ``league status`` shows
    jobs.py         Job (one game as an executor gets it) and play_job, the one way a referee plays it
    estimate.py     how long the games still to play will take (``league run --dry-run``)
    progress.py     the progress bar or lines on stderr while a league runs
    executors/      where the games are played: this machine's pool of referees, or a Dask cluster
"""
