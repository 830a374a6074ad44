"""Hash-partitioned nodes (docs/scale.md): each node of a cluster keeps the
rows it owns and refuses the others, runs the same dataflow over its own
batches, and refuses at CREATE a dataflow step that would need another
node's rows. Real servers started with ``--partition I/N``, real psycopg,
real SIGKILL."""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from catalog.partitioning import partition_of
from tests.fixtures.cluster import LocalCluster
from tests.fixtures.servers import ServerProcess, run_sqlext, start_server

Cluster = Callable[[int], LocalCluster]

DATAFLOW = """
CREATE TABLE counts (phone bigint PRIMARY KEY, votes int NOT NULL)
    PARTITION BY HASH (phone);
CREATE TABLE contestants (id int PRIMARY KEY, name text);
CREATE STREAM votes (phone bigint, contestant int) PARTITION BY HASH (phone);
CREATE PROCEDURE count_votes() BEGIN ATOMIC
    INSERT INTO counts SELECT phone, count(*) FROM votes v
        JOIN contestants c ON c.id = v.contestant GROUP BY phone
    ON CONFLICT (phone) DO UPDATE SET votes = counts.votes + excluded.votes;
END;
CREATE TRIGGER count_votes AFTER INSERT ON votes EXECUTE PROCEDURE count_votes();
"""


def _apply(node: ServerProcess, script: str) -> None:
    with node.connect(autocommit=True) as connection:
        connection.execute(script)


def _refusal(node: ServerProcess, sql: str) -> psycopg.Error:
    with node.connect(autocommit=True) as connection, pytest.raises(psycopg.Error) as caught:
        connection.execute(sql)
    return caught.value


def test_a_node_keeps_the_rows_it_owns_and_names_the_owner_of_the_others(
        cluster_factory: Cluster) -> None:
    cluster = cluster_factory(3)
    for node in cluster.nodes:
        _apply(node, "CREATE TABLE accounts (id int PRIMARY KEY, balance int) "
                     "PARTITION BY HASH (id)")
    owners = {key: partition_of(key, 3) for key in range(1, 61)}
    for index, node in enumerate(cluster.nodes):
        with node.connect(autocommit=True) as connection:
            assert connection.execute("SHOW sqlext.partition").fetchone() == (f"{index}/3",)
            mine = [key for key, owner in owners.items() if owner == index]
            with connection.cursor().copy("COPY accounts FROM STDIN") as copy:
                for key in mine:
                    copy.write_row((key, 100))
            assert [row[0] for row in connection.execute(
                "SELECT id FROM accounts ORDER BY id")] == mine
    stranger = next(key for key, owner in owners.items() if owner == 2)
    for sql in (f"INSERT INTO accounts VALUES ({stranger}, 1)",
                f"UPDATE accounts SET id = {stranger} WHERE id = "
                f"{next(k for k, o in owners.items() if o == 0)}"):
        error = _refusal(cluster.nodes[0], sql)
        assert error.sqlstate == "23514"
        assert error.diag.message_primary == (
            'row for relation "accounts" belongs to partition 2 of 3, not to this node '
            "(partition 0 of 3)")
        assert error.diag.message_detail == (
            f"Partition key of the failing row contains (id) = ({stranger}).")
    with cluster.nodes[0].connect(autocommit=True) as connection:
        with pytest.raises(psycopg.errors.CheckViolation), \
                connection.cursor().copy("COPY accounts FROM STDIN") as copy:
            copy.write_row((stranger, 1))
        # a NULL key belongs to partition 0, so node 1 names it in PostgreSQL's words
        with cluster.nodes[1].connect(autocommit=True) as other:
            other.execute("CREATE TABLE notes (k bytea, v int) PARTITION BY HASH (k)")
            null = _refusal(cluster.nodes[1], "INSERT INTO notes VALUES (NULL, 1)")
            assert null.diag.message_detail == (
                "Partition key of the failing row contains (k) = (null).")
            stranger_bytes = next(bytes([b]) for b in range(256)
                                  if partition_of(bytes([b]), 3) == 0)
            error = _refusal(cluster.nodes[1],
                             f"INSERT INTO notes VALUES ('\\x{stranger_bytes.hex()}', 1)")
            assert error.diag.message_detail == (
                f"Partition key of the failing row contains (k) = (\\x{stranger_bytes.hex()}).")
            assert other.execute("SELECT 1").fetchone() == (1,)
        # nothing of the refused statements is in, and the server is still up
        assert connection.execute("SELECT count(*) FROM accounts").fetchone() == (
            sum(1 for owner in owners.values() if owner == 0),)


