"""Ask/tell use of a registered algorithm: :class:`OnlinePolicy`, :func:`policy`, :func:`load_policy`.

The policy follows the :class:`~duelbench.algorithms.registry.Policy` protocol of the engine's
pure-Python algorithms — ``select(t)`` → ``(i, j)``, ``update(i, j, i_won, t)`` — with ``t``
optional (the policy counts the steps itself), on the algorithm's own compiled kernels
(:mod:`duelbench.online.drivers`).

Random stream
-------------
The generator is the engine's generator of run ``run``:
:func:`duelbench.engine.seeding.run_rng` ``(seed, dataset, algorithm, canonical params, run)``.
The engine draws selections and duels from that one stream; the policy does not split it.  At
each outcome it consumes the draw the engine's duel would have consumed
(:func:`duelbench.algorithms.kernels.duel`: one uniform), and none where the engine draws no
duel (the unobserved self-comparisons after BTM, SAVAGE, SCB or a batched algorithm has
committed).  So ``policy(name, K, seed=s, dataset=P.identity, run=r)`` fed with the outcomes of
run r's duels selects exactly the pairs ``simulate(name, P, T, runs=1, seed=s, run_start=r,
record_pairs=True)`` records for that run, arms labelled as the run sees them (``permute=False``:
as in ``P``; otherwise relabelled by :func:`duelbench.engine.seeding.run_permutation`).
"""

from __future__ import annotations

import numbers
import os
from pathlib import Path

import numpy as np

import duelbench
from duelbench.algorithms.registry import canonical_params, get_algorithm, source_hash
from duelbench.engine.seeding import run_rng

from . import state_file
from .drivers import Driver, driver_for

#: ``dataset`` part of the stream of a policy that is not reproducing a simulation.
DEFAULT_DATASET = "online"


def code_hash(algorithm: str) -> str:
    """The code hash saved with a policy: the algorithm's
    :func:`~duelbench.algorithms.registry.source_hash` without the dataset loaders (the hash
    that keys its results in the archive)."""
    return source_hash(algorithm, with_data=False)


def _integer(name: str, value, minimum: int, hint: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer ({hint}), got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum} ({hint}), got {value}")
    return int(value)


