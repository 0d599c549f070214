"""The workspace database's schema (hexarena.leagues.workspace.schema) and the store: a fresh database, the migration of a
workspace written by commit 957ae21 (tests/fixtures/workspace-957ae21), and a newer database refused."""

from __future__ import annotations

import json
import pickle
import random
import shutil
import sqlite3
from datetime import UTC
from pathlib import Path

import pandas as pd
import pytest
from helpers import (ANALYSIS_TABLES, AUTHOR_TABLES, FIXTURE, OLD_BOTS, OLD_BY_CONFIGURATION, OLD_TABLE, REGISTRY_TABLES, STORE_TABLES,
                     TALLY_TABLES, cli, tables, user_version)
from hypothesis import given, settings
from hypothesis import strategies as st

from hexarena.leagues.workspace import schema
from hexarena.leagues.results import definitions, store
from hexarena.leagues.registry.catalog import list_bots
from hexarena.leagues.schedule.config import parse_league
from hexarena.leagues.results.tables import SEAT_COLUMNS, Tally, ranked, seat_frame, standings
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError
from hexarena.referee.clock import TimeControl
from hexarena.referee.record import FAULTS, BoardConfig, Forfeit, GameRecord, HostStall, MoveRecord, Result


@pytest.fixture
def old_home(tmp_path: Path) -> Path:
    """A copy of the 957ae21 workspace (the fixture itself is never opened)."""
    home = tmp_path / "old"
    home.mkdir()
    shutil.copy(FIXTURE / "hexarena.db", home / "hexarena.db")
    assert user_version(home) == 0
    return home