def test_the_partition_key_shows_in_the_catalog_and_is_checked(
        cluster_factory: Cluster) -> None:
    node = cluster_factory(2).nodes[0]
    _apply(node, "CREATE TABLE t (k text, v int) PARTITION BY HASH (k); "
                 "CREATE STREAM s (k bigint, v int) PARTITION BY HASH (k)")
    with node.connect(autocommit=True) as connection:
        assert connection.execute(
            "SELECT pg_get_partkeydef('t'::regclass), pg_get_partkeydef('s'::regclass)"
        ).fetchone() == ("HASH (k)", "HASH (k)")
        assert connection.execute(
            "SELECT partrelid::regclass::text, partstrat, partnatts FROM pg_partitioned_table "
            "ORDER BY 1").fetchall() == [("s", "h", 1), ("t", "h", 1)]
        # the dataflow's text (what pg_dump keeps of streams) declares the key
        assert connection.execute(
            "SELECT definition FROM sqlext.dataflow WHERE definition LIKE 'CREATE STREAM%'"
        ).fetchall() == [("CREATE STREAM public.s (k bigint, v integer) PARTITION BY HASH (k)",)]
        connection.execute("ALTER TABLE t RENAME COLUMN k TO key")
        assert connection.execute(
            "SELECT pg_get_partkeydef('t'::regclass)").fetchone() == ("HASH (key)",)
    refused = {
        "CREATE TABLE a (f float8) PARTITION BY HASH (f)": "0A000",
        "CREATE TABLE a (f int) PARTITION BY RANGE (f)": "0A000",
        "CREATE TABLE a (f int, g int) PARTITION BY HASH (f, g)": "0A000",
        "CREATE TABLE a (f int) PARTITION BY HASH (g)": "42703",
        "CREATE TABLE a PARTITION OF t FOR VALUES WITH (MODULUS 2, REMAINDER 0)": "0A000",
        "ALTER TABLE t DROP COLUMN key": "42P16",
    }
    assert {sql: _refusal(node, sql).sqlstate for sql in refused} == refused


def test_a_data_directory_never_serves_another_partition(tmp_path: Path) -> None:
    data_dir = tmp_path / "node"
    node = start_server("--data-dir", str(data_dir), "--partition", "1/3")
    node.stop()
    result = run_sqlext("serve", "--data-dir", str(data_dir), "--partition", "2/3",
                        "--port", "0")
    assert result.returncode == 1
    assert (f"the data directory {data_dir} belongs to partition 1/3, not 2/3"
            in result.stderr)
    assert "is not of the form I/N" in run_sqlext(
        "serve", "--in-memory", "--partition", "3", "--port", "0").stderr
    again = start_server("--data-dir", str(data_dir))  # no --partition: the recorded one
    with again.connect() as connection:
        assert connection.execute("SHOW sqlext.partition").fetchone() == ("1/3",)
    again.stop()


