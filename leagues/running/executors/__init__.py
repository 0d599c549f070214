"""Executors: where a league's games are played (``runner.run_league`` takes any).

    base.py          ``Executor``, the contract, and ``ExecutorLost``
    local.py         ``LocalExecutor``: this machine's referee pool
    dask_driver.py   ``DaskExecutor``: seat cycles as tasks on a Dask cluster (the ``dask`` extra)
    dask_worker.py   the worker side: bots fetched by content hash and verified, warm referees per thread
"""
