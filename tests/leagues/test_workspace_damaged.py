"""A damaged or foreign workspace database (issue 15, item 3): refused when the workspace opens with one line
saying what is wrong and what to do; garbled rows named and skipped; ``hexarena doctor`` reports and salvages."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from helpers import FIXTURE, HEXARENA, OLD_TABLE, cli, league_file, make_workspace, site_records

from hexarena.leagues.workspace import schema
from hexarena.leagues.workspace.home import Workspace

GAME = "3a5926a5b9ebd111"  # a game of league tiny in the fixture


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A current workspace: the 957ae21 fixture, migrated."""
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(FIXTURE / "hexarena.db", home / "hexarena.db")
    Workspace(home).close()
    with sqlite3.connect(home / "hexarena.db") as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return home


def refused(capsys, home: Path, *problem: str) -> str:
    for args in (("league", "table", "tiny"), ("bots",), ("league", "status", "tiny")):
        status, out, err = cli(capsys, *args, "--home", str(home))
        assert (status, out) == (2, ""), err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith(f"hexarena: error: workspace database {home / 'hexarena.db'}: ")
        assert all(text in err for text in problem), err
        assert "restore the workspace's backup" in err and "hexarena doctor" in err
    return err


def test_garbage_pages_are_refused(home: Path, capsys) -> None:
    data = bytearray((home / "hexarena.db").read_bytes())
    page = 4096
    for start in range(3 * page, len(data) - page, 2 * page):  # every other page after the third
        data[start + 8:start + page] = bytes(range(256)) * ((page - 8) // 256) + bytes((page - 8) % 256)
    (home / "hexarena.db").write_bytes(bytes(data))
    refused(capsys, home)
    status, out, _ = cli(capsys, "doctor", "--home", str(home))
    assert status == 1 and out.strip()


def test_a_file_that_is_no_database_is_refused(home: Path, capsys) -> None:
    (home / "hexarena.db").write_bytes(b"this is not SQLite" * 500)
    refused(capsys, home, "unreadable (file is not a database)")
    status, out, _ = cli(capsys, "doctor", "--home", str(home))
    assert status == 1 and "not readable as a SQLite database" in out


def test_another_applications_database_is_refused(tmp_path: Path, capsys) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with sqlite3.connect(home / "hexarena.db") as db:
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT, rating REAL)")
        db.execute("CREATE TABLE users (name TEXT)")
    status, _, err = cli(capsys, "bots", "--home", str(home))
    assert status == 2 and err.count("\n") == 1
    assert "is not a hexarena workspace database (it holds tables hexarena never made: users)" in err
    with sqlite3.connect(home / "hexarena.db") as db:  # left as it was
        assert {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} == {"games", "users"}
    status, _, err = cli(capsys, "bots", "--home", str(tmp_path / "only-games"))  # a games table of its own
    assert status == 0
    (tmp_path / "g").mkdir()
    with sqlite3.connect(tmp_path / "g" / "hexarena.db") as db:
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
    status, _, err = cli(capsys, "bots", "--home", str(tmp_path / "g"))
    assert status == 2 and "table games has columns (id, title), not schema 1's" in err and err.count("\n") == 1


def test_a_missing_column_is_refused(home: Path, capsys) -> None:
    with sqlite3.connect(home / "hexarena.db") as db:
        db.execute("ALTER TABLE results DROP COLUMN fault_timeout")
    refused(capsys, home, "table results lacks column fault_timeout")


def test_a_missing_table_is_refused(home: Path, capsys) -> None:
    with sqlite3.connect(home / "hexarena.db") as db:
        db.execute("DROP TABLE moves")
    refused(capsys, home, "table moves is missing")


def test_an_extra_not_null_column_is_refused(tmp_path: Path, capsys) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with sqlite3.connect(home / "hexarena.db") as db:
        for statement in schema.TABLES:
            if "TABLE IF NOT EXISTS games" in statement:
                statement = statement.replace("record         TEXT NOT NULL", "record TEXT NOT NULL, owner TEXT NOT NULL")
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {schema.VERSION}")
    refused(capsys, home, "table games has a NOT NULL column hexarena does not write: owner")


