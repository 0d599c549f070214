"""Benchmark: `hexarena league table` and `hexarena publish` on a workspace of a million stored games.

    python3 benchmarks/store_1m.py [--games N] [--bots B] [--home DIR] [--keep] [--skip-publish]

Builds a workspace store of N games (default 1,000,000) with the real schema (``hexarena.leagues.workspace.schema``, made by
opening a ``Workspace``) and the rows ``hexarena.leagues.results.store.save_game`` writes (games with the record JSON, one
moves row per move, one results row per seat from ``hexarena.leagues.results.rows.seat_rows``), but inserted in bulk in
one big transaction. The games are real: a few hundred random games per board configuration are played
by the referee's game loop with in-process seats (about 1 in 60 ending in a timeout, crash or illegal
line); each stored game is one of them under its own id, seats (B bots, two versions of one bot), seed
and dates. Then it runs ``hexarena league table`` and ``hexarena publish`` as subprocesses of the
``hexarena`` on PATH (or of the source tree ``--code``) and prints wall and CPU time, peak RSS
(``resource.getrusage(RUSAGE_CHILDREN)``, measured in a fresh child per command) and the site's file
count and size.

``--home`` reuses a store built earlier (with ``--keep``) when it holds N games; the numbers of one run are
the figures to compare (this machine is shared). The store is built at this checkout's schema (5: with the
league's running totals, ``hexarena.leagues.results.store.tally``); code before schema 5 refuses such a store, so for its
figures build and time a store with that code's own copy of this script (``PYTHONPATH=DIR python -P
DIR/benchmarks/store_1m.py --code DIR``), and copy that store for this checkout, which migrates it and folds
its totals on its first ``league table`` (the first open after a write also checks every page: time a
command after that).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hexarena.leagues.results import definitions, store
from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.results.rows import seat_rows
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import BotFault
from hexarena.referee.clock import TimeControl
from hexarena.referee.seats.inprocess import InProcessSpec
from hexarena.referee.record import BoardConfig, GameRecord
from hexarena.referee.referee import Referee

LEAGUE = "big"
BOARDS = [BoardConfig(size="2x3"), BoardConfig(size="3x3"), BoardConfig(size="3x3", misere=True),
          BoardConfig(size="3x3", geometry="square")]
TEMPLATES = 150  # distinct games played per configuration
FAULTS = ("timeout", "crashed", "illegal_line")
START = datetime(2026, 1, 1, tzinfo=UTC)
BATCH = 20_000  # games per executemany round (all in one transaction)


def templates(rng: random.Random) -> list[GameRecord]:
    """Real games of every configuration, played by the referee with random in-process seats."""
    played = []
    with Referee(time_control=TimeControl.parse("200ms,startup=10s")) as referee:
        for config in BOARDS:
            for n in range(TEMPLATES):
                fault = (rng.randrange(2), rng.randrange(3, 12), FAULTS[n // 60 % 3]) if n % 60 == 7 else None

                def choose(game, state, fault=fault):
                    if fault and fault[0] == game.seat and state.drawn.bit_count() >= fault[1]:
                        raise BotFault(fault[2], f"{fault[2]} at move {state.drawn.bit_count()}")
                    return rng.choice(state.legal_moves())

                record = referee.play([InProcessSpec("a", choose), InProcessSpec("b", choose)], config,
                                      game_id=f"t{len(played)}", seed=n)
                moves = [m.model_copy(update={"ms": round(rng.lognormvariate(1.5, 1), 2)}) for m in record.moves]
                played.append(record.model_copy(update={"moves": moves}))
    return played


def bot_names(count: int) -> list[str]:
    names = [f"bot{i:02d}@{i:02d}a1b2c3d4" for i in range(count - 1)]
    return names + ["bot00@ffee00112233"]  # a second version of bot00


def build(home: Path, games: int, bots: int, seed: int = 1) -> None:
    """A workspace at ``home`` holding ``games`` stored games of league ``big`` (its schedule included)."""
    rng = random.Random(seed)
    started = time.perf_counter()
    played = templates(rng)
    names = bot_names(bots)
    boards = "\n".join(f'[[boards]]\nsize = "{b.size}"\ngeometry = "{b.geometry}"\nmisere = {str(b.misere).lower()}'
                       for b in BOARDS)
    league = parse_league(f'name = "{LEAGUE}"\nparticipants = {json.dumps(names)}\n{boards}\n')
    print(f"  {len(played)} template games played in {time.perf_counter() - started:.1f} s", flush=True)
    # per template: its record as a dict, its moves rows and its results rows (without game id and bot)
    shapes = []
    for record in played:
        data = record.model_dump(mode="json")
        moves = [(n, m.seat, m.line, json.dumps(m.closed), m.ms, int(m.substituted)) for n, m in enumerate(record.moves)]
        rows = [tuple(row[c] for c in store.RESULT_COLUMNS) for row in seat_rows(record)]
        shapes.append((record, data, moves, rows))
    columns = ", ".join(store.RESULT_COLUMNS)
    marks = ", ".join("?" * len(store.RESULT_COLUMNS))
    with Workspace(home) as ws:
        schedule, game_rows, move_rows, result_rows = [], [], [], []

        def flush() -> None:
            ws.db.executemany("INSERT INTO games (id, league, configuration, seats, termination, offender, started,"
                              " finished, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", game_rows)
            ws.db.executemany("INSERT INTO moves (game, number, seat, line, closed, ms, substituted)"
                              " VALUES (?, ?, ?, ?, ?, ?, ?)", move_rows)
            ws.db.executemany(f"INSERT INTO results ({columns}) VALUES ({marks})", result_rows)
            game_rows.clear(), move_rows.clear(), result_rows.clear()

        ws.db.execute("PRAGMA synchronous=OFF")  # a benchmark's store: built once, not a league's results
        ws.db.execute("BEGIN")
        for n in range(games):
            record, data, moves, rows = shapes[rng.randrange(len(shapes))]
            a = rng.randrange(bots)
            b = (a + rng.randrange(1, bots)) % bots
            seats = [names[a], names[b]]
            game = f"{LEAGUE}-{n:07d}-{rng.getrandbits(32):08x}"
            when = START + timedelta(seconds=30 * n + rng.randrange(30))
            data = {**data, "id": game, "seats": seats, "seed": n, "started": when.isoformat(),
                    "finished": (when + timedelta(seconds=3)).isoformat()}
            text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
            schedule.append((game, n // 1000, record.config.label, json.dumps(seats), n))
            game_rows.append((game, LEAGUE, record.config.label, json.dumps(seats), record.result.termination,
                              record.result.offender, data["started"], data["finished"], text))
            move_rows.extend((game, *move) for move in moves)
            result_rows.extend((game, *row[1:4], seats[row[3]], *row[5:]) for row in rows)
            if len(game_rows) == BATCH:
                flush()
        flush()
        ws.db.execute("COMMIT")
        definitions.save_rows(ws, league, schedule)
        folded = time.perf_counter()
        store.tally(ws, LEAGUE)  # the league's totals, as save_game would have kept them game by game
        print(f"  totals folded from the results in {time.perf_counter() - folded:.1f} s", flush=True)
    size = sum(p.stat().st_size for p in home.glob("hexarena.db*"))
    print(f"  {games:,} games stored in {time.perf_counter() - started:.1f} s ({size / 2**30:.2f} GiB)", flush=True)


def measured(command: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system: the steadier figure on a shared machine) and peak RSS (GiB)
    of one command, run through a fresh Python child so that RUSAGE_CHILDREN holds this command alone."""
    probe = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
             "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "w = time.perf_counter() - t; u = resource.getrusage(resource.RUSAGE_CHILDREN); "
             "print(w, u.ru_utime + u.ru_stime, u.ru_maxrss, done.returncode); "
             "sys.stderr.write(done.stderr[-2000:])")
    done = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True, env=env, check=False)
    wall, cpu, rss_kib, code = done.stdout.split()
    if int(code) != 0:
        raise SystemExit(f"{' '.join(command)} failed ({code}): {done.stderr}")
    return float(wall), float(cpu), int(rss_kib) / 2**20


