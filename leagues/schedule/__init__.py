"""League files and the games they schedule (no workspace, no database).

    config.py     a league file (TOML) validated as a ``LeagueConfig``; what a change of it changes
    games.py      the league's game list: deterministic, with stable ids, interleaved round by round
    seating.py    the seat orders of a table
    openings.py   start positions: random safe lines from the seed, or a file's
"""
