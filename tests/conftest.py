"""Shared fixtures: real sqlext servers on loopback ports.

A server is a separate process (``python -m sqlext serve``) so tests talk to
it exactly as clients do; the session-wide one serves most tests, and
``server_factory`` starts private ones for tests that need a clean engine.
"""

from __future__ import annotations

pytest_plugins = ("tests.fixtures.servers", "tests.fixtures.spark")
