"""System-table rows are written by column name (``executor.pg_catalog.rows``):
a name the table lacks fails at once, and every row the catalog refresh
writes is as wide as its table (no server: a catalog made by hand)."""

from __future__ import annotations

from itertools import chain

import pytest

from catalog import types as t
from catalog.acl import AclItem
from catalog.dataflow import Parameter, Procedure, Trigger
from catalog.extension import Extension
from catalog.roles import Membership, Role
from catalog.schema import Catalog, Column, Constraint, Relation, Schema, Sequence, ViewRule
from catalog.system import INFORMATION_SCHEMA_TABLES, SYSTEM_TABLES, columns_of, system_relations
from executor.pg_catalog.information_schema import column_rows, information_schema_rows
from executor.pg_catalog.rows import Row, RowsOfRelation, row, select_list
from executor.pg_catalog.tables import _column_attribute_rows, _dynamic_rows, _static_rows

SPECS = {**SYSTEM_TABLES, **INFORMATION_SCHEMA_TABLES}


def test_system_table_names_are_unique_across_schemas() -> None:
    """``row`` finds a table by name alone."""
    assert not SYSTEM_TABLES.keys() & INFORMATION_SCHEMA_TABLES.keys()


@pytest.mark.parametrize("table", ["pg_class", "pg_stat_activity", "columns"])
def test_a_column_the_table_lacks_fails_at_once(table: str) -> None:
    with pytest.raises(TypeError, match=f"system table {table} has no column 'relfoo'"):
        row(table, relfoo=1)
    with pytest.raises(TypeError, match=f"system table {table} has no column 'relfoo'"):
        select_list(table, relfoo="1")


def _named(table: str, values: tuple[object, ...]) -> dict[str, object]:
    return dict(zip((name for name, _ in columns_of(SPECS[table])), values, strict=True))


def test_values_land_in_their_columns_the_rest_hold_their_nothing_value() -> None:
    pg_class = _named("pg_class", row("pg_class", relname="t", relacl="[]"))
    assert (pg_class["relname"], pg_class["relacl"]) == ("t", "[]")
    assert (pg_class["oid"], pg_class["relnatts"], pg_class["reltuples"],
            pg_class["relhasindex"], pg_class["relkind"], pg_class["reloptions"]) == (
        0, 0, 0.0, False, "", None)
    assert _named("pg_type", row("pg_type"))["typanalyze"] == "-"
    # a view holds NULL where nothing is given
    assert _named("pg_stat_activity", row("pg_stat_activity", pid=7)) == {
        name: 7 if name == "pid" else None for name, _ in columns_of(SPECS["pg_stat_activity"])}


def test_a_select_list_spells_nothing_values_as_sql() -> None:
    assert select_list("pg_am", amname="'x'") == "0, 'x', '-', ''"
    assert select_list("pg_tablespace", oid="1") == "1, NULL, 0, NULL, NULL"
    assert select_list("pg_tables", hasindexes="1") == "NULL, NULL, NULL, NULL, 1, NULL, NULL, NULL"


def _catalog() -> Catalog:
    """A table with every kind of constraint, a serial column, a DESC index,
    a view, a materialized view, a sequence, a procedure, a login role that
    is a member of another, a column privilege, a comment, a trigger and the
    extension sqlext."""
    customers = Relation(
        20001, "public", "customers", "r", "public__customers",
        (Column("id", t.INT4, not_null=True, default="nextval('customers_id_seq'::regclass)"),
         Column("email", t.VARCHAR, typmod=124, not_null=True), Column("score", t.NUMERIC)),
        (Constraint("customers_pkey", "p", ("id",), index_name="customers_pkey", oid=20010),
         Constraint("customers_email_key", "u", ("email",), index_name="customers_email_key",
                    oid=20011),
         Constraint("customers_score_check", "c", check="(score >= 0)", oid=20012)),
        comment="who buys")
    orders = Relation(
        20002, "public", "orders", "r", "public__orders",
        (Column("id", t.INT8),
         Column("customer", t.INT4, acl=(AclItem("alice", "postgres", "r"),))),
        (Constraint("orders_customer_fkey", "f", ("customer",), ref_table=("public", "customers"),
                    ref_columns=("id",), oid=20013, on_delete="CASCADE"),),
        partition_key="customer")
    relations = [
        customers, orders,
        Relation(20003, "public", "customers_pkey", "i", "public__customers_pkey",
                 index_table="customers", index_columns=("id",), unique=True, primary=True),
        Relation(20004, "public", "customers_email_key", "i", "public__customers_email_key",
                 index_table="customers", index_columns=("email",), unique=True),
        Relation(20005, "public", "orders_desc", "i", "public__orders_desc",
                 definition="CREATE INDEX orders_desc ON public.orders USING btree (id DESC)",
                 index_table="orders", index_columns=("id",)),
        Relation(20006, "public", "big", "v", "public__big", (Column("id", t.INT8),),
                 definition="SELECT id FROM orders",
                 rule=ViewRule(20016, ((20002, ("id",)),))),
        Relation(20007, "public", "totals", "m", "public__totals", (Column("n", t.INT8),),
                 definition="SELECT count(*) AS n FROM orders",
                 rule=ViewRule(20017, ((20002, ()),))),
    ]
    return (Catalog().with_relations(system_relations()).with_relations(relations)
            .with_sequence(Sequence(20008, "public", "customers_id_seq",
                                    owned_by=("customers", "id")))
            .with_sequence(Sequence(20009, "public", "tickets", start=100, increment=5))
            .with_procedure(Procedure(20014, "public", "transfer",
                                      (Parameter("amount", t.INT4, default="10"),), "sql",
                                      "SELECT 1"))
            .with_relation(Relation(20021, "sqlext", "dataflow", "r", "sqlext.dataflow",
                                    (Column("position", t.INT4), Column("definition", t.TEXT))))
            .with_schema("sqlext", Schema(20022))
            .with_extension(Extension(20020, "0.1.0", 20021, owns_schema=True))
            .with_trigger(Trigger(20023, "public", "audit", "insert", ("public", "orders"),
                                  body="SELECT 1"))
            .with_role(Role(20015, "alice", login=True, password="md5x"))
            .with_role(Role(20016, "readers"))
            .with_membership(Membership("readers", "alice", "postgres")))


def test_every_row_the_refresh_writes_is_as_wide_as_its_table() -> None:
    catalog = _catalog()
    filled = dict(chain(_static_rows(),
                        _dynamic_rows(catalog, RowsOfRelation(_column_attribute_rows)),
                        information_schema_rows(catalog, RowsOfRelation(column_rows))))
    assert filled.keys() <= SPECS.keys()
    for table, rows in filled.items():
        assert rows, f"{table}: no rows, nothing checked"
        width = len(columns_of(SPECS[table]))
        assert {len(r) for r in rows} == {width}, table


def test_rows_of_a_relation_are_built_again_only_when_it_changed() -> None:
    built: list[str] = []

    def build(relation: Relation) -> list[Row]:
        built.append(relation.name)
        return [(relation.oid, len(relation.columns))]

    memo = RowsOfRelation(build)
    table = Relation(30001, "public", "t", "r", "t", (Column("a", t.INT4),))
    memo.begin()
    assert memo.of(table) == [(30001, 1)]
    memo.begin()
    assert memo.of(table) == [(30001, 1)] and built == ["t"]
    altered = Relation(30001, "public", "t", "r", "t", (Column("a", t.INT4), Column("b", t.TEXT)))
    memo.begin()
    assert memo.of(altered) == [(30001, 2)] and built == ["t", "t"]
