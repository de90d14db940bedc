"""Combinatorial pure exploration for dueling bandits (Chen, Du, Huang & Zhao, ICML 2020).

Instances (:mod:`.instance`, :mod:`.families`), maximum matchings and the exact uniform
sampler (:mod:`.matching`), hardness quantities and the theorems' sample-complexity bounds
(:mod:`.hardness`), the Borda algorithms CLUCB-Borda-PAC and CLUCB-Borda-Exact
(:mod:`.borda`), the offline Condorcet oracles (:mod:`.oracles`, :mod:`.fptas`) and the
Condorcet algorithms CAR-Cond, CAR-Verify and CAR-Parallel (:mod:`.condorcet`).  The paper
has no experiments; :mod:`duelbench.experiments.chen2020` runs the suite's.
"""
