"""The workspace: the one folder that holds all service state, and what writes into it whole.

    home.py     ``Workspace`` (and its ``Layout``: every path of the folder), the database connection, transactions
    schema.py   the database's tables, their version and the migrations up to it (every CREATE statement)
    locks.py    one runner per league and workspace (flock on ``ws.locks_dir``)
    files.py    a command's --out file or folder written whole or not at all
"""
