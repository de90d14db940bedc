"""The committed results archive: finished simulation and sampling shards, kept exact.

A fresh clone rebuilds every figure from the archive instead of re-simulating, and a long build
interrupted on one machine resumes on another from the shards committed so far.

* :mod:`.entry` — one entry: named arrays and their key in a compressed, deterministic file.
* :mod:`.store` — the archive folder and its manifest; lookups that use an entry only when its
  key equals the one computed now and its sha256 is intact.

Why not Snakemake's between-workflow cache (``--cache``): it refuses rules with several named
outputs (every shard rule writes the shard and its provenance sidecar), does not hash ``run:``
code, stores flat uncompressed files, and uses an entry without verifying its content.  The
archive keys on the import-closure hash of the code that computes an entry
(:mod:`duelbench.provenance.codehash`) and on ``requirements.lock``, stores only what the outputs
read, and checks every entry's sha256 before using it.
"""
