"""Parsing and printing the dataflow statements: CREATE/DROP STREAM, WINDOW,
PROCEDURE, TRIGGER, CALL and ALTER PROCEDURE ... RESUME."""

from __future__ import annotations

import pytest
from sqlglot import exp

from catalog import errors
from sqlext.sql import nodes as x
from sqlext.sql.dialect import SqlExt
from sqlext.sql.parse import parse


def one(sql: str) -> exp.Expression:
    (statement,) = parse(sql).statements
    return statement


def assert_round_trip(statement: exp.Expression) -> str:
    """The canonical text parses back to the same tree (repr compares string
    arguments exactly, unlike ``==``, and copes with dict arguments)."""
    text = statement.sql(dialect=SqlExt)
    again = one(text)
    assert repr(again) == repr(statement), text
    assert again.sql(dialect=SqlExt) == text
    return text


def table(name: str, db: str | None = None, quoted: bool = False) -> exp.Table:
    return exp.table_(exp.to_identifier(name, quoted=quoted), db=db)


def error(sql: str) -> errors.SqlError:
    with pytest.raises(errors.SqlError) as caught:
        parse(sql)
    return caught.value


def assert_syntax_error(sql: str) -> None:
    failure = error(sql)
    assert failure.sqlstate == "42601", failure
    assert failure.position is not None


def assert_unsupported(sql: str) -> None:
    assert error(sql).sqlstate == "0A000"


# --- CREATE STREAM ---------------------------------------------------------------


def test_create_stream_has_a_table_schema() -> None:
    sql = "CREATE STREAM Votes (phone BIGINT NOT NULL, \"Who\" INT, PRIMARY KEY (phone))"
    stream = one(sql)
    assert isinstance(stream, x.CreateStream)
    assert stream.args["exists"] is False and stream.args["options"] == {}
    table_schema = one(sql.replace("STREAM", "TABLE")).this
    assert stream.this == table_schema
    assert repr(stream.this) == repr(table_schema)
    assert [c.name for c in stream.this.expressions[:2]] == ["phone", "Who"]
    assert stream.this.this == table("votes")
    assert assert_round_trip(stream) == (
        'CREATE STREAM votes (phone BIGINT NOT NULL, "Who" INT, PRIMARY KEY (phone))')


def test_create_stream_options_and_if_not_exists() -> None:
    stream = one("CREATE STREAM IF NOT EXISTS app.s (bid INT, v TEXT) "
                 "WITH (Batch_Column = 'bid', other = X, \"Mixed\" = 'Y', n = 5, flag)")
    assert stream.args["exists"] is True
    assert stream.this.this == table("s", db="app")
    assert stream.args["options"] == {"batch_column": "bid", "other": "x", "Mixed": "Y",
                                      "n": "5", "flag": "true"}
    assert "WITH (batch_column = 'bid'" in assert_round_trip(stream)


@pytest.mark.parametrize("sql", [
    "CREATE STREAM s",
    "CREATE STREAM (a INT)",
    "CREATE STREAM s (a INT) WITH batch_column = 'bid'",
    "CREATE STREAM s (a INT) WITH (batch_column = 'bid'",
])
def test_create_stream_syntax_errors(sql: str) -> None:
    assert_syntax_error(sql)


# --- CREATE WINDOW ---------------------------------------------------------------


def test_rows_window() -> None:
    window = one("CREATE WINDOW Trending ON app.Validated ROWS 100 SLIDE 10 PARTITION BY Who")
    assert isinstance(window, x.CreateWindow)
    assert window.this == table("trending")
    assert window.args["stream"] == table("validated", db="app")
    assert window.args["rows"] is True
    assert window.args["size"] == exp.Literal.number(100)
    assert window.args["slide"] == exp.Literal.number(10)
    assert window.args["partition"] == "who"
    assert window.args.get("column") is None
    assert assert_round_trip(window) == (
        "CREATE WINDOW trending ON app.validated ROWS 100 SLIDE 10 PARTITION BY who")


def test_rows_window_without_slide_or_partition() -> None:
    window = one("CREATE WINDOW w ON s ROWS 5")
    assert window.args.get("slide") is None and window.args.get("partition") is None
    assert assert_round_trip(window) == "CREATE WINDOW w ON s ROWS 5"


