"""Reporting: published-number registry, checks and replication status.

Submodules are imported explicitly (``from duelbench.report import checks``) so that importing
one of them never pulls in the heavier ones.  Provenance sidecars live at the bottom of the
layers, in :mod:`duelbench.provenance.sidecar`.
"""
