"""Every SQL function is declared once, with an implementation SQLite can call.

The declarations (``executor.functions``) are checked against a real
database with everything registered: each declared function's target exists,
either as one of ours or as a SQLite built-in; every function the engine's
own SQL calls by name is registered; and no SQLite name a snapshot may hold
(in a view, a trigger or a materialized view's program) has gone away.
"""

from __future__ import annotations

import ast
import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from catalog.schema import Catalog
from catalog.system import system_relations
from executor.core import Executor
from executor.functions.declare import Declarations, Runtime
from executor.functions.registry import FUNCTIONS, implementations, register_functions
from executor.streaming.scheduler import Scheduler
from executor.streaming.windows import Windows
from sqlext.dataflow.rebuild import DataflowText
from sqlext.session.exported_snapshots import SnapshotHolders
from storage.sqlite import Database

ROOT: Final = Path(__file__).resolve().parents[2]
_CALLED: Final = re.compile(r"\b(sqlext_[a-z0-9_]+)\(")
NOT_FUNCTIONS: Final = frozenset({"sqlext_copies"})
"""Names followed by "(" in the engine's SQL that are not calls (a CTE)."""

STORED_NAMES: Final = frozenset({
    "sqlext_accept_batch", "sqlext_array_cat", "sqlext_array_lower", "sqlext_array_position",
    "sqlext_array_remove", "sqlext_array_to_string", "sqlext_array_upper",
    "sqlext_assign_char", "sqlext_average", "sqlext_backend_pid", "sqlext_batch_of",
    "sqlext_bytea_json", "sqlext_cancel_backend", "sqlext_cardinality",
    "sqlext_char_to_encoding", "sqlext_chr", "sqlext_clock_timestamp",
    "sqlext_col_description", "sqlext_concat", "sqlext_concat_ws", "sqlext_convert",
    "sqlext_current_database", "sqlext_current_date",
    "sqlext_current_schema", "sqlext_current_schemas", "sqlext_current_setting",
    "sqlext_current_time", "sqlext_current_user", "sqlext_currval", "sqlext_datetime_arith",
    "sqlext_decode", "sqlext_div", "sqlext_drain", "sqlext_empty", "sqlext_encode",
    "sqlext_encoding_to_char", "sqlext_extract", "sqlext_false", "sqlext_format_type",
    "sqlext_function_arguments", "sqlext_gen_random_uuid", "sqlext_get_constraintdef",
    "sqlext_get_indexdef", "sqlext_get_serial_sequence", "sqlext_get_userbyid",
    "sqlext_get_viewdef", "sqlext_greatest", "sqlext_initcap", "sqlext_json_contains",
    "sqlext_json_get", "sqlext_json_has_key", "sqlext_json_number", "sqlext_json_typeof",
    "sqlext_least", "sqlext_left", "sqlext_listening_channels", "sqlext_localtimestamp",
    "sqlext_lpad", "sqlext_md5", "sqlext_mod", "sqlext_nextval", "sqlext_no", "sqlext_nothing",
    "sqlext_notify", "sqlext_now", "sqlext_numeric_add", "sqlext_numeric_avg",
    "sqlext_numeric_quotient", "sqlext_numeric_sum", "sqlext_obj_description",
    "sqlext_octet_length", "sqlext_pg_get_expr", "sqlext_postmaster_start_time",
    "sqlext_quote_ident", "sqlext_quote_literal", "sqlext_random", "sqlext_reg_name",
    "sqlext_regex_match", "sqlext_regexp_replace", "sqlext_reload_conf", "sqlext_repeat",
    "sqlext_reverse", "sqlext_right", "sqlext_round", "sqlext_row_count", "sqlext_rpad",
    "sqlext_same", "sqlext_series_step", "sqlext_settings", "sqlext_setval",
    "sqlext_size_pretty", "sqlext_split_part", "sqlext_starts_with",
    "sqlext_statement_timestamp", "sqlext_stddev_pop", "sqlext_stddev_samp",
    "sqlext_string_to_array", "sqlext_table_is_visible", "sqlext_terminate_backend",
    "sqlext_trunc", "sqlext_txid_current", "sqlext_var_pop", "sqlext_var_samp",
    "sqlext_version", "sqlext_yes", "sqlext_zero",
})
"""Our SQLite function names when the declarations were brought together:
snapshots written since may call any of them."""


class _NoSessions:
    def cancel(self, process_id: int) -> bool:
        return False

    def terminate(self, process_id: int) -> bool:
        return False


@pytest.fixture(scope="module")
def registered() -> Iterator[set[str]]:
    """The names of every function a database with ours registered has."""
    loop = asyncio.new_event_loop()
    database = Database()
    executor = Executor(database, Catalog().with_relations(system_relations()),
                        loop.create_future)
    scheduler = Scheduler(executor, lambda *_: None, lambda: None,
                          Windows(executor.database, executor.undo))
    register_functions(database, Runtime(executor, scheduler, "version", lambda: True,
                                         _NoSessions(), lambda _: [], DataflowText(),
                                         SnapshotHolders(loop, lambda *_: None)))
    yield {name for (name,) in database.execute("SELECT name FROM pragma_function_list")}
    database.close()
    loop.close()


def test_every_declared_function_has_an_implementation(registered: set[str]) -> None:
    missing = sorted(f"{name} -> {target}" for name, definition in FUNCTIONS.items()
                     for target in (definition.target, definition.numeric_target)
                     if target is not None and target not in registered)
    assert missing == []


def test_every_implementation_is_registered_once(registered: set[str]) -> None:
    names = [implementation.sqlite_name for implementation, _ in implementations()]
    assert len(names) == len(set(names))
    assert set(names) <= registered


def _called_in_source() -> Iterator[tuple[str, str]]:
    """(function name, module) for every sqlext_* function the engine's own
    SQL calls: in SQL text, and as the name of a call node it builds."""
    for package in ("sqlext", "executor"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    for name in _CALLED.findall(node.value):
                        yield name, str(path.relative_to(ROOT))
                if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Anonymous":
                    for keyword in node.keywords:
                        for constant in ast.walk(keyword.value):
                            if isinstance(constant, ast.Constant) and str(
                                    constant.value).startswith("sqlext_"):
                                yield str(constant.value), str(path.relative_to(ROOT))


def test_every_function_the_engine_calls_is_declared(registered: set[str]) -> None:
    called = list(_called_in_source())
    assert len(called) > 20  # the scan finds what it looks for
    assert sorted({f"{name} ({where})" for name, where in called
                   if name not in registered and name not in NOT_FUNCTIONS}) == []


def test_no_function_a_snapshot_may_call_has_gone(registered: set[str]) -> None:
    assert sorted(STORED_NAMES - registered) == []


def test_a_function_is_declared_once() -> None:
    family = Declarations()
    family.builtin("lower", FUNCTIONS["lower"].result, "lower")
    with pytest.raises(ValueError, match="function lower is declared twice"):
        family.builtin("lower", FUNCTIONS["lower"].result, "lower")