def test_range_window_on_a_column() -> None:
    window = one('CREATE WINDOW w5 ON readings RANGE 300 SLIDE 60 ON "Ts"')
    assert window.args["rows"] is False
    assert window.args["size"] == exp.Literal.number(300)
    assert window.args["column"] == "Ts"
    assert assert_round_trip(window) == 'CREATE WINDOW w5 ON readings RANGE 300 SLIDE 60 ON "Ts"'


def test_range_window_with_intervals() -> None:
    window = one("CREATE WINDOW w ON s RANGE INTERVAL '5 minutes' SLIDE INTERVAL '1 minute' ON ts")
    assert isinstance(window.args["size"], exp.Interval)
    assert isinstance(window.args["slide"], exp.Interval)
    assert window.args["column"] == "ts"
    assert_round_trip(window)


@pytest.mark.parametrize("size", ["0", "-5"])
def test_non_positive_sizes_are_left_to_later_checks(size: str) -> None:
    window = one(f"CREATE WINDOW w ON s ROWS {size} SLIDE {size}")
    assert window.args["size"].sql() == size
    assert_round_trip(window)


@pytest.mark.parametrize("sql", [
    "CREATE WINDOW w ON s ROWS",
    "CREATE WINDOW w ON s",
    "CREATE WINDOW w s ROWS 10",
    "CREATE WINDOW w ON s ROWS 10 SLIDE",
    "CREATE WINDOW w ON s RANGE 300",
    "CREATE WINDOW w ON s RANGE 300 SLIDE 60",
    "CREATE WINDOW w ON s RANGE 300 PARTITION BY k ON ts",
    "CREATE WINDOW w ON s ROWS 10 ON ts",
    "CREATE WINDOW w ON s TUPLES 10",
])
def test_create_window_syntax_errors(sql: str) -> None:
    assert_syntax_error(sql)


# --- CREATE PROCEDURE ------------------------------------------------------------


def test_procedure_with_dollar_quoted_body() -> None:
    body = " INSERT INTO t SELECT * FROM s;\n DELETE FROM s; "
    procedure = one(f"CREATE PROCEDURE App.Validate() LANGUAGE SQL AS $${body}$$")
    assert isinstance(procedure, x.CreateProcedure)
    assert procedure.this == table("validate", db="app")
    assert procedure.expressions == []
    assert procedure.args["language"] == "sql"
    assert procedure.args["body"] == body
    assert procedure.args["atomic"] is False
    assert not procedure.args.get("replace")
    assert assert_round_trip(procedure) == (
        f"CREATE PROCEDURE app.validate() LANGUAGE sql AS $${body}$$")


def test_procedure_parameters() -> None:
    procedure = one("CREATE OR REPLACE PROCEDURE p(IN a INT, TEXT, \"B\" double precision "
                    "DEFAULT 1.5, c character varying(10) = 'x', d text[]) "
                    "LANGUAGE python AS 'pass'")
    assert procedure.args["replace"] is True
    assert procedure.args["language"] == "python"
    params = procedure.expressions
    assert all(isinstance(param, x.ProcedureParam) for param in params)
    assert [param.args.get("this") for param in params] == ["a", None, "B", "c", "d"]
    assert [param.args["kind"].sql(dialect="postgres") for param in params] == [
        "INT", "TEXT", "DOUBLE PRECISION", "VARCHAR(10)", "TEXT[]"]
    assert params[2].args["default"] == exp.Literal.number(1.5)
    assert params[3].args["default"] == exp.Literal.string("x")
    assert params[0].args.get("default") is None
    assert assert_round_trip(procedure).startswith(
        'CREATE OR REPLACE PROCEDURE p(a INT, TEXT, "B" DOUBLE PRECISION DEFAULT 1.5, ')


def test_language_may_follow_the_body_and_strings_are_unescaped() -> None:
    procedure = one("CREATE PROCEDURE p() AS 'SELECT ''it''''s''' LANGUAGE sql")
    assert procedure.args["body"] == "SELECT 'it''s'"
    assert procedure.args["language"] == "sql"
    assert_round_trip(procedure)


