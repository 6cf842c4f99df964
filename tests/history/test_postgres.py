"""The history in a real PostgreSQL database (a throwaway server, tests/history/postgres_server.py):
the same schema built and marked, the first schema migrated, another program's database refused,
and every way of not getting a connection one line without the password. Recording, trends, one
case over time and two writers at once run against both backends in test_recording.py."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.errors import UsageError
from evalkit.history.connection import HistoryConnection
from evalkit.history.database import migrate, open_history, schema_version, tables
from evalkit.history.dialect import MARK, POSTGRES
from evalkit.history.location import shown
from evalkit.history.migrations import SCHEMA_VERSION
from evalkit.history.queries import case_outcomes, runs, suite_trends
from evalkit.history.recording import record
from tests.history.conftest import case, report
from tests.history.postgres_server import PASSWORD


def test_a_new_database_gets_the_current_schema_and_our_mark(postgres_url):
    conn = open_history(postgres_url)
    assert conn.dialect is POSTGRES
    assert schema_version(conn) == SCHEMA_VERSION
    assert tables(conn) == ["case_runs", "item_runs", "runs", "schema_version", "suite_runs"]
    assert conn.execute(POSTGRES.read_mark).fetchone() == (MARK,)
    # costs keep their digits (PostgreSQL's REAL would keep six)
    assert conn.execute(
        "SELECT data_type FROM information_schema.columns WHERE table_name = 'runs' AND column_name = 'cost_usd'"
    ).fetchone() == ("double precision",)
    conn.close()


def test_a_database_of_the_first_schema_is_migrated_and_keeps_its_runs(postgres_url):
    from evalkit.history.postgres import connect

    old: HistoryConnection = connect(postgres_url)
    assert migrate(old, upto=1) == 1
    old.execute("INSERT INTO runs VALUES (1, 'r1', '2025-01-01', '2025-01-01', 'c1', 'main', 'pass', 0.5, 2.0, 3)")
    old.execute("INSERT INTO suite_runs VALUES (1, 'qa', 'h', 'agent:answer', '{}', 'pass', 1, 1, 0.5, 2.0)")
    old.execute("INSERT INTO case_runs VALUES (1, 'qa', 'a', 'pass', 'i', 1, 1, 0.5, 2.0)")
    old.close()

    conn = open_history(postgres_url)
    assert schema_version(conn) == 2
    assert [r.number for r in runs(conn)] == [1]
    assert conn.execute("SELECT latency_median FROM suite_runs").fetchone() == (None,)
    assert record(conn, report(case("a", "fail")), branch="main").number == 2
    assert [o.verdict for o in case_outcomes(conn, "a")] == ["pass", "fail"]
    assert [o.failed_items for o in case_outcomes(conn, "a")] == [[], ["tone"]]
    [trend] = suite_trends(conn)
    assert [p.pass_rate for p in trend.points] == [1.0, 0.0]
    conn.close()


def test_another_programs_database_is_refused_and_left_alone(postgres_server):
    name = postgres_server.new_database()
    url = postgres_server.socket_url(name)
    import psycopg

    with psycopg.connect(url, autocommit=True) as other:
        other.execute("CREATE TABLE users (name TEXT)")
    with pytest.raises(UsageError, match=r"a PostgreSQL database of something else \(tables: users\)"):
        open_history(url, create=True)
    with psycopg.connect(url, autocommit=True) as other:
        found = other.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
        assert [r[0] for r in found] == ["users"]


def test_a_history_from_a_newer_evalkit_is_refused(postgres_url):
    conn = open_history(postgres_url)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.close()
    with pytest.raises(UsageError, match="newer evalkit .*schema 99"):
        open_history(postgres_url)


def evalkit(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_the_command_records_lists_and_shows_a_case_over_a_password_url(postgres_server, tmp_path):
    url = postgres_server.tcp_url(postgres_server.new_database())
    for n, status in enumerate(["pass", "fail", "pass", "fail"]):
        report(case("a", status), case("b", "pass"), run_id=f"r{n}").save(tmp_path / f"run{n}.json")
        done = evalkit("history", "record", tmp_path / f"run{n}.json", "--branch", "main", "--history", url)
        assert done.exit_code == 0, done.output
        assert f"as run #{n + 1} of postgresql://evalkit:***@127.0.0.1:" in done.output
    listed = evalkit("history", "--history", url)
    assert listed.exit_code == 0, listed.output
    assert "█▅█▅ 100% → 50% over 4 runs" in listed.output
    assert "qa/a: flaky on main (2 of 4), flip rate 100%; items tone" in listed.output
    one = evalkit("history", "case", "a", "--history", url)
    assert one.output.splitlines()[0] == "a: █▁█▁ (4 runs, oldest first)"
    report(case("a", "pass")).save(tmp_path / "base.json")
    report(case("a", "fail")).save(tmp_path / "head.json")
    compared = evalkit(
        "compare", tmp_path / "base.json", tmp_path / "head.json", "--format", "markdown", "--history", url
    )
    assert compared.exit_code == 0 and "🎲 flaky on main (2 of 4)" in compared.output
    assert PASSWORD not in listed.output + one.output + compared.output


@pytest.mark.parametrize(
    "url, message",
    [
        ("{tcp_wrong}", "password authentication failed"),
        ("{tcp_no_db}", 'database "nope" does not exist'),
        (
            "postgresql://evalkit:" + PASSWORD + "@127.0.0.1:1/db",
            "cannot connect to the history postgresql://evalkit:***@",
        ),
        ("postgresql://evalkit:" + PASSWORD + " x@[::zz/db", "is not a PostgreSQL URL libpq can read"),
        ("postgres://evalkit@/db?host=/nonexistent-evalkit&password=" + PASSWORD, "cannot connect to the history"),
        ("mysql://evalkit@localhost/db", "takes a file path or a PostgreSQL URL (postgresql://...), not a mysql://"),
    ],
)
def test_no_connection_is_one_line_exit_2_and_never_shows_the_password(postgres_server, url, message):
    url = url.format(
        tcp_wrong=postgres_server.tcp_url("postgres", password=PASSWORD + "-wrong"),
        tcp_no_db=postgres_server.tcp_url("nope"),
    )
    done = CliRunner().invoke(main, ["history", "--history", url])
    assert done.exit_code == 2, done.output
    assert message in done.output
    assert len(done.output.strip().splitlines()) == 1 and "Traceback" not in done.output
    assert PASSWORD not in done.output


def test_without_psycopg_a_url_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # what an install without the extra imports
    done = CliRunner().invoke(main, ["history", "--history", f"postgresql://evalkit:{PASSWORD}@db.invalid/h"])
    assert done.exit_code == 2, done.output
    assert done.output.strip() == (
        "evalkit: --history postgresql://evalkit:***@db.invalid/h names a PostgreSQL "
        "database, which needs the psycopg driver: pip install 'evalkit[postgres]'"
    )


def test_a_password_is_hidden_wherever_the_url_holds_it():
    assert shown("postgresql://u:p%40ss@h/db") == "postgresql://u:***@h/db"
    assert (
        shown("postgres://u@h/db?password=s3cret&sslmode=require") == "postgres://u@h/db?password=***&sslmode=require"
    )
    assert shown("history.sqlite") == "history.sqlite"


def test_a_shared_database_takes_the_history_in_a_schema_of_its_own(postgres_server):
    url = postgres_server.socket_url(postgres_server.new_database())
    import psycopg

    with psycopg.connect(url, autocommit=True) as other:
        other.execute("CREATE TABLE users (name TEXT)")
        other.execute("CREATE SCHEMA evalkit")
    own = url + "&options=-csearch_path%3Devalkit"  # as docs/history.md shows it
    conn = open_history(own)
    record(conn, report(case("a", "pass")), branch="main")
    conn.close()
    with psycopg.connect(url, autocommit=True) as other:
        found = other.execute(
            "SELECT table_schema, COUNT(*) FROM information_schema.tables "
            "WHERE table_schema IN ('public', 'evalkit') GROUP BY table_schema ORDER BY 1"
        )
        assert found.fetchall() == [("evalkit", 5), ("public", 1)]


def test_a_writer_that_waits_too_long_for_the_lock_is_told_busy_in_one_line(postgres_url, tmp_path, monkeypatch):
    from evalkit.history import postgres
    from evalkit.history.access import record_file

    monkeypatch.setattr(postgres, "LOCK_SECONDS", 1)  # not the minute a real writer waits
    report(case("a", "pass")).save(tmp_path / "run.json")
    holder = open_history(postgres_url)
    with holder.transaction():  # another writer, halfway through its run
        with pytest.raises(UsageError, match=r"^the history postgresql://\S+ is busy: another writer held it"):
            record_file(tmp_path / "run.json", postgres_url, branch="main")
    assert record_file(tmp_path / "run.json", postgres_url, branch="main").number == 1  # its turn now
    holder.close()


def test_joining_copies_is_for_files_and_says_so(postgres_url, tmp_path):
    from evalkit.history.merge import add_missing_runs

    open_history(tmp_path / "copy.sqlite", create=True).close()
    conn = open_history(postgres_url)
    with pytest.raises(UsageError, match="joining histories is for SQLite files"):
        add_missing_runs(conn, tmp_path / "copy.sqlite")
    conn.close()
