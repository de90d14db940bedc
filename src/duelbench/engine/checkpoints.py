"""Times at which cumulative regret is recorded.

Log-spaced points (for the papers' semilog plots) merged with linear points (for linear-axis
plots and the growth test), always including the horizon.
"""

import numpy as np


def default_checkpoints(horizon: int, n_log: int = 60, n_linear: int = 20) -> np.ndarray:
    """Sorted unique int64 checkpoints in ``[1, horizon]``, including ``horizon``.

    ``n_log`` points geometrically spaced from 1 to ``horizon`` (rounded), plus ``n_linear``
    equally spaced multiples of ``horizon / n_linear``.
    """
    horizon = int(horizon)
    if horizon < 1:
        raise ValueError(f"horizon must be a positive integer, got {horizon}")
    log_pts = np.unique(np.round(np.geomspace(1, horizon, num=max(n_log, 2))).astype(np.int64))
    lin_pts = (np.arange(1, n_linear + 1, dtype=np.int64) * horizon) // max(n_linear, 1)
    pts = np.unique(np.concatenate([log_pts, lin_pts, [horizon]]))
    return pts[(pts >= 1) & (pts <= horizon)].astype(np.int64)


def validate_checkpoints(checkpoints, horizon: int) -> np.ndarray:
    """Check user-given checkpoints: strictly increasing positive ints ending at ``horizon``."""
    c = np.asarray(checkpoints, dtype=np.int64)
    if c.ndim != 1 or c.size == 0:
        raise ValueError("checkpoints must be a non-empty 1-D sequence of integers")
    if c[0] < 1 or np.any(np.diff(c) <= 0):
        raise ValueError("checkpoints must be strictly increasing positive integers")
    if c[-1] != horizon:
        raise ValueError(f"the last checkpoint must equal the horizon {horizon}, got {c[-1]}")
    return c


#: Horizon points of algorithms that need T in advance (one full run per point): a sparser,
#: purely log-spaced grid, because every point costs a run of that length.
HORIZON_MODE_POINTS = 12


def horizon_mode_checkpoints(horizon: int, n_points: int = HORIZON_MODE_POINTS) -> np.ndarray:
    """Log-spaced horizon points in ``[min(10, horizon), horizon]`` for ``needs_horizon`` algorithms.

    Their total cost is about 1.4 × ``horizon`` steps per run (a geometric series), instead of
    ~25 × ``horizon`` for the default grid.
    """
    horizon = int(horizon)
    if horizon < 1:
        raise ValueError(f"horizon must be a positive integer, got {horizon}")
    pts = np.unique(np.round(np.geomspace(min(10, horizon), horizon, num=max(n_points, 1))).astype(np.int64))
    return np.unique(np.concatenate([pts, [horizon]])).astype(np.int64)
