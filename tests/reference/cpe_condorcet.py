"""Reference for ``duelbench.cpe.condorcet``: CAR-Cond (Algorithm 2, L259–L282), CAR-Verify
(Algorithm 4, L337–L354) and CAR-Parallel (Algorithm 3, L324–L336) of Chen, Du, Huang & Zhao
(ICML 2020), written top-down from the pseudo-code, slow and plain (Python floats, dicts and
lists; matchings by enumeration).

With the readings the module declares:

* one duel per unordered comparable pair of undecided edges per round, pairs taken in the
  instance's pair order; the counts after round ``t``'s duels enter ``P̄_t``, ``P_t`` with
  ``c_t = sqrt(ln(4Kt³/δ)/(2T))`` (Eq. 7–8); ``P̄ = 1``, ``P = 0`` for a pair never dueled;
* epoch ``q`` holds rounds ``4^{q−1}+1 … 4^q`` and ``ε_q = 2^{−q}`` (lines 3–5);
* lines 8–21: ``A``, ``R`` frozen within a round, edges of ``U`` in ascending order,
  ``R_t ← R_t ∪ {e}`` (line 18), stop as soon as ``|A_t| = ℓ``;
* the geometric schedule checks at rounds ``⌈r^k⌉`` and at ``4^q``, ``4^q + 1``; the rounds in
  between are drawn as ``Binomial(k, p)`` wins per pair; a run also checks at its cap round;
* CAR-Verify starts fresh counts at ``t = 1``, returns *error* when
  ``max_{M≠M̂} f(M, M̂, P_t) ≥ 1/2`` and ``M̂`` when ``max_{M≠M̂} f(M, M̂, P̄_t) ≤ 1/2``, else
  duels the pair of largest radius among the positions where ``M_t`` and ``M̂`` differ (lowest
  position on ties), one ``rng.random() < p`` per duel;
* CAR-Parallel: instance ``k`` (confidence ``δ/2^{k+1}``, stream the ``k``-th child of the
  root SeedSequence) gets its ``j``-th duel at step ``j·2^k`` and answers at the step of its
  last duel; within a step lower ``k`` first.

The oracle ``O_ε`` of Eq. 6 is a parameter, as in the paper.  Among several maximisers of line 9
the choice is delegated to ``choose(ties, w, M̂)`` (the matching oracle's tie rule); by default the
lexicographically first.
"""

from __future__ import annotations

import math

import numpy as np

from duelbench.cpe.matching import enumerate_matchings

#: Values of line 9 within this distance of the maximum are ties (rounding of the sums only).
TIE_TOL = 1e-12


# --- Eq. 7–8 ------------------------------------------------------------------------------------
def pair_list(inst):
    """The comparable unordered pairs ``(i, j)``, ``i < j``, in the instance's pair order."""
    return [(int(i), int(j)) for i, j in inst.pairs]


def bounds(inst, wins, counts, t, delta):
    """``P̄_t``, ``P_t`` (Eq. 8) as lists of lists, from per-pair dicts of wins and counts."""
    m, K = inst.m, inst.K
    up = [[0.0] * m for _ in range(m)]
    lo = [[0.0] * m for _ in range(m)]
    for e in range(m):
        up[e][e] = lo[e][e] = 0.5
    log_term = math.log(4.0 * K / delta) + 3.0 * math.log(t)
    for (i, j) in pair_list(inst):
        n = counts[i, j]
        if n == 0:
            up[i][j] = up[j][i] = 1.0
            lo[i][j] = lo[j][i] = 0.0
            continue
        c = math.sqrt(log_term / (2.0 * n))
        p = wins[i, j] / n
        up[i][j], lo[i][j] = min(1.0, p + c), max(0.0, p - c)
        up[j][i], lo[j][i] = min(1.0, (1.0 - p) + c), max(0.0, (1.0 - p) - c)
    return np.array(up), np.array(lo)


def epoch(t):
    """``q`` with ``4^{q−1} < t ≤ 4^q`` (Algorithm 2, lines 3–5)."""
    q = 1
    while t > 4**q:
        q += 1
    return q