@pytest.mark.parametrize("body", ["SELECT '$$'", "x $$ y $body1$ z", "ends in $", "$"])
def test_printed_bodies_pick_a_dollar_tag_the_body_does_not_end(body: str) -> None:
    procedure = x.CreateProcedure(this=table("p"), language="sql", body=body, atomic=False)
    assert one(procedure.sql(dialect=SqlExt)).args["body"] == body
    assert_round_trip(procedure)


def test_begin_atomic_body_is_the_source_text() -> None:
    procedure = one("CREATE PROCEDURE p(a int)\nBEGIN ATOMIC\n"
                    "  INSERT INTO t VALUES (a);\n"
                    "  SELECT CASE WHEN a > 0 THEN 1 ELSE 0 END;\n"
                    "END")
    assert procedure.args["atomic"] is True
    assert procedure.args["language"] == "sql"
    assert procedure.args["body"] == (
        "INSERT INTO t VALUES (a);\n  SELECT CASE WHEN a > 0 THEN 1 ELSE 0 END;")
    assert assert_round_trip(procedure) == (
        "CREATE PROCEDURE p(a INT) LANGUAGE sql BEGIN ATOMIC INSERT INTO t VALUES (a);\n"
        "  SELECT CASE WHEN a > 0 THEN 1 ELSE 0 END; END")


def test_begin_atomic_with_language_and_line_comments() -> None:
    procedure = one("CREATE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC\n"
                    "  DELETE FROM t; -- clean up; END\nEND")
    assert procedure.args["body"] == "DELETE FROM t; -- clean up; END"
    assert_round_trip(procedure)


def test_empty_begin_atomic_body() -> None:
    procedure = one("CREATE PROCEDURE p() BEGIN ATOMIC END")
    assert procedure.args["body"] == ""
    assert assert_round_trip(procedure) == "CREATE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC END"


def test_semicolons_inside_begin_atomic_do_not_split_statements() -> None:
    statements = parse("CREATE PROCEDURE p() BEGIN ATOMIC INSERT INTO t VALUES (1); "
                       "DELETE FROM u; END; SELECT 1").statements
    assert len(statements) == 2
    procedure, select = statements
    assert isinstance(procedure, x.CreateProcedure)
    assert procedure.args["body"] == "INSERT INTO t VALUES (1); DELETE FROM u;"
    assert isinstance(select, exp.Select)


def test_several_atomic_procedures_in_one_text() -> None:
    statements = parse("SELECT 1; CREATE OR REPLACE PROCEDURE a() BEGIN ATOMIC "
                       "SELECT CASE 1 WHEN 1 THEN 2 END; END;\n"
                       "CREATE PROCEDURE b() BEGIN ATOMIC SELECT 2; END;").statements
    assert [type(s) for s in statements] == [exp.Select, x.CreateProcedure, x.CreateProcedure]
    assert statements[1].args["body"] == "SELECT CASE 1 WHEN 1 THEN 2 END;"
    assert statements[2].args["body"] == "SELECT 2;"


@pytest.mark.parametrize("sql", [
    "CREATE PROCEDURE p LANGUAGE sql AS 'x'",
    "CREATE PROCEDURE p() LANGUAGE sql",
    "CREATE PROCEDURE p() LANGUAGE sql AS",
    "CREATE PROCEDURE p(a int LANGUAGE sql AS 'x'",
    "CREATE PROCEDURE p() BEGIN ATOMIC SELECT 1;",
    "CREATE PROCEDURE p() BEGIN ATOMIC SELECT 1; END junk",
    "CREATE PROCEDURE p() LANGUAGE sql AS 'x' AS 'y'",
])
def test_create_procedure_syntax_errors(sql: str) -> None:
    assert_syntax_error(sql)


@pytest.mark.parametrize("sql", [
    "CREATE PROCEDURE p(a int) AS 'SELECT 1'",
    "CREATE PROCEDURE p() LANGUAGE python BEGIN ATOMIC SELECT 1; END",
])
def test_invalid_procedure_definitions(sql: str) -> None:
    assert error(sql).sqlstate == "42P13"


