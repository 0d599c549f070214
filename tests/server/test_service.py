"""hexarena serve as a real process (uvicorn on a free loopback port): uploads, tokens, the continuous league,
the read API, a fuzz run from its own OpenAPI schema, SIGKILL and restart, submit --server, no extra."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import (
    HEXARENA,
    Server,
    fill,
    free_port,
    holding_the_write_lock,
    league_text,
    lying_zip,
    make_workspace,
    mounted_tmpfs,
    processes_with,
    wait_for,
    wait_until,
)
from helpers import start_server as start
from helpers import stop_server as stop

from hexarena.leagues.registry import authors, uploads
from hexarena.leagues.registry.snapshot import source_hash
from hexarena.leagues.workspace.home import Workspace
from hexarena.referee import watchdog

ROOT = Path(__file__).resolve().parents[2]
TINY = """name = "tiny"
participants = ["random", "greedy", "alpha"]
games_per_pairing = 2
time_control = "200ms,margin=200ms,startup=10s"
[[boards]]
size = "2x2"
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Server]:
    """A server over a workspace with authors alice, bob, carol (revoked below) and org (admin), playing the league
    tiny (random, greedy and alpha, which alice uploads) continuously. Its upload rate is out of the tests' way: at
    20 a minute, a quick run of this module once took alice past it (the rate has its own server below)."""
    base = tmp_path_factory.mktemp("service")
    home = base / "home"
    with Workspace(home) as ws:
        tokens = {name: authors.add(ws, name, admin=name == "org") for name in ("alice", "bob", "carol", "org")}
    (base / "tiny.toml").write_text(TINY)
    server = start(home, "--league", str(base / "tiny.toml"), "--upload-rate", "1000", "--max-upload", "1")
    server.tokens = tokens
    try:
        yield server
    finally:
        stop(server)


def bot_folder(base: Path, name: str, comment: str = "") -> Path:
    folder = base / f"{name}-{hashlib.sha256(comment.encode()).hexdigest()[:6]}"
    if folder.exists():
        return folder
    shutil.copytree(ROOT / "bots" / "random", folder)
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random"', f'name = "{name}"'))
    if comment:
        with open(folder / "bot.py", "a") as handle:
            handle.write(f"# {comment}\n")
    return folder


