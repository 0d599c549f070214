"""Leagues: imports ``protocol``, ``referee`` and ``leagues``, never the CLI.

Six wings, each importing only itself and the wings before it (tests/test_floors.py):

    workspace, schedule  →  registry  →  results  →  running, site

    workspace/   the workspace folder, its versioned SQLite schema, locks, and writing --out files whole
    schedule/    league files and their game lists: seat orders, start positions
    registry/    submitted bots: snapshots keyed by content hash, versions, names and owners, uploads, authors
    results/     the store (every SQL statement on games and leagues), its rows, tables, ratings, the SPRT's
                 arithmetic, result wording, the results view, the doctor
    running/     playing what is not stored yet, through an executor (this machine, or a Dask cluster)
    site/        the static results site

Each wing's ``__init__`` lists its modules. The league files shipped with hexarena (``*.toml``) lie here too.
"""
