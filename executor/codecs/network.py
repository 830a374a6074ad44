"""inet: an IPv4 or IPv6 host address with an optional netmask length.

Stored as PostgreSQL prints it: the address, then ``/bits`` unless the mask
covers the whole address (``10.0.0.1``, ``10.1.2.3/8``, ``fe80::1/64``).
Like PostgreSQL, IPv4 input may leave out trailing octets when it gives a
mask (``10.1/16`` is ``10.1.0.0/16``) and may write octets with leading
zeros.
"""

from __future__ import annotations

import ipaddress
from typing import Final

from catalog import types
from executor.codecs.base import Codec, invalid_syntax, plain, trailing_data
from executor.codecs.strings import text_out

_FAMILIES: Final = {4: 2, 6: 3}
"""IP version -> PGSQL_AF_INET / PGSQL_AF_INET6 of the binary form."""
_VERSIONS: Final = {family: version for version, family in _FAMILIES.items()}


def _address(text: str, bits: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    if ":" in text:
        return ipaddress.IPv6Address(text)
    octets = text.split(".")
    if len(octets) > 4 or (len(octets) < 4 and bits is None):
        raise ValueError(text)
    if not all(octet.isdigit() and octet.isascii() for octet in octets):
        raise ValueError(text)
    octets += ["0"] * (4 - len(octets))
    return ipaddress.IPv4Address(".".join(str(int(octet)) for octet in octets))


def _format(address: ipaddress.IPv4Address | ipaddress.IPv6Address, bits: int) -> str:
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    shown = f"::ffff:{mapped}" if mapped is not None else str(address)
    return shown if bits == address.max_prefixlen else f"{shown}/{bits}"


def _inet_in(text: str) -> str:
    host, slash, bits = text.partition("/")
    try:
        if slash and not (bits.isdigit() and bits.isascii()):
            raise ValueError(text)
        address = _address(host, bits if slash else None)
        width = int(bits) if slash else address.max_prefixlen
        if width > address.max_prefixlen:
            raise ValueError(text)
    except ValueError:
        raise invalid_syntax("inet", text) from None
    return _format(address, width)


def _parts(value: object) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]:
    host, slash, bits = str(value).partition("/")
    address = ipaddress.ip_address(host)
    return address, int(bits) if slash else address.max_prefixlen


def _inet_binary_in(data: bytes) -> str:
    if len(data) < 4 or data[0] not in _VERSIONS or len(data) != 4 + data[3]:
        raise trailing_data()
    version = _VERSIONS[data[0]]
    raw = data[4:]
    if len(raw) != (4 if version == 4 else 16):
        raise trailing_data()
    address = ipaddress.IPv4Address(raw) if version == 4 else ipaddress.IPv6Address(raw)
    if data[1] > address.max_prefixlen:
        raise trailing_data()
    return _format(address, data[1])


def _inet_binary_out(value: object) -> bytes:
    address, bits = _parts(value)
    packed = address.packed
    return bytes((_FAMILIES[address.version], bits, 0, len(packed))) + packed


CODECS: Final[dict[int, Codec]] = {
    types.INET: plain(_inet_in, text_out, _inet_binary_in, _inet_binary_out),
}