def as_zip(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                info = zipfile.ZipInfo(path.relative_to(folder).as_posix())
                info.external_attr = (path.stat().st_mode & 0xFFFF) << 16
                archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def tar_with(extra: tarfile.TarInfo | None = None, files: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in {"bot.toml": (ROOT / "bots/random/bot.toml").read_bytes(), **(files or {})}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        if extra is not None:
            archive.addfile(extra)
    return buffer.getvalue()


def written_state(home: Path) -> dict[str, str]:
    """Every row of the registry's tables, and every file of the registry with the hash of its bytes (and every
    folder). Not the database file's bytes: the served league stores games (and checkpoints) meanwhile."""
    with sqlite3.connect(home / "hexarena.db", timeout=30) as db:
        found = {table: repr(db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall())
                 for table in ("bots", "bot_versions", "registry_meta")}
    for path in sorted((home / "registry").rglob("*")):
        if path.is_file():
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            found[str(path)] = "folder"
    return found




def queue(server: Server) -> dict:
    """The queue's entry for tiny, as a failed wait shows it (state, last error, games, last run)."""
    return server.get("/api/queue")[1][0]


def league_settled(server: Server, games: int):
    """The queue's entry for tiny once it is idle with ``games`` scheduled and every one played."""
    entry = queue(server)
    return entry if entry["state"] == "idle" and entry["games_total"] == entry["games_played"] == games else None


# ---------------------------------------------------------------- uploads and the continuous league


@pytest.mark.slow
def test_the_upload_lifecycle_and_the_league_that_plays_each_new_version(served, tmp_path):
    # alpha is not registered yet: the league cannot run, says why, and the server keeps answering
    first = served.get("/api/queue")[1][0]
    assert first["state"] == "error" and "unknown bot 'alpha'" in first["last_error"]
    assert served.upload(uploads.pack(bot_folder(tmp_path, "alpha")), author=None)[0] == 401

    status, new = served.upload(uploads.pack(bot_folder(tmp_path, "alpha")))
    assert (status, new["status"], new["author"]) == (201, "registered", "alice")
    assert new["bot"] == f"alpha@{new['hash'][:10]}" and new["message"] == f"registered {new['bot']}: a new bot"
    assert all(check["passed"] for check in new["checks"]) and len(new["checks"]) > 5

    # without a command, the league plans again and plays alpha's games: 3 pairs x 2 games
    league_before = wait_for(lambda: league_settled(served, 6), 90,
                             lambda: f"tiny plays alpha's 6 games ({queue(served)})")
    assert league_before["last_error"] is None
    rows = {row["bot"]: row for row in served.get("/api/leagues/tiny/standings")[1]["standings"]}
    assert set(rows) == {"random", "greedy", "alpha"} and rows["alpha"]["games"] == 4
    alpha_games = served.get("/api/leagues/tiny/games?bot=alpha")[1]
    assert alpha_games["total"] == 4 and all("alpha" in game["seats"] for game in alpha_games["games"])

    # the same content again, as a zip: unchanged, the same hash
    status, same = served.upload(as_zip(bot_folder(tmp_path, "alpha")))
    assert (status, same["status"], same["hash"]) == (200, "unchanged", new["hash"])

    # a new version: a new hash, and the league replays alpha's games with it (new game ids)
    status, second = served.upload(uploads.pack(bot_folder(tmp_path, "alpha", "version 2")))
    assert (status, second["status"]) == (201, "new_version") and second["hash"] != new["hash"]
    assert second["message"] == f"registered {second['bot']}: submission 2 of alpha"
    old_ids = {game["id"] for game in alpha_games["games"]}

    def replayed() -> set[str] | None:
        """alpha's games once the league settled on new ones. Not by ``last_run``: it counts whole seconds, and a fast
        machine replays the four games within the second the first run ended in (seen on CI)."""
        if not league_settled(served, 6):
            return None
        ids = {game["id"] for game in served.get("/api/leagues/tiny/games?bot=alpha")[1]["games"]}
        return ids if len(ids) == 4 and not ids & old_ids else None

    wait_for(replayed, 90, lambda: f"tiny replays alpha's games ({queue(served)}; before: {league_before})")
    versions = served.get("/api/bots/alpha")[1]
    assert [v["hash"] for v in versions["history"]] == [new["hash"], second["hash"]]
    assert versions["author"] == "alice"

    # another author's name, a reference bot's name, a revoked token
    assert served.upload(uploads.pack(bot_folder(tmp_path, "alpha", "bob's")), author="bob")[0] == 403
    status, taken = served.upload(uploads.pack(bot_folder(tmp_path, "greedy")), author="bob")
    assert (status, taken["detail"]) == (403, "bot name 'greedy' is taken by author 'hexarena' (you submit as 'bob': "
                                              "your token's account); choose another name")  # no --author: it does nothing here
    with Workspace(served.home) as ws:
        authors.revoke(ws, "carol")
    status, revoked = served.upload(uploads.pack(bot_folder(tmp_path, "gamma")), author="carol")
    assert status == 401 and "revoked" in revoked["detail"]


def link(name: str, kind: bytes, target: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


HOSTILE = {
    "dot-dot": (tar_with(files={"../escaped": b"x"}), 422, "'..'"),
    "absolute": (tar_with(files={"/tmp/escaped": b"x"}), 422, "absolute path"),
    "symlink": (tar_with(link("passwd", tarfile.SYMTYPE, "/etc/passwd")), 422, "a link"),
    "hardlink": (tar_with(link("passwd", tarfile.LNKTYPE, "bot.toml")), 422, "a link"),
    "fifo": (tar_with(link("pipe", tarfile.FIFOTYPE)), 422, "special file"),
    "too many files": (tar_with(files={f"f{i}": b"" for i in range(2100)}), 413, "entries"),
    "unpacks too large": (tar_with(files={"zeros": b"\0" * (60 * 2**20)}), 413, "unpacks to more"),
    "sent too large": (os.urandom(1_200_000), 413, "over the limit of 1 MB"),
    "not an archive": (b"hello", 422, "not a .tar.gz or .zip"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_archive_is_refused_and_nothing_is_written(served, case):
    archive, status, words = HOSTILE[case]
    before = written_state(served.home)
    answer = served.upload(archive)
    assert (answer[0], words in answer[1]["detail"]) == (status, True), answer
    assert "\n" not in answer[1]["detail"]
    assert written_state(served.home) == before
    assert not list(Path("/tmp").glob("hexarena-upload-*/bot/../escaped"))


def test_a_broken_manifest_and_a_failed_check_are_422_with_the_cli_line(served, tmp_path):
    folder = bot_folder(tmp_path, "broken")
    (folder / "bot.toml").write_text('name = "broken"\ncommand = []\n')
    status, refused = served.upload(uploads.pack(folder))
    assert status == 422 and refused["detail"].startswith("bot.toml: ") and str(tmp_path) not in refused["detail"]

    silent = bot_folder(tmp_path, "silent")
    (silent / "bot.toml").write_text('name = "silent"\ncommand = ["python3", "-c", "pass"]\n')
    before = written_state(served.home)
    status, refused = served.upload(uploads.pack(silent))
    assert status == 422 and refused["detail"].startswith("silent was not registered: conformance check failed")
    assert refused["checks"] and not all(check["passed"] for check in refused["checks"])
    assert written_state(served.home) == before
    assert served.get("/api/bots/silent")[0] == 404


@pytest.mark.slow
def test_reads_are_answered_while_an_upload_builds(served, tmp_path):
    folder = bot_folder(tmp_path, "slowbuild")
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text() + 'build = ["sleep", "4"]\n')
    answers: list = []
    uploading = threading.Thread(target=lambda: answers.append(served.upload(uploads.pack(folder))))
    uploading.start()
    time.sleep(1)
    began = time.monotonic()
    assert served.get("/api/bots")[0] == 200 and served.get("/api/queue")[0] == 200
    waited = time.monotonic() - began
    assert uploading.is_alive()  # still building
    uploading.join(120)
    assert answers[0][0] == 201 and waited < 2.5


@pytest.mark.parametrize(("content_type", "body", "status", "detail"), [
    ("application/json", b"{}", 415, "send the archive as multipart/form-data in the field 'file'"),
    ("multipart/form-data", b"x", 422, "the form cannot be read (Missing boundary in multipart.); send one field 'file'"),
    ("multipart/form-data; boundary=zz", b"no boundary in here", 422,
     "the form cannot be read (Invalid multipart data.); send one field 'file'"),
    ("multipart/form-data; boundary=zz", b'--zz\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n--zz--\r\n',
     422, "no file in the form: send the archive in the multipart field 'file'"),
    ("multipart/form-data; boundary=zz", b"".join(
        b'--zz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nx\r\n' for _ in range(2)) + b"--zz--\r\n",
     422, "the form cannot be read (Too many files. Maximum number of files is 1.); send one field 'file'"),
])
def test_a_body_that_is_not_one_multipart_file_is_refused_in_one_line(served, content_type, body, status, detail):
    before = written_state(served.home)
    answer = served.call("POST", "/api/bots", token=served.tokens["org"], body=body,
                         headers={"Content-Type": content_type})
    assert answer == (status, {"detail": detail}) and written_state(served.home) == before


def test_over_the_upload_rate_is_429(tmp_path):
    home = tmp_path / "home"
    with Workspace(home) as ws:
        dave, erin = authors.add(ws, "dave"), authors.add(ws, "erin")
    server = start(home, "--upload-rate", "3")
    try:
        post = lambda token: server.call("POST", "/api/bots", token=token, body=b"",  # noqa: E731
                                         headers={"Content-Type": "multipart/form-data; boundary=x"})
        answers = [post(dave) for _ in range(4)]
        assert [status for status, _ in answers] == [422] * 3 + [429]
        assert answers[3][1]["detail"].startswith("over the upload rate of 3 per minute for author 'dave'; try again in ")
        assert post(erin)[0] == 422  # the rate is each author's own
    finally:
        stop(server)


def test_the_organiser_starts_a_league_run_and_authors_may_not(served):
    assert served.call("POST", "/api/leagues/tiny/run")[0] == 401
    assert served.call("POST", "/api/leagues/tiny/run", token=served.tokens["alice"])[0] == 403
    assert served.call("POST", "/api/leagues/nope/run", token=served.tokens["org"])[0] == 404
    status, answer = served.call("POST", "/api/leagues/tiny/run", token=served.tokens["org"])
    assert status == 202 and answer["league"] == "tiny"


def test_unknown_names_are_404s_and_bad_parameters_422s(served):
    for path in ("/api/leagues/nope/standings", "/api/leagues/nope/games", "/api/games/ffffffffffff",
                 "/api/bots/nope"):
        status, answer = served.get(path)
        assert status == 404 and "\n" not in answer["detail"], path
        assert str(served.home) not in answer["detail"], path  # no folder of the server's machine
    long = "n" * 5000
    for path in (f"/api/leagues/{long}/standings", f"/api/games/{long}", f"/api/bots/{long}",
                 f"/api/live/games/{long}", f"/leagues/{long}/index.html", f"/leagues/tiny/{long}"):
        status, answer = served.get(path)
        assert status == 404 and "(5,000 characters)" in answer["detail"], path  # the name is cut, not echoed
        assert len(answer["detail"]) < 400, path
    for path in ("/api/leagues/tiny/games?limit=0", "/api/leagues/tiny/games?limit=201",
                 "/api/leagues/tiny/games?offset=-1", "/api/leagues/tiny/games?limit=x"):
        assert served.get(path)[0] == 422, path
    assert {league["name"]: league["served"] for league in served.get("/api/leagues")[1]} == {"tiny": True}
    status, answer = served.get("/api/leagues/tiny/games?limit=1")
    assert status == 200, answer
    game = answer["games"]
    if game:
        record = served.get(f"/api/games/{game[0]['id']}")[1]
        assert record["id"] == game[0]["id"] and record["seats"] == game[0]["seats"]


@pytest.mark.slow
def test_a_fuzz_run_from_the_openapi_schema_finds_no_500_and_no_traceback(served):
    import schemathesis
    from hypothesis import HealthCheck, given, settings

    schema = schemathesis.openapi.from_url(served.url + "/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 9
    seen = []
    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=20, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def fuzz(case):
            # every other case with the organiser's token: the writes' handlers are fuzzed too, not only the 401
            token = {"Authorization": f"Bearer {served.tokens['org']}"} if len(seen) % 2 else {}
            response = case.call(base_url=served.url, timeout=60, headers=token)
            seen.append(response.status_code)
            assert response.status_code < 500, (case.method, case.formatted_path, response.text[:300])
            assert "Traceback" not in response.text

        fuzz()
    assert len(seen) >= 100 and {200, 401, 404, 422} <= set(seen)


# ---------------------------------------------------------------- a crash and a restart


@pytest.mark.slow
def test_a_server_stopped_with_ctrl_c_leaves_its_database_whole_in_one_file(tmp_path):
    """Its league threads hold the workspace's connections: the server ends with Python's own exit, which closes
    them (the command's quick one would leave the write-ahead log beside hexarena.db), and its status is 0."""
    home = tmp_path / "home"
    (tmp_path / "duo.toml").write_text('name = "duo"\nparticipants = ["random", "greedy"]\ngames_per_pairing = 4\n'
                                       '[[boards]]\nsize = "2x2"\n')
    server = start(home, "--league", str(tmp_path / "duo.toml"))
    try:
        wait_for(lambda: server.get("/api/queue")[1][0]["state"] == "idle", 90, "duo plays its 4 games")
        assert server.get("/api/leagues/duo/standings")[0] == 200
        server.process.send_signal(signal.SIGINT)
        assert server.process.wait(timeout=20) == 0
    finally:
        stop(server)
    assert sorted(path.name for path in home.iterdir() if path.name.startswith("hexarena.db")) == ["hexarena.db"]
    with sqlite3.connect(home / "hexarena.db") as db:
        assert db.execute("SELECT COUNT(*) FROM games WHERE league = 'duo'").fetchone()[0] == 4


@pytest.mark.slow
def test_sigkill_and_sigterm_during_a_league_and_restarts_lose_and_double_nothing(tmp_path):
    home = tmp_path / "home"
    (tmp_path / "long.toml").write_text("""name = "long"
participants = ["random", "greedy", "chains"]
games_per_pairing = 30
time_control = "200ms,margin=200ms,startup=10s"
[[boards]]
size = "2x2"
[[boards]]
size = "2x3"
""")
    total = 3 * 30 * 2
    server = start(home, "--league", str(tmp_path / "long.toml"))

    def stored() -> int:
        with sqlite3.connect(home / "hexarena.db", timeout=30) as db:
            return db.execute("SELECT COUNT(*) FROM games WHERE league = 'long'").fetchone()[0]

    try:
        wait_for(lambda: stored() >= 5, 90, "some games stored")
    finally:
        stop(server)  # SIGKILL, the whole process group
    before = stored()
    assert 5 <= before < total
    # restarted, it carries on; SIGTERM mid-league stops it at once, its bots with it
    server = start(home, "--league", str(tmp_path / "long.toml"))
    try:
        wait_for(lambda: stored() >= before + 3, 90, "the restarted league plays on")
        wait_for(lambda: processes_running_from(home), 30, "bots running")
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=20) == -signal.SIGTERM  # uvicorn re-raises the signal once it has stopped
        # its bots die with it; one whose sandbox bubblewrap was still setting up as it died can outlive it (1 run in
        # 6 here), bounded by its cgroup until the next referee sweeps the cgroups of dead ones (cgroups.sweep)
        wait_until(lambda: not processes_running_from(home), 10)
        outlived = set(processes_running_from(home))
    finally:
        stop(server)
    assert stored() < total
    server = start(home, "--league", str(tmp_path / "long.toml"))
    try:
        wait_for(lambda: not outlived & set(processes_running_from(home)), 30, f"the restart kills {outlived}")
        wait_for(lambda: server.get("/api/queue")[1][0]["state"] == "idle", 240, "the restarted league finishes")
        with sqlite3.connect(home / "hexarena.db") as db:
            ids = [row[0] for row in db.execute("SELECT id FROM games WHERE league = 'long'")]
            scheduled = {row[0] for row in db.execute("SELECT game FROM league_games WHERE league = 'long'")}
        assert len(ids) == len(set(ids)) == total and set(ids) == scheduled
        assert server.get("/api/queue")[1][0]["games_left"] == 0
    finally:
        stop(server)


def processes_running_from(home: Path) -> list[int]:
    """Pids of the live bots of the server over ``home``: ``start`` marks its environment with ``LEAGUE_TEST=home``,
    which the sandbox forwards (conftest's HEXARENA_PASS_ENV). Not the command line: on the kernel-namespaces path
    (no bubblewrap) a bot's command line is its own (``python3 bot.py``), naming no registry folder."""
    return processes_with("LEAGUE_TEST", str(home), "bot.py")  # the reference bots, not the server


# ---------------------------------------------------------------- the command line


@pytest.mark.slow
def test_submit_server_end_to_end(served, tmp_path):
    folder = bot_folder(tmp_path, "delta")
    bot = folder / "bot.py"  # slow to start: its check outlasts the progress watcher's first poll (after 1 s)
    bot.write_text("import time\ntime.sleep(1.5)\n" + bot.read_text())
    command = [*HEXARENA, "submit", str(folder), "--server", served.url]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=180,
                          env={**os.environ, "HEXARENA_TOKEN": served.tokens["bob"]})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("registered delta@") and lines[0].endswith(": a new bot")
    assert lines[1] == "checked at the check's own time control 1s"  # delta enters no served league
    assert lines[2].split() == ["CHECK", "RESULT", "DETAIL"]
    assert "hexarena: server: checking delta (hexarena check: a dozen crafted games) (" in done.stderr  # as it went
    assert served.get("/api/bots/delta")[1]["author"] == "bob"

    refused = subprocess.run([*command, "--token", "not-a-token"], capture_output=True, text=True, check=False,
                             timeout=60)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.splitlines()[-1] == (f"hexarena: error: {served.url} refused the bot (401): the token is "
                                               "not valid (unknown, or revoked): ask the organiser for a new one")


def test_submit_server_of_a_name_another_author_owns_names_the_token_not_author(served, tmp_path):
    """The 403 as ``submit --server`` prints it: the account of the token, never ``--author``, which is refused
    with --server (the hint used to send the author to an option that does nothing there)."""
    done = subprocess.run([*HEXARENA, "submit", str(bot_folder(tmp_path, "greedy")), "--server", served.url],
                          capture_output=True, text=True, check=False, timeout=120,
                          env={**os.environ, "HEXARENA_TOKEN": served.tokens["bob"]})
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines()[-1] == (f"hexarena: error: {served.url} refused the bot (403): bot name 'greedy' "
                                            "is taken by author 'hexarena' (you submit as 'bob': your token's "
                                            "account); choose another name")
    assert "--author" not in done.stderr


HOSTILE_CHECKS = {  # bots that fail the check by showing the server's folders: where they run, their files
    "says where it runs": "import os, sys\nsys.exit('running in ' + os.getcwd() + ' as ' + os.path.abspath(__file__))\n",
    "says it in HELLO": "import os\nprint('HELLO ' + os.getcwd() + ' ' + os.environ.get('TMPDIR', ''), flush=True)\n"
                        "import time\ntime.sleep(1)\n",  # the check waits for its exit (it waited 5 s)
    "raises": "import os\nraise RuntimeError(os.path.realpath('bot.py') + ' ' + repr(os.listdir('..'))[:300])\n",
}


@pytest.mark.slow
def test_a_failed_uploads_checks_name_no_folder_of_the_server(tmp_path):
    """Each check's detail, the refusal and the build log hold the bot's own words, with the server's folders
    (the workspace, here with a space in its path, the registry's snapshot or staging copy, the upload's temp
    folder) left out."""
    home = tmp_path / "srv home" / "arena"
    home.mkdir(parents=True)
    with Workspace(home) as ws:
        token = authors.add(ws, "alice")
    server = start(home)
    try:
        for name, (case, program) in zip(("hostile-a", "hostile-b", "hostile-c"), sorted(HOSTILE_CHECKS.items())):
            folder = bot_folder(tmp_path, name, case)
            (folder / "bot.py").write_text(program)
            (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "bot.py"]\n'
                                             'build = ["sh", "-c", "pwd; ls -la ..; echo $TMPDIR"]\n')
            status, answer = server.upload(as_zip(folder), author=token)
            assert status == 422 and not all(c["passed"] for c in answer["checks"]), (case, answer)
            assert any(len(c["detail"]) > 20 for c in answer["checks"] if not c["passed"]), case  # the bot's words
            text = json.dumps(answer)
            for secret in ("srv home", "arena", "registry", ".staging", tempfile.gettempdir() + "/", "hexarena-upload"):
                assert secret not in text, (case, secret, text[:3000])
            assert not re.search("[0-9a-f]{64}", text), (case, text[:3000])  # a snapshot's folder, by its name
    finally:
        stop(server)


def test_submit_server_bad_urls_are_one_line(tmp_path, served):
    folder = bot_folder(tmp_path, "echo")
    env = {**os.environ, "HEXARENA_TOKEN": "x"}
    for server, said in (("http://[", "not a URL"), (served.url + "/api/bots/nope/", "refused the bot (404)"),
                         ("http://127.0.0.1:1", "no answer")):
        done = subprocess.run([*HEXARENA, "submit", str(folder), "--server", server],
                              capture_output=True, text=True, check=False, timeout=60, env=env)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert said in done.stderr.splitlines()[-1], done.stderr


@pytest.mark.slow
def test_submit_server_malformed_answers_and_local_options_are_one_line(tmp_path):
    """An answer that is not a hexarena server's (a proxy, a wrong URL) is one line, never a traceback; and
    the options only a local submit has are refused with --server rather than ignored."""
    import http.server
    import threading

    answers = [(404, b"[1]"), (201, b'{"message": "ok", "checks": [{"name": "a"}]}'),
               (422, b'{"detail": "no", "build_log": 5, "checks": [{"name": "a"}]}'), (200, b'"text"')]

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the standard library's name
            self.rfile.read(int(self.headers["Content-Length"]))
            status, body = answers.pop(0)
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    folder = bot_folder(tmp_path, "foxtrot")
    command = [*HEXARENA, "submit", str(folder), "--server", url, "--token", "x"]
    try:
        for said in ("refused the bot (404): HTTP 404", "the answer is not a hexarena server's",
                     "the answer is not a hexarena server's", "the answer is not a hexarena server's"):
            done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
            assert done.returncode in (1, 2) and "Traceback" not in done.stderr, done.stderr
            assert said in done.stderr.splitlines()[-1], done.stderr
    finally:
        server.shutdown()
        server.server_close()
    done = subprocess.run([*command, "--author", "mallory", "--no-sandbox"], capture_output=True, text=True,
                          check=False, timeout=60)
    assert (done.returncode, done.stderr) == (2, "hexarena: error: --author, --no-sandbox: not with --server (the "
                                                 "server builds with its own limits and takes the author from your "
                                                 "token)\n")


@pytest.mark.slow
def test_serve_on_a_port_in_use_is_one_line_before_anything_starts(served, tmp_path):
    port = served.url.rsplit(":", 1)[1]
    done = subprocess.run([*HEXARENA, "serve", "--home", str(tmp_path / "home"), "--port", port],
                          capture_output=True, text=True, check=False, timeout=60)
    assert (done.returncode, done.stderr) == (2, f"hexarena: error: cannot listen on 127.0.0.1:{port}: Address "
                                                 "already in use\n")
    assert not (tmp_path / "home").exists()  # refused before the workspace is made


def test_serve_without_the_extra_is_one_line():
    blocked = ("import sys; sys.modules['fastapi'] = sys.modules['uvicorn'] = None; "
               "from hexarena.cli import main; main(['serve'])")
    done = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, check=False, timeout=60)
    assert (done.returncode, done.stderr) == (2, ("hexarena: error: hexarena serve needs the server's packages "
                                                  "(uvicorn is missing): pip install 'hexarena[serve]'\n"))
    base = subprocess.run([sys.executable, "-c", "import sys, hexarena.cli; print('fastapi' in sys.modules)"],
                          capture_output=True, text=True, check=False, timeout=60)
    assert base.stdout == "False\n"


def test_authors_add_prints_a_token_once_and_stores_only_its_hash(tmp_path, capsys):
    from hexarena.cli import main

    def cli(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as exit_:
            main([*args, "--home", str(tmp_path / "home")])
        out, err = capsys.readouterr()
        return exit_.value.code, out, err

    code, out, _ = cli("authors", "add", "alice")
    token = out.strip()
    assert code == 0 and len(token) >= 40
    with Workspace(tmp_path / "home") as ws:
        stored = [tuple(row) for row in ws.db.execute("SELECT name, token_sha256, admin FROM authors")]
        assert authors.authenticate(ws, token).name == "alice" and authors.authenticate(ws, token + "x") is None
    assert stored == [("alice", hashlib.sha256(token.encode()).hexdigest(), 0)]
    assert token.encode() not in (tmp_path / "home" / "hexarena.db").read_bytes()
    assert cli("authors", "add", "alice")[0::2] == (2, ("hexarena: error: author 'alice' exists already (see "
                                                        "'hexarena authors list'); choose another name\n"))
    assert cli("authors", "add", "hexarena")[0] == 2
    assert cli("authors", "add", "org", "--admin")[0] == 0
    code, out, _ = cli("authors", "list")
    assert [(line.split()[0], line.split()[1], line.split()[-1]) for line in out.splitlines()] == [
        ("NAME", "ROLE", "STATUS"), ("alice", "author", "active"), ("org", "admin", "active")]
    assert cli("authors", "revoke", "alice")[:2] == (0, "revoked alice's token: it is refused from now on\n")
    with Workspace(tmp_path / "home") as ws:
        assert authors.authenticate(ws, token) is None
    assert cli("authors", "revoke", "nobody")[0] == 2


@pytest.mark.slow
def test_serve_refuses_a_bad_league_file_in_one_line(tmp_path):
    (tmp_path / "open.toml").write_text('name = "open"\nparticipants = ["all"]\nsandbox = false\n[[boards]]\n'
                                        'size = "2x2"\n')
    done = subprocess.run([*HEXARENA, "serve", "--home", str(tmp_path / "home"), "--port",
                           str(free_port()), "--league", str(tmp_path / "open.toml")], capture_output=True, text=True,
                          check=False, timeout=60)
    assert done.returncode == 2 and done.stderr == (f"hexarena: error: --league {tmp_path / 'open.toml'}: sandbox = "
                                                    "false: a served league runs uploaded code, which runs only in "
                                                    "the sandbox; remove the line\n")


# ---- hostile authors against the server (issue 31) ------------------------------------------------------------

def peak_rss(process: subprocess.Popen) -> int:
    """The server process's peak resident memory so far (VmHWM), in bytes."""
    status = Path(f"/proc/{process.pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) * 1024


@pytest.mark.slow
def test_a_lying_zip_costs_the_server_no_more_memory_than_the_upload_cap(tmp_path):
    """A 0.5 MB zip whose entry declares 100 bytes and inflates to 512 MB: refused, and the server's peak memory
    grows by less than the unpacked cap (50 MB) plus a small margin (before: by the 512 MB, up to 2 GiB)."""
    archive = lying_zip(512 * 2**20, 100)
    assert len(archive) < 2**20
    server = start(tmp_path / "home")
    try:
        server.get("/api/bots")
        before = peak_rss(server.process)
        status, answer = server.upload(archive, author=None)
        assert status == 401  # no token: the body is never unpacked
        with Workspace(server.home) as ws:
            server.tokens["mallory"] = authors.add(ws, "mallory")
        status, answer = server.upload(archive, author="mallory")
        grown = peak_rss(server.process) - before
    finally:
        stop(server)
    assert (status, answer["detail"]) == (422, "the .zip archive is damaged or uses an unsupported feature (Bad CRC-32 "
                                               "for file 'big')"), answer
    print(f"server peak memory grew by {grown / 2**20:.1f} MB during the lying zip")
    assert grown < (50 + 20) * 2**20, grown / 2**20  # the cap plus 20 MB


def test_a_manifest_of_40_mb_in_a_40_kb_upload_is_refused_at_once_in_one_line(served, tmp_path):
    """issue 31 item 4: before, 30-94 s of server CPU, +80 MB of database per version, 40 MB per GET."""
    folder = bot_folder(tmp_path, "verbose")
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text() + f'description = "{"x" * 40_000_000}"\n')
    archive = uploads.pack(folder)
    assert len(archive) < 200_000
    before = written_state(served.home)
    began = time.monotonic()
    status, refused = served.upload(archive, author="bob")
    assert (status, refused["detail"]) == (422, "bot.toml: larger than 64 KB, the limit of a manifest; keep long texts "
                                                "out of it")
    assert time.monotonic() - began < 20 and written_state(served.home) == before


@pytest.mark.slow
def test_one_authors_slow_builds_do_not_hold_another_authors_upload(served, tmp_path):
    """issue 31 item 5: alice sends two 4 s builds and a quick one, then bob one quick upload: bob's takes the second
    slot at once and is answered before alice's first (his took 0.2 s here; before the fix, with 8 s builds, he waited
    behind two of alice's, 19-20 s); the queue shows their places. Her third need not be slow: in one queue for all
    authors her first two would take both slots and hold bob's upload past the end of her first; the third only has
    to be waiting (4 s less to wait for at the end)."""
    answers: dict[str, tuple[float, tuple]] = {}
    began = time.monotonic()

    def send(key: str, author: str, folder: Path) -> None:
        answer = served.upload(uploads.pack(folder), author=author)
        answers[key] = (time.monotonic() - began, answer)

    threads = []
    for number in range(3):
        folder = bot_folder(tmp_path, f"slow{number}")
        manifest = folder / "bot.toml"
        if number < 2:
            manifest.write_text(manifest.read_text() + 'build = ["sleep", "4"]\n')
        threads.append(threading.Thread(target=send, args=(f"alice{number}", "alice", folder)))
        threads[-1].start()
    wait_for(lambda: any(p["author"] == "alice" and p["waiting"] == 2
                         for p in served.get("/api/queue/uploads")[1]["authors"]), 30, "alice's uploads queued")
    status, queue = served.get("/api/queue/uploads")
    alice = next(p for p in queue["authors"] if p["author"] == "alice")
    assert status == 200 and queue["slots"] == 2 and (alice["building"], alice["waiting"]) == (True, 2)
    assert alice["position"] == 1 and alice["estimate_seconds"] >= 0
    threads.append(threading.Thread(target=send, args=("bob", "bob", bot_folder(tmp_path, "quick"))))
    threads[-1].start()
    for thread in threads:
        thread.join(300)
    assert [answers[k][1][0] for k in ("alice0", "alice1", "alice2", "bob")] == [201] * 4, answers
    assert answers["bob"][0] < min(answers[f"alice{n}"][0] for n in range(3)), answers


def server_log(server: Server) -> str:
    port = server.url.rsplit(":", 1)[1]
    return (server.home.parent / f"serve-{port}.log").read_text()


@pytest.mark.slow
def test_a_server_killed_mid_upload_leaves_nothing_once_restarted(tmp_path, request):
    """issue 31 item 6: SIGKILL while an upload is checked (its bot waits 6 s before HELLO): its unpacked upload,
    its referee's socket folder and its snapshot folder stay behind; the next start removes them all."""
    # short: the referee's socket path inside it must fit a unix socket's 107 bytes (a deep tmp_path does not)
    tmpdir = Path(tempfile.mkdtemp(prefix="hx-"))
    request.addfinalizer(lambda: shutil.rmtree(tmpdir, ignore_errors=True))
    home = tmp_path / "home"
    with Workspace(home) as ws:
        token = authors.add(ws, "alice")
    server = start(home, env={"TMPDIR": str(tmpdir)})
    server.tokens["alice"] = token
    folder = bot_folder(tmp_path, "sleepy")
    script = folder / "bot.py"
    script.write_text("import time\ntime.sleep(6)\n" + script.read_text())
    snapshot = home / "registry" / source_hash(folder)

    def upload() -> None:
        with contextlib.suppress(OSError, http.client.HTTPException):  # the server is killed under it
            server.upload(uploads.pack(folder))

    threading.Thread(target=upload, daemon=True).start()
    left = lambda: sorted(p.name.rsplit("-", 2)[0] for p in tmpdir.iterdir())  # noqa: E731
    try:
        wait_for(lambda: left() == ["hexarena-referee", "hexarena-upload"], 60, "the upload in its check")
    finally:
        stop(server)  # SIGKILL: its cleanup never runs
    assert left() == ["hexarena-referee", "hexarena-upload"]
    assert snapshot.is_dir()  # checked at its own path
    server = start(home, env={"TMPDIR": str(tmpdir)})
    stop(server)
    assert left() == [] and not snapshot.exists()


@pytest.mark.slow
def test_uploads_cut_mid_transfer_are_one_log_line_each(tmp_path):
    home = tmp_path / "home"
    with Workspace(home) as ws:
        token = authors.add(ws, "alice")
    server = start(home, "--upload-rate", "100")
    host, port = server.url.removeprefix("http://").split(":")
    try:
        for _ in range(20):
            with socket.create_connection((host, int(port))) as client:
                client.sendall((f"POST /api/bots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                                "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 900000\r\n\r\n"
                                "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n\r\n").encode()
                               + b"x" * 50_000)
            time.sleep(0.05)
        wait_for(lambda: server_log(server).count("cut off by its client") >= 20, 30, "20 lines")
        assert server.get("/api/queue")[0] == 200
    finally:
        stop(server)
    log = server_log(server)
    cut = "hexarena serve: upload by alice: refused (400): the upload was cut off by its client before its end"
    assert "Traceback" not in log and log.count(cut) == 20 and log.count("upload by alice") == 20  # one line each


@pytest.mark.slow
def test_on_a_full_disk_reads_answer_and_an_upload_is_507(tmp_path):
    """issue 31 item 6: the workspace and TMPDIR on one full tmpfs. The standings of a league whose tally is not
    stored yet are answered (a read that needs no write), an upload is 507, not 500."""
    with mounted_tmpfs(tmp_path / "disk", "60m") as disk:
        home = disk / "home"
        make_workspace(home).close()
        (tmp_path / "small.toml").write_text(league_text("small", participants=("greedy", "random"),
                                                         games_per_pairing=4))
        done = subprocess.run([*HEXARENA, "league", "run", str(tmp_path / "small.toml"), "--home", str(home)],
                              capture_output=True, text=True, check=False, timeout=300)
        assert done.returncode == 0, done.stderr
        with Workspace(home) as ws:
            ws.db.execute("DELETE FROM tallied")  # as after a migration: the next read folds the tally
            ws.db.commit()
            token = authors.add(ws, "alice")
        (disk / "tmp").mkdir()
        server = start(home, env={"TMPDIR": str(disk / "tmp")})
        try:
            fill(disk, 0)
            status, answer = server.get("/api/leagues/small/standings")
            assert status == 200 and sorted(row["bot"] for row in answer["standings"]) == ["greedy", "random"]
            server.tokens["alice"] = token
            status, answer = server.upload(uploads.pack(bot_folder(tmp_path, "late")))
            assert (status, answer["detail"]) == (507, "the server's disk is full; nothing was registered: tell the "
                                                       "organiser"), answer
        finally:
            stop(server)
        assert "Traceback" not in server_log(server)



@pytest.mark.slow
def test_an_upload_while_another_process_keeps_the_database_locked_is_503_and_registers_later(tmp_path):
    """Another process (a sqlite3 shell left in a transaction) holds the workspace's write lock for longer than a
    request's write waits (5 s): the upload is 503, try again, not a 500; once the lock is gone it registers."""
    home = tmp_path / "home"
    with Workspace(home) as ws:
        token = authors.add(ws, "alice")
    server = start(home)
    try:
        server.tokens["alice"] = token
        archive = uploads.pack(bot_folder(tmp_path, "late"))
        with holding_the_write_lock(home / "hexarena.db"):
            status, answer = server.upload(archive)
        assert status == 503, answer
        assert answer["detail"] == "the server's database is held locked by another process; nothing was changed: " \
                                   "try again shortly"
        status, answer = server.upload(archive)
        assert status == 201 and answer["status"] == "registered", answer
    finally:
        stop(server)
    log = server_log(server)
    assert "Traceback" not in log and "POST /api/bots: workspace database " in log
    assert "another process held it locked for over 5 s" in log


@pytest.mark.slow
def test_the_queue_shows_no_folder_and_no_pid_and_a_file_names_newline_is_escaped(tmp_path, served):
    from hexarena.leagues.workspace.locks import league_lock

    home = tmp_path / "home"
    make_workspace(home).close()
    (tmp_path / "held.toml").write_text(league_text("held", participants=("greedy", "random")))
    with Workspace(home) as ws, league_lock(ws, "held"):  # this process holds the league: the server's run fails
        server = start(home, "--league", str(tmp_path / "held.toml"))
        try:
            wait_for(lambda: server.get("/api/queue")[1][0]["state"] == "error", 60, "the league's run refused")
            error = server.get("/api/queue")[1][0]["last_error"]
        finally:
            stop(server)
    assert error == "league held is already running in workspace home; wait for it to end or stop it, then run again " \
                    "to resume"
    status, answer = served.upload(as_zip_entries({"bot.toml": b"x", "evil\nname/../../x": b"y"}))
    assert status == 422 and answer["detail"] == "evil\\nname/../../x: a '..' in a name leads outside the bot's folder"


def as_zip_entries(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.slow
def test_slow_header_clients_are_closed_at_the_header_timeout(tmp_path):
    """issue 31 item 7 (slowloris): 200 connections sending one header byte a second are all closed by the server
    soon after its 2 s header timeout (before: all still open after 40 s); a normal client is answered meanwhile."""
    home = tmp_path / "home"
    Workspace(home).close()
    server = start(home, "--header-timeout", "2")
    host, port = server.url.removeprefix("http://").split(":")
    clients = []
    try:
        for _ in range(200):
            client = socket.create_connection((host, int(port)))
            client.sendall(b"GET /api/queue HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            client.setblocking(False)
            clients.append(client)
        began = time.monotonic()
        closed: set[int] = set()
        while len(closed) < len(clients) and time.monotonic() - began < 20:
            for number, client in enumerate(clients):
                if number in closed:
                    continue
                try:
                    if client.recv(1024) == b"":
                        closed.add(number)
                        continue
                except BlockingIOError:
                    pass
                except OSError:
                    closed.add(number)
                    continue
                with contextlib.suppress(OSError):
                    client.send(b"x")
            assert server.get("/api/queue")[0] == 200
            time.sleep(1)
        took = time.monotonic() - began
    finally:
        for client in clients:
            client.close()
        stop(server)
    assert len(closed) == 200 and 1.5 < took < 20, (len(closed), took)


@pytest.mark.slow
def test_an_upload_is_checked_at_the_strictest_time_control_of_the_leagues_it_enters(served, tmp_path):
    """alpha enters the league tiny (200ms a move): a bot that thinks 500 ms a move passes the check's own 1 s,
    so it is refused here, the reason naming the league's time control; a quick one is told where it was checked."""
    slow = bot_folder(tmp_path, "alpha", "slow")
    (slow / "bot.py").write_text("import time\nfrom hexarena.protocol.client import run_bot\n\nslow_moves = [3]\n\n\n"
                                 "def choose(game, state):  # 500 ms on its first 3 moves (not all: a quicker test)\n"
                                 "    if slow_moves[0]:\n        slow_moves[0] -= 1\n        time.sleep(0.5)\n"
                                 "    return state.legal_moves()[0]\n\n\n"
                                 "run_bot(choose)\n")
    status, answer = served.upload(as_zip(slow))
    assert status == 422, answer
    assert answer["detail"].startswith("alpha was not registered: conformance check failed: time limit: ")
    assert answer["detail"].endswith(" (checked at league tiny's time control 200ms)")
    assert [c["name"] for c in answer["checks"] if not c["passed"]] == ["time limit"]
    status, answer = served.upload(as_zip(bot_folder(tmp_path, "alpha", "quick")))
    assert status in (200, 201), answer
    assert answer["checked_at"] == "league tiny's time control 200ms"
    broken = bot_folder(tmp_path, "alpha", "broken")
    (broken / "bot.py").write_text("import sys\nsys.exit('broken at ' + __file__)\n")
    status, answer = served.upload(as_zip(broken))
    assert status == 422 and "broken at bot.py" in json.dumps(answer), answer  # the bot's words, not the server's
    assert str(served.home) not in json.dumps(answer) and ".staging" not in json.dumps(answer)  # staging folder


@pytest.mark.slow
def test_the_server_logs_one_line_per_event_as_json(tmp_path):
    home = tmp_path / "home"
    with Workspace(home) as ws:
        token = authors.add(ws, "alice")
    (tmp_path / "long.toml").write_text(TINY.replace('name = "tiny"', 'name = "long"')
                                        .replace("games_per_pairing = 2", "games_per_pairing = 200")
                                        .replace('size = "2x2"', 'size = "6x6"'))  # long games: one is in flight at the stop
    (tmp_path / "tiny.toml").write_text(TINY)
    server = start(home, "--league", str(tmp_path / "long.toml"), "--league", str(tmp_path / "tiny.toml"),
                   "--log-format", "json")
    server.tokens = {"alice": token}
    log = next(tmp_path.glob("serve-*.log"))
    try:
        assert server.upload(uploads.pack(bot_folder(tmp_path, "alpha")))[0] == 201  # the leagues can start
        wait_for(lambda: stored_count(home, "long") >= 3, 90, "games stored")
        wait_for(lambda: (lambda tiny: tiny["state"] == "idle" and tiny["games_total"] == 6 and not tiny["games_left"])(
            server.get("/api/queue")[1][1]), 120, "the league tiny played")
        assert server.upload(b"not an archive")[0] == 422
        host, port = server.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as client:  # uvicorn's own warning: a JSON line too
            client.sendall(b"GET /api/queue HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n")
            assert client.recv(100).startswith(b"HTTP/1.1 400")
        wait_for(lambda: server.get("/api/live/games")[1], 30, "a game in flight")
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=30)
    finally:
        stop(server)
    lines = [json.loads(line) for line in log.read_text().splitlines()]  # every line one JSON object
    events = [line["event"] for line in lines]
    assert events[:2] == ["watchdog", "listening"] and lines[1]["leagues"] == ["long", "tiny"]
    assert lines[0]["message"] == watchdog.describe()  # what bounds a bot as a whole here: cgroup or watchdog
    failed = [line for line in lines if line["event"] == "league_failed"]  # before alpha's upload, maybe
    assert all("unknown bot 'alpha'" in line["error"] for line in failed)
    assert events.count("league_started") >= 2  # the upload woke them
    finished = [line for line in lines if line["event"] == "league_finished"]
    assert [(f["league"], f["stored"], f["total"]) for f in finished if f["played"]] == [("tiny", 6, 6)]
    uploaded = [line for line in lines if line["event"] == "upload"]
    assert [(u["author"], u["status"], u["outcome"]) for u in uploaded] == [("alice", 201, "accepted"),
                                                                         ("alice", 422, "refused")]
    assert uploaded[0]["message"].startswith("upload by alice: accepted (201): registered alpha@")
    assert [line["message"] for line in lines if line["event"] == "uvicorn.error"] == ["Invalid HTTP request received."]
    stopping = lines[-1]
    assert stopping["event"] == "stopping" and stopping["in_flight"] >= 1
    assert stopping["message"] == (f"stopping: {stopping['in_flight']} game{'s' * (stopping['in_flight'] > 1)} in "
                                   "flight abandoned, they will be replayed")
    assert "Traceback" not in log.read_text()


def stored_count(home: Path, league: str) -> int:
    with sqlite3.connect(home / "hexarena.db", timeout=30) as db:
        return db.execute("SELECT COUNT(*) FROM games WHERE league = ?", (league,)).fetchone()[0]
