"""``sqlext bench``: benchmarks that measure sqlext next to a peer
(PostgreSQL 15) started in the same process tree, and report medians and
ratios instead of asserting timings.

May import: everything (a benchmark starts servers and talks to them as a
client does).
"""
