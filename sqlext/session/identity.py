"""Who a session is: its user and its current role, kept by OID as
PostgreSQL keeps them, so that a role renamed while the session lives is
seen under its new name.

* The login role (who authenticated) never changes; only if it was a
  superuser then may SET SESSION AUTHORIZATION make the session anyone else.
* SET SESSION AUTHORIZATION changes the session user and resets the role.
* SET ROLE makes the current role one the session user is a member of
  (superusers: any role); RESET ROLE / SET ROLE NONE go back to the session
  user. Privileges are checked for the current role.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from catalog import errors
from catalog.roles import dropped_role
from catalog.schema import Catalog

NONE: str = "none"
"""The role setting without SET ROLE (``SHOW role``)."""


@dataclass(frozen=True, slots=True)
class Identity:
    login: int
    login_superuser: bool
    """Whether the login role was a superuser when the session began."""
    session: int
    role: int | None = None
    """The role SET ROLE chose (None: NONE, the session user)."""

    @classmethod
    def of_login(cls, catalog: Catalog, user: str) -> Identity:
        role = catalog.roles[user]
        return cls(role.oid, role.superuser, role.oid)

    @property
    def current(self) -> int:
        return self.session if self.role is None else self.role

    def with_role(self, catalog: Catalog, name: str | None) -> Identity:
        """SET ROLE ``name`` (None or 'none': NONE)."""
        if name is None or name == NONE:
            return replace(self, role=None)
        role = catalog.roles.get(name)
        if role is None:
            raise errors.InvalidParameterValue(f'role "{name}" does not exist')
        session = catalog.role_name(self.session)
        if session is None or not catalog.has_privileges_of(session, name):
            raise errors.InsufficientPrivilege(f'permission denied to set role "{name}"')
        return replace(self, role=role.oid)

    def with_session_user(self, catalog: Catalog, name: str | None) -> Identity:
        """SET SESSION AUTHORIZATION ``name`` (None: DEFAULT, the login role)."""
        if name is None:
            return replace(self, session=self.login, role=None)
        role = catalog.roles.get(name)
        if role is None:
            raise errors.InvalidParameterValue(f'role "{name}" does not exist')
        if role.oid != self.login and not self.login_superuser:
            raise errors.InsufficientPrivilege(
                f'permission denied to set session authorization "{name}"')
        return replace(self, session=role.oid, role=None)

    def names(self, catalog: Catalog) -> tuple[str, str]:
        """(session user, current role) as named now (``dropped_role`` for
        one dropped since)."""
        return (catalog.role_name(self.session) or dropped_role(self.session),
                catalog.role_name(self.current) or dropped_role(self.current))