def is_check_round(t, schedule, ratio):
    """Whether round ``t`` runs lines 7–21 under ``schedule``."""
    if schedule == "round":
        return True
    q = epoch(t)
    if t == 4**q or t == 4 ** (q - 1) + 1 and q > 1:
        return True
    k = 0
    while math.ceil(ratio**k) < t:
        k += 1
    return math.ceil(ratio**k) == t


# --- Algorithm 2 ------------------------------------------------------------------------------
def classify(inst, A, R, U, up, lo, eps, oracle):
    """Lines 8–21 of Algorithm 2; returns ``(A_t, R_t, calls, stopped)``."""
    A_t, R_t, calls = list(A), list(R), 0
    if len(A_t) == inst.ell:
        return A_t, R_t, calls, True
    for e in sorted(U):
        in_u = oracle(inst, tuple(A) + (e,), tuple(R), tuple(A), tuple(R), up, eps)
        in_l = oracle(inst, tuple(A) + (e,), tuple(R), tuple(A), tuple(R), lo, eps)
        ex_u = oracle(inst, tuple(A), tuple(R) + (e,), tuple(A), tuple(R), up, eps)
        ex_l = oracle(inst, tuple(A), tuple(R) + (e,), tuple(A), tuple(R), lo, eps)
        calls += 4
        if in_l > ex_u + eps:
            A_t.append(e)
        elif ex_l > in_u + eps:
            R_t.append(e)
        if len(A_t) == inst.ell:
            return A_t, R_t, calls, True
    return A_t, R_t, calls, False


def car_cond(inst, delta, rng, oracle, schedule="round", ratio=1.1, max_rounds=10**7):
    """CAR-Cond (Algorithm 2); returns a dict of its decisions and counts."""
    pairs = pair_list(inst)
    wins = {p: 0 for p in pairs}
    counts = {p: 0 for p in pairs}
    A, R, U = [], [], set(range(inst.m))
    decided = [0] * inst.m
    samples = checks = calls = 0
    pending = 0  # rounds sampled since the last check
    t = 0
    while True:
        t += 1
        pending += 1
        if not (is_check_round(t, schedule, ratio) or t == max_rounds):
            continue
        for (i, j) in pairs:  # line 6 for the pending rounds, one batch per pair
            if i in U and j in U:
                wins[i, j] += int(rng.binomial(pending, inst.P[i, j]))
                counts[i, j] += pending
                samples += pending
        pending = 0
        up, lo = bounds(inst, wins, counts, t, delta)
        A_t, R_t, c, stopped = classify(inst, A, R, U, up, lo, 2.0 ** -epoch(t), oracle)
        checks += 1
        calls += c
        for e in set(A_t) | set(R_t):
            if e in U:
                U.discard(e)
                decided[e] = t
        A, R = A_t, R_t
        out = dict(samples=samples, rounds=t, epochs=epoch(t), checks=checks, oracle_calls=calls,
                   rejected=tuple(sorted(R)), decided_at=decided, output=None, capped=False, exhausted=False)
        if stopped:
            out["output"] = sorted(A)
            return out
        if not U:
            out["exhausted"] = True
            return out
        if t >= max_rounds:
            out["capped"] = True
            return out


# --- Algorithm 4 ------------------------------------------------------------------------------
def f_value(inst, M, M_hat, Q):
    """``f(M, M̂, Q) = (1/ℓ) Σ_j Q[e(M, j), e(M̂, j)]`` summed in position order."""
    s = 0.0
    for j in range(inst.ell):
        s += Q[M[j], M_hat[j]]
    return s / inst.ell


def first_choice(ties, w, M_hat):
    """Default tie rule of line 9: the lexicographically first maximiser."""
    return ties[0]