@pytest.mark.parametrize("mode", ["OUT", "INOUT", "VARIADIC"])
def test_only_in_parameters_are_supported(mode: str) -> None:
    assert_unsupported(f"CREATE PROCEDURE p({mode} a int) LANGUAGE sql AS 'SELECT 1'")


# --- CREATE TRIGGER --------------------------------------------------------------


@pytest.mark.parametrize("sql", [
    "CREATE TRIGGER T1 AFTER INSERT ON Votes EXECUTE PROCEDURE app.Validate()",
    "CREATE TRIGGER t1 AFTER INSERT ON votes FOR EACH STATEMENT EXECUTE FUNCTION app.validate()",
    "CREATE TRIGGER t1 AFTER INSERT ON votes FOR STATEMENT EXECUTE PROCEDURE app.validate ( )",
])
def test_pe_trigger(sql: str) -> None:
    trigger = one(sql)
    assert isinstance(trigger, x.CreateTrigger)
    assert trigger.this == "t1"
    assert trigger.args["event"] == "insert"
    assert trigger.args["target"] == table("votes")
    assert trigger.args["procedure"] == table("validate", db="app")
    assert trigger.args.get("body") is None
    assert assert_round_trip(trigger) == (
        "CREATE TRIGGER t1 AFTER INSERT ON votes EXECUTE PROCEDURE app.validate()")


def test_ee_triggers() -> None:
    trigger = one('CREATE TRIGGER "T2" AFTER INSERT ON validated '
                  "AS $$ INSERT INTO x VALUES (1); $$")
    assert trigger.this == "T2"
    assert trigger.args["body"] == " INSERT INTO x VALUES (1); "
    assert trigger.args.get("procedure") is None
    assert assert_round_trip(trigger) == (
        'CREATE TRIGGER "T2" AFTER INSERT ON validated AS $$ INSERT INTO x VALUES (1); $$')
    slide = one("CREATE TRIGGER t3 AFTER SLIDE ON trending AS 'DELETE FROM a; INSERT INTO b;'")
    assert slide.args["event"] == "slide"
    assert slide.args["target"] == table("trending")
    assert slide.args["body"] == "DELETE FROM a; INSERT INTO b;"
    assert_round_trip(slide)


@pytest.mark.parametrize("sql", [
    "CREATE TRIGGER t AFTER INSERT ON s FOR EACH ROW EXECUTE PROCEDURE p()",
    "CREATE TRIGGER t BEFORE INSERT ON s EXECUTE PROCEDURE p()",
    "CREATE TRIGGER t INSTEAD OF INSERT ON s EXECUTE PROCEDURE p()",
    "CREATE TRIGGER t AFTER UPDATE ON s EXECUTE PROCEDURE p()",
    "CREATE TRIGGER t AFTER DELETE ON s AS 'SELECT 1'",
    "CREATE TRIGGER t AFTER INSERT OR UPDATE ON s EXECUTE PROCEDURE p()",
    "CREATE TRIGGER t AFTER INSERT ON s EXECUTE PROCEDURE p('arg')",
    "CREATE OR REPLACE TRIGGER t AFTER INSERT ON s EXECUTE PROCEDURE p()",
])
def test_unsupported_triggers(sql: str) -> None:
    assert_unsupported(sql)


@pytest.mark.parametrize("sql", [
    "CREATE TRIGGER t AFTER INSERT ON s",
    "CREATE TRIGGER t INSERT ON s AS 'x'",
    "CREATE TRIGGER t AFTER INSERT s AS 'x'",
    "CREATE TRIGGER t AFTER SELECT ON s AS 'x'",
    "CREATE TRIGGER t AFTER INSERT ON s EXECUTE PROCEDURE p",
    "CREATE TRIGGER t AFTER INSERT ON s EXECUTE p()",
    "CREATE TRIGGER t AFTER INSERT ON s AS x",
    "CREATE TRIGGER t AFTER INSERT ON s FOR EACH EXECUTE PROCEDURE p()",
    "CREATE TRIGGER s.t AFTER INSERT ON s AS 'x'",
])
def test_create_trigger_syntax_errors(sql: str) -> None:
    assert_syntax_error(sql)


