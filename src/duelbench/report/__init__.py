"""Reporting: provenance sidecars, published-number registry, checks and replication status.

Submodules are imported explicitly (``from duelbench.report import provenance``) so that
importing one of them never pulls in the heavier ones.
"""
