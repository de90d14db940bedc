"""Provenance: what a result depends on, at the bottom of the layers (imported by every other).

* :mod:`.codehash` — the hash of a module's import closure (normalised source).
* :mod:`.compiled_cache` — numba's on-disk cache keyed by that hash, so an edit anywhere in a
  compiled function's closure can never load stale machine code.
* :mod:`.sidecar` — the provenance sidecar (``<output>.json``) written next to every output.

Submodules are imported explicitly; importing this package imports nothing heavy.
"""