def site_size(folder: Path) -> tuple[int, int, Path, int]:
    """The site's file count, total size, and its largest file and that file's size (every file is bounded)."""
    sizes = {p: p.stat().st_size for p in folder.rglob("*") if p.is_file()}
    largest = max(sizes, key=sizes.__getitem__)
    return len(sizes), sum(sizes.values()), largest.relative_to(folder), sizes[largest]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--home", type=Path, help="the workspace (built there if it holds no league 'big')")
    parser.add_argument("--keep", action="store_true", help="keep the workspace and the site")
    parser.add_argument("--skip-publish", action="store_true")
    parser.add_argument("--code", type=Path, help="run the commands of this source tree instead (e.g. today's code: "
                        "git archive COMMIT | tar -x -C DIR), for before/after figures from one run")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="store_1m-"))
    env = dict(os.environ)
    if args.code:
        env["PYTHONPATH"] = str(args.code.resolve())
        hexarena = [sys.executable, "-P", "-c", "from hexarena.cli import command; command()"]  # -P: not this checkout
    else:
        hexarena = [shutil.which("hexarena") or sys.exit("no hexarena on PATH (activate the virtualenv)")]
    try:
        with Workspace(home) as ws:
            stored = ws.db.execute("SELECT COUNT(*) FROM games WHERE league = ?", (LEAGUE,)).fetchone()[0]
        if stored != args.games:
            if stored:
                sys.exit(f"{home} holds {stored:,} games of league {LEAGUE}, not {args.games:,}: give another --home")
            print(f"building {args.games:,} games in {home}", flush=True)
            build(home, args.games, args.bots)
        print(f"{args.games:,} games, {args.bots} bots, {len(BOARDS)} configurations; code: {args.code or 'this checkout'}")
        wall, cpu, rss = measured([*hexarena, "league", "table", LEAGUE, "--home", str(home), "--format", "text"], env)
        print(f"  league table   {wall:7.2f} s wall {cpu:7.2f} s CPU  {rss:5.2f} GiB peak RSS", flush=True)
        if not args.skip_publish:
            site = home / "site-out"
            wall, cpu, rss = measured([*hexarena, "publish", LEAGUE, "--home", str(home), "--out", str(site)], env)
            files, size, largest, most = site_size(site)
            print(f"  publish        {wall:7.2f} s wall {cpu:7.2f} s CPU  {rss:5.2f} GiB peak RSS  {files:,} files, "
                  f"{size / 1e6:,.0f} MB, the largest {largest} ({most / 1e6:,.1f} MB)", flush=True)
            if not args.keep:
                shutil.rmtree(site, ignore_errors=True)
    finally:
        if not args.keep and args.home is None:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
