"""Random streams derived from the identity of a job, never from Python's ``hash()``.

* The algorithm's stream for run r is ``SeedSequence(entropy=seed, spawn_key=(*words(sha256(
  "stream", dataset, algorithm, canonical params)), r))`` — independent of the paper or
  experiment that requests it, of the shard layout and of the number of cores, so
  :func:`duelbench.simulate` reproduces any workflow shard bit for bit and runs are shared by
  every paper that needs them.
* The arm permutation of run r depends only on ``(seed, dataset, r)``: every algorithm sees the
  same shuffled instance in run r (a paired comparison).
"""

import hashlib
import json

import numpy as np


def canonical_json(obj) -> str:
    """Deterministic JSON (sorted keys, no whitespace, floats via repr)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def key_words(*parts: str) -> tuple[int, ...]:
    """sha256 of the NUL-joined parts as eight 32-bit words (a SeedSequence spawn key)."""
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[k : k + 4], "little") for k in range(0, 32, 4))


def stream_key(dataset: str, algorithm: str, params: dict) -> tuple[int, ...]:
    """Spawn-key prefix of the algorithm's random stream for (dataset, algorithm, params)."""
    return key_words("stream", dataset, algorithm, canonical_json(params))


def run_rng(seed: int, dataset: str, algorithm: str, params: dict, run: int) -> np.random.Generator:
    """The generator of run ``run`` (PCG64)."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(*stream_key(dataset, algorithm, params), int(run)))
    return np.random.Generator(np.random.PCG64(ss))


def run_permutation(seed: int, dataset: str, run: int, K: int) -> np.ndarray:
    """The arm permutation of run ``run`` on ``dataset`` (same for every algorithm)."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(*key_words("permutation", dataset), int(run)))
    return np.random.Generator(np.random.PCG64(ss)).permutation(K).astype(np.int64)