@pytest.fixture
def count_migrations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The versions each migration step ran from, in order."""
    ran: list[int] = []
    steps = dict(schema.MIGRATIONS)
    for version, step in steps.items():
        monkeypatch.setitem(schema.MIGRATIONS, version, lambda db, v=version, f=step: (ran.append(v), f(db)))
    return ran


# ---------------------------------------------------------------- a new database


def test_a_new_workspace_is_created_at_the_current_version(tmp_path: Path, count_migrations: list[int]) -> None:
    with Workspace(tmp_path / "home") as ws:
        assert ws.migrated_from is None
    assert user_version(tmp_path / "home") == schema.VERSION
    assert tables(tmp_path / "home") == STORE_TABLES | REGISTRY_TABLES | AUTHOR_TABLES | TALLY_TABLES | ANALYSIS_TABLES
    assert count_migrations == []  # created from the current layout, not by replaying the steps
    with Workspace(tmp_path / "home") as ws:
        assert ws.migrated_from is None


def test_the_store_declares_the_results_columns_of_the_schema_and_of_the_seat_frame(tmp_path: Path) -> None:
    with Workspace(tmp_path / "home") as ws:
        stored = tuple(row["name"] for row in ws.db.execute("PRAGMA table_info(results)"))
    assert stored == store.RESULT_COLUMNS
    # the tables' seat frame must still find its columns in the store: a new seat-frame column (a new
    # fault reason, say) needs a schema version that adds it to the results table
    assert set(store.RESULT_COLUMNS) == set(SEAT_COLUMNS)


# ---------------------------------------------------------------- the 957ae21 workspace


def test_a_957ae21_workspace_migrates_once_and_shows_the_same_tables(
        old_home: Path, count_migrations: list[int], capsys: pytest.CaptureFixture[str]) -> None:
    with Workspace(old_home) as ws:
        assert ws.migrated_from == 0
    assert count_migrations == list(range(schema.VERSION))
    assert user_version(old_home) == schema.VERSION
    with Workspace(old_home) as ws:
        assert ws.migrated_from is None
    assert count_migrations == list(range(schema.VERSION))
    assert tables(old_home) == STORE_TABLES | REGISTRY_TABLES | AUTHOR_TABLES | TALLY_TABLES | ANALYSIS_TABLES

    assert cli(capsys, "league", "table", "tiny", "--home", str(old_home)) == (0, OLD_TABLE, "")
    assert cli(capsys, "league", "table", "tiny", "--by", "configuration", "--table", "standings",
               "--home", str(old_home)) == (0, OLD_BY_CONFIGURATION, "")
    assert cli(capsys, "bots", "list", "--home", str(old_home)) == (0, OLD_BOTS, "")
    assert cli(capsys, "league", "status", "tiny", "--home", str(old_home)) == (
        0, "league tiny: 4 of 4 games played (100%), 0 left\n", "")
    assert count_migrations == list(range(schema.VERSION))


def test_the_cli_migrates_a_957ae21_workspace_on_first_use(old_home: Path, capsys, count_migrations) -> None:
    assert cli(capsys, "league", "table", "tiny", "--home", str(old_home)) == (0, OLD_TABLE, "")
    assert (count_migrations, user_version(old_home)) == (list(range(schema.VERSION)), schema.VERSION)


def test_replay_reads_a_game_of_the_957ae21_workspace_through_the_store(old_home: Path, capsys) -> None:
    with Workspace(old_home) as ws:
        assert store.game_data(ws, "3a5926a5b9ebd111")["seats"] == ["random", "greedy"]
        assert store.game_data(ws, "0000000000000000") is None
    status, out, err = cli(capsys, "replay", "3a5926a5b9ebd111", "--delay", "0", "--home", str(old_home))
    lines = out.splitlines()
    assert (status, err) == (0, "")
    assert lines[0] == "3a5926a5b9ebd111: A random vs B greedy on 2x2 hex · start"  # as 957ae21 printed them
    assert lines[-1] == "result: greedy wins 0–4 · completed"
    status, out, err = cli(capsys, "replay", "0000000000000000", "--home", str(old_home))
    assert (status, out) == (2, "") and "game '0000000000000000' is not in the workspace" in err


def test_a_failed_migration_leaves_the_old_database_as_it_was(old_home: Path, monkeypatch) -> None:
    def half_done(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE half (x)")
        db.execute("DROP TABLE results")
        raise ConfigError("step failed")

    monkeypatch.setitem(schema.MIGRATIONS, 0, half_done)
    with pytest.raises(ConfigError, match=r"hexarena\.db: cannot migrate from schema 0 to \d+: step failed"):
        Workspace(old_home)
    assert user_version(old_home) == 0
    assert tables(old_home) == STORE_TABLES | REGISTRY_TABLES  # no "half", results still there
    monkeypatch.undo()
    with Workspace(old_home) as ws:
        assert ws.migrated_from == 0


def test_a_version_0_database_that_lacks_tables_gets_them(tmp_path: Path) -> None:
    """The old code created each module's tables when first used: a workspace may hold the registry only."""
    home = tmp_path / "home"
    home.mkdir()
    with sqlite3.connect(home / "hexarena.db") as db:
        db.execute("CREATE TABLE registry_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO registry_meta VALUES ('reference_bots', 'then')")
    with Workspace(home) as ws:
        assert ws.migrated_from == 0
        assert store.played_ids(ws, "any") == set()
        assert list_bots(ws) == []
    assert tables(home) == STORE_TABLES | REGISTRY_TABLES | AUTHOR_TABLES | TALLY_TABLES | ANALYSIS_TABLES


def test_a_version_0_database_with_other_columns_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with sqlite3.connect(home / "hexarena.db") as db:
        db.execute("CREATE TABLE results (game TEXT, seat INTEGER, PRIMARY KEY (game, seat))")
    with pytest.raises(ConfigError, match=r"cannot migrate from schema 0 to \d+: table results has columns "
                                          r"\(game, seat\), not schema 1's \(game, configuration, "):
        Workspace(home)
    assert user_version(home) == 0 and tables(home) == {"results"}


# ---------------------------------------------------------------- a newer database


