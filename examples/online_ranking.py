"""Rank K systems from pairwise judgments with an online dueling-bandit policy; plot the pair counts.

Usage::

    python examples/online_ranking.py counts.png [--algorithm dts] [--systems 8] [--comparisons 3000] [--seed 0]

``judge(i, j)`` stands for a human or model judgment ("is system i better than system j?").  Here
it is simulated: each system has a hidden quality and the judge prefers i with the
Bradley–Terry–Luce probability 1 / (1 + exp(q_j − q_i)).  Replace it with your own.  The policy
chooses which two systems to compare next; the script prints the ranking by empirical Copeland
score (systems beaten by a majority of their comparisons, ties by overall win rate) and the
algorithm's own recommendation, and writes a figure of how often each pair was compared.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

import duelbench


def make_judge(K: int, seed: int):
    """A simulated judge of K systems with hidden qualities (its own random generator)."""
    rng = np.random.default_rng(seed + 1)
    quality = rng.normal(0.0, 1.0, size=K)

    def judge(i: int, j: int) -> bool:
        """True if system i is preferred to system j."""
        return bool(rng.random() < 1.0 / (1.0 + np.exp(quality[j] - quality[i])))

    return judge, quality


def ranking(wins: np.ndarray) -> np.ndarray:
    """Systems by empirical Copeland score (pairs won by a majority), then by overall win rate."""
    copeland = (wins > wins.T).sum(axis=1)
    played = wins + wins.T
    rate = wins.sum(axis=1) / np.maximum(played.sum(axis=1), 1)
    return np.lexsort((-rate, -copeland))


def plot_counts(p, order: np.ndarray, path: Path) -> None:
    """Heat map of the comparisons of each pair (systems in ranking order) beside each system's win rate."""
    counts = p.comparisons + p.comparisons.T
    np.fill_diagonal(counts, np.diag(p.comparisons))
    wins = p.wins
    rate = wins.sum(axis=1) / np.maximum((wins + wins.T).sum(axis=1), 1)
    fig = Figure(figsize=(10, 4.5), layout="constrained")
    ax, bx = fig.subplots(1, 2, width_ratios=[1.2, 1])
    shown = counts[np.ix_(order, order)]
    im = ax.imshow(shown, cmap="viridis")
    labels = [str(a) for a in order]
    ax.set_xticks(range(len(order)), labels)
    ax.set_yticks(range(len(order)), labels)
    ax.set_xlabel("system (ranking order)")
    ax.set_ylabel("system (ranking order)")
    ax.set_title(f"{p.algorithm}: comparisons per pair ({p.t} in all; diagonal: with itself)", fontsize=10)
    for r in range(len(order)):
        for c in range(len(order)):
            ax.text(c, r, int(shown[r, c]), ha="center", va="center", fontsize=8,
                    color="black" if shown[r, c] > shown.max() / 2 else "white")
    fig.colorbar(im, ax=ax, shrink=0.8)
    bx.bar(range(len(order)), rate[order])
    bx.set_xticks(range(len(order)), labels)
    bx.set_xlabel("system (ranking order)")
    bx.set_ylabel("share of its comparisons won")
    bx.set_ylim(0, 1)
    bx.set_title("win rate")
    fig.savefig(path, dpi=120)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="PNG file to write")
    parser.add_argument("--algorithm", default="dts", help="registered algorithm (default dts)")
    parser.add_argument("--systems", type=int, default=8, help="number of systems K (default 8)")
    parser.add_argument("--comparisons", type=int, default=3000, help="number of judgments (default 3000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the policy's random stream (default 0)")
    args = parser.parse_args(argv)
    judge, quality = make_judge(args.systems, args.seed)
    p = duelbench.policy(args.algorithm, K=args.systems, seed=args.seed, horizon=args.comparisons)
    while p.t < args.comparisons:
        pairs = p.select_batch()  # one pair, or a whole batch for PCOMP/SCOMP/SCOMP2
        p.update_batch(pairs, [judge(i, j) for i, j in pairs])
    order = ranking(p.wins)
    print("ranking:", " > ".join(str(a) for a in order))
    print("hidden qualities order:", " > ".join(str(a) for a in np.argsort(-quality)))
    print("recommend():", p.recommend())
    plot_counts(p, order, args.out)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