def _outcome(value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise TypeError(f"i_won must be True/False (or 1/0): True when arm i won, got {value!r} "
                    f"({type(value).__name__})")


class OnlinePolicy:
    """A registered dueling-bandit algorithm driven by outcomes from outside (ask/tell).

    Parameters
    ----------
    algorithm : registry name (:func:`duelbench.list_algorithms`).
    K : number of arms (≥ 2), labelled 0 … K − 1.
    seed : the global seed (as in :func:`duelbench.simulate`).
    horizon : T, the number of comparisons that will be made.  Required by the algorithms whose
        rules depend on it (BTM, Copeland and Condorcet SAVAGE, PCOMP, SCOMP, SCOMP2, Python
        plug-ins); for the others optional, a budget after which :meth:`select` refuses.
    dataset, run : the stream is the engine's for ``(seed, dataset, algorithm, params, run)``;
        pass ``dataset=P.identity`` to reproduce run ``run`` of :func:`duelbench.simulate` on P.
    **params : the algorithm's parameters (defaults from the registry).

    Notes
    -----
    One comparison at a time: :meth:`select` hands out a pair, :meth:`update` takes its outcome;
    a second :meth:`select` before the outcome is refused (the pair still waiting is
    :attr:`pending`), because a randomised algorithm would otherwise draw a second selection on
    the shared stream.  Batched algorithms (PCOMP, SCOMP, SCOMP2) commit to a whole batch before
    seeing any of its outcomes: :meth:`select_batch` hands out the rest of the current batch at
    once (to be judged in parallel) and :meth:`update_batch` takes outcomes in that order, any
    number at a time; :meth:`select` / :meth:`update` walk through the same batch one pair at a
    time.  For the other algorithms a batch is the single next pair.
    """

    def __init__(self, algorithm: str, K: int, seed: int = 0, horizon: int | None = None, *,
                 dataset: str = DEFAULT_DATASET, run: int = 0, **params):
        spec = get_algorithm(algorithm)
        K = _integer("K", K, 2, "the number of arms")
        seed = _integer("seed", seed, 0, "the global seed of the random stream")
        run = _integer("run", run, 0, "the engine's run index of the random stream")
        if horizon is not None:
            horizon = _integer("horizon", horizon, 1, "the number of comparisons to be made, or None")
        if not isinstance(dataset, str):
            raise TypeError(f"dataset must be a string (a matrix's identity, or {DEFAULT_DATASET!r}), got {dataset!r}")
        driver = driver_for(spec)
        if driver.needs_horizon and horizon is None:
            raise ValueError(f"{algorithm}: its rules depend on the horizon ({driver.horizon_use}); "
                             "pass horizon=T, the number of comparisons you will make")
        canon = canonical_params(algorithm, params)
        rng = run_rng(seed, dataset, algorithm, canon, run)
        state = driver.init(K, horizon, canon, rng)
        self._setup(driver, canon, K, horizon, seed, dataset, run, rng, state)

    def _setup(self, driver: Driver, canon, K, horizon, seed, dataset, run, rng, state, t=0, pending=(),
               comparisons=None, wins=None):
        self._driver = driver
        self._algorithm = driver.name
        self._params = dict(canon)
        self._K = K
        self._horizon = horizon
        self._seed = seed
        self._dataset = dataset
        self._run = run
        self._rng = rng
        self._state = state
        self._t = t
        self._pending = [(int(i), int(j), bool(o)) for i, j, o in pending]
        self._comparisons = np.zeros((K, K), dtype=np.int64) if comparisons is None else comparisons
        self._wins = np.zeros((K, K), dtype=np.int64) if wins is None else wins

    # ------------------------------------------------------------------ properties
    @property
    def algorithm(self) -> str:
        """The registry name."""
        return self._algorithm

    @property
    def K(self) -> int:
        """Number of arms."""
        return self._K

    @property
    def horizon(self) -> int | None:
        """T (None: no budget)."""
        return self._horizon

    @property
    def params(self) -> dict[str, float]:
        """The canonical parameters (defaults filled in)."""
        return dict(self._params)

    @property
    def t(self) -> int:
        """Outcomes received so far (the next pair is that of step t + 1)."""
        return self._t

    @property
    def pending(self) -> tuple[tuple[int, int], ...]:
        """The pairs handed out and still waiting for their outcome, in order."""
        return tuple((i, j) for i, j, _ in self._pending)

    @property
    def batched(self) -> bool:
        """The algorithm commits to batches of comparisons (PCOMP, SCOMP, SCOMP2)."""
        return self._driver.batched

    @property
    def comparisons(self) -> np.ndarray:
        """K×K counts of the pairs compared so far, ``[i, j]`` for (i, j) as selected (copy)."""
        return self._comparisons.copy()

    @property
    def wins(self) -> np.ndarray:
        """K×K counts, ``[i, j]`` = comparisons of arms i ≠ j that i won (copy)."""
        return self._wins.copy()

    @property
    def rng(self) -> np.random.Generator:
        """The run's generator.  Read it (e.g. a copy, to draw an outcome as the engine's duel
        would), never draw from it: that would change every later selection."""
        return self._rng

    def __repr__(self) -> str:
        return (f"OnlinePolicy({self._algorithm!r}, K={self._K}, horizon={self._horizon}, t={self._t}, "
                f"pending={list(self.pending)})")

    # ------------------------------------------------------------------ ask
    def _check_step(self, call: str, t) -> None:
        if t is None:
            return
        if isinstance(t, (bool, np.bool_)) or not isinstance(t, numbers.Integral) or t != self._t + 1:
            raise ValueError(f"{call}: t={t!r}, but the next outcome is that of step {self._t + 1} "
                             f"(t counts comparisons from 1); omit t or pass {self._t + 1}")

    def _check_can_select(self, call: str) -> None:
        if self._pending:
            (i, j, _), n = self._pending[0], len(self._pending)
            waiting = f"the pair ({i}, {j})" if n == 1 else f"{n} pairs, the first ({i}, {j}),"
            raise RuntimeError(f"{call}: {waiting} handed out at step {self._t + 1} still "
                               f"{'waits' if n == 1 else 'wait'} for an outcome; report it with update(i, j, i_won) "
                               "first (p.pending lists the pairs waiting)")
        if self._horizon is not None and self._t >= self._horizon:
            raise RuntimeError(f"{call}: the horizon of {self._horizon} comparisons is spent; start a new policy "
                               "with a larger horizon= (the algorithm's rules were set for this one)")

    def _check_pair(self, i, j) -> None:
        if not (0 <= i < self._K and 0 <= j < self._K):
            raise RuntimeError(f"{self._algorithm}: selected {(i, j)} at step {self._t + 1}, outside 0..{self._K - 1}")

    def select(self, t: int | None = None) -> tuple[int, int]:
        """The pair (i, j) to compare at step t = :attr:`t` + 1.

        Parameters
        ----------
        t : optional; if given it must be that step (the
            :class:`~duelbench.algorithms.registry.Policy` protocol passes it).

        Returns
        -------
        (i, j) : arms to compare; report the outcome with ``update(i, j, i_won)``.
        """
        self._check_step("select()", t)
        self._check_can_select("select()")
        i, j, observed = self._driver.select(self._state, self._t + 1, self._rng)
        self._check_pair(i, j)
        self._pending.append((i, j, observed))
        return i, j

    def select_batch(self) -> np.ndarray:
        """The comparisons that can be made before any of their outcomes is known, as an
        (n, 2) int64 array of pairs in order: for PCOMP, SCOMP and SCOMP2 the rest of the
        current batch (its outcomes are only used when the batch is over), for every other
        algorithm the single next pair.  Report them with :meth:`update_batch` (or
        :meth:`update`, in this order)."""
        self._check_can_select("select_batch()")
        rows = self._driver.batch(self._state, self._t + 1, self._rng)
        for i, j, _ in rows:
            self._check_pair(i, j)
        self._pending.extend(rows)
        return np.array([(i, j) for i, j, _ in rows], dtype=np.int64).reshape(len(rows), 2)

    # ------------------------------------------------------------------ tell
    def _arm(self, name: str, value) -> int:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an arm index (an integer in 0..{self._K - 1}), got {value!r}")
        if not 0 <= value < self._K:
            raise ValueError(f"{name}={value} is outside 0..{self._K - 1} (K = {self._K} arms)")
        return int(value)

    def _apply(self, i: int, j: int, i_won: bool, observed: bool) -> None:
        if observed:
            self._rng.random()  # the uniform the engine's duel draws (kernels.duel)
        self._t += 1
        self._driver.update(self._state, i, j, i_won, self._t, observed)
        self._pending.pop(0)
        self._comparisons[i, j] += 1
        if i != j:
            self._wins[(i, j) if i_won else (j, i)] += 1

    def update(self, i: int, j: int, i_won, t: int | None = None) -> None:
        """Report the outcome of the pair handed out first and still waiting.

        Parameters
        ----------
        i, j : that pair, in the order it was handed out.
        i_won : True (or 1) if arm i won the comparison, False (or 0) if j won.
        t : optional; if given it must be the pair's step, :attr:`t` + 1.
        """
        won = _outcome(i_won)
        i, j = self._arm("i", i), self._arm("j", j)
        if not self._pending:
            raise RuntimeError("update() before select(): no pair is waiting for an outcome; call select() first")
        self._check_step("update()", t)
        pi, pj, observed = self._pending[0]
        if (i, j) != (pi, pj):
            raise ValueError(f"update({i}, {j}, ...): the pair waiting for its outcome is ({pi}, {pj}), handed out "
                             f"for step {self._t + 1}; report that pair, in that order (i_won: arm {pi} won)")
        self._apply(i, j, won, observed)

    def update_batch(self, pairs, outcomes) -> None:
        """Report the outcomes of the first ``len(pairs)`` pairs waiting (see :meth:`select_batch`).

        Parameters
        ----------
        pairs : (n, 2) array-like, those pairs in the order they were handed out.
        outcomes : n values, True (or 1) where the pair's first arm won.

        Nothing is applied unless every pair and outcome is valid.
        """
        arr = np.asarray(pairs)
        if arr.ndim != 2 or arr.shape[1] != 2 or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
            raise TypeError(f"pairs must be an (n, 2) array of arm indices as select_batch() returns, got shape "
                            f"{arr.shape} dtype {arr.dtype}")
        outs = list(outcomes) if not isinstance(outcomes, np.ndarray) else list(outcomes.reshape(-1))
        if len(outs) != arr.shape[0]:
            raise ValueError(f"outcomes has {len(outs)} values for {arr.shape[0]} pairs; give one i_won per pair")
        won = [_outcome(o) for o in outs]
        if not self._pending:
            raise RuntimeError("update_batch() before select_batch(): no pair is waiting for an outcome; "
                               "call select_batch() first")
        if arr.shape[0] > len(self._pending):
            raise ValueError(f"update_batch(): {arr.shape[0]} pairs given, only {len(self._pending)} waiting "
                             "(p.pending lists them)")
        for k, (i, j) in enumerate(arr.tolist()):
            self._arm(f"pairs[{k}, 0]", i)
            self._arm(f"pairs[{k}, 1]", j)
            pi, pj, _ = self._pending[k]
            if (i, j) != (pi, pj):
                raise ValueError(f"update_batch(): pairs[{k}] = ({i}, {j}), but the pair waiting there is ({pi}, {pj}) "
                                 f"(step {self._t + 1 + k}); pass the pairs in the order they were handed out")
        for (i, j), w in zip(arr.tolist(), won):
            self._apply(i, j, w, self._pending[0][2])

    # ------------------------------------------------------------------ answers
    def recommend(self) -> tuple[int, ...] | None:
        """The algorithm's current best guess, as a sorted tuple of arms (one arm when it has
        committed), or None when it defines none (``random``, a plug-in without a
        ``recommend()``) or has none yet (before the first outcome).

        Per algorithm (docs/online.md has the table): RUCB — its hypothesis B while it is a
        candidate, else the candidates C (no confident loss); D-TS, D-TS+ — C (the fewest
        confident losses); CCB — B ∩ C_t, else C_t; RCS — the most frequent champion; RMED1 —
        î* = argmin Î; ECW-RMED — the empirical Copeland winners; Sparring — the arm proposed
        most; BTM — the working set W; Copeland / Condorcet SAVAGE — the arm it exploits (or
        would exploit if exploration ended now); SCB — the arm Algorithm 2 returned last;
        PCOMP, SCOMP, SCOMP2 — the active set A.
        """
        if self._t == 0:
            return None
        return self._driver.recommend(self._state)

    # ------------------------------------------------------------------ persistence
    def save(self, path) -> Path:
        """Write the policy to ``path`` (``.npz``, see :mod:`duelbench.online.state_file`),
        pending pairs included; :func:`load_policy` continues it exactly.  Returns the path."""
        if not self._driver.saveable:
            raise TypeError(f"save(): {self._algorithm!r} is a pure-Python plug-in whose state is a Python object; "
                            "save that object yourself (e.g. with pickle)")
        meta = {
            "algorithm": self._algorithm, "params": self._params, "code_hash": code_hash(self._algorithm),
            "K": self._K, "horizon": self._horizon, "seed": self._seed, "dataset": self._dataset, "run": self._run,
            "t": self._t, "pending": [list(p) for p in self._pending],
            "rng": self._rng.bit_generator.state, "duelbench": duelbench.__version__,
        }
        return state_file.write(path, meta, self._state, {"comparisons": self._comparisons, "wins": self._wins})


def policy(algorithm: str, K: int, seed: int = 0, horizon: int | None = None, *, dataset: str = DEFAULT_DATASET,
           run: int = 0, **params) -> OnlinePolicy:
    """An :class:`OnlinePolicy` of ``algorithm`` on K arms (see there for the arguments)."""
    return OnlinePolicy(algorithm, K, seed, horizon, dataset=dataset, run=run, **params)


def load_policy(path) -> OnlinePolicy:
    """The policy saved at ``path`` by :meth:`OnlinePolicy.save`, ready to continue.

    Refused, with one line saying what differs and what to do, for a file of another format
    version, or one saved by another version of the algorithm's code (another code hash): its
    kernel state need not mean the same to this code.
    """
    meta, arrays = state_file.read(path)
    name = meta["algorithm"]
    where = repr(os.fspath(path))
    spec = get_algorithm(name)
    current = code_hash(name)
    if meta["code_hash"] != current:
        raise state_file.PolicyFileError(
            f"policy file {where} was saved by {name} with code hash {meta['code_hash'][:12]}, the installed code "
            f"hashes to {current[:12]}: continue it with the code that saved it, or start a new policy")
    driver = driver_for(spec)
    K, horizon = int(meta["K"]), meta["horizon"]
    canon = canonical_params(name, meta["params"])
    state = state_file.unflatten(meta["state"], arrays)
    fresh: list = []
    fresh_layout = state_file.flatten(driver.init(K, horizon, canon, np.random.default_rng(0)), fresh)
    if state_file.describe(meta["state"], arrays) != state_file.describe(fresh_layout, fresh):
        raise state_file.PolicyFileError(
            f"policy file {where}: its {name} state does not have the layout this code builds for K = {K}; "
            "the file is damaged or was written by other code: start a new policy")
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = meta["rng"]
    out = OnlinePolicy.__new__(OnlinePolicy)
    out._setup(driver, canon, K, horizon, int(meta["seed"]), meta["dataset"], int(meta["run"]), rng, state,
               t=int(meta["t"]), pending=meta["pending"], comparisons=np.array(arrays["comparisons"]),
               wins=np.array(arrays["wins"]))
    return out