def test_a_garbled_league_definition_is_named(home: Path, capsys) -> None:
    with sqlite3.connect(home / "hexarena.db") as db:
        db.execute("UPDATE leagues SET config = '{\"name\": \"tiny\", \"boards\": ' WHERE name = 'tiny'")
    for args in (("league", "table", "tiny"), ("league", "status", "tiny"), ("publish", "tiny", "--out", "x")):
        status, out, err = cli(capsys, *args, "--home", str(home))
        assert (status, out) == (2, "") and err.count("\n") == 1, err
        assert err.startswith("hexarena: error: league 'tiny': its stored definition is garbled (")
    status, out, _ = cli(capsys, "doctor", "--home", str(home))
    assert status == 1 and "league tiny: its stored definition is garbled" in out


def test_a_garbled_record_is_named_and_every_other_game_still_shows(home: Path, tmp_path: Path, capsys) -> None:
    with sqlite3.connect(home / "hexarena.db") as db:
        db.execute("UPDATE games SET record = '{\"id\": \"x\", \"seats\": [' WHERE id = ?", (GAME,))
    assert cli(capsys, "league", "table", "tiny", "--home", str(home)) == (0, OLD_TABLE, "")
    status, out, err = cli(capsys, "publish", "tiny", "--out", str(tmp_path / "site"), "--home", str(home))
    assert status == 0, err
    assert err.startswith(f"hexarena: warning: game {GAME} of league tiny: its stored record is garbled (")
    assert err.count("\n") == 1
    assert len(site_records(tmp_path / "site")) == 3
    status, out, err = cli(capsys, "replay", GAME, "--home", str(home))
    assert (status, out) == (2, "") and err.startswith(f"hexarena: error: game {GAME}: its stored record is garbled")

    status, out, _ = cli(capsys, "doctor", "--home", str(home))
    assert status == 1
    assert f"game {GAME} of league tiny: its stored record is garbled" in out
    assert "1 league and 3 games intact, 1 row garbled or unreadable" in out  # "1 league", not "1 leagues"
    new = tmp_path / "new"
    status, out, err = cli(capsys, "doctor", "--home", str(home), "--salvage", str(new))
    assert status == 0, err
    assert f"salvaged 3 games of 1 league into {new}" in out
    with sqlite3.connect(new / "hexarena.db") as db:  # (its reference bots are today's versions: new games to play)
        assert db.execute("SELECT COUNT(*) FROM games WHERE league = 'tiny'").fetchone()[0] == 3
        assert db.execute("SELECT COUNT(*) FROM league_games WHERE league = 'tiny'").fetchone()[0] == 4
    status, out, _ = cli(capsys, "doctor", "--home", str(new))
    assert status == 0 and "nothing wrong found" in out
    status, _, err = cli(capsys, "doctor", "--home", str(home), "--salvage", str(new))
    assert status == 2 and "holds games already" in err


def test_a_sound_workspace_is_reported_sound(home: Path, capsys) -> None:
    status, out, _ = cli(capsys, "doctor", "--home", str(home))
    from hexarena.referee import sandbox, watchdog

    expected = f"{home / 'hexarena.db'}: 1 league and 4 games intact, 0 rows garbled or unreadable; nothing wrong found\n"
    # which sandbox first, how a bot's whole memory is bounded, then the database
    assert (status, out) == (0, f"sandbox: {sandbox.describe()}\n{watchdog.describe()}\n" + expected)


def test_the_page_check_runs_again_only_after_the_file_changed(home: Path, monkeypatch) -> None:
    checked = []
    problems = schema.problems
    monkeypatch.setattr(schema, "problems", lambda db, pages=True: checked.append(pages) or problems(db, pages))
    for _ in range(3):
        Workspace(home).close()
    assert checked[1:] == [False, False]  # unchanged since the last clean check: only the tables and columns
    with Workspace(home) as ws, ws.transaction() as db:  # our own write, closed by us: the stamp follows it
        db.execute("INSERT INTO registry_meta (key, value) VALUES ('x', 'y')")
    Workspace(home).close()
    assert checked[-1] is False
    outside = sqlite3.connect(home / "hexarena.db")  # a change by anything else: checked at the next open
    with outside:
        outside.execute("INSERT INTO registry_meta (key, value) VALUES ('z', 'y')")
    outside.close()
    Workspace(home).close()
    assert checked[-1] is True
    ws = Workspace(home)  # a change by anything else while a workspace is open: that workspace stamps nothing
    outside = sqlite3.connect(home / "hexarena.db")
    with outside:
        outside.execute("INSERT INTO registry_meta (key, value) VALUES ('v', 'y')")
    outside.close()
    with ws.transaction() as db:
        db.execute("INSERT INTO registry_meta (key, value) VALUES ('u', 'y')")
    ws.close()
    Workspace(home).close()
    assert checked[-1] is True
    ws = Workspace(home)  # a process killed before its close leaves the stamp behind its writes
    with ws.transaction() as db:
        db.execute("INSERT INTO registry_meta (key, value) VALUES ('w', 'y')")
    ws.db.close()
    Workspace(home).close()
    assert checked[-1] is True