# --- DROP ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["stream", "window", "trigger", "procedure"])
def test_drop_dataflow_objects(kind: str) -> None:
    drop = one(f"DROP {kind.upper()} IF EXISTS A, app.B CASCADE")
    assert isinstance(drop, x.DropDataflow)
    assert drop.args["kind"] == kind
    assert drop.expressions == [table("a"), table("b", db="app")]
    assert drop.args["exists"] is True and drop.args["cascade"] is True
    assert assert_round_trip(drop) == f"DROP {kind.upper()} IF EXISTS a, app.b CASCADE"
    plain = one(f"drop {kind} a restrict")
    assert plain.args["exists"] is False and plain.args["cascade"] is False
    assert assert_round_trip(plain) == f"DROP {kind.upper()} a"


def test_drop_procedure_ignores_argument_types() -> None:
    drop = one("DROP PROCEDURE p(int, text), q(), r(IN a int)")
    assert drop.expressions == [table("p"), table("q"), table("r")]


def test_drop_trigger_ignores_the_table() -> None:
    drop = one("DROP TRIGGER IF EXISTS t ON app.votes")
    assert drop.expressions == [table("t")] and drop.args["exists"] is True


@pytest.mark.parametrize("sql", [
    "DROP STREAM", "DROP WINDOW w,", "DROP STREAM s t", "DROP PROCEDURE p(int",
    "DROP TRIGGER t ON",
])
def test_drop_syntax_errors(sql: str) -> None:
    assert_syntax_error(sql)


@pytest.mark.parametrize("sql", [
    "DROP TABLE IF EXISTS t CASCADE", "DROP VIEW v", "DROP INDEX i", "DROP SEQUENCE q",
])
def test_other_drops_are_still_sqlglots(sql: str) -> None:
    assert isinstance(one(sql), exp.Drop)


def test_other_creates_and_alters_are_still_sqlglots() -> None:
    assert isinstance(one("CREATE TABLE t (a int)"), exp.Create)
    assert isinstance(one("CREATE OR REPLACE VIEW v AS SELECT 1"), exp.Create)
    assert isinstance(one("ALTER TABLE t ADD COLUMN b int"), exp.Alter)


# --- CALL and ALTER PROCEDURE ... RESUME ------------------------------------------


def test_call_arguments_are_expressions() -> None:
    call = one("CALL App.Vote(1, $1, '2'::int, 3 * 4, 'x')")
    assert isinstance(call, x.Call)
    assert call.this == table("vote", db="app")
    first, placeholder, cast, product, text = call.expressions
    assert first == exp.Literal.number(1)
    assert isinstance(placeholder, exp.Parameter)
    assert isinstance(cast, exp.Cast) and isinstance(product, exp.Mul)
    assert text == exp.Literal.string("x")
    assert assert_round_trip(call) == "CALL app.vote(1, $1, CAST('2' AS INT), 3 * 4, 'x')"


def test_call_without_arguments() -> None:
    call = one("call p()")
    assert call.this == table("p") and call.expressions == []
    assert assert_round_trip(call) == "CALL p()"


@pytest.mark.parametrize("sql", ["CALL", "CALL p", "CALL p(1", "CALL p(1,)"])
def test_call_syntax_errors(sql: str) -> None:
    assert_syntax_error(sql)


def test_resume_procedure() -> None:
    resume = one("ALTER PROCEDURE App.P RESUME")
    assert isinstance(resume, x.ResumeProcedure)
    assert resume.this == table("p", db="app")
    assert assert_round_trip(resume) == "ALTER PROCEDURE app.p RESUME"


def test_other_alter_procedure_statements_are_not_supported() -> None:
    assert_unsupported("ALTER PROCEDURE p RENAME TO q")


def test_statements_in_one_text_keep_their_kinds() -> None:
    statements = parse("CREATE STREAM s (a int); CREATE WINDOW w ON s ROWS 2; "
                       "CREATE TRIGGER t AFTER SLIDE ON w AS 'SELECT 1'; CALL p(1); "
                       "DROP STREAM s").statements
    assert [type(s) for s in statements] == [
        x.CreateStream, x.CreateWindow, x.CreateTrigger, x.Call, x.DropDataflow]
