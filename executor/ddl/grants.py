"""GRANT and REVOKE of privileges on relations (and their columns),
procedures and schemas: changes of the catalog only.

As PostgreSQL's ``aclchk.c`` does it. The role that runs the statement
acts as a grantor: the owner for the owner and superusers, otherwise
itself or a role it is a member of, whichever holds grant options for most
of the privileges (``_grantor``). Only what the grantor holds the grant
option for is granted or revoked; what is left out is a WARNING, and a
grantor with no privilege at all on the object gets 42501. A REVOKE of
privileges on a relation revokes them on each of its columns as well.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from catalog import acl as acls
from catalog import errors
from catalog.acl import Acl, AclEdit
from catalog.dataflow import Procedure
from catalog.roles import permission_denied
from catalog.schema import Catalog, Column, Relation
from executor.ddl.relations import DdlResult

_SYSTEM_COLUMNS = ("tableoid", "cmax", "xmax", "cmin", "xmin", "ctid")
"""What PostgreSQL revokes on besides a table's columns (warnings name them)."""
_COLUMN_LETTERS = acls.ALL_PRIVILEGES["column"]


@dataclass(frozen=True, slots=True)
class GrantPrivileges:
    kind: str
    """'relation', 'procedure' or 'schema'."""
    objects: tuple[tuple[str, str], ...]
    """(schema, name) of each relation or procedure; of a schema, (name, '')."""
    privileges: str
    """Privileges on the objects themselves (letters, see ``catalog.acl``)."""
    grantees: tuple[str, ...]
    """Role names, '' for PUBLIC (CURRENT_USER and the like resolved, see
    ``access_control``)."""
    columns: tuple[tuple[str, str], ...] = ()
    """(column, letters) granted on single columns of a relation."""
    revoke: bool = False
    option: bool = False
    """GRANT: WITH GRANT OPTION; REVOKE: GRANT OPTION FOR."""
    cascade: bool = False
    all_privileges: bool = False
    """ALL [PRIVILEGES] was asked for (then nothing left out is warned of)."""
    grantor: str | None = None
    """GRANTED BY, which may only name the role running the statement."""


@dataclass
class _Grant:
    """One GRANT or REVOKE being applied, as the role ``acting``."""

    spec: GrantPrivileges
    catalog: Catalog
    acting: str
    warnings: list[tuple[str, str]]

    def edit(self, acl: Acl | None, kind: str, owner: str, privileges: str,
             all_privileges: bool, denied: errors.SqlError, subject: str,
             basis: Acl = ()) -> Acl:
        """``acl`` (of an object of ``kind``) after the statement; ``denied``
        is raised when the grantor may do nothing with the object, and
        ``subject`` is how warnings name it. ``basis`` are grants that count
        towards the grant options (a column's relation's)."""
        catalog, spec = self.catalog, self.spec
        current = acls.effective(acl, kind, owner)
        grantor, available = self._grantor(basis + current, kind, owner, privileges)
        if not available:
            held = catalog.privileges(grantor, current, kind, owner)
            whole = catalog.privileges(grantor, basis, "relation", owner) if basis else ("", "")
            if not any(held + whole):
                raise denied
        applied = acls.ordered(c for c in privileges if c in available)
        if not applied or (not all_privileges and applied != privileges):
            self._warn(subject, none=not applied)
        return AclEdit(grantor, applied, not spec.revoke, spec.option, spec.cascade).apply(
            current, spec.grantees, owner, catalog.holder)

    def _grantor(self, acl: Acl, kind: str, owner: str, privileges: str) -> tuple[str, str]:
        """Who grants, and the grant options it has among ``privileges``
        (PostgreSQL's ``select_best_grantor``)."""
        role, catalog = self.acting, self.catalog
        if role == owner or catalog.is_superuser(role):
            return owner, privileges
        everything = acls.ALL_PRIVILEGES[kind]
        best, best_options = role, ""
        for candidate in (role, *catalog.member_of(role)):
            options = acls.ordered(c for c in acls.direct_options(acl, candidate, owner,
                                                                  everything)
                                   if c in privileges)
            if options == privileges:
                return candidate, options
            if len(options) > len(best_options):
                best, best_options = candidate, options
        return best, best_options

    def _warn(self, subject: str, none: bool) -> None:
        if self.spec.revoke:
            code, verb = "01006", "could be revoked"
        else:
            code, verb = "01007", "were granted"
        self.warnings.append((code, f"{'no' if none else 'not all'} privileges {verb} "
                                    f"for {subject}"))

    def relation(self, relation: Relation) -> Relation:
        spec = self.spec
        acl = relation.acl
        if spec.privileges:
            acl = self.edit(acl, "relation", relation.owner, spec.privileges,
                            spec.all_privileges, permission_denied(relation.kind_name,
                                                                   relation.name),
                            f'"{relation.name}"')
        on_columns = dict(spec.columns)
        for name in on_columns:
            relation.column(name)  # 42703 for a column it does not have
        implied = acls.ordered(c for c in spec.privileges if c in _COLUMN_LETTERS)
        if spec.revoke and implied:
            for name in _SYSTEM_COLUMNS if relation.kind in ("r", "m") else ():
                self._system_column(relation, name, implied)
            on_columns = {c.name: acls.ordered(implied + on_columns.get(c.name, ""))
                          for c in relation.columns}
        columns = tuple(self._column(relation, column, on_columns[column.name])
                        if column.name in on_columns else column
                        for column in relation.columns)
        return replace(relation, acl=acl, columns=columns)

    def _column(self, relation: Relation, column: Column, letters: str) -> Column:
        """``column`` after the statement; the grant options held on its
        relation (as it was before the statement) count as well."""
        subject = f'column "{column.name}" of relation "{relation.name}"'
        acl = self.edit(column.acl, "column", relation.owner, letters,
                        letters == _COLUMN_LETTERS,
                        errors.InsufficientPrivilege(f"permission denied for {subject}"),
                        subject, acls.effective(relation.acl, "relation", relation.owner))
        return replace(column, acl=acl)

    def _system_column(self, relation: Relation, name: str, letters: str) -> None:
        """A system column has no privileges here: only the warnings
        PostgreSQL gives for it."""
        self._column(relation, Column(name, 0), letters)


def apply_grant(spec: GrantPrivileges, catalog: Catalog, acting: str) -> DdlResult:
    """Apply ``spec`` on behalf of the role ``acting``."""
    if spec.grantor is not None and spec.grantor != acting:
        raise errors.FeatureNotSupported("grantor must be current user")
    grant = _Grant(spec, catalog, acting, [])
    for key in spec.objects:
        if spec.kind == "schema":
            name = key[0]
            schema = grant.catalog.schemas[name]
            acl = grant.edit(schema.acl, "schema", schema.owner, spec.privileges,
                             spec.all_privileges, permission_denied("schema", name), f'"{name}"')
            grant.catalog = grant.catalog.with_schema(name, replace(schema, acl=acl))
        elif spec.kind == "procedure":
            procedure: Procedure = grant.catalog.procedures[key]
            acl = grant.edit(procedure.acl, "procedure", procedure.owner, spec.privileges,
                             spec.all_privileges, permission_denied("procedure", procedure.name),
                             f'"{procedure.name}"')
            grant.catalog = grant.catalog.with_procedure(replace(procedure, acl=acl))
        else:
            relation = grant.catalog.relation(key[1], key[0])
            grant.catalog = grant.catalog.with_relation(grant.relation(relation))
    return DdlResult(grant.catalog, "REVOKE" if spec.revoke else "GRANT",
                     warnings=grant.warnings)
