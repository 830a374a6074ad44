"""Access control lists as PostgreSQL keeps them (``aclitem[]``), and the
rules of its ``acl.c`` for reading and changing them.

An item says that ``grantor`` gave ``grantee`` (``PUBLIC_GRANTEE``: every
role) some privileges, some of them with the grant option. Privileges are
the letters ``aclitem`` prints, in its order: r SELECT, a INSERT, w UPDATE,
d DELETE, D TRUNCATE, x REFERENCES, t TRIGGER, X EXECUTE, U USAGE, C CREATE.

* An object's ACL is ``None`` until the first GRANT or REVOKE on it; it then
  means ``default_acl``: the owner holds every privilege of the kind (and
  PUBLIC may EXECUTE procedures). A column's default is empty.
* The owner always holds every grant option, whatever the ACL says; its
  privileges are in the ACL and can be revoked like anyone's.
* Revoking a grant option takes away the grants made with it (``CASCADE``),
  or is refused while there are any (2BP01).

Roles are named, not numbered; ``renamed`` follows ``ALTER ROLE ... RENAME``.
Pure data, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Final

from catalog import errors

PUBLIC_GRANTEE: Final = ""
"""How an ACL names PUBLIC (every role), as ``aclitem`` prints it."""

PRIVILEGE_LETTERS: Final = {
    "SELECT": "r", "INSERT": "a", "UPDATE": "w", "DELETE": "d", "TRUNCATE": "D",
    "REFERENCES": "x", "TRIGGER": "t", "EXECUTE": "X", "USAGE": "U", "CREATE": "C"}
PRIVILEGE_NAMES: Final = {letter: name for name, letter in PRIVILEGE_LETTERS.items()}
ALL_PRIVILEGES: Final = {"relation": "arwdDxt", "column": "arwx", "procedure": "X",
                         "schema": "UC"}
"""What ALL PRIVILEGES means for each kind of object."""
_ORDER: Final = "arwdDxtXUC"


@dataclass(frozen=True, slots=True)
class AclItem:
    grantee: str
    grantor: str
    privileges: str
    options: str = ""
    """The privileges held with the grant option (always among ``privileges``)."""

    def text(self) -> str:
        """As ``aclitem`` prints it: ``alice=r*w/postgres``."""
        letters = "".join(letter + ("*" if letter in self.options else "")
                          for letter in self.privileges)
        return f"{quote_role(self.grantee)}={letters}/{quote_role(self.grantor)}"


Acl = tuple[AclItem, ...]


def ordered(letters: Iterable[str]) -> str:
    """Privilege letters without repeats, in ``aclitem``'s order."""
    present = set(letters)
    return "".join(letter for letter in _ORDER if letter in present)


def quote_role(name: str) -> str:
    """A role name as ``aclitem`` prints it: quoted unless a plain lower-case word."""
    if name == PUBLIC_GRANTEE or (name.replace("_", "a").isalnum() and name == name.lower()):
        return name
    return '"' + name.replace('"', '""') + '"'


def default_acl(kind: str, owner: str) -> Acl:
    """What a ``None`` ACL means (PostgreSQL's ``acldefault``)."""
    if kind == "column":
        return ()
    owner_item = AclItem(owner, owner, ALL_PRIVILEGES[kind])
    if kind == "procedure":
        return AclItem(PUBLIC_GRANTEE, owner, "X"), owner_item
    return (owner_item,)


def effective(acl: Acl | None, kind: str, owner: str) -> Acl:
    return default_acl(kind, owner) if acl is None else acl


def renamed(acl: Acl | None, old: str, new: str) -> Acl | None:
    """``acl`` with the role ``old`` (as grantee or grantor) called ``new``."""
    if acl is None:
        return None
    return tuple(replace(item, grantee=new if item.grantee == old else item.grantee,
                         grantor=new if item.grantor == old else item.grantor)
                 for item in acl)


def names(acl: Acl | None) -> set[str]:
    """The roles an ACL mentions, as grantee or grantor."""
    return {role for item in acl or () for role in (item.grantee, item.grantor)} - {
        PUBLIC_GRANTEE}


def upgraded(acl: tuple[AclItem | tuple[str, str], ...] | None, owner: str, kind: str
             ) -> Acl | None:
    """An ACL as loaded from a snapshot: those of older servers hold
    ``(grantee, letters)`` pairs, granted by the owner, whose own entry then
    had every privilege known (SELECT to TRUNCATE, or EXECUTE)."""
    if acl is None:
        return None
    items = []
    for item in acl:
        if not isinstance(item, AclItem):
            grantee, letters = item
            if grantee == owner and letters in ("arwdD", "X"):
                letters = ALL_PRIVILEGES[kind]
            item = AclItem(grantee, owner, letters)
        items.append(item)
    return tuple(items)


