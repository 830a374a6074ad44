"""ACLs: how GRANT and REVOKE change them (acl.c's rules), how they print,
and how the ACLs of snapshots written by older servers load."""

from __future__ import annotations

from dataclasses import astuple, fields

import pytest

from catalog import errors
from catalog import types as t
from catalog.acl import AclEdit, AclItem, default_acl
from catalog.dataflow import Procedure
from catalog.roles import Membership, Role
from catalog.schema import Catalog, Column, Relation, Schema

OWNER = "owner"


def _catalog() -> Catalog:
    catalog = Catalog()
    for oid, name in enumerate(("owner", "alice", "bob", "carol", "team"), start=20000):
        catalog = catalog.with_role(Role(oid, name))
    return catalog.with_membership(Membership("team", "carol", "postgres"))


def _text(acl: tuple[AclItem, ...]) -> list[str]:
    return [item.text() for item in acl]


def _edit(acl: tuple[AclItem, ...], grantor: str, privileges: str, grantees: tuple[str, ...],
          grant: bool = True, option: bool = False, cascade: bool = False
          ) -> tuple[AclItem, ...]:
    catalog = _catalog()
    return AclEdit(grantor, privileges, grant, option, cascade).apply(acl, grantees, OWNER,
                                                                     catalog.holder)


def test_grants_add_items_and_print_as_aclitem() -> None:
    acl = default_acl("relation", OWNER)
    acl = _edit(acl, OWNER, "ar", ("alice",), option=True)
    acl = _edit(acl, "alice", "r", ("bob", ""))
    acl = _edit(acl, OWNER, "w", ("alice",))
    assert _text(acl) == ["owner=arwdDxt/owner", "alice=a*r*w/owner", "bob=r/alice",
                          "=r/alice"]
    assert _text(default_acl("procedure", "Mixed Case")) == [
        '=X/"Mixed Case"', '"Mixed Case"=X/"Mixed Case"']
    with pytest.raises(errors.InvalidGrantOperation, match="only be granted to roles"):
        _edit(acl, OWNER, "r", ("",), option=True)


def test_revoking_a_grant_option_takes_the_grants_made_with_it() -> None:
    acl = _edit(default_acl("relation", OWNER), OWNER, "r", ("alice",), option=True)
    acl = _edit(acl, "alice", "r", ("bob",), option=True)
    acl = _edit(acl, "bob", "r", ("alice", "carol"))
    with pytest.raises(errors.DependentObjectsStillExist, match="dependent privileges exist"):
        _edit(acl, OWNER, "r", ("alice",), grant=False)
    assert _text(_edit(acl, OWNER, "r", ("alice",), grant=False, option=True, cascade=True)) == [
        "owner=arwdDxt/owner", "alice=r/owner"]
    assert _text(_edit(acl, OWNER, "r", ("alice",), grant=False, cascade=True)) == [
        "owner=arwdDxt/owner"]


def test_a_grant_option_held_another_way_keeps_the_grants() -> None:
    """carol holds SELECT WITH GRANT OPTION from two grantors (one through
    her role team): losing one leaves what she granted."""
    acl = _edit(default_acl("relation", OWNER), OWNER, "r", ("carol", "team"), option=True)
    acl = _edit(acl, "carol", "r", ("bob",))
    assert _text(_edit(acl, OWNER, "r", ("carol",), grant=False)) == [
        "owner=arwdDxt/owner", "team=r*/owner", "bob=r/carol"]


def _old_state(instance: object, acl: object, dropped: int) -> tuple[object, ...]:
    """``instance``'s pickled state as a server before this one wrote it:
    its ``dropped`` newest fields missing, its ACL as (grantee, letters)."""
    names = [f.name for f in fields(instance)]  # type: ignore[arg-type]
    values = dict(zip(names, astuple(instance), strict=True)) | {"acl": acl}
    return tuple(values[name] for name in names[:len(names) - dropped])


def test_catalog_values_of_older_snapshots_load_upgraded() -> None:
    column = Column("a", t.INT4)
    old_column = Column.__new__(Column)
    old_column.__setstate__(_old_state(column, (), dropped=1))
    assert old_column == column
    relation = Relation(16500, "public", "t", "r", "t", (column,), owner="alice")
    old = Relation.__new__(Relation)
    old.__setstate__(_old_state(relation, (("alice", "arwdD"), ("bob", "r")), dropped=1))
    assert _text(old.acl or ()) == ["alice=arwdDxt/alice", "bob=r/alice"]
    assert old.rule is None  # written before views recorded what they read
    procedure = Procedure(16501, "public", "p", (), "sql", "SELECT 1", owner="alice")
    old_procedure = Procedure.__new__(Procedure)
    old_procedure.__setstate__(_old_state(procedure, (("alice", "X"), ("", "X")), dropped=0))
    assert _text(old_procedure.acl or ()) == ["alice=X/alice", "=X/alice"]
    loaded = Catalog().with_user_objects({
        "schemas": {"public": 2200, "pg_catalog": 11, "information_schema": 13000,
                    "reports": 16502},
        "relations": [], "sequences": [], "procedures": [], "triggers": [], "next_oid": 16503})
    assert loaded.schemas["reports"] == Schema(16502)
    assert _text(loaded.schemas["public"].acl or ()) == [
        "pg_database_owner=UC/pg_database_owner", "=U/pg_database_owner"]
