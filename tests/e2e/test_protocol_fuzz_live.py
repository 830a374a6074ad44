"""Protocol fuzzing against a live server process ([7] Hardening): raw
sockets send random, truncated and mutated traffic, in the startup phase
(before and inside StartupMessage, after SSLRequest), during COPY FROM STDIN
and after it. After every case the server must be up, take a new psycopg
connection and still hold the data committed before the fuzzing.

The generator and the rules every reply must follow are in
``tests.fixtures.protocol_fuzz``; ``scripts/fuzz_protocol.py --live`` runs
the same for millions of messages.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from tests.fixtures.protocol_fuzz import (
    FOCUSES,
    USER,
    Case,
    FuzzFailure,
    check_live,
    generate,
    prepare_live,
    run_live,
    write_rules,
)
from tests.fixtures.servers import ServerProcess, start_server
from wire import messages as m


class _Servers:
    """A private server: fuzzed sessions may hold the executor for a while
    and must not slow down or disturb other tests."""

    def __init__(self, rules: Path) -> None:
        self.rules = rules
        self.server = self._start()

    def _start(self) -> ServerProcess:
        server = start_server("--in-memory", "--hba-file", str(self.rules))
        prepare_live(server)
        return server

    def healthy(self) -> ServerProcess:
        """The server, replaced if an earlier test left it dead or stuck
        (that test failed already; the next ones test afresh)."""
        try:
            check_live(self.server, timeout=3.0)
        except FuzzFailure:
            self.server.stop()
            self.server = self._start()
        return self.server


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Servers]:
    servers = _Servers(write_rules(tmp_path_factory.mktemp("fuzz")))
    yield servers
    servers.server.stop()


@pytest.fixture
def live(servers: _Servers) -> ServerProcess:
    return servers.healthy()


@pytest.mark.parametrize("focus", FOCUSES)
@settings(max_examples=120, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rng=st.randoms(use_true_random=False))
def test_live_server_survives_fuzzed_traffic(live: ServerProcess, focus: str,
                                             rng: random.Random) -> None:
    """Every reply well formed, no internal error, FATAL before any close
    the client did not ask for, an open connection answers a fresh query,
    and the server is healthy afterwards."""
    case = generate(rng, messages=30, focus=focus)
    note(f"packets: {case.packets!r}\nchunk sizes: {[len(c) for c in case.chunks]}, "
         f"hang up: {case.hang_up}")
    run_live(live.host, live.port, case)
    check_live(live)


_STARTUP = m.encode_startup({"user": USER, "database": "sqlext"})
_SSL = m.encode_special_request(m.SSL_REQUEST_CODE)
_COPY = m.encode_query("COPY fz FROM STDIN")
_ROW = m.encode_simple(b"d", b"7001\tseven\n")

SCENARIOS = {
    "garbage before startup": ([b"\x00\x00\x01\x00garbage"], True),
    "startup cut in half": ([_STARTUP[:len(_STARTUP) // 2]], True),
    "startup with a length past its end": ([b"\x00\x00\x00\x60" + _STARTUP[4:]], True),
    "ssl request then garbage": ([_SSL, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"], False),
    "ssl request then startup cut": ([_SSL, _STARTUP[:9]], True),
    "copy then disconnect": ([_STARTUP, _COPY, _ROW], True),
    "copy then half a message": ([_STARTUP, _COPY, _ROW[:7]], True),
    "copy then random bytes": ([_STARTUP, _COPY, _ROW, bytes(range(256))], False),
    "copy then parse and sync": ([_STARTUP, _COPY, _ROW, m.encode_parse("", "SELECT 1"),
                                  m.encode_simple(b"S")], False),
    "copy then password": ([_STARTUP, _COPY, m.encode_simple(b"p", b"pw\0")], False),
    "copy then terminate": ([_STARTUP, _COPY, _ROW, m.encode_simple(b"X")], False),
    "copy with a bad row": ([_STARTUP, _COPY, m.encode_simple(b"d", b"x\ty\n"),
                             m.encode_simple(b"c")], False),
    # INSERT INTO fz_in makes SELECT wait for the dataflow; then the client
    # sends a bad length word and ends its side: all must still be answered
    "waiting, then a bad length and end of data": (
        [_STARTUP, m.encode_query("INSERT INTO fz_in VALUES (1)"), m.encode_query("SELECT 1"),
         b"Q\x7f\xff\xff\xff"], False),
}


@pytest.mark.parametrize(("packets", "hang_up"), SCENARIOS.values(), ids=SCENARIOS.keys())
def test_live_server_survives_scenario(live: ServerProcess, packets: list[bytes],
                                       hang_up: bool) -> None:
    """The cases the issue names, each for sure (the random ones may miss them)."""
    run_live(live.host, live.port, Case(packets, [b"".join(packets)], hang_up))
    check_live(live)
