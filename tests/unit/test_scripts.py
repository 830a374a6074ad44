"""Scripts for ``sqlext run`` (statements one at a time, psql's \\copy),
what a script for ``sqlext run --cluster`` may hold, and the progress bar
of long work."""

from __future__ import annotations

import io
import logging

import pytest

from sqlext.progress import Progress
from sqlext.tools.script import ClientCopy, ScriptError, Step, check_for_cluster, script_steps


def test_statements_split_where_psql_splits_them() -> None:
    script = (
        "CREATE TABLE t (a text);  -- a comment; with a semicolon\n"
        "INSERT INTO t VALUES ('x;y');\n"
        "CREATE PROCEDURE p() LANGUAGE sql AS $$ INSERT INTO t VALUES ('1'); SELECT 2 $$;\n"
        "CREATE PROCEDURE q() BEGIN ATOMIC SELECT 1; SELECT 2; END;\n"
        "\n"
        "SELECT 3"
    )
    assert script_steps(script) == [
        Step(1, "CREATE TABLE t (a text)"),
        Step(2, "INSERT INTO t VALUES ('x;y')"),
        Step(3, "CREATE PROCEDURE p() LANGUAGE sql AS $$ INSERT INTO t VALUES ('1'); "
                "SELECT 2 $$"),
        Step(4, "CREATE PROCEDURE q() BEGIN ATOMIC SELECT 1; SELECT 2; END"),
        Step(6, "SELECT 3"),
    ]


def test_client_copy_lines() -> None:
    steps = script_steps("SELECT 1;\n\\copy t (a, b) FROM 'my data.csv' WITH (FORMAT csv)\n"
                         "\\copy t to out.txt\nSELECT 2;\n")
    assert [step.line for step in steps] == [1, 2, 3, 4]
    assert steps[1].copy == ClientCopy("COPY t (a, b) FROM STDIN WITH (FORMAT csv)",
                                       "my data.csv", reading=True)
    assert steps[2].copy == ClientCopy("COPY t TO STDOUT", "out.txt", reading=False)


def test_other_backslash_commands_are_refused() -> None:
    with pytest.raises(ScriptError, match=r"line 2: \\set is not supported"):
        script_steps("SELECT 1;\n\\set x 1\n")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal() -> None:
    stream = _Terminal()
    progress = Progress("loading", 4, "rows", stream=stream)
    for _ in range(4):
        progress.advance(note="last: 7/s")
    progress.finish()
    assert stream.getvalue().endswith(
        "\r\033[Kloading [" + "#" * 30 + "] 4/4 rows (100%)  last: 7/s\n")


def test_progress_elsewhere_is_silent_or_logged(caplog: pytest.LogCaptureFixture) -> None:
    stream = io.StringIO()
    Progress("quiet", 10, stream=stream).advance(10)
    assert stream.getvalue() == ""
    logger = logging.getLogger("sqlext.test")
    progress = Progress("recovery: replayed", 20, "records", stream=stream, logger=logger)
    with caplog.at_level(logging.INFO, logger="sqlext.test"):
        for _ in range(20):
            progress.advance()
    assert [r.getMessage() for r in caplog.records][-1] == (
        "recovery: replayed: 20/20 records (100%)")
    assert len(caplog.records) == 10  # one line each tenth of the way


@pytest.mark.parametrize("statement", [
    "BEGIN", "START TRANSACTION ISOLATION LEVEL SERIALIZABLE", "COMMIT", "END", "ROLLBACK",
    "ABORT", "PREPARE TRANSACTION 'x'", "COMMIT PREPARED 'x'"])
def test_a_cluster_script_cannot_end_its_transaction(statement: str) -> None:
    steps = script_steps(f"CREATE TABLE t (a int);\n{statement};\n")
    verb = statement.split()[0]
    with pytest.raises(ScriptError, match=rf"^line 2: {verb} is not supported in a cluster "
                                          "script: each node runs the whole script as one "
                                          r"transaction \(SAVEPOINT works\)$"):
        check_for_cluster(steps)


def test_what_a_cluster_script_may_hold() -> None:
    check_for_cluster(script_steps(
        "CREATE TABLE t (a int);\nSAVEPOINT s;\nINSERT INTO t VALUES (1);\n"
        "ROLLBACK TO SAVEPOINT s;\nRELEASE SAVEPOINT s;\n\\copy t FROM 'rows.csv'\n"
        "CREATE PROCEDURE p() BEGIN ATOMIC INSERT INTO t VALUES (2); END;\n"
        "SELEC 1;\n"))  # the nodes say what is wrong with it
    with pytest.raises(ScriptError, match=r"^line 2: \\copy \.\.\. TO is not supported in a "
                                          r"cluster script \(every node would write the file "
                                          r"in turn\)$"):
        check_for_cluster(script_steps("SELECT 1;\n\\copy t TO 'out.csv'\n"))
