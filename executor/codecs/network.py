"""inet and cidr: an IPv4 or IPv6 address with a netmask length (cidr: a
network, no bits set right of its mask).

Stored as a text that sorts as PostgreSQL orders the values (``network_cmp``:
IPv4 before IPv6, then by the bits both masks cover, then the shorter mask
first, then the whole address), so SQLite's own comparisons, ORDER BY,
min/max, DISTINCT and indexes give PostgreSQL's order: the family ('4' or
'6'), the network (the address with the bits right of the mask cleared),
the mask length, then the address, all in fixed-width lower-case hex::

    10.1.2.3/8  ->  4 0a000000 08 0a010203   (without the spaces)

The network decides the order up to the shorter mask; where one mask is a
prefix of the other the network of the longer has bits set there, or both
networks are equal and the mask lengths decide, exactly as ``network_cmp``
decides. inet and cidr values share the form (they compare with each other,
'10.0.0.0/8'::inet = '10.0.0.0/8'::cidr).

Input and output follow PostgreSQL's ``inet_net_pton`` and ``inet_net_ntop``:
IPv4 input may leave out trailing octets when it gives a mask (``10.1/16``),
and for cidr without one takes the classful mask (``192.168`` is
``192.168.0.0/24``); IPv6 output writes an embedded IPv4 address dotted
(``::ffff:1.2.3.4``). inet prints ``/bits`` unless the mask covers the whole
address; cidr always does.
"""

from __future__ import annotations

import ipaddress
import struct
from typing import Final

from catalog import types
from catalog.errors import InvalidBinaryRepresentation, InvalidTextRepresentation
from executor.codecs.base import Codec, invalid_syntax, plain

_FAMILIES: Final = {4: 2, 6: 3}
"""IP version -> PGSQL_AF_INET / PGSQL_AF_INET6 of the binary form."""
_VERSIONS: Final = {family: version for version, family in _FAMILIES.items()}
_SIZES: Final = {4: 4, 6: 16}
"""Address bytes by IP version."""

Network = tuple[int, bytes, int]
"""(IP version, the address bytes, the mask length)."""


# --- the storage form -------------------------------------------------------------------

def stored(version: int, address: bytes, bits: int) -> str:
    """The storage text of an address with a mask length."""
    return f"{version}{masked(address, bits).hex()}{bits:02x}{address.hex()}"


def parts(value: object) -> Network:
    """A storage text back as (version, address, mask length)."""
    text = str(value)
    size = _SIZES[int(text[0])] * 2
    return int(text[0]), bytes.fromhex(text[size + 3:]), int(text[size + 1:size + 3], 16)


def masked(address: bytes, bits: int) -> bytes:
    """The address with the bits right of the mask cleared (its network)."""
    width = len(address) * 8
    number = int.from_bytes(address, "big") >> (width - bits) << (width - bits) if bits else 0
    return number.to_bytes(len(address), "big")


def network_of(value: object) -> str:
    """network(): the value with its host bits cleared, as cidr stores it."""
    version, address, bits = parts(value)
    return stored(version, masked(address, bits), bits)


def address_value(host: str) -> str | None:
    """A client's address, as the socket gives it, as an inet value (None
    for one that is no IP address, such as a Unix socket's)."""
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return None
    return stored(address.version, address.packed, address.max_prefixlen)


# --- text -------------------------------------------------------------------------------

def _ipv4(text: str, bits: str | None, cidr: bool) -> tuple[bytes, int]:
    octets = text.split(".")
    if len(octets) > 4 or not all(o.isdigit() and o.isascii() and int(o) < 256
                                  for o in octets):
        raise ValueError(text)
    if len(octets) < 4 and bits is None and not cidr:
        raise ValueError(text)
    address = bytes(int(octet) for octet in octets) + bytes(4 - len(octets))
    if bits is not None:
        return address, int(bits)
    return address, _classful(address, len(octets)) if cidr else 32


def _classful(address: bytes, given: int) -> int:
    """A cidr's mask length when the input gives none (``inet_cidr_pton_ipv4``):
    by the address class, widened to cover the octets given."""
    first = address[0]
    bits = 32 if first >= 240 else 8 if first >= 224 else 24 if first >= 192 else (
        16 if first >= 128 else 8)
    bits = max(bits, given * 8)
    return 4 if bits == 8 and first == 224 else bits


