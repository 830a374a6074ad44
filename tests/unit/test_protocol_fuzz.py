"""Protocol fuzzing in process ([7] Hardening): the message decoder, the
startup decoder and the framer on arbitrary and mutated bytes, and the
``Connection`` state machine on a real in-memory engine fed random,
truncated, mutated and reordered traffic cut at random byte boundaries.

The traffic generator and the rules every reply must follow live in
``tests.fixtures.protocol_fuzz``; ``scripts/fuzz_protocol.py`` runs the
same fuzzer for millions of messages.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from tests.fixtures.protocol_fuzz import (
    FOCUSES,
    EngineHarness,
    Replies,
    generate,
    mutate,
    unit,
)
from wire import messages as m
from wire.framing import FrameReader
from wire.messages import MalformedMessage

FRONTEND = (m.Query, m.Parse, m.Bind, m.Describe, m.Execute, m.Close, m.Sync, m.Flush,
            m.Terminate, m.CopyData, m.CopyDone, m.CopyFail, m.PasswordData, m.FunctionCall)
STARTUP = (m.StartupMessage, m.SSLRequest, m.GSSENCRequest, m.CancelRequest)

randoms = st.randoms(use_true_random=False)
kinds = st.one_of(st.sampled_from([bytes([k]) for k in b"QPBDECSHXdcfpF"]),
                  st.binary(min_size=1, max_size=1))
text = st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)),
               max_size=40)
cuts = st.lists(st.integers(min_value=0, max_value=2000), max_size=30)
fast = settings(max_examples=200, deadline=None)


def _decode(kind: bytes, body: bytes) -> m.FrontendMessage | None:
    """``decode``, which may only answer with a message or MalformedMessage."""
    try:
        message = m.decode(kind, body)
    except MalformedMessage:
        return None
    assert isinstance(message, FRONTEND)
    return message


def _pieces(data: bytes, positions: list[int]) -> list[bytes]:
    points = sorted({p % (len(data) + 1) for p in positions} | {0, len(data)})
    return [data[a:b] for a, b in pairwise(points)]


# --- decoders and framing -------------------------------------------------------------


@fast
@given(kind=kinds, body=st.binary(max_size=300))
def test_decode_takes_any_body(kind: bytes, body: bytes) -> None:
    _decode(kind, body)


@fast
@given(rng=randoms)
def test_decode_takes_mutated_messages(rng: random.Random) -> None:
    reader = FrameReader()
    for frame in unit(rng):
        reader.feed(mutate(rng, frame, 1))
    try:
        while (frame := reader.read_message()) is not None:
            _decode(*frame)
    except MalformedMessage:
        pass


@fast
@given(sql=text, name=text, portal=text, oids=st.lists(st.integers(0, 2**32 - 1), max_size=4),
       params=st.lists(st.none() | st.binary(max_size=12), max_size=4),
       formats=st.lists(st.sampled_from((0, 1)), max_size=4), rows=st.integers(-2**31, 2**31 - 1),
       data=st.binary(max_size=50))
def test_valid_messages_round_trip(sql: str, name: str, portal: str, oids: list[int],
                                   params: list[bytes | None], formats: list[int], rows: int,
                                   data: bytes) -> None:
    """What the encoders write, the decoder reads back unchanged (so the
    fuzzer's valid traffic is what it claims to be)."""
    cases = [
        (m.encode_query(sql), m.Query(sql)),
        (m.encode_parse(name, sql, oids), m.Parse(name, sql, tuple(oids))),
        (m.encode_bind(portal, name, params, formats, formats[:1]),
         m.Bind(portal, name, tuple(formats), tuple(params), tuple(formats[:1]))),
        (m.encode_describe("S", name), m.Describe("S", name)),
        (m.encode_execute(portal, rows), m.Execute(portal, rows)),
        (m.encode_close("P", portal), m.Close("P", portal)),
        (m.encode_simple(b"d", data), m.CopyData(data)),
        (m.encode_simple(b"f", sql.encode() + b"\0"), m.CopyFail(sql)),
    ]
    for frame, expected in cases:
        assert m.decode(frame[:1], frame[5:]) == expected


@fast
@given(body=st.binary(max_size=200))
def test_decode_startup_takes_any_body(body: bytes) -> None:
    try:
        packet = m.decode_startup(body)
    except MalformedMessage:
        return
    assert isinstance(packet, STARTUP)


@fast
@given(rng=randoms, parameters=st.dictionaries(text.filter(bool), text, max_size=4))
def test_startup_round_trip_and_mutations(rng: random.Random,
                                          parameters: dict[str, str]) -> None:
    packet = m.encode_startup(parameters)
    assert m.decode_startup(packet[4:]) == m.StartupMessage(m.PROTOCOL_3_0, parameters)
    reader = FrameReader()
    reader.feed(mutate(rng, packet, 0))
    try:
        body = reader.read_startup()
        if body is not None:
            assert isinstance(m.decode_startup(body), STARTUP)
    except MalformedMessage:
        pass


@fast
@given(rng=randoms, positions=cuts)
def test_framer_reassembles_messages_cut_anywhere(rng: random.Random,
                                                  positions: list[int]) -> None:
    frames = [frame for _ in range(rng.randint(1, 5)) for frame in unit(rng)]
    reader = FrameReader()
    read: list[tuple[bytes, bytes]] = []
    for piece in _pieces(b"".join(frames), positions):
        reader.feed(piece)
        while (frame := reader.read_message()) is not None:
            read.append(frame)
    assert read == [(frame[:1], frame[5:]) for frame in frames]
    assert reader.pending() == 0


@fast
@given(data=st.binary(max_size=400), positions=cuts, startup=st.booleans())
def test_framer_cuts_arbitrary_bytes_by_their_length_words(data: bytes, positions: list[int],
                                                           startup: bool) -> None:
    """Every packet handed out is exactly the next bytes received, and
    nothing is lost: only MalformedMessage may stop the framer."""
    reader = FrameReader()
    consumed = 0
    for piece in _pieces(data, positions):
        reader.feed(piece)
        try:
            while True:
                if startup:
                    body = reader.read_startup()
                    if body is None:
                        break
                    assert data[consumed + 4:consumed + 4 + len(body)] == body
                    consumed += 4 + len(body)
                    continue
                frame = reader.read_message()
                if frame is None:
                    break
                kind, body = frame
                assert data[consumed:consumed + 5 + len(body)] == (
                    kind + (len(body) + 4).to_bytes(4, "big") + body)
                consumed += 5 + len(body)
        except MalformedMessage:
            return
    assert consumed + reader.pending() == len(data)


# --- the state machine on a real engine -------------------------------------------------


@pytest.fixture(scope="module")
def harness() -> Iterator[EngineHarness]:
    engine = EngineHarness()
    yield engine
    engine.close()


@pytest.mark.parametrize("focus", FOCUSES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(rng=randoms)
def test_connection_survives_fuzzed_traffic(harness: EngineHarness, focus: str,
                                            rng: random.Random) -> None:
    """No exception escapes, every reply is well formed, no error is an
    internal one, a connection only closes with FATAL unless the client
    asked, an open connection answers a fresh query, ``keep`` is intact.
    (No shrinking: on a shared engine it takes minutes and the case is
    printed as it is.)"""
    case = generate(rng, messages=30, focus=focus)
    note(f"packets: {case.packets!r}\nchunk sizes: {[len(c) for c in case.chunks]}, "
         f"hang up: {case.hang_up}, bystander: {case.bystander}")
    harness.run(case)


# --- what the fuzzer found, one by one ----------------------------------------------------


def _copy(harness: EngineHarness, sql: str, *data: bytes) -> Replies:
    """Run ``sql`` (a COPY FROM STDIN) with ``data`` in CopyData messages."""
    with harness.session() as connection:
        connection.receive(m.encode_query(sql))
        connection.receive(b"".join(m.encode_simple(b"d", chunk) for chunk in data)
                           + m.encode_simple(b"c"))
        harness.settle([connection])
        replies = Replies(startup=False)
        replies.feed(connection.take_output())
        assert not connection.closed
    return replies


def test_bad_copy_row_is_an_error_not_a_disconnect(harness: EngineHarness) -> None:
    replies = _copy(harness, "COPY fz FROM STDIN", b"x\ty\n")
    assert replies.sqlstates == ["22P02"]
    assert replies.messages[-1] == (b"Z", b"I")


def test_copy_failing_at_its_end_reports_the_sqlstate(harness: EngineHarness) -> None:
    replies = _copy(harness, "COPY fz FROM STDIN", b"3\ta\n", b"3\tb\n")
    assert replies.sqlstates == ["23505"]


def test_statements_after_copy_run_even_if_they_must_wait(harness: EngineHarness) -> None:
    """The COMMIT makes a batch of fz_in, whose PE trigger runs before the
    SELECT may: the SELECT is postponed (Busy) right after CopyDone."""
    with harness.session() as connection:
        harness.query(connection, "BEGIN")
        connection.receive(m.encode_query("COPY fz_in FROM STDIN; COMMIT; SELECT 42"))
        connection.receive(m.encode_simple(b"d", b"5\n") + m.encode_simple(b"c"))
        harness.settle([connection])
        replies = Replies(startup=False)
        replies.feed(connection.take_output())
    assert [kind for kind, _ in replies.messages] == [b"G", b"C", b"C", b"T", b"D", b"C", b"Z"]
    assert replies.messages[4][1].endswith(b"42")


def test_nul_in_an_error_message_keeps_it_well_formed() -> None:
    """A text parameter with NUL bytes quoted in an error message."""
    replies = Replies(startup=False)
    replies.feed(m.error_response(m.Notice("ERROR", "22P02", 'bad integer: "\0\7"')))
    assert replies.sqlstates == ["22P02"]


def test_fetch_after_a_failed_fetch_is_not_an_internal_error(harness: EngineHarness) -> None:
    """The first FETCH of a WITH HOLD cursor fails; the next one must report
    an error of its own, not trip over the half-started portal."""
    with harness.session() as connection:
        harness.query(connection, "DECLARE broken CURSOR WITH HOLD FOR SELECT 1/(a-a) FROM keep")
        assert harness.query(connection, "FETCH 1 FROM broken").sqlstates == ["22012"]
        assert harness.query(connection, "FETCH 1 FROM broken").sqlstates != []
