"""Byte-level tests of message decoding and framing."""

from __future__ import annotations

import struct

import pytest

from wire import messages as m
from wire.framing import FrameReader


def _split(frame: bytes) -> tuple[bytes, bytes]:
    return frame[:1], frame[5:]


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (m.encode_query("SELECT 1"), m.Query("SELECT 1")),
        (m.encode_parse("s1", "SELECT $1", [23]), m.Parse("s1", "SELECT $1", (23,))),
        (m.encode_bind("p", "s", [b"1", None], [1, 0], [1]),
         m.Bind("p", "s", (1, 0), (b"1", None), (1,))),
        (m.encode_describe("S", "s1"), m.Describe("S", "s1")),
        (m.encode_execute("p", 1000), m.Execute("p", 1000)),
        (m.encode_close("P", "C_1"), m.Close("P", "C_1")),
        (m.encode_simple(b"S"), m.Sync()),
        (m.encode_simple(b"H"), m.Flush()),
        (m.encode_simple(b"X"), m.Terminate()),
        (m.encode_simple(b"d", b"1\t2\n"), m.CopyData(b"1\t2\n")),
        (m.encode_simple(b"c"), m.CopyDone()),
        (m.encode_simple(b"f", b"oops\0"), m.CopyFail("oops")),
        (m.encode_simple(b"p", b"secret\0"), m.PasswordData(b"secret\0")),
    ],
)
def test_frontend_round_trip(frame: bytes, expected: object) -> None:
    assert m.decode(*_split(frame)) == expected


def test_startup_packets() -> None:
    startup = m.encode_startup({"user": "u", "database": "d"})
    assert m.decode_startup(startup[4:]) == m.StartupMessage(
        m.PROTOCOL_3_0, {"user": "u", "database": "d"})
    assert m.decode_startup(m.encode_special_request(m.SSL_REQUEST_CODE)[4:]) == m.SSLRequest()
    assert m.decode_startup(
        m.encode_special_request(m.GSSENC_REQUEST_CODE)[4:]) == m.GSSENCRequest()
    assert m.decode_startup(m.encode_special_request(m.CANCEL_REQUEST_CODE, 7, 9)[4:]) == (
        m.CancelRequest(7, 9))


def test_unsupported_protocol_version() -> None:
    with pytest.raises(m.MalformedMessage, match=r"unsupported frontend protocol 2\.0"):
        m.decode_startup(struct.pack("!i", 2 << 16) + b"\0")


@pytest.mark.parametrize(
    "frame",
    [
        b"Z" + struct.pack("!i", 4),  # unknown type
        b"P" + struct.pack("!i", 6) + b"a\0",  # truncated Parse
        b"B" + struct.pack("!i", 8) + b"\0\0\xff\xff",  # negative format count
        b"D" + struct.pack("!i", 6) + b"Q\0",  # bad describe kind
        b"E" + struct.pack("!i", 11) + b"p\0\0\0\0\0\0",  # trailing garbage
    ],
)
def test_malformed_messages(frame: bytes) -> None:
    with pytest.raises(m.MalformedMessage):
        m.decode(*_split(frame))


def test_bind_with_invalid_format_code() -> None:
    frame = m.encode_bind("", "", [b"x"], [2])
    with pytest.raises(m.MalformedMessage, match="format code"):
        m.decode(*_split(frame))


def test_framing_splits_and_waits_for_complete_messages() -> None:
    reader = FrameReader()
    data = m.encode_query("SELECT 1") + m.encode_simple(b"S")
    reader.feed(data[:3])
    assert reader.read_message() is None
    reader.feed(data[3:10])
    assert reader.read_message() is None
    reader.feed(data[10:])
    assert reader.read_message() == (b"Q", b"SELECT 1\0")
    assert reader.read_message() == (b"S", b"")
    assert reader.read_message() is None
    assert reader.pending() == 0


def test_framing_refuses_huge_length_before_buffering() -> None:
    reader = FrameReader(max_message_size=1024)
    reader.feed(b"Q" + struct.pack("!i", 2**31 - 1))
    with pytest.raises(m.MalformedMessage, match="invalid message length"):
        reader.read_message()


def test_framing_limits_small_messages() -> None:
    reader = FrameReader()
    reader.feed(b"S" + struct.pack("!i", 20_000))
    with pytest.raises(m.MalformedMessage):
        reader.read_message()


def test_framing_rejects_negative_length() -> None:
    reader = FrameReader()
    reader.feed(b"Q" + struct.pack("!i", 2))
    with pytest.raises(m.MalformedMessage):
        reader.read_message()


def test_startup_length_limits() -> None:
    reader = FrameReader()
    reader.feed(struct.pack("!i", 100_000))
    with pytest.raises(m.MalformedMessage, match="startup packet"):
        reader.read_startup()


def test_backend_encodings() -> None:
    assert m.data_row([b"1", None]) == (
        b"D" + struct.pack("!ihi", 4 + 2 + 5 + 4, 2, 1) + b"1" + b"\xff\xff\xff\xff")
    assert m.command_complete("SELECT 1") == b"C" + struct.pack("!i", 13) + b"SELECT 1\0"
    assert m.ready_for_query("T") == b"Z\0\0\0\x05T"
    description = m.row_description([m.Field("a", 23, 4, -1)], [0])
    assert description[0:1] == b"T"
    assert description.endswith(b"a\0" + struct.pack("!IhIhih", 0, 0, 23, 4, -1, 0))
    error = m.error_response(m.Notice("ERROR", "42601", "bad", position=3))
    assert b"C42601\0" in error and b"P3\0" in error and error.endswith(b"\0\0")
    violation = m.error_response(m.Notice("ERROR", "23505", "dup", schema="s", table="t",
                                          constraint="t_pkey"))
    assert violation.endswith(b"ss\0tt\0nt_pkey\0\0")  # no column field: none given
