"""A cluster of sqlext nodes as clients see it: the cluster file (or a list
of node URLs), the nodes in partition order.

A client layer of the standard library alone, used by the Spark data
source and the tools.
The servers never import it: each knows only its own place.
"""
