"""A cluster of sqlext nodes as clients see it: the cluster file (or a list
of node URLs) and which node owns a key.

A client layer: it imports ``catalog`` (the partition hash) and the
standard library, and is used by the Spark data source and the tools.
The servers never import it: each knows only its own place.
"""
