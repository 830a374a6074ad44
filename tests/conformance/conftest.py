"""Fixtures for checking sqlext against a real PostgreSQL 15 (sqlext.tools.peer).

Conformance tests never skip: without PostgreSQL the fixture fails with the
reason, so a missing reference cannot pass silently.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sqlext.tools.peer import PeerUnavailable, PostgresPeer


@pytest.fixture(scope="module")
def postgres_peer() -> Iterator[PostgresPeer]:
    """A throwaway PostgreSQL 15 cluster for the test module."""
    try:
        peer = PostgresPeer()
    except PeerUnavailable as exc:
        pytest.fail(f"conformance tests need PostgreSQL 15: {exc}")
    with peer:
        yield peer
