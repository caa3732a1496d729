"""Shared fixtures. Both memory stores, for real: a SQLite file per test and a PostgreSQL database per test session.

PostgreSQL is found at `$TFROBOT_TEST_PG_URL` (an admin URL, e.g. postgresql://postgres@127.0.0.1:5432/test),
else at 127.0.0.1:5432 database `test` as user postgres or the current user. The session creates its own
database `tfrobot_test_<random>` there, migrates it, truncates it before each test and drops it at the end.
Unreachable PostgreSQL fails the PostgreSQL half of the tests with the fix, unless TFROBOT_SKIP_PG=1.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from tfrobot.brain.memory import SQLMessageStore

T = TypeVar("T")

PG_URL_ENV = "TFROBOT_TEST_PG_URL"
SKIP_PG_ENV = "TFROBOT_SKIP_PG"


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion in its own thread and loop (fixtures may be set up inside a running loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _admin_candidates() -> list[str]:
    if os.environ.get(PG_URL_ENV):
        return [os.environ[PG_URL_ENV]]
    users = dict.fromkeys(["postgres", getpass.getuser()])
    return [f"postgresql://{user}@127.0.0.1:5432/test" for user in users]


async def pg_execute(dsn: str, *statements: str) -> None:
    """Run statements on `dsn` with asyncpg directly (admin work outside the store under test)."""
    conn = await asyncpg.connect(make_url(dsn).set(drivername="postgresql").render_as_string(hide_password=False))
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


async def _migrate(url: str) -> None:
    store = SQLMessageStore(url)
    try:
        await store.migrate()
    finally:
        await store.aclose()


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """URL of this session's own, migrated PostgreSQL database."""
    if os.environ.get(SKIP_PG_ENV) == "1":
        pytest.skip(f"{SKIP_PG_ENV}=1: PostgreSQL half of the memory tests skipped on request")
    name = f"tfrobot_test_{uuid.uuid4().hex[:12]}"
    errors: list[str] = []
    for admin in _admin_candidates():
        try:
            run_sync(pg_execute(admin, f'CREATE DATABASE "{name}"'))
            break
        except (OSError, asyncpg.PostgresError) as exc:
            errors.append(f"{make_url(admin).render_as_string(hide_password=True)}: {exc}")
    else:
        pytest.fail(
            "PostgreSQL is not reachable for the memory tests:\n  " + "\n  ".join(errors) + "\nFix: start PostgreSQL "
            "on 127.0.0.1:5432 with a database `test` (user postgres, trust auth), or set "
            f"{PG_URL_ENV}=postgresql://user:password@host:port/db; {SKIP_PG_ENV}=1 skips these tests.",
            pytrace=False,
        )
    url = make_url(admin).set(drivername="postgresql+asyncpg", database=name).render_as_string(hide_password=False)
    try:
        run_sync(_migrate(url))
        yield url
    finally:
        run_sync(pg_execute(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """A migrated, empty database of each kind."""
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'memory.db'}"
        run_sync(_migrate(url))
        return url
    url: str = request.getfixturevalue("pg_url")
    run_sync(pg_execute(url, "TRUNCATE messages, conversations, documents RESTART IDENTITY"))
    return url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[SQLMessageStore]:
    store = SQLMessageStore(store_url)
    yield store
    await store.aclose()


E2E_PERF_FILE = Path(__file__).resolve().parents[1] / "build" / "e2e-perf.json"
"""The figures the browser tests measure (`tests.e2e.conftest.record_perf`). Its run-wide hooks live here, as
this conftest is the one the whole run (xdist's controller included) loads before collecting."""


def pytest_sessionstart(session: pytest.Session) -> None:
    """A fresh figures file per run: removed by the run, not by its xdist workers (a worker starting late would
    remove what another recorded)."""
    if not hasattr(session.config, "workerinput"):
        E2E_PERF_FILE.unlink(missing_ok=True)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the figures the browser tests measured (also kept in build/e2e-perf.json)."""
    if E2E_PERF_FILE.is_file():
        terminalreporter.section("console performance (Chromium, ms)")
        for key, value in json.loads(E2E_PERF_FILE.read_text()).items():
            terminalreporter.write_line(f"{key:45} {value:>9.1f}")


_ONE_WORKER_DIRS = frozenset({"e2e", "security"})
"""Test directories whose real servers (and Chromium) are session-scoped: each runs whole on one xdist worker."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`pytest -n 2 --dist loadfile` (`make pytest`): each test file on one worker, so that its module-scoped
    fixtures (servers, seeded databases) start once, and each of `_ONE_WORKER_DIRS` whole on one worker, so
    that their session-scoped servers start once. (xdist's `loadgroup` marks do not group under pytest 9.2:
    they rename `item._nodeid`, which pytest no longer reads.)"""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling  # only called with xdist installed

    class _ByFileAndServerDir(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            parts = path.split("/")
            return "/".join(parts[:2]) if len(parts) > 2 and parts[1] in _ONE_WORKER_DIRS else path

    return _ByFileAndServerDir(config, log)


@pytest.fixture(autouse=True, scope="session")
def _isolated_data_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test writes to the user's data directory: defaults (the memory's SQLite file, the server's
    data) resolve under a fresh directory for the session."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
        yield