def _parse(text: str, cidr: bool) -> Network:
    host, slash, bits = text.partition("/")
    if slash and not (bits.isdigit() and bits.isascii()):
        raise ValueError(text)
    if "%" in host:
        raise ValueError(text)  # an IPv6 zone
    if ":" in host:
        address = ipaddress.IPv6Address(host).packed
        width = int(bits) if slash else 128
        version = 6
    else:
        address, width = _ipv4(host, bits if slash else None, cidr)
        version = 4
    if width > len(address) * 8:
        raise ValueError(text)
    return version, address, width


def _network_in(type_name: str, cidr: bool) -> Codec:
    def text_in(text: str) -> str:
        try:
            version, address, bits = _parse(text, cidr)
        except ValueError:
            raise invalid_syntax(type_name, text) from None
        if cidr and masked(address, bits) != address:
            raise InvalidTextRepresentation(f'invalid cidr value: "{text}"',
                                            detail="Value has bits set to right of mask.")
        return stored(version, address, bits)

    def text_out(value: object) -> bytes:
        version, address, bits = parts(value)
        shown = address_text(version, address)
        return (shown if bits == len(address) * 8 and not cidr else f"{shown}/{bits}").encode()

    def binary_in(data: bytes) -> str:
        return _binary_in(type_name, cidr, data)

    def binary_out(value: object) -> bytes:
        version, address, bits = parts(value)
        return bytes((_FAMILIES[version], bits, int(cidr), len(address))) + address

    return plain(text_in, text_out, binary_in, binary_out)


def show(value: object) -> str:
    """text(inet): the address and always its mask length (``10.1.2.3/32``),
    which casts to text give."""
    version, address, bits = parts(value)
    return f"{address_text(version, address)}/{bits}"


def address_text(version: int, address: bytes) -> str:
    if version == 4:
        return ".".join(str(octet) for octet in address)
    return _ipv6_text(address)


def _ipv6_text(address: bytes) -> str:
    """PostgreSQL's (BIND's) IPv6 text: the longest run of two or more zero
    words (the first of equal ones) as ``::``; an IPv4 address in the last
    32 bits after 96 zero bits (but ``::1``-like ones) or after ``::ffff:``
    written dotted."""
    words = struct.unpack("!8H", address)
    best, run = (-1, 0), (-1, 0)
    for index, word in enumerate((*words, 1)):
        if word == 0:
            run = (run[0] if run[0] >= 0 else index, run[1] + 1)
            continue
        if run[0] >= 0 and run[1] > best[1]:
            best = run
        run = (-1, 0)
    base, length = best if best[1] >= 2 else (-1, 0)
    shown = ""
    for index, word in enumerate(words):
        if base <= index < base + length:
            shown += ":" if index == base else ""
            continue
        if index:
            shown += ":"
        if index == 6 and base == 0 and (length == 6 or (length == 5 and words[5] == 0xFFFF)):
            return shown + ".".join(str(octet) for octet in address[12:])
        shown += f"{word:x}"
    return shown + (":" if base >= 0 and base + length == 8 else "")


# --- binary ------------------------------------------------------------------------------

def _binary_in(type_name: str, cidr: bool, data: bytes) -> str:
    """network_recv: family, bits, is_cidr (ignored), length, address."""
    if len(data) < 4 or data[0] not in _VERSIONS:
        raise InvalidBinaryRepresentation(
            f'invalid address family in external "{type_name}" value')
    version, bits, size = _VERSIONS[data[0]], data[1], data[3]
    if bits > _SIZES[version] * 8:
        raise InvalidBinaryRepresentation(f'invalid bits in external "{type_name}" value')
    if size != _SIZES[version] or len(data) != 4 + size:
        raise InvalidBinaryRepresentation(f'invalid length in external "{type_name}" value')
    address = data[4:]
    if cidr and masked(address, bits) != address:
        raise InvalidBinaryRepresentation(f'invalid external "{type_name}" value',
                                          detail="Value has bits set to right of mask.")
    return stored(version, address, bits)


CODECS: Final[dict[int, Codec]] = {
    types.INET: _network_in("inet", cidr=False),
    types.CIDR: _network_in("cidr", cidr=True),
}
