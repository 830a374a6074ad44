"""The PostgreSQL types sqlext knows: OIDs, names, sizes and how each is stored.

One table (``TYPES``) is the source of truth for pg_type, for the type OIDs
sent in RowDescription and ParameterDescription, for the SQLite column
declaration of each type and for resolving type names written in SQL.

Storage representation (what a value of the type looks like inside SQLite):

=================  ==========================================================
bool               int 0/1
int2/int4/int8     int
oid, reg*, xid     int
float4/float8      float; NaN as the text 'NaN' (sorts above every number,
                   as in PostgreSQL); columns have no affinity so -0.0 stays
numeric            numeric(p,s) with p <= 18, s >= 0: int, the value times
                   10**s ('NaN' as text); any other numeric: a text key
                   whose byte order is numeric order, compared under the
                   RTRIM collation (executor.codecs.numeric_storage)
text, varchar,     str
bpchar, name,
"char"
bytea              bytes
date               str 'YYYY-MM-DD' ('infinity' / '-infinity')
time               str 'HH:MM:SS[.ffffff]' (PostgreSQL's own output form)
timestamp          str 'YYYY-MM-DD HH:MM:SS[.ffffff]'
timestamptz        str, the same form in UTC
interval           str, PostgreSQL's output form ('1 day 02:03:04')
uuid               str, lower case with dashes
inet, cidr         str, a form that sorts as PostgreSQL orders them: family,
                   network, mask length, address in hex ('40a00000008' +
                   '0a000001' is 10.0.0.1/8; ``executor.codecs.network``)
json               str, as given; jsonb: str, normalised as PostgreSQL prints it
arrays             str, a JSON array of the element's storage values
=================  ==========================================================

The canonical text forms sort correctly as text, so SQLite's comparisons and
ORDER BY give PostgreSQL's order without conversion.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from catalog.errors import UndefinedObject


@dataclass(frozen=True, slots=True)
class PgType:
    """One row of pg_type, plus how sqlext stores the type."""

    oid: int
    name: str
    """pg_type.typname, e.g. ``int4``."""
    sql_name: str
    """What format_type() prints, e.g. ``integer``."""
    length: int
    """pg_type.typlen: bytes of a fixed-size value, -1 for varlena, -2 for cstring."""
    category: str
    """pg_type.typcategory: N numeric, S string, B boolean, D date/time, ..."""
    storage: str
    """SQLite column declaration; '' declares a column without type affinity."""
    array_oid: int = 0
    element_oid: int = 0
    preferred: bool = False


def _t(
    oid: int,
    name: str,
    sql_name: str,
    length: int,
    category: str,
    storage: str,
    array_oid: int,
    preferred: bool = False,
) -> tuple[PgType, PgType]:
    base = PgType(oid, name, sql_name, length, category, storage, array_oid, 0, preferred)
    array = PgType(array_oid, "_" + name, sql_name + "[]", -1, "A", "TEXT", 0, oid)
    return base, array


_BASE_TYPES: Final = [
    _t(16, "bool", "boolean", 1, "B", "INTEGER", 1000, preferred=True),
    _t(17, "bytea", "bytea", -1, "U", "BLOB", 1001),
    _t(18, "char", '"char"', 1, "Z", "TEXT", 1002),
    _t(19, "name", "name", 64, "S", "TEXT", 1003),
    _t(20, "int8", "bigint", 8, "N", "INTEGER", 1016),
    _t(21, "int2", "smallint", 2, "N", "INTEGER", 1005),
    _t(23, "int4", "integer", 4, "N", "INTEGER", 1007),
    _t(24, "regproc", "regproc", 4, "N", "INTEGER", 1008),
    _t(25, "text", "text", -1, "S", "TEXT", 1009, preferred=True),
    _t(26, "oid", "oid", 4, "N", "INTEGER", 1028, preferred=True),
    _t(28, "xid", "xid", 4, "U", "INTEGER", 1011),
    _t(114, "json", "json", -1, "U", "TEXT", 199),
    _t(700, "float4", "real", 4, "N", "", 1021),
    _t(650, "cidr", "cidr", -1, "I", "TEXT", 651),
    _t(869, "inet", "inet", -1, "I", "TEXT", 1041, preferred=True),
    _t(701, "float8", "double precision", 8, "N", "", 1022, preferred=True),
    _t(1042, "bpchar", "character", -1, "S", "TEXT", 1014),
    _t(1043, "varchar", "character varying", -1, "S", "TEXT", 1015),
    _t(1082, "date", "date", 4, "D", "TEXT", 1182),
    _t(1083, "time", "time without time zone", 8, "D", "TEXT", 1183),
    _t(1114, "timestamp", "timestamp without time zone", 8, "D", "TEXT", 1115),
    _t(1184, "timestamptz", "timestamp with time zone", 8, "D", "TEXT", 1185, preferred=True),
    _t(1186, "interval", "interval", 16, "T", "TEXT", 1187, preferred=True),
    _t(1700, "numeric", "numeric", -1, "N", "", 1231),
    _t(2205, "regclass", "regclass", 4, "N", "INTEGER", 2210),
    _t(2206, "regtype", "regtype", 4, "N", "INTEGER", 2211),
    _t(2950, "uuid", "uuid", 16, "U", "TEXT", 2951),
    _t(3802, "jsonb", "jsonb", -1, "U", "TEXT", 3807),
    _t(4089, "regnamespace", "regnamespace", 4, "N", "INTEGER", 4090),
]

_PSEUDO_TYPES: Final = [
    PgType(22, "int2vector", "int2vector", -1, "A", "TEXT", 1006, 21),
    PgType(30, "oidvector", "oidvector", -1, "A", "TEXT", 1013, 26),
    PgType(194, "pg_node_tree", "pg_node_tree", -1, "Z", "TEXT"),
    PgType(705, "unknown", "unknown", -2, "X", "TEXT"),
    PgType(1033, "aclitem", "aclitem", 12, "U", "TEXT", 1034),
    PgType(1034, "_aclitem", "aclitem[]", -1, "A", "TEXT", 0, 1033),
    PgType(2249, "record", "record", -1, "P", "TEXT"),
    PgType(2275, "cstring", "cstring", -2, "P", "TEXT"),
    PgType(2278, "void", "void", 4, "P", "TEXT"),
    PgType(2279, "trigger", "trigger", 4, "P", "TEXT"),
    PgType(2283, "anyelement", "anyelement", 4, "P", "TEXT"),
]

TYPES: Final[dict[int, PgType]] = {
    t.oid: t for pair in _BASE_TYPES for t in pair
} | {t.oid: t for t in _PSEUDO_TYPES}

BY_NAME: Final[dict[str, PgType]] = {t.name: t for t in TYPES.values()}

# Well-known OIDs used throughout the engine.
BOOL: Final = 16
BYTEA: Final = 17
CHAR: Final = 18
NAME: Final = 19
ACLITEM: Final = 1033
INT8: Final = 20
INT2: Final = 21
INT4: Final = 23
REGPROC: Final = 24
TEXT: Final = 25
OID: Final = 26
XID: Final = 28
INET: Final = 869
CIDR: Final = 650
JSON: Final = 114
FLOAT4: Final = 700
FLOAT8: Final = 701
UNKNOWN: Final = 705
BPCHAR: Final = 1042
VARCHAR: Final = 1043
DATE: Final = 1082
TIME: Final = 1083
TIMESTAMP: Final = 1114
TIMESTAMPTZ: Final = 1184
INTERVAL: Final = 1186
NUMERIC: Final = 1700
REGCLASS: Final = 2205
REGTYPE: Final = 2206
UUID: Final = 2950
JSONB: Final = 3802
REGNAMESPACE: Final = 4089
INT2VECTOR: Final = 22
OIDVECTOR: Final = 30
RECORD: Final = 2249
VOID: Final = 2278

# SQL spellings of type names, mapped to pg_type names (lower case, with
# PostgreSQL's aliases).
_ALIASES: Final[dict[str, str]] = {
    "boolean": "bool",
    "smallint": "int2",
    "integer": "int4",
    "int": "int4",
    "bigint": "int8",
    "real": "float4",
    "float": "float8",
    "double precision": "float8",
    "double": "float8",
    "decimal": "numeric",
    "character varying": "varchar",
    "character": "bpchar",
    "char": "bpchar",
    "string": "text",
    "timestamp without time zone": "timestamp",
    "timestamp with time zone": "timestamptz",
    "time without time zone": "time",
    "serial": "int4",
    "bigserial": "int8",
    "smallserial": "int2",
    "serial4": "int4",
    "serial8": "int8",
    "serial2": "int2",
    '"char"': "char",
}


def lookup_name(name: str) -> PgType:
    """Resolve a SQL type name (``integer``, ``varchar``, ``int4[]``...)."""
    key = " ".join(name.lower().split())
    if key.startswith("pg_catalog."):
        key = key.removeprefix("pg_catalog.")
    if key.endswith("[]"):
        element = lookup_name(key[:-2])
        if not element.array_oid:
            raise UndefinedObject(f'type "{name}" does not exist')
        return TYPES[element.array_oid]
    found = BY_NAME.get(_ALIASES.get(key, key))
    if found is None:
        raise UndefinedObject(f'type "{name}" does not exist')
    return found


def array_of(oid: int) -> int:
    """The array type OID of an element type (0 when there is none)."""
    return TYPES[oid].array_oid if oid in TYPES else 0


def element_of(oid: int) -> int:
    """The element type OID of an array type (0 for non-arrays)."""
    return TYPES[oid].element_oid if oid in TYPES else 0


def array_element(oid: int) -> int:
    """The element type of a true array type (``_int4``...), 0 for every
    other type, including the vectors and ``name`` that also have one."""
    pg_type = TYPES.get(oid)
    if pg_type is None or pg_type.category != "A" or not pg_type.name.startswith("_"):
        return 0
    return pg_type.element_oid


# Type modifiers, encoded as PostgreSQL does (atttypmod, RowDescription).
VARHDRSZ: Final = 4


def numeric_typmod(precision: int, scale: int) -> int:
    """PostgreSQL 15's encoding: the scale (-1000..1000) in 11 signed bits."""
    return ((precision << 16) | (scale & 0x7FF)) + VARHDRSZ