def test_a_database_of_a_newer_hexarena_is_refused(tmp_path: Path, capsys) -> None:
    home = tmp_path / "home"
    Workspace(home).close()
    newer = schema.VERSION + 1
    with sqlite3.connect(home / "hexarena.db") as db:
        db.execute(f"PRAGMA user_version = {newer}")
    message = (f"{home / 'hexarena.db'} was written by a newer hexarena (schema {newer}; this one reads up to "
               f"{schema.VERSION}): upgrade hexarena")
    with pytest.raises(ConfigError) as error:
        Workspace(home)
    assert str(error.value) == message
    status, out, err = cli(capsys, "league", "table", "tiny", "--home", str(home))
    assert (status, out, err) == (2, "", f"hexarena: error: {message}\n")
    assert user_version(home) == newer


# ---- reading records for the site without parsing their moves (issue 18 item 3) -----------------------

_names = st.text(min_size=0, max_size=12)  # any text: quotes, backslashes, ',"moves":[' and '"line":' included
_moves = st.lists(st.builds(MoveRecord, seat=st.integers(0, 3), line=st.integers(0, 200),
                            closed=st.lists(st.integers(0, 40), max_size=2), ms=st.floats(0, 1e4),
                            substituted=st.booleans()), max_size=30)
_forfeits = st.lists(st.builds(Forfeit, seat=st.integers(0, 1), reason=st.sampled_from(FAULTS), detail=_names,
                               move=st.integers(0, 30)), max_size=2)


@settings(max_examples=200, deadline=None)
@given(seats=st.lists(_names | st.sampled_from(['a,"moves":[1]', '"line":', ',"result":{}']), min_size=2, max_size=2),
       game_id=_names, moves=_moves, forfeits=_forfeits, opening=st.lists(st.integers(0, 60), max_size=3))
def test_a_record_is_read_as_parsed_but_for_its_moves_which_are_counted(seats, game_id, moves, forfeits, opening):
    record = GameRecord(id=game_id, config=BoardConfig(size="3x3"), seats=seats, moves=moves, opening=opening,
                        result=Result(scores=[3, 2], placements=[1, 2], forfeits=forfeits))
    text = record.model_dump_json()
    expected = {**json.loads(text), "moves": len(moves)}
    assert store._read_record(text) == expected


_full_moves = st.lists(st.builds(MoveRecord, seat=st.integers(0, 3), line=st.integers(0, 200),
                                 closed=st.lists(st.integers(0, 40), max_size=2), ms=st.floats(0, 1e4),
                                 cpu_ms=st.none() | st.floats(0, 1e4), substituted=st.booleans(),
                                 info=st.lists(_names, max_size=2)), max_size=30)
_stalled = st.lists(st.builds(Forfeit, seat=st.integers(0, 1), reason=st.sampled_from(FAULTS), detail=_names,
                              move=st.integers(0, 30), host_stall=st.none() | st.builds(
                                  HostStall, cpu_ms=st.floats(0, 1e3), lag_ms=st.floats(0, 1e4),
                                  limit_ms=st.integers(1, 10_000))), max_size=2)


@settings(max_examples=100, deadline=None)
@given(game_id=_names, moves=_full_moves, forfeits=_stalled, opening=st.lists(st.integers(0, 60), max_size=3),
       versions=st.lists(_names, max_size=2), lag_ms=st.none() | st.floats(0, 1e4), replays=st.integers(0, 3),
       started=st.none() | st.datetimes(timezones=st.just(UTC)), seed=st.none() | st.integers(0, 2**63))