Holds = Callable[[str], bool]
"""Whether the role asking has the privileges of another role (itself, a
role it is a member of; a superuser has everyone's)."""


def mask(acl: Acl, owner: str, holds: Holds, everything: str) -> tuple[str, str]:
    """The privileges and grant options a role holds through ``acl``:
    granted to PUBLIC or to a role whose privileges it has; every grant
    option (of ``everything``) if it has the owner's (``aclmask``)."""
    privileges = "".join(item.privileges for item in acl
                         if item.grantee == PUBLIC_GRANTEE or holds(item.grantee))
    options = "".join(item.options for item in acl
                      if item.grantee != PUBLIC_GRANTEE and holds(item.grantee))
    if holds(owner):
        options = everything
    return ordered(privileges), ordered(options)


def direct_options(acl: Acl, role: str, owner: str, everything: str) -> str:
    """The grant options granted to ``role`` itself (``aclmask_direct``)."""
    if role == owner:
        return everything
    return ordered("".join(item.options for item in acl if item.grantee == role))


@dataclass(frozen=True, slots=True)
class AclEdit:
    """One GRANT or REVOKE applied to an ACL (``merge_acl_with_grant``)."""

    grantor: str
    privileges: str
    grant: bool
    option: bool = False
    """GRANT: WITH GRANT OPTION; REVOKE: GRANT OPTION FOR (the options only)."""
    cascade: bool = False

    def apply(self, acl: Acl, grantees: Iterable[str], owner: str,
              holders: Callable[[str], Holds]) -> Acl:
        """``acl`` changed for each grantee; ``holders(role)`` tells whose
        privileges ``role`` has (for the grant options it keeps after a
        revoke)."""
        for grantee in grantees:
            if self.grant and self.option and grantee == PUBLIC_GRANTEE:
                raise errors.InvalidGrantOperation("grant options can only be granted to roles")
            privileges = self.privileges if self.grant or not self.option else ""
            options = self.privileges if not self.grant or self.option else ""
            acl = _update(acl, AclItem(grantee, self.grantor, privileges, options), self.grant,
                          owner, holders, self.cascade)
        return acl


def _update(acl: Acl, change: AclItem, add: bool, owner: str,
            holders: Callable[[str], Holds], cascade: bool) -> Acl:
    """``aclupdate``: the grantee's item from this grantor gains or loses
    ``change``'s privileges and options; an item left with nothing goes;
    grant options lost take the grants made with them along."""
    items = list(acl)
    position = next((index for index, item in enumerate(items)
                     if item.grantee == change.grantee and item.grantor == change.grantor),
                    None)
    if position is None:
        items.append(AclItem(change.grantee, change.grantor, ""))
        position = len(items) - 1
    old = items[position]
    if add:
        privileges = ordered(old.privileges + change.privileges)
        options = ordered(old.options + change.options)
    else:
        privileges = ordered(c for c in old.privileges if c not in change.privileges)
        options = ordered(c for c in old.options if c not in change.options)
    if privileges or options:
        items[position] = replace(old, privileges=ordered(privileges + options),
                                  options=options)
    else:
        del items[position]
    lost = ordered(c for c in old.options if c not in options)
    result = tuple(items)
    if lost:
        result = _revoke_dependents(result, change.grantee, lost, owner, holders, cascade)
    return result


def _revoke_dependents(acl: Acl, grantee: str, lost: str, owner: str,
                       holders: Callable[[str], Holds], cascade: bool) -> Acl:
    """``recursive_revoke``: what ``grantee`` granted with options it no
    longer holds (by any path) is revoked too."""
    if grantee == owner:
        return acl
    _, still = mask(acl, owner, holders(grantee), lost)
    gone = ordered(c for c in lost if c not in still)
    if not gone:
        return acl
    while True:
        dependent = next((item for item in acl if item.grantor == grantee
                          and any(c in gone for c in item.privileges)), None)
        if dependent is None:
            return acl
        if not cascade:
            raise errors.DependentObjectsStillExist("dependent privileges exist",
                                                    hint="Use CASCADE to revoke them too.")
        acl = _update(acl, AclItem(dependent.grantee, grantee, gone, gone), False, owner,
                      holders, cascade)
