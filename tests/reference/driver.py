"""Play an independent reference implementation on the engine's random streams.

A reference is a plain-Python class written from the paper, for tests only: it recomputes its
statistics from the counts at every step, in its own code (it must not import the shared
``duelbench.stats`` / ``duelbench.bounds`` helpers it is meant to check).  Two shapes:

* step-wise: ``Ref(K, horizon, params)`` with ``select(t, rng) -> (i, j)`` and
  ``update(i, j, i_won, t)``; the driver draws each duel as the engine does (one uniform
  ``rng.random() < P[i, j]`` per step, also for i == j);
* whole run: ``Ref(K, horizon, params)`` with ``play(P, horizon, rng) -> pairs`` (T × 2), for
  algorithms whose compiled loop does not draw a duel every step (blocks committed in closed
  form, e.g. SCB's exploitation or SAVAGE after it stops).

:func:`reference_pairs` reproduces the engine's seeding (the run's generator and arm permutation
of :mod:`duelbench.engine.seeding`), so its pairs can be compared with
``duelbench.simulate(..., record_pairs=True).pairs`` one to one.
"""

from __future__ import annotations

import numpy as np

from duelbench.algorithms.registry import canonical_params
from duelbench.engine.seeding import run_permutation, run_rng
from duelbench.problems.matrix import PreferenceMatrix


def _as_matrix(P) -> PreferenceMatrix:
    if isinstance(P, PreferenceMatrix):
        return P
    if isinstance(P, str):
        from duelbench.data.registry import load_matrix

        return load_matrix(P)
    return PreferenceMatrix(np.asarray(P, dtype=np.float64))


def play_reference(ref, P: np.ndarray, horizon: int, rng) -> np.ndarray:
    """One run of ``ref`` on the (already permuted) array ``P``; the pairs (T × 2, int64)."""
    if hasattr(ref, "play"):
        pairs = np.asarray(ref.play(P, horizon, rng), dtype=np.int64)
        assert pairs.shape == (horizon, 2), pairs.shape
        return pairs
    pairs = np.zeros((horizon, 2), dtype=np.int64)
    for t in range(1, horizon + 1):
        i, j = ref.select(t, rng)
        won = rng.random() < P[i, j]
        ref.update(i, j, bool(won), t)
        pairs[t - 1] = i, j
    return pairs


def reference_pairs(ref_cls, P, horizon: int, *, algorithm: str, params: dict | None = None, seed: int = 0,
                    run: int = 0, permute: bool = True) -> np.ndarray:
    """Pairs (T × 2, original arm labels) of run ``run`` of ``ref_cls`` under the engine's seeding.

    ``algorithm`` and ``params`` name the registered algorithm whose random stream is used (the
    stream key contains them), so the result is comparable with
    ``simulate(algorithm, P, horizon, 1, seed, run_start=run, record_pairs=True, **params)``.
    """
    M = _as_matrix(P)
    canon = canonical_params(algorithm, params or {})
    K = M.K
    perm = run_permutation(seed, M.identity, run, K) if permute else np.arange(K, dtype=np.int64)
    Pp = np.ascontiguousarray(M.values[np.ix_(perm, perm)])
    rng = run_rng(seed, M.identity, algorithm, canon, run)
    ref = ref_cls(K, int(horizon), dict(canon))
    return perm[play_reference(ref, Pp, int(horizon), rng)]


class Tap:
    """A ``ref_cls`` for :func:`reference_pairs` that keeps the reference it builds (to read its
    branch counters ``events``), optionally overriding parameters the reference receives (not
    those that key the random stream)."""

    def __init__(self, ref_cls, **override):
        self.ref_cls = ref_cls
        self.override = override
        self.ref = None

    def __call__(self, K, horizon, params):
        self.ref = self.ref_cls(K, horizon, {**params, **self.override})
        return self.ref


def engine_pairs(algorithm: str, P, horizon: int, seed: int, run: int, params: dict | None = None) -> np.ndarray:
    """The engine's pairs (T × 2, original labels) of run ``run``."""
    from duelbench.engine.simulate import simulate

    return simulate(algorithm, P, horizon, 1, seed, run_start=run, record_pairs=True, **(params or {})).pairs[0]


def first_difference(ref: np.ndarray, got: np.ndarray, events=None) -> str | None:
    """A message naming the first step where two pair sequences differ, or None if equal."""
    if np.array_equal(ref, got):
        return None
    t = int(np.argmax(np.any(ref != got, axis=1)))
    return (f"first difference at t = {t + 1}: reference {tuple(ref[t])}, compiled {tuple(got[t])}; "
            f"reference events {events}")


def compare_with_engine(tap: Tap, algorithm: str, P, horizon: int, seed: int, run: int, params: dict | None = None):
    """Play the reference and the engine on run ``run``; returns the reference, or raises
    ``AssertionError`` naming the first differing step."""
    ref = reference_pairs(tap, P, horizon, algorithm=algorithm, params=params, seed=seed, run=run)
    got = engine_pairs(algorithm, P, horizon, seed, run, params)
    message = first_difference(ref, got, getattr(tap.ref, "events", None))
    assert message is None, message
    return tap.ref


def count_expiries(ref, U, t) -> None:
    """RUCB-style references (RUCB, D-TS): add to ``ref.events["expired"]`` the pairs {i, j} with
    u_ij < 1/2 at t − 1 but not at t although not compared at t − 1 (resolved pairs that ln t's
    growth made unresolved), and note t in ``ref.expiry_times``.  ``ref`` keeps ``_resolved``
    (pairs resolved at t − 1) and ``_compared`` (the pair compared at t − 1)."""
    K = len(U)
    now = {(min(i, j), max(i, j)) for i in range(K) for j in range(K) if U[i][j] < 0.5}
    expired = len(ref._resolved - now - {ref._compared})
    if expired:
        ref.events["expired"] += expired
        ref.expiry_times.append(t)
    ref._resolved = now