def test_a_record_pickles_as_the_json_the_store_writes_and_comes_back_equal(
        game_id, moves, forfeits, opening, versions, lag_ms, replays, started, seed):
    """A league's worker hands each record to the runner pickled: as its stored JSON, every field kept."""
    record = GameRecord(id=game_id, config=BoardConfig(size="3x3", misere=True), seats=["a", "b"], versions=versions,
                        moves=moves, opening=opening, lag_ms=lag_ms, host_stall_replays=replays, started=started,
                        seed=seed, time_control=TimeControl(move=0.2, startup=3.0),
                        result=Result(scores=[3, 2], placements=[1, 2], forfeits=forfeits))
    pickled = pickle.dumps(record)
    assert record.model_dump_json().encode() in pickled
    again = pickle.loads(pickled)
    assert again == record
    assert again.model_dump_json() == record.model_dump_json()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80) | st.sampled_from(['{"id": "x", "seats": [', '{"moves":[1],"result":{}}', "[]", "null"]))
def test_any_stored_text_reads_as_a_value_or_a_value_error(text):
    try:
        store._read_record(text)
    except ValueError:
        pass


# ---- the running totals of schema 5 (issue 18 item 3): the same tally as folding the results -----------------

def _random_records(count: int, seed: int = 7) -> list[GameRecord]:
    """Games of 2, 3 and 4 players on two boards: shared places, faults of every reason, uneven think times."""
    rng = random.Random(seed)
    bots = ["ann", "bob@1", "bob@2", "cy", "dee"]
    records = []
    for n in range(count):
        players = rng.choice([2, 2, 3, 4])
        seats = rng.sample(bots, players)
        scores = [rng.randrange(4) for _ in seats]
        placements = [1 + sum(other > mine for other in scores) for mine in scores]
        moves = [MoveRecord(seat=rng.randrange(players), line=i, ms=rng.lognormvariate(1, 1), substituted=rng.random() < 0.05)
                 for i in range(rng.randrange(8))]
        forfeits = [Forfeit(seat=rng.randrange(players), reason=rng.choice(FAULTS), move=0)
                    for _ in range(rng.random() < 0.2) for _ in range(rng.randrange(1, 3))]
        config = BoardConfig(size=rng.choice(["2x2", "2x3"]), players=players)
        records.append(GameRecord(id=f"g{n:04d}", config=config, seats=seats, moves=moves,
                                  result=Result(scores=scores, placements=placements, forfeits=forfeits)))
    return records


def _schedule(ws: Workspace, ids: list[str]) -> None:
    league = parse_league('name = "t"\nparticipants = ["ann", "bob", "cy", "dee"]\n[[boards]]\nsize = "2x2"\n')
    definitions.save_rows(ws, league, [(game, 0, "2x2 hex", "[]", n) for n, game in enumerate(ids)])


def _folded(ws: Workspace) -> Tally:
    """The league's tally folded anew from its results."""
    with ws.transaction() as db:
        store._forget_tally(db, "t")
    return store.tally(ws, "t")


def _assert_same(kept: Tally, folded: Tally) -> None:
    sums = [c for c in kept.sums.columns if c not in ("points", "think_ms")]
    pd.testing.assert_frame_equal(kept.sums[sums], folded.sums[sums], check_exact=True)
    pd.testing.assert_frame_equal(kept.sums[["points", "think_ms"]], folded.sums[["points", "think_ms"]],
                                  check_exact=False, rtol=1e-12)  # floats added in another order
    pd.testing.assert_frame_equal(kept.games, folded.games, check_exact=True)


def _shown(ws: Workspace, fmt: str = "text") -> str:
    from hexarena.commands.league import league_tables

    return league_tables(ws, "t", "all", None, fmt) + league_tables(ws, "t", "all", "configuration", fmt)


