"""Functions of inet and cidr values (stored as ``executor.codecs.network``
keeps them): host, masklen, family, network, broadcast, netmask, hostmask,
and the containment the operators << and >> test."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from catalog import types as t
from catalog.sqltypes import INT4, TEXT, SqlType
from executor.codecs import network
from executor.functions.declare import Declarations

FUNCTIONS = Declarations()

INET: Final = SqlType(t.INET)
CIDR: Final = SqlType(t.CIDR)


def _declare(name: str, result: SqlType, compute: Callable[[int, bytes, int], Any]) -> None:
    """``name``(inet), computed from (IP version, address bytes, mask length);
    a cidr argument is the inet it is."""

    def call(value: Any) -> Any:
        return None if value is None else compute(*network.parts(value))

    FUNCTIONS.scalar(name, result, INET, min_args=1, max_args=1)(call)


def _host_bits(address: bytes, bits: int) -> int:
    """The bits right of the mask, set."""
    return (1 << (len(address) * 8 - bits)) - 1


def _with(version: int, number: int, size: int, bits: int) -> str:
    return network.stored(version, number.to_bytes(size, "big"), bits)


def _broadcast(version: int, address: bytes, bits: int) -> str:
    number = int.from_bytes(address, "big") | _host_bits(address, bits)
    return _with(version, number, len(address), bits)


def _netmask(version: int, address: bytes, bits: int) -> str:
    everything = (1 << len(address) * 8) - 1
    return _with(version, everything ^ _host_bits(address, bits), len(address),
                 len(address) * 8)


def _hostmask(version: int, address: bytes, bits: int) -> str:
    return _with(version, _host_bits(address, bits), len(address), len(address) * 8)


_declare("host", TEXT, lambda version, address, bits: network.address_text(version, address))
_declare("masklen", INT4, lambda version, address, bits: bits)
_declare("family", INT4, lambda version, address, bits: version)
_declare("network", CIDR, lambda version, address, bits: network.stored(
    version, network.masked(address, bits), bits))
_declare("broadcast", INET, _broadcast)
_declare("netmask", INET, _netmask)
_declare("hostmask", INET, _hostmask)


@FUNCTIONS.internal("sqlext_network_within", 2)
def _within(inner: Any, outer: Any) -> Any:
    """inner << outer: inside the network ``outer`` and not all of it."""
    if inner is None or outer is None:
        return None
    version, address, bits = network.parts(inner)
    outer_version, outer_address, outer_bits = network.parts(outer)
    return int(version == outer_version and bits > outer_bits and network.masked(
        address, outer_bits) == network.masked(outer_address, outer_bits))
