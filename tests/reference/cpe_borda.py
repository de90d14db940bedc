"""Reference for ``duelbench.cpe.borda``: CLUCB-Borda-PAC (Algorithm 1, L127–L150) and
CLUCB-Borda-Exact (Algorithm 5, L745–L775) of Chen, Du, Huang & Zhao (ICML 2020), written
top-down as printed, slow and plain (Python + numpy; the oracle is ``matching.mwmc``).

With the readings the compiled module declares:

* radius ``c_t(e) = sqrt(ln(4·n·t³/δ)/(2T_t(e)))`` with ``n = K`` (printed) or ``m``; ``c = 1``
  and ``w̄ = 0`` for an unsampled edge (L133, L139);
* ``w̄`` kept as (sum of observations)/``T``;
* ``MWMC(w)``: the lexicographically smallest matching (edges listed in position order) among
  those whose weight is within ``TIE_TOL`` of the maximum, found with ``mwmc`` alone: the
  maximum, then position by position the smallest edge whose forced maximum still reaches it;
  weights are summed in position order;
* ``z_t``: the first edge (lowest index) of largest radius in ``M̃_t Δ M_t``;
* Algorithm 5's exact test: ``w̃(M̃_t) − w̃(M_t) ≤ TIE_TOL``; variants V0 (printed), V1 (break
  when the largest radius on the symmetric difference is ``≤ ε_q/4``), V2 (no ε terms, no
  epochs);
* stream: per sample ``u₁ = rng.random()`` then ``u₂ = rng.random()``; ``M′`` is row
  ``⌊u₁·N⌋`` of the lexicographic list of the ``N`` maximum matchings (biased: ``M_bad`` if
  ``u₁ < η``, else row ``⌊(u₁ − η)/(1 − η)·N⌋``); ``X = 1`` iff ``u₂ < p(z_t, e′)``; a self-duel
  gives ``X = 1/2`` under the ``"half"`` reading;
* a cap stops a run that would sample once more after ``max_samples`` samples.
"""

from __future__ import annotations

import math

import numpy as np

from duelbench.cpe.matching import enumerate_matchings, mwmc

TIE_TOL = 1e-12


def weight(w, M):
    s = 0.0
    for e in M:
        s += w[e]
    return s


def oracle(inst, w):
    """MWMC(w) with the lexicographic tie rule, from ``mwmc`` only."""
    best = weight(w, mwmc(inst, w))
    chosen = []
    for j in range(inst.ell):
        for e in inst.position_edges[j]:
            cand = mwmc(inst, w, forced=chosen + [int(e)])
            if cand is not None and weight(w, cand) >= best - TIE_TOL:
                chosen.append(int(e))
                break
    return chosen


def borda_worst(inst, table):
    N = len(table)
    w = [sum(inst.P[e, M[inst.position[e]]] for M in table) / N for e in range(inst.m)]
    scores = [weight(w, M) for M in table]
    return int(np.argmin(scores))


def run(inst, delta, epsilon, mode, rng, sampler="exact", bad=None, radius_count="K", self_duel="coin",
        max_samples=None):
    """``mode``: "pac", "V0", "V1" or "V2".  Returns a dict of the outcome and counts."""
    table = [list(map(int, M)) for M in enumerate_matchings(inst)]
    N = len(table)
    bad_row = 0
    if sampler == "biased":
        bad_row = borda_worst(inst, table) if bad is None else table.index(list(map(int, bad)))
    n_count = inst.K if radius_count == "K" else inst.m
    samples = real = selfd = 0
    per_epoch = []
    trace = []
    q = 1
    while True:
        if mode == "pac":
            eps, dq = epsilon, delta
        elif mode == "V2":
            eps, dq = 0.0, delta
        else:
            eps, dq = 0.5 ** q, delta / (2.0 * q * q)
        eta = eps / 8.0
        per_epoch.append(0)
        T = [0] * inst.m
        S = [0.0] * inst.m
        t = 1
        while True:
            wbar = [S[e] / T[e] if T[e] > 0 else 0.0 for e in range(inst.m)]
            Mt = oracle(inst, wbar)
            tf = float(t)
            level = math.log(4.0 * n_count * tf * tf * tf / dq)
            c = [math.sqrt(level / (2.0 * T[e])) if T[e] > 0 else 1.0 for e in range(inst.m)]
            wtil = [wbar[e] - c[e] - 0.25 * eps if e in Mt else wbar[e] + c[e] + 0.25 * eps for e in range(inst.m)]
            Mtil = oracle(inst, wtil)
            diff = weight(wtil, Mtil) - weight(wtil, Mt)
            sym = sorted(set(Mt) ^ set(Mtil))
            finish = dict(output=Mt, last=Mt, capped=False)
            if mode == "pac":
                if diff <= inst.ell * eps:
                    break
            else:
                if diff <= TIE_TOL:
                    break
                if mode == "V0" and diff <= inst.ell * eps:
                    finish = None
                    break
                if mode == "V1" and max(c[e] for e in sym) <= 0.25 * eps:
                    finish = None
                    break
            z = sym[0]
            for e in sym:
                if c[e] > c[z]:
                    z = e
            if max_samples is not None and samples == max_samples:
                finish = dict(output=None, last=Mt, capped=True)
                break
            u1 = rng.random()
            u2 = rng.random()
            if sampler == "biased" and u1 < eta:
                row = bad_row
            else:
                v = (u1 - eta) / (1.0 - eta) if sampler == "biased" else u1
                row = min(int(v * N), N - 1)
            opp = table[row][inst.position[z]]
            if opp == z:
                selfd += 1
                x = 0.5 if self_duel == "half" else float(u2 < inst.P[z, z])
            else:
                real += 1
                x = float(u2 < inst.P[z, opp])
            trace.append((z, opp, int(2 * x)))
            T[z] += 1
            S[z] += x
            samples += 1
            per_epoch[-1] += 1
            t += 1
        if finish is not None:
            return dict(finish, samples=samples, real_duels=real, self_duels=selfd, epochs=q,
                        samples_per_epoch=tuple(per_epoch), trace=trace)
        q += 1
