"""The partition hash (catalog.partitioning) and the cluster file
(sqlext.cluster.cluster_file): pinned values, so that a change to either
is a change of the documented format, not an accident."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from catalog.partitioning import Placement, key_hash, partition_of
from sqlext.cluster.cluster_file import Address, ClusterError, load

PINNED = [
    # SplitMix64 seeded with 0 starts 0xe220a8397b1dcdaf, as everywhere it is published
    (0, 0xE220A8397B1DCDAF),
    (1, 0x910A2DEC89025CC1),
    (-1, 0xE4D971771B652C20),
    (2**63 - 1, 0x2A67D7552E039EA7),
    (-(2**63), 0x481EC0A212A9F3DB),
    ("", 0x49DF6BF9D4874F40),
    ("Zoë", 0x5B45FBFF12E260BD),
    (b"\x00\xff", 0x52A459DC331D9C7E),
    ("123e4567-e89b-12d3-a456-426614174000", 0xACDF4BC633139CF3),
]


@pytest.mark.parametrize(("key", "expected"), PINNED)
def test_the_hash_of_a_key_is_the_documented_one(key: object, expected: int) -> None:
    assert key_hash(key) == expected
    assert partition_of(key, 7) == expected % 7


def test_null_keys_belong_to_partition_0_and_text_hashes_as_its_utf8_bytes() -> None:
    assert partition_of(None, 5) == 0
    assert key_hash("Zoë") == key_hash("Zoë".encode())


def test_keys_spread_evenly() -> None:
    counts = Counter(partition_of(key, 3) for key in range(300_000))
    assert all(abs(count - 100_000) < 1_000 for count in counts.values())


def test_placement_reads_i_of_n() -> None:
    assert Placement.parse("2/3") == Placement(2, 3)
    assert str(Placement.parse(" 0/1 ")) == "0/1"
    for bad in ("3", "3/3", "-1/3", "a/b", "1/0"):
        with pytest.raises(ValueError):
            Placement.parse(bad)
    assert Placement(2, 3).owns(1) and not Placement(0, 3).owns(1)


def test_a_cluster_file_lists_nodes_in_partition_order(tmp_path: Path) -> None:
    path = tmp_path / "cluster.toml"
    path.write_text('[[node]]\nurl = "sqlext://10.0.0.1:5501"\n'
                    '[[node]]\nurl = "postgresql://loader:pw@10.0.0.2/app?sslmode=require"\n')
    cluster = load(str(path))
    assert [str(node) for node in cluster.nodes] == ["node 0 (10.0.0.1:5501)",
                                                     "node 1 (10.0.0.2:5499)"]
    assert cluster.nodes[1].address.connect_arguments() == {
        "host": "10.0.0.2", "port": 5499, "dbname": "app", "password": "pw",
        "sslmode": "require", "user": "loader"}
    assert load("sqlext://a:1, sqlext://b:2").nodes[1].address == Address.parse("sqlext://b:2")


@pytest.mark.parametrize(("text", "message"), [
    ("", "must list its nodes as [[node]] tables"),
    ("node = []\n", "lists no nodes"),
    ("[[node]]\nhost = 'x'\n", "node 0 has no url"),
    ("node = 3\n", "must list its nodes as [[node]] tables"),
    ("[[node]\n", "is not valid TOML"),
    ('[[node]]\nurl = "http://x"\n', "is not a node URL"),
    ('[[node]]\nurl = "sqlext://x:1?color=red"\n', "unknown parameters: color"),
])
def test_a_bad_cluster_file_says_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "cluster.toml"
    path.write_text(text)
    with pytest.raises(ClusterError, match=message.replace("[", r"\[")):
        load(str(path))
    with pytest.raises(ClusterError, match="cannot read cluster file"):
        load(str(tmp_path / "missing.toml"))