def car_verify(inst, delta, rng, oracle, delta0=0.01, hypothesis=None, choose=first_choice, max_duels=None,
               **cond_options):
    """CAR-Verify (Algorithm 4); ``max_duels`` stops a run (``budget_hit``) before a further duel."""
    cond = None
    duels = 0
    if hypothesis is None:
        cond = car_cond(inst, delta0, rng, oracle, **cond_options)  # line 3
        duels = cond["samples"]
        if cond["output"] is None:
            return dict(output=None, error=False, failed=True, cond=cond, duels=duels, verify=0, steps=0,
                        budget_hit=False)
        M_hat = list(cond["output"])
    else:
        M_hat = [int(e) for e in hypothesis]
    others = [list(M) for M in enumerate_matchings(inst) if list(M) != M_hat]
    pairs = pair_list(inst)
    wins = {p: 0 for p in pairs}
    counts = {p: 0 for p in pairs}
    log_const = math.log(4.0 * inst.K / delta)
    n = 0
    t = 0
    while True:
        t += 1
        up, lo = bounds(inst, wins, counts, t, delta)  # line 5
        done = dict(cond=cond, verify=n, steps=t, failed=False, budget_hit=False, M_hat=M_hat)
        if others and max(f_value(inst, M, M_hat, lo) for M in others) >= 0.5:  # line 6
            return dict(done, output=None, error=True, duels=duels + n)
        if not others:
            return dict(done, output=M_hat, error=False, duels=duels + n)
        values = [f_value(inst, M, M_hat, up) for M in others]
        best = max(values)
        if best <= 0.5:  # line 10
            return dict(done, output=M_hat, error=False, duels=duels + n)
        ties = [M for M, v in zip(others, values) if v >= best - TIE_TOL]
        w = up[np.arange(inst.m), np.asarray(M_hat)[inst.position]]
        M_t = choose(ties, w, M_hat)  # line 9
        assert list(M_t) in ties
        if max_duels is not None and duels + n >= max_duels:
            return dict(done, output=None, error=False, duels=duels + n, budget_hit=True)
        best_pair, best_c = None, -1.0
        for j in range(inst.ell):  # line 14, lowest position first
            if M_t[j] == M_hat[j]:
                continue
            key = (min(M_t[j], M_hat[j]), max(M_t[j], M_hat[j]))
            c = math.inf if counts[key] == 0 else math.sqrt((log_const + 3.0 * math.log(t)) / (2.0 * counts[key]))
            if c > best_c:
                best_pair, best_c = key, c
        i, j = best_pair
        wins[i, j] += int(rng.random() < inst.P[i, j])  # line 15
        counts[i, j] += 1
        n += 1


# --- Algorithm 3 ------------------------------------------------------------------------------
def car_parallel(inst, delta, root, oracle, delta0=0.01, choose=first_choice, **cond_options):
    """CAR-Parallel (Algorithm 3) from each CAR-Verify_k run alone: instance ``k`` takes its
    ``j``-th duel at step ``j·2^k``, so a run of ``N_k`` duels answers at step ``N_k·2^k``."""
    runs = {}
    best_T, best_k = math.inf, None
    k = 0
    while 2**k <= best_T:
        seq = np.random.SeedSequence(root.entropy, spawn_key=tuple(root.spawn_key) + (k,), pool_size=root.pool_size)
        budget = None if best_T == math.inf else int(best_T // 2**k)
        res = car_verify(inst, delta / 2 ** (k + 1), np.random.default_rng(seq), oracle, delta0, None, choose, budget,
                         **cond_options)
        runs[k] = res
        finish = res["duels"] * 2**k
        if res["output"] is not None and finish < best_T:
            best_T, best_k = finish, k
        k += 1
    granted, errors, failed = [], [], []
    for k, res in sorted(runs.items()):
        if 2**k > best_T or (2**k == best_T and k > best_k):
            break  # never started
        turns = best_T // 2**k if k <= best_k else (best_T - 1) // 2**k
        granted.append(min(res["duels"], turns))
        if k != best_k and not res["budget_hit"] and res["output"] is None and res["duels"] <= turns:
            (errors if res["error"] else failed).append(k)
    return dict(output=runs[best_k]["output"], steps=best_T, answered_by=best_k, samples_per_instance=tuple(granted),
                samples=sum(granted), errors=tuple(errors), failed=tuple(failed), answer=runs[best_k])
