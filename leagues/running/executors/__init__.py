"""Executors: where a league's games are played; each takes jobs and yields records as games finish.

    base.py         Executor (the interface) and ExecutorLost
    local.py        LocalExecutor: this machine, a pool of warm referees (``referee/pool.py``)
    dask_driver.py  DaskExecutor: a Dask cluster, one task per seat cycle (the ``dask`` extra)
    dask_worker.py  a Dask worker's side: the bot cache by content hash, warm referees, play_cycle
"""
