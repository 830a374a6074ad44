"""Feed generated Leaderboard votes into a running sqlext, one vote per
transaction, and print the boards.

    python examples/leaderboard/feed_votes.py --votes 10000 \
        --dsn "host=127.0.0.1 port=5499 user=postgres dbname=sqlext"
"""

from __future__ import annotations

import argparse
import time

import psycopg

from sqlext.tools.bench.leaderboard_bench import generate_votes, send_pipelined


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--votes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2015)
    parser.add_argument("--dsn", default="host=127.0.0.1 port=5499 user=postgres dbname=sqlext")
    args = parser.parse_args()
    votes = list(generate_votes(args.votes, args.seed))
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        started = time.perf_counter()
        send_pipelined(conn, votes)
        conn.execute("SELECT sqlext_drain(600)")
        elapsed = time.perf_counter() - started
        print(f"{len(votes):,} votes in {elapsed:.1f} s ({len(votes) / elapsed:,.0f} votes/s)")
        print("trending (last 100 valid votes):", conn.execute(
            "SELECT string_agg(contestant_number || ':' || num_votes, '  ') FROM "
            "(SELECT * FROM leaderboard ORDER BY num_votes DESC, contestant_number LIMIT 3) t"
        ).fetchone()[0])
        for round_, contestant, count in conn.execute("SELECT * FROM removals ORDER BY round"):
            print(f"removal {round_}: contestant {contestant} with {count} votes")


if __name__ == "__main__":
    main()