def test_save_game_keeps_the_totals_equal_to_folding_the_results(tmp_path: Path) -> None:
    records = _random_records(300)
    with Workspace(tmp_path / "home") as ws:
        _schedule(ws, [r.id for r in records[:250]] + ["never-played"])
        assert len(store.tally(ws, "t").games) == 0  # folded now (nothing yet): from here save_game adds to it
        for record in records:  # the last 50 are not in the schedule: stored, left out of the tables
            assert store.save_game(ws, "t", record)
        assert not store.save_game(ws, "t", records[0])  # already stored: not counted twice
        kept, shown = store.tally(ws, "t"), _shown(ws)
        _assert_same(kept, _folded(ws))
        assert _shown(ws) == shown  # what `league table` prints, byte for byte
        frame = seat_frame(records[:250])  # and what the records themselves give
        pd.testing.assert_frame_equal(ranked(kept.sums).drop(columns="think_ms"), standings(frame).drop(columns="think_ms"))
        assert set(frame["players"]) == {2, 3, 4} and frame["faults"].sum() > 0


def test_a_changed_schedule_folds_the_totals_anew_and_the_same_one_keeps_them(tmp_path: Path, monkeypatch) -> None:
    records = _random_records(120)
    folds = []
    fold = store._fold
    monkeypatch.setattr(store, "_fold", lambda db, league: (folds.append(league), fold(db, league)))
    with Workspace(tmp_path / "home") as ws:
        for record in records:
            store.save_game(ws, "t", record)
        _schedule(ws, [r.id for r in records])
        everything = store.tally(ws, "t")
        _schedule(ws, [r.id for r in reversed(records)])  # the same games: the totals stay
        assert store.tally(ws, "t").games.equals(everything.games) and folds == ["t"]
        _schedule(ws, [r.id for r in records[:60]])  # fewer games: folded anew, from those
        fewer = store.tally(ws, "t")
        assert folds == ["t", "t"]
        assert fewer.sums["games"].sum() == sum(len(r.seats) for r in records[:60])
        _assert_same(fewer, _folded(ws))


def test_a_schema_4_workspace_folds_its_totals_when_first_read(tmp_path: Path, capsys) -> None:
    records = _random_records(80)
    home = tmp_path / "home"
    with Workspace(home) as ws:
        _schedule(ws, [r.id for r in records])
        for record in records:
            store.save_game(ws, "t", record)
        shown = _shown(ws)
    with sqlite3.connect(home / "hexarena.db") as db:  # back to schema 4: as an older release left it
        for table in TALLY_TABLES:
            db.execute(f"DROP TABLE {table}")
        db.execute("PRAGMA user_version = 4")
    db.close()
    with Workspace(home) as ws:
        assert ws.migrated_from == 4
        assert ws.db.execute("SELECT COUNT(*) FROM tallied").fetchone()[0] == 0
        assert _shown(ws) == shown
        assert [r[0] for r in ws.db.execute("SELECT league FROM tallied")] == ["t"]
        _assert_same(store.tally(ws, "t"), _folded(ws))


def test_a_schema_5_workspace_gains_empty_snapshots_and_analyses_and_keeps_its_table(tmp_path: Path) -> None:
    records = _random_records(40)
    home = tmp_path / "home"
    with Workspace(home) as ws:
        _schedule(ws, [r.id for r in records])
        for record in records:
            store.save_game(ws, "t", record)
        shown = _shown(ws)
    with sqlite3.connect(home / "hexarena.db") as db:  # back to schema 5: as the release before them left it
        db.execute("DROP TABLE rating_snapshots")
        db.execute("DROP TABLE analyses")
        db.execute("PRAGMA user_version = 5")
    db.close()
    with Workspace(home) as ws:
        assert ws.migrated_from == 5
        assert ws.db.execute("SELECT COUNT(*) FROM rating_snapshots").fetchone()[0] == 0
        assert ws.db.execute("SELECT COUNT(*) FROM analyses").fetchone()[0] == 0
        assert _shown(ws) == shown
        assert store.save_snapshot(ws, "t", [("ann", "ann", 1510.0, 1400.0, 1620.0, 12)]) == 1  # its history starts
        assert store.snapshots(ws, "t")[["bot", "games"]].values.tolist() == [["ann", 12]]
    assert user_version(home) == schema.VERSION == 9
    assert tables(home) == STORE_TABLES | REGISTRY_TABLES | AUTHOR_TABLES | TALLY_TABLES | ANALYSIS_TABLES


