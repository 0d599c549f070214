"""League results: stored, folded, computed and shown.

    store.py        every SQL statement on games and leagues: it speaks rows (records, seat rows, JSON text)
    rows.py         a game's results as seat rows, and the same folded per bot (``Tally``): pure data
    definitions.py  a league's stored definition as a ``LeagueConfig``, and a new file compared with it
    tables.py       standings, crosstables and their rendering (text, rich, md, csv, json)
    ratings.py      Elo with 95% intervals (Bradley–Terry, Plackett–Luce)
    sprt.py         is NEW better than OLD: pentanomial Elo, LOS and the sequential test (arithmetic only)
    wording.py      result wording: game lines, summaries, Markdown tables
    report.py       the results view the server's read API and the site both show (``LeagueReport``)
    doctor.py       ``hexarena doctor``: a damaged database examined read-only, its intact games salvaged
"""
