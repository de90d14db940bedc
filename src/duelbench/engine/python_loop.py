"""The run loop for pure-Python :class:`~duelbench.algorithms.registry.Policy` algorithms.

Same duel, recorder and random stream as the compiled loops (it calls the same kernels), so a
Python policy and a compiled transcription of it produce identical results.
"""

from duelbench.algorithms.kernels import duel, recorder_new, recorder_step


def run_policy(policy_cls, P, regret, checkpoints, params: dict, rng, record_pairs: bool):
    """One run of ``policy_cls(K, horizon, rng, **params)``; returns ``(out, pairs)``."""
    K = P.shape[0]
    horizon = int(checkpoints[-1])
    policy = policy_cls(K, horizon, rng, **params)
    rec = recorder_new(regret, checkpoints, record_pairs)
    for t in range(1, horizon + 1):
        i, j = policy.select(t)
        i, j = int(i), int(j)
        if not (0 <= i < K and 0 <= j < K):
            raise ValueError(f"{policy_cls.__name__}.select({t}) returned {(i, j)}, outside 0..{K - 1}")
        i_won = bool(duel(P, i, j, rng))
        policy.update(i, j, i_won, t)
        recorder_step(rec, t, i, j)
    return rec[3], rec[4]
