"""Types and SQLite targets of PostgreSQL's catalog information functions
(implemented in ``executor.functions.catalog_info``)."""

from __future__ import annotations

from typing import Final

from catalog import types as t
from catalog.sqltypes import BOOL, INT8, NAME, OID, TEXT, TIMESTAMPTZ, SqlType
from executor.functions.signatures import FunctionDef


def _f(result: SqlType, target: str, *args: SqlType | None, min_args: int = 0,
       max_args: int | None = None) -> FunctionDef:
    return FunctionDef(result, target, args, min_args, max_args)


_PRIVILEGE = _f(BOOL, "sqlext_yes", TEXT, min_args=1, max_args=4)
_NOTHING_TEXT = _f(TEXT, "sqlext_nothing", OID, TEXT, min_args=1, max_args=3)
_DESCRIPTION = _f(TEXT, "sqlext_obj_description", OID, NAME, min_args=2, max_args=2)

CATALOG_FUNCTIONS: Final[dict[str, FunctionDef]] = {
    "format_type": _f(TEXT, "sqlext_format_type", OID, SqlType(t.INT4), min_args=2,
                      max_args=2),
    "pg_get_expr": _f(TEXT, "sqlext_pg_get_expr", TEXT, OID, BOOL, min_args=2, max_args=3),
    "pg_table_is_visible": _f(BOOL, "sqlext_table_is_visible", OID, min_args=1, max_args=1),
    "pg_type_is_visible": _f(BOOL, "sqlext_yes", OID, min_args=1, max_args=1),
    "pg_function_is_visible": _f(BOOL, "sqlext_yes", OID, min_args=1, max_args=1),
    "pg_conversion_is_visible": _f(BOOL, "sqlext_yes", OID, min_args=1, max_args=1),
    "pg_opclass_is_visible": _f(BOOL, "sqlext_yes", OID, min_args=1, max_args=1),
    "pg_opfamily_is_visible": _f(BOOL, "sqlext_yes", OID, min_args=1, max_args=1),
    "pg_get_userbyid": _f(NAME, "sqlext_get_userbyid", OID, min_args=1, max_args=1),
    "pg_encoding_to_char": _f(NAME, "sqlext_encoding_to_char", SqlType(t.INT4), min_args=1,
                              max_args=1),
    "pg_char_to_encoding": _f(SqlType(t.INT4), "sqlext_char_to_encoding", NAME, min_args=1,
                              max_args=1),
    "pg_get_indexdef": _f(TEXT, "sqlext_get_indexdef", OID, SqlType(t.INT4), BOOL,
                          min_args=1, max_args=3),
    "pg_get_constraintdef": _f(TEXT, "sqlext_get_constraintdef", OID, BOOL, min_args=1,
                               max_args=2),
    "pg_get_viewdef": _f(TEXT, "sqlext_get_viewdef", OID, BOOL, min_args=1, max_args=2),
    "pg_get_serial_sequence": _f(TEXT, "sqlext_get_serial_sequence", TEXT, TEXT, min_args=2,
                                 max_args=2),
    "pg_get_function_result": _NOTHING_TEXT,
    "pg_get_function_arguments": _f(TEXT, "sqlext_function_arguments", OID, min_args=1,
                                    max_args=1),
    "pg_get_function_identity_arguments": _f(TEXT, "sqlext_function_arguments", OID,
                                             min_args=1, max_args=1),
    "pg_get_statisticsobjdef_columns": _NOTHING_TEXT,
    "pg_get_partkeydef": _NOTHING_TEXT,
    "pg_get_triggerdef": _NOTHING_TEXT,
    "pg_get_ruledef": _NOTHING_TEXT,
    "pg_get_function_sqlbody": _NOTHING_TEXT,
    "obj_description": _DESCRIPTION,
    "col_description": _f(TEXT, "sqlext_col_description", OID, SqlType(t.INT4), min_args=2,
                          max_args=2),
    "shobj_description": _DESCRIPTION,
    "pg_relation_is_publishable": _f(BOOL, "sqlext_no", OID, min_args=1, max_args=1),
    "pg_is_other_temp_schema": _f(BOOL, "sqlext_no", OID, min_args=1, max_args=1),
    "pg_my_temp_schema": _f(OID, "sqlext_zero", max_args=0),
    "has_table_privilege": _PRIVILEGE,
    "has_schema_privilege": _PRIVILEGE,
    "has_database_privilege": _PRIVILEGE,
    "has_column_privilege": _PRIVILEGE,
    "has_function_privilege": _PRIVILEGE,
    "has_sequence_privilege": _PRIVILEGE,
    "pg_has_role": _PRIVILEGE,
    "pg_relation_size": _f(INT8, "sqlext_zero", OID, TEXT, min_args=1, max_args=2),
    "pg_total_relation_size": _f(INT8, "sqlext_zero", OID, min_args=1, max_args=1),
    "pg_table_size": _f(INT8, "sqlext_zero", OID, min_args=1, max_args=1),
    "pg_indexes_size": _f(INT8, "sqlext_zero", OID, min_args=1, max_args=1),
    "pg_database_size": _f(INT8, "sqlext_zero", NAME, min_args=1, max_args=1),
    "pg_tablespace_location": _f(TEXT, "sqlext_empty", OID, min_args=1, max_args=1),
    "pg_size_pretty": _f(TEXT, "sqlext_size_pretty", INT8, min_args=1, max_args=1),
    "pg_postmaster_start_time": _f(TIMESTAMPTZ, "sqlext_postmaster_start_time", max_args=0),
    # No table is partitioned, so a table's partition ancestry is itself.
    "pg_partition_ancestors": _f(SqlType(t.REGCLASS), "sqlext_same", SqlType(t.REGCLASS),
                                 min_args=1, max_args=1),
    "pg_partition_root": _f(SqlType(t.REGCLASS), "sqlext_same", SqlType(t.REGCLASS),
                            min_args=1, max_args=1),
}
