"""The regret recorder of :mod:`duelbench.algorithms.kernels` on hand-made steps: step-wise and
block recording interleaved (as SCB's phases do), checkpoint sums, recorded pairs and the
checkpoint pointer."""

from __future__ import annotations

import numpy as np

from duelbench.algorithms.kernels import recorder_block, recorder_commit, recorder_new, recorder_step


def _regret():
    """Two regret definitions on 3 arms (exact binary fractions), the second twice the first."""
    r = np.array([[0.0, 0.5, 0.75], [0.5, 1.0, 0.25], [0.75, 0.25, 0.125]])
    return np.stack([r, 2 * r])


def test_new_recorder_is_empty():
    regret, checkpoints, cum, out, pairs, nxt = recorder_new(_regret(), np.array([2, 7], dtype=np.int64), True)
    assert cum.tolist() == [0.0, 0.0] and out.shape == (2, 2) and not out.any()
    assert pairs.shape == (7, 2) and not pairs.any()
    assert nxt.tolist() == [0]  # the next checkpoint to fill
    assert recorder_new(_regret(), np.array([2, 7], dtype=np.int64), False)[4].shape == (0, 2)


def test_block_between_steps_advances_the_running_sums():
    """step 1 plays (0, 1); a block plays (2, 1) at steps 2-4; step 5 plays (1, 1): the checkpoint
    after the block includes the block's 3 × r(2, 1), and every step's pair is recorded as (i, j)."""
    rec = recorder_new(_regret(), np.array([1, 3, 5], dtype=np.int64), True)
    recorder_step(rec, 1, 0, 1)
    recorder_block(rec, 1, 3, 2, 1)
    assert rec[2].tolist() == [0.5 + 3 * 0.25, 2 * (0.5 + 3 * 0.25)]
    assert rec[5].tolist() == [2]
    recorder_step(rec, 5, 1, 1)
    out, pairs = rec[3], rec[4]
    assert out[0].tolist() == [0.5, 0.5 + 2 * 0.25, 0.5 + 3 * 0.25 + 1.0]
    assert out[1].tolist() == [2 * x for x in out[0].tolist()]
    assert [tuple(p) for p in pairs.tolist()] == [(0, 1), (2, 1), (2, 1), (2, 1), (1, 1)]
    assert rec[5].tolist() == [3]


def test_commit_fills_the_remaining_checkpoints():
    rec = recorder_new(_regret(), np.array([2, 4, 10], dtype=np.int64), True)
    recorder_step(rec, 1, 0, 2)
    recorder_step(rec, 2, 1, 2)
    recorder_commit(rec, 2, 2, 2)
    assert rec[3][0].tolist() == [1.0, 1.0 + 2 * 0.125, 1.0 + 8 * 0.125]
    assert [tuple(p) for p in rec[4].tolist()] == [(0, 2), (1, 2)] + [(2, 2)] * 8