def test_every_node_runs_the_dataflow_on_its_own_batches_and_survives_sigkill(
        cluster_factory: Cluster) -> None:
    cluster = cluster_factory(3)
    for node in cluster.nodes:
        _apply(node, DATAFLOW)
        _apply(node, "INSERT INTO contestants VALUES (1, 'Alice'), (2, 'Bob')")
    events = [(phone, 1 + phone % 2) for phone in range(5000, 5400) for _ in range(phone % 4)]
    oracle = Counter(phone for phone, _ in events)

    def send(batch: list[tuple[int, int]]) -> None:
        shares: dict[int, list[tuple[int, int]]] = {}
        for event in batch:
            shares.setdefault(partition_of(event[0], 3), []).append(event)
        for index, rows in shares.items():
            with cluster.nodes[index].connect(autocommit=True) as connection, \
                    connection.cursor().copy("COPY votes FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)

    half = len(events) // 2
    send(events[:half])
    cluster.restart(1, signal.SIGKILL)
    send(events[half:])
    together: Counter[int] = Counter()
    for index, node in enumerate(cluster.nodes):
        with node.connect(autocommit=True) as connection:
            connection.execute("SELECT sqlext_drain(30)")
            counts = dict(connection.execute("SELECT phone, votes FROM counts").fetchall())
        assert counts == {phone: n for phone, n in oracle.items()
                          if partition_of(phone, 3) == index}
        together.update(counts)
    assert together == oracle


@pytest.mark.parametrize(("procedure", "why"), [
    ("SELECT sum(votes) FROM counts", 'it reads "counts" without pinning its partition key'),
    ("INSERT INTO contestants SELECT contestant, 'x' FROM votes",
     'it writes replicated table "contestants"'),
    ("UPDATE names SET n = 1 FROM votes v WHERE names.phone = v.phone::text",
     '"names" is partitioned by a key of another kind'),
    ("DELETE FROM counts WHERE phone IN (SELECT contestant FROM votes)",
     'it reads "counts" without pinning'),
    # an alias pinned in one query says nothing of the same alias in a subquery
    ("SELECT v.phone FROM votes v JOIN counts c ON c.phone = v.phone "
     "WHERE c.votes > (SELECT avg(votes) FROM counts c)", 'it reads "counts" without pinning'),
    ("UPDATE counts c SET votes = c.votes + 1 FROM votes v WHERE c.phone = v.phone "
     "OR c.votes < 0", 'it reads "counts" without pinning'),  # an OR pins nothing
    ("INSERT INTO counts SELECT v.phone, (SELECT count(*) FROM counts) FROM votes v "
     "ON CONFLICT (phone) DO NOTHING", 'it reads "counts" without pinning'),
    # a subquery column named like the key is no key unless it is one
    ("UPDATE counts c SET votes = 0 FROM (SELECT v.contestant::bigint AS phone FROM votes v) s "
     "WHERE c.phone = s.phone", 'it reads "counts" without pinning'),
])
def test_a_dataflow_step_that_would_need_other_nodes_rows_is_refused_at_create(
        cluster_factory: Cluster, procedure: str, why: str) -> None:
    node = cluster_factory(2).nodes[1]
    _apply(node, DATAFLOW)
    _apply(node, "CREATE TABLE names (phone text PRIMARY KEY, n int) PARTITION BY HASH (phone)")
    _apply(node, f"CREATE PROCEDURE step() BEGIN ATOMIC {procedure}; END")
    error = _refusal(node, "CREATE TRIGGER step AFTER INSERT ON votes EXECUTE PROCEDURE step()")
    assert error.sqlstate == "0A000"
    assert error.diag.message_primary.startswith(f'procedure "step" would leave its partition: '
                                                 f"{why}")
    # the same statements pinned to the batch's keys are one partition's work
    _apply(node, """
        CREATE PROCEDURE pinned() BEGIN ATOMIC
            UPDATE counts SET votes = votes + 1 FROM votes v WHERE counts.phone = v.phone;
            SELECT c.votes, k.name FROM votes v JOIN counts c ON c.phone = v.phone
                JOIN contestants k ON k.id = v.contestant;
            DELETE FROM counts WHERE phone IN (SELECT phone FROM votes);
            DELETE FROM counts USING votes v WHERE counts.phone = v.phone;
            UPDATE counts SET votes = b.n FROM (SELECT phone, count(*) AS n FROM votes
                GROUP BY phone) b WHERE counts.phone = b.phone;
            SELECT v.phone, (SELECT c.votes FROM counts c WHERE c.phone = v.phone) FROM votes v;
        END;
        CREATE TRIGGER pinned AFTER INSERT ON votes EXECUTE PROCEDURE pinned()""")
    replaced = _refusal(node, "CREATE OR REPLACE PROCEDURE pinned() BEGIN ATOMIC "
                              "SELECT count(*) FROM counts; END")
    assert replaced.sqlstate == "0A000"
    # a procedure a step CALLs is checked again when it is replaced
    _apply(node, "CREATE PROCEDURE helper() BEGIN ATOMIC SELECT 1; END; "
                 "CREATE PROCEDURE caller() BEGIN ATOMIC CALL helper(); END; "
                 "CREATE TRIGGER caller AFTER INSERT ON votes EXECUTE PROCEDURE caller()")
    callee = _refusal(node, "CREATE OR REPLACE PROCEDURE helper() BEGIN ATOMIC "
                            "SELECT count(*) FROM counts; END")
    assert callee.diag.message_primary.startswith('procedure "caller" would leave its partition')


def test_python_steps_and_replicated_streams_stay_out_of_partitioned_data(
        cluster_factory: Cluster) -> None:
    node = cluster_factory(2).nodes[0]
    _apply(node, DATAFLOW)
    _apply(node, "CREATE PROCEDURE by_hand() LANGUAGE python AS $$ pass $$; "
                 "CREATE STREAM everywhere (phone bigint, contestant int)")
    python = _refusal(node, "CREATE TRIGGER t AFTER INSERT ON votes EXECUTE PROCEDURE by_hand()")
    assert python.sqlstate == "0A000"
    assert "written in Python" in python.diag.message_primary
    replicated = _refusal(
        node, "CREATE TRIGGER t AFTER INSERT ON everywhere EXECUTE PROCEDURE count_votes()")
    assert replicated.sqlstate == "0A000"
    assert 'stream "everywhere", which is not partitioned' in replicated.diag.message_primary
    # an EE trigger is a step too; on a replicated stream it may write replicated tables
    ee = _refusal(node, "CREATE TRIGGER t AFTER INSERT ON votes AS $$ "
                        "INSERT INTO contestants VALUES (9, 'x') $$")
    assert ee.sqlstate == "0A000"
    _apply(node, "CREATE TRIGGER t AFTER INSERT ON everywhere AS $$ "
                 "INSERT INTO contestants SELECT 10, 'y' WHERE false $$")
    # so may an EE trigger on a replicated table, but not read partitioned ones
    on_table = _refusal(node, "CREATE TRIGGER t2 AFTER INSERT ON contestants AS $$ "
                              "SELECT count(*) FROM counts $$")
    assert 'table "contestants", which is not partitioned' in on_table.diag.message_primary
