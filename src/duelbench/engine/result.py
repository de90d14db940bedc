"""The result of a simulation: cumulative regret per run at checkpoints."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

#: Regret definitions recorded by the engine (one accumulator each; see
#: :mod:`duelbench.problems.regret`).  The three Copeland normalisations are recorded separately
#: rather than derived from one another: they are proportional only when the matrix has no exact
#: off-diagonal tie (ArXiv has one), because a tie counts neither as a win nor as a loss.
RECORDED_KINDS = ("copeland", "copeland_zoghi", "copeland_wu", "condorcet")

@dataclass
class SimulationResult:
    """Cumulative pseudo-regret of ``runs`` independent runs at ``checkpoints``.

    Attributes
    ----------
    checkpoints : int64 array, increasing, last = horizon.
    regrets : kind → (runs × checkpoints) float64 array for each of ``RECORDED_KINDS``
        (``"condorcet"`` is NaN when the instance has no Condorcet winner).
    run_indices : the global run index of each row (rows of different shards concatenate).
    """

    algorithm: str
    dataset: str
    params: dict
    horizon: int
    seed: int
    checkpoints: np.ndarray
    regrets: dict
    run_indices: np.ndarray
    permute: bool = True
    pairs: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    @property
    def regret(self) -> np.ndarray:
        """Cumulative Copeland regret in Komiyama et al.'s normalisation (runs × checkpoints)."""
        return self.regrets["copeland"]

    def regret_of(self, kind: str = "copeland") -> np.ndarray:
        """Cumulative regret of one recorded kind (runs × checkpoints)."""
        try:
            return self.regrets[kind]
        except KeyError:
            raise KeyError(f"unknown regret kind {kind!r}; available: {sorted(self.regrets)}") from None

    @property
    def runs(self) -> int:
        return int(self.run_indices.shape[0])

    def mean(self, kind: str = "copeland") -> np.ndarray:
        """Mean over runs at each checkpoint."""
        return self.regret_of(kind).mean(axis=0)

    def stderr(self, kind: str = "copeland") -> np.ndarray:
        """Standard error of the mean over runs (ddof = 1; 0 for a single run)."""
        r = self.regret_of(kind)
        if r.shape[0] < 2:
            return np.zeros(r.shape[1])
        return r.std(axis=0, ddof=1) / np.sqrt(r.shape[0])

    def final(self, kind: str = "copeland") -> np.ndarray:
        """Per-run regret at the horizon."""
        return self.regret_of(kind)[:, -1]

    # --- persistence -------------------------------------------------------------------
    def to_npz(self, path) -> None:
        """Write to ``path`` (an open binary file or a path; callers make it atomic)."""
        header = {
            "algorithm": self.algorithm,
            "dataset": self.dataset,
            "params": self.params,
            "horizon": int(self.horizon),
            "seed": int(self.seed),
            "permute": bool(self.permute),
            "kinds": list(self.regrets),
            "meta": self.meta,
        }
        arrays = {f"regret_{k}": v for k, v in self.regrets.items()}
        np.savez(path, header=np.array(json.dumps(header, sort_keys=True)), checkpoints=self.checkpoints,
                 run_indices=self.run_indices, **arrays)

    @classmethod
    def from_npz(cls, path) -> "SimulationResult":
        with np.load(path, allow_pickle=False) as z:
            header = json.loads(str(z["header"]))
            regrets = {k: z[f"regret_{k}"] for k in header["kinds"]}
            return cls(algorithm=header["algorithm"], dataset=header["dataset"], params=header["params"],
                       horizon=header["horizon"], seed=header["seed"], checkpoints=z["checkpoints"],
                       regrets=regrets, run_indices=z["run_indices"], permute=header["permute"],
                       meta=header.get("meta", {}))

    @classmethod
    def concatenate(cls, parts: list["SimulationResult"]) -> "SimulationResult":
        """Stack the runs of several results of the same job (e.g. shards), in run order."""
        if not parts:
            raise ValueError("nothing to concatenate")
        first = parts[0]
        for p in parts[1:]:
            same = (p.algorithm, p.dataset, p.params, p.horizon, p.seed, p.permute) == (
                first.algorithm, first.dataset, first.params, first.horizon, first.seed, first.permute)
            if not same or not np.array_equal(p.checkpoints, first.checkpoints):
                raise ValueError("cannot concatenate results of different jobs")
        order = np.argsort(np.concatenate([p.run_indices for p in parts]), kind="stable")
        run_indices = np.concatenate([p.run_indices for p in parts])[order]
        if np.any(np.diff(run_indices) == 0):
            raise ValueError("duplicate run indices across the results")
        regrets = {k: np.concatenate([p.regrets[k] for p in parts])[order] for k in first.regrets}
        return cls(algorithm=first.algorithm, dataset=first.dataset, params=first.params, horizon=first.horizon,
                   seed=first.seed, checkpoints=first.checkpoints, regrets=regrets, run_indices=run_indices,
                   permute=first.permute, meta=first.meta)
