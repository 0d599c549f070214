"""The bot registry: exact, versioned snapshots of submitted bot folders, and who may submit them.

    snapshot.py    a bot folder as content: the content hash and what it covers, the copy, freezing, the one
                   archive of a bot (uploads and the cluster); no database
    submit.py      ``submit``: manifest → copy and hash → build → check → the snapshot and its version, one
                   transaction; the reference bots seeded once per workspace
    catalog.py     reading the registry (bots, versions, retiring) and checking a snapshot before it runs
    resolve.py     a bot argument (``name``, ``name@hash``, a folder) as a runnable ``ResolvedBot``
    reference.py   the reference bots of ``bots/`` and the rule of who owns a name
    gitignore.py   a bot folder's ``.gitignore``: its build outputs, left out of its hash and snapshot
    uploads.py     uploaded archives (.tar.gz, .zip) checked whole before anything is written; the client's pack
    authors.py     the authors who may write to ``hexarena serve`` and their tokens

The SQL on the registry's tables (bots, bot_versions, registry_meta) is catalog's (reading) and submit's
(registering); authors.py's on its own table. Their layout is ``hexarena.leagues.workspace.schema``'s.
"""