def numeric_precision_scale(typmod: int) -> tuple[int, int] | None:
    if typmod < VARHDRSZ:
        return None
    value = typmod - VARHDRSZ
    return (value >> 16) & 0xFFFF, ((value & 0x7FF) ^ 1024) - 1024


def char_typmod(length: int) -> int:
    return length + VARHDRSZ


def char_length(typmod: int) -> int | None:
    return typmod - VARHDRSZ if typmod >= VARHDRSZ else None


def format_type(oid: int, typmod: int = -1, typmod_given: bool = False) -> str:
    """PostgreSQL's format_type(): ``numeric(10,2)``, ``character varying(20)``;
    ``typmod_given``: a typmod of -1 was given rather than left out, which
    names blank-padded char ``bpchar`` (its length unknown), not ``character``."""
    pg_type = TYPES.get(oid)
    if pg_type is None:
        return "???"
    if array_element(oid):
        return format_type(pg_type.element_oid, typmod, typmod_given) + "[]"
    name = pg_type.sql_name
    if typmod < 0:
        return pg_type.name if typmod_given and oid == BPCHAR else name
    if oid == NUMERIC:
        ps = numeric_precision_scale(typmod)
        return f"numeric({ps[0]},{ps[1]})" if ps else name
    if oid in (VARCHAR, BPCHAR):
        return f"{name}({typmod - VARHDRSZ})"
    if oid in (TIMESTAMP, TIMESTAMPTZ, TIME):
        base, _, zone = name.partition(" ")
        return f"{base}({typmod}) {zone}"
    return name


NUMERIC_SCALED_PRECISION: Final = 18
"""The widest numeric(p,s) whose values are held as scaled integers (10**18 < 2**63)."""
NUMERIC_KEY_COLLATION: Final = "RTRIM"
"""The collation under which numeric keys compare as numbers."""


def numeric_scaled_scale(typmod: int) -> int | None:
    """The scale s of a numeric(p,s) held as scaled integers, else None."""
    shape = numeric_precision_scale(typmod)
    if shape is None or shape[0] > NUMERIC_SCALED_PRECISION or shape[1] < 0:
        return None
    return shape[1]


def storage_declaration(oid: int, typmod: int = -1) -> str:
    """How a column of the type is declared in SQLite."""
    if oid == NUMERIC and numeric_scaled_scale(typmod) is None:
        return f"TEXT COLLATE {NUMERIC_KEY_COLLATION}"
    return TYPES[oid].storage


def type_size(oid: int) -> int:
    """RowDescription's data type size (typlen)."""
    pg_type = TYPES.get(oid)
    return pg_type.length if pg_type else -1