def test_one_file_opened_under_two_spellings_is_followed_as_one(home: Path, tmp_path: Path, monkeypatch) -> None:
    """The home by its path and by a symlink to it: each workspace's writes are this process's own to the other
    too, so the closes stamp the file and the next open does not check its pages again."""
    (tmp_path / "link").symlink_to(home)
    checked = []
    problems = schema.problems
    monkeypatch.setattr(schema, "problems", lambda db, pages=True: checked.append(pages) or problems(db, pages))
    with Workspace(home) as first, Workspace(tmp_path / "link") as second:
        for ws, key in ((first, "a"), (second, "b"), (first, "c")):
            with ws.transaction() as db:
                db.execute("INSERT INTO registry_meta (key, value) VALUES (?, 'y')", (key,))
    Workspace(home).close()
    assert checked == [False, False, False]


def test_a_database_file_gone_in_a_transaction_leaves_the_blocks_own_error(tmp_path: Path) -> None:
    """The stamp taken as the transaction ends cannot be read (the file was deleted meanwhile): the error the block
    raised is what the caller sees, and a block that succeeded still commits quietly."""
    ws = Workspace(tmp_path / "home")
    with pytest.raises(ValueError, match="the block's own"), ws.transaction() as db:
        db.execute("INSERT INTO registry_meta (key, value) VALUES ('x', 'y')")
        (tmp_path / "home" / "hexarena.db").unlink()
        raise ValueError("the block's own")
    with ws.transaction() as db:
        db.execute("INSERT INTO registry_meta (key, value) VALUES ('z', 'y')")
    # the open file, though deleted: the failed block rolled back, the next one committed
    assert [row[0] for row in ws.db.execute("SELECT key FROM registry_meta WHERE key IN ('x', 'z')")] == ["z"]
    ws.close()

def test_an_interrupt_right_after_begin_leaves_no_transaction_open(tmp_path: Path, monkeypatch) -> None:
    """A Ctrl-C lands between any two lines (a signal handler raises it): one between BEGIN and the block (here
    raised by the check that follows BEGIN) rolls back, so the league's clean-up and the next write still work
    (the clean-up's PRAGMA failed inside the open transaction: a traceback, exit 1 instead of 130)."""
    def interrupted(self: Workspace) -> bool:
        raise KeyboardInterrupt

    with Workspace(tmp_path / "home") as ws:
        monkeypatch.setattr(Workspace, "_unchanged", interrupted)
        with pytest.raises(KeyboardInterrupt), ws.transaction():
            pass
        monkeypatch.undo()
        assert not ws.db.in_transaction
        ws.db.execute("PRAGMA synchronous=FULL")  # refused inside a transaction
        with ws.transaction() as db:
            db.execute("INSERT INTO registry_meta (key, value) VALUES ('after', 'y')")
    with Workspace(tmp_path / "home") as ws:
        assert ws.db.execute("SELECT value FROM registry_meta WHERE key = 'after'").fetchone()[0] == "y"


@pytest.mark.slow
def test_the_command_after_a_league_run_does_not_check_the_pages_again(tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "home"
    make_workspace(home).close()
    league = league_file(tmp_path / "tiny.toml", "tiny", ["greedy", "random"])
    done = subprocess.run([*HEXARENA, "league", "run", str(league), "--home", str(home)], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    checked = []
    problems = schema.problems
    monkeypatch.setattr(schema, "problems", lambda db, pages=True: checked.append(pages) or problems(db, pages))
    with Workspace(home) as ws:
        assert ws.db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2  # it did write: games_per_pairing = 2
    assert checked == [False]


def test_a_workspace_whose_folder_went_while_it_was_open_closes_quietly(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "gone")
    shutil.rmtree(tmp_path / "gone")
    ws.close()  # no stamp to write, and no traceback
    assert not (tmp_path / "gone").exists()
