"""Fixtures for every test: a cache folder of the session's, the test bots' variables forwarded, referees that
always close, a headless browser. Plain helpers (paths, the test bots, processes, leagues...) are in ``helpers.py``."""

from __future__ import annotations

import os
import signal

import pytest
from helpers import CHROMEDRIVER, CHROMIUM, FAST, SHARED, TEST_BOTS, sandbox_unavailable
from hypothesis import settings

from hexarena.referee import sandbox
from hexarena.referee.referee import Referee

# A suite started in the background by a non-interactive shell (`python3 -m pytest &` in a script) inherits SIGINT
# ignored, and so would every command a test starts: the tests that stop a solve, a league or a server with Ctrl-C
# would see it ignored. A handler is reset to the default at exec, so the commands get Ctrl-C back too.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# `pytest --hypothesis-profile=long`: the fuzz campaign (tests/cli/test_fuzz.py) and every property test, 20x longer
settings.register_profile("long", max_examples=2000)


@pytest.fixture(scope="session", autouse=True)
def session_cache_folder(tmp_path_factory):
    """The user's cache folder (``XDG_CACHE_HOME``: where ``referee/sandbox.py`` remembers its walk of /usr) is a
    folder of this session, in this process's environment, so every command a test starts has it too: the suite
    writes nothing under the real home's ~/.cache. One for the whole session: /usr is walked once, not once a test.
    A test that sets or unsets it itself (monkeypatch) gets this one back after it."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(autouse=True)
def forward_test_bot_variables(monkeypatch):
    """Bots inherit only an allowlist of the referee's environment: forward the test bots' own knobs."""
    monkeypatch.setenv("HEXARENA_PASS_ENV", "BROKEN_MARKER,BROKEN_PIDS,LEAGUE_TEST")
    # the test bots run a script of their parent folder (``../broken.py``): share those folders with the sandbox
    monkeypatch.setenv("HEXARENA_SANDBOX_SHARE", ":".join(str(TEST_BOTS.parent / name) for name in SHARED))


@pytest.fixture(params=sandbox.PATHS)
def sandbox_path(request, monkeypatch) -> str:
    """The test on both sandbox paths: bubblewrap, and the kernel's namespaces without it (``HEXARENA_SANDBOX``)."""
    if (why := sandbox_unavailable(request.param)) is not None:
        pytest.skip(why)
    monkeypatch.setenv(sandbox.CHOICE, request.param)
    return request.param


@pytest.fixture(params=["cgroup", "watchdog"])
def whole_bot(request, monkeypatch, tmp_path) -> str:
    """The test on each backend of the whole-bot limits (referee/cgroups.py): the machine's cgroup where the
    referee can make one (else a skip saying why), and the watchdog, its fallback, with the cgroup root pointed
    at a plain folder (no hierarchy there: the same code path as a machine without writable cgroups)."""
    from hexarena.referee import cgroups

    if request.param == "cgroup":
        if (why := cgroups.unavailable()) is not None:
            pytest.skip(f"no cgroup backend here: {why}")
        return cgroups.backend().version
    monkeypatch.setenv(cgroups.ROOT_ENV, str(tmp_path / "not-a-cgroup-root"))
    assert cgroups.backend() is None
    return "watchdog"


@pytest.fixture
def make_referee(tmp_path):
    """``make_referee(**kwargs)`` → a Referee logging under tmp_path, with tiny time limits; closed after the test."""
    referees = []

    def make(**kwargs) -> Referee:
        kwargs.setdefault("log_dir", tmp_path / "logs")
        kwargs.setdefault("time_control", FAST)
        kwargs.setdefault("stop_grace", 0.5)
        referee = Referee(**kwargs)
        referees.append(referee)
        return referee

    yield make
    for referee in referees:
        referee.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Debian's chromium, headless, driven by Selenium through /usr/bin/chromedriver; one per test module."""
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip("needs a browser (Debian: chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--window-size=1280,900", f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()
