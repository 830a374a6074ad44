"""Shared fixtures: real sqlext servers on loopback ports.

A server is a separate process (``python -m sqlext serve``) so tests talk to
it exactly as clients do; the session-wide one serves most tests, and
``server_factory`` starts private ones for tests that need a clean engine.

Hypothesis: with ``CI`` set (``CI=true bash .ci/run``) the "ci" profile is
loaded: derandomized (the same examples on every run, no example database),
no per-example deadline on a loaded machine (the per-test timeout catches a
hang), and the blob to reproduce a failure printed. Elsewhere the default
profile explores new examples each run.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

pytest_plugins = ("tests.fixtures.servers", "tests.fixtures.spark", "tests.fixtures.cluster")

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "default")