def test_a_schema_8_workspace_gets_the_cpu_times_its_records_carry(tmp_path: Path) -> None:
    """moves.cpu_ms (9) is copied from the records: a bot's CPU times read the same before and after, a move
    without one (not measured) stays NULL, and a garbled record neither stops the step nor gives any."""
    records = [r.model_copy(update={"moves": [m.model_copy(update={"cpu_ms": None if i % 3 == 0 else 0.5 + i})
                                              for i, m in enumerate(r.moves)]}) for r in _random_records(30)]
    home = tmp_path / "home"
    with Workspace(home) as ws:
        _schedule(ws, [r.id for r in records])
        for record in records:
            store.save_game(ws, "t", record)
        before = {bot: sorted(store.cpu_times(ws, "t", bot, 100)) for bot in ("ann", "bob@1", "cy")}
        measured = ws.db.execute("SELECT COUNT(*) FROM moves WHERE cpu_ms IS NOT NULL").fetchone()[0]
    assert all(before.values()) and measured
    with sqlite3.connect(home / "hexarena.db") as db:  # back to schema 8: as the release before it left it
        db.execute("ALTER TABLE moves DROP COLUMN cpu_ms")
        db.execute("UPDATE games SET record = '{\"moves\": [{\"cpu_ms\": 1' WHERE id = ?", (records[0].id,))
        db.execute("PRAGMA user_version = 8")
    db.close()
    with Workspace(home) as ws:
        assert ws.migrated_from == 8
        after = {bot: sorted(store.cpu_times(ws, "t", bot, 100)) for bot in before}
        lost = {bot: sorted(m.cpu_ms for m in records[0].moves if m.cpu_ms is not None and not m.substituted
                            and records[0].seats[m.seat] == bot) for bot in before}
        assert after == {bot: sorted(set_minus(before[bot], lost[bot])) for bot in before}
        assert ws.db.execute("SELECT COUNT(*) FROM moves WHERE cpu_ms IS NOT NULL").fetchone()[0] == measured - sum(
            m.cpu_ms is not None for m in records[0].moves)
    assert user_version(home) == schema.VERSION


def set_minus(values: list[float], taken: list[float]) -> list[float]:
    """``values`` without one occurrence of each of ``taken``."""
    left = list(values)
    for value in taken:
        left.remove(value)
    return left


def test_the_957ae21_workspace_gets_its_totals_on_its_first_table(old_home: Path, capsys) -> None:
    assert cli(capsys, "league", "table", "tiny", "--home", str(old_home)) == (0, OLD_TABLE, "")
    with Workspace(old_home) as ws:
        assert [r[0] for r in ws.db.execute("SELECT league FROM tallied")] == ["tiny"]
        assert ws.db.execute("SELECT SUM(games) FROM shapes WHERE league = 'tiny'").fetchone()[0] == 4
    assert cli(capsys, "league", "table", "tiny", "--home", str(old_home)) == (0, OLD_TABLE, "")


def test_a_league_commits_without_fsync_and_the_workspace_syncs_again_after(tmp_path):
    ws = Workspace(tmp_path / "home")
    synchronous = lambda: ws.db.execute("PRAGMA synchronous").fetchone()[0]  # noqa: E731
    assert synchronous() == 2  # FULL: SQLite's default, for everything but a league run
    with store.commits_without_fsync(ws):
        assert synchronous() == 1  # NORMAL: the WAL is synced at checkpoints, a SIGKILL still loses no commit
    assert synchronous() == 2
    with pytest.raises(RuntimeError), store.commits_without_fsync(ws):
        raise RuntimeError("a run that stops")
    assert synchronous() == 2
    ws.close()
