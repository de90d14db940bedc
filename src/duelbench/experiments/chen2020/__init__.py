"""Chen, Du, Huang & Zhao (ICML 2020), Combinatorial Pure Exploration for Dueling Bandits: the
suite's studies of the paper's theorems (the paper has no experiments).

Paper: ``shared/papers/002_f4fb4c0643b24d04.txt`` (line numbers ``Lnnn``); algorithms in
:mod:`duelbench.cpe`.  The readings C1-C10 and every check are declared in
``data/published/chen2020.yaml``; the studies in ``config/config.yaml`` (section ``chen2020``).
Each study is a set of cells, each cell a seeded sample family whose samples are runs
(:mod:`.cells`, :mod:`.runs`); steps turn them into one table and one figure per study
(:mod:`.studies`), the toy's facts and the instances' ground truth (:mod:`.toy`), a
host-dependent timing table (:mod:`.runtime`) and ``checks.csv`` (:mod:`.checks`).
:class:`Chen2020` declares the sample families, the steps and the items (each table and figure
with its caption) on the framework's :class:`~duelbench.experiments.experiment.Experiment`.

Studies (the note of each table states what the theory predicts)
-----------------------------------------------------------------
X0 ``toy``        Figures 1-7 and 8-10: the recovered toy instance and the width example.
X1 ``pac``        Theorem 1: CLUCB-Borda-PAC's error rate (≤ δ) and samples (≤ N1, N1′).
X2 ``hardness``   Theorems 1-2: samples against H_ε ln(H_ε/δ) and against the gap scale.
X3 ``epochs``     Theorem 2: CLUCB-Borda-Exact's final epoch against q* (V0 as printed, V1, V2).
X4 ``lower_bounds`` Theorems 3 and 6: measured samples against the lower bounds N3 and N6.
X5 ``oracles``    Section 4.2: the offline problem (Eq. 6) by LP, enumeration and the FPTAS.
X5b ``lemma9``    Lemma 9: Algorithm 6 with an exact projection at the paper's T, error against 1/sqrt(T).
X6 ``car_cond``   Theorem 4: CAR-Cond's error rate, samples against N4 and against H4.
X7 ``parallel``   Theorem 5: CAR-Parallel's and CAR-Cond's samples against ln(1/δ).
X8 ``runtime``    Time per round against the instance size (host dependent, never checked).
"""

from __future__ import annotations

from collections.abc import Mapping

from duelbench.config import data_file

from ..contract import Item, SampleShard, Step
from ..experiment import Experiment
from . import checks, runtime, studies, toy
from .cells import STUDIES, plan_cells
from .cells import cells as all_cells

NAME = "chen2020"

#: The step of every study, and its outputs (keys ``<study>_<output>`` of :attr:`Chen2020.output_files`).
STUDY_STEPS = {
    "pac": (studies.pac, ("csv", "png", "pdf")),
    "hardness": (studies.hardness, ("csv", "fits", "png", "pdf")),
    "epochs": (studies.epochs, ("csv", "png", "pdf")),
    "lower_bounds": (studies.lower_bounds, ("csv", "png", "pdf")),
    "oracles": (studies.oracles, ("csv", "png", "pdf")),
    "lemma9": (studies.lemma9, ("csv", "png", "pdf")),
    "car_cond": (studies.car_cond, ("csv", "fits", "png", "pdf")),
    "parallel": (studies.parallel, ("csv", "fits", "png", "pdf")),
}


class Chen2020(Experiment):
    """The studies X0-X8 of Chen et al. (2020)'s theorems and the registry's checks."""

    name = NAME
    kinds = ()
    output_files = {
        "toy_csv": "toy.csv", "toy_png": "toy.png", "toy_pdf": "toy.pdf", "instances": "instances.csv",
        "pac_csv": "pac.csv", "pac_png": "pac.png", "pac_pdf": "pac.pdf",
        "hardness_csv": "hardness.csv", "hardness_fits": "hardness_fits.csv", "hardness_png": "hardness.png",
        "hardness_pdf": "hardness.pdf",
        "epochs_csv": "epochs.csv", "epochs_png": "epochs.png", "epochs_pdf": "epochs.pdf",
        "lower_bounds_csv": "lower_bounds.csv", "lower_bounds_png": "lower_bounds.png",
        "lower_bounds_pdf": "lower_bounds.pdf",
        "oracles_csv": "oracles.csv", "oracles_png": "oracles.png", "oracles_pdf": "oracles.pdf",
        "lemma9_csv": "lemma9.csv", "lemma9_png": "lemma9.png", "lemma9_pdf": "lemma9.pdf",
        "car_cond_csv": "car_cond.csv", "car_cond_fits": "car_cond_fits.csv", "car_cond_png": "car_cond.png",
        "car_cond_pdf": "car_cond.pdf",
        "parallel_csv": "parallel.csv", "parallel_fits": "parallel_fits.csv", "parallel_png": "parallel.png",
        "parallel_pdf": "parallel.pdf",
        "runtime_csv": "runtime.csv", "runtime_png": "runtime.png", "runtime_pdf": "runtime.pdf",
        "checks": "checks.csv",
    }
    #: Items whose status rows the registry's checks decide (item id -> registry items).
    paper_items = {"toy": ("Figures 1-7", "Figures 8-10"), "pac": ("Theorem 1",),
                   "hardness": ("Theorem 1 and 2 scaling",), "epochs": ("Theorem 2",),
                   "lower_bounds": ("Theorems 3 and 6",), "oracles": ("Section 4.2 (offline oracle)",),
                   "lemma9": ("Lemma 9",), "car_cond": ("Theorem 4",), "parallel": ("Theorem 5",)}

    def check(self, s: dict) -> None:
        """The required keys, every named instance declared and no two cells alike (:func:`.cells.cells`)."""
        self.require(s, "seed", "instance_seed", "runs_per_shard", "instances", "borda", "car", "runtime")
        all_cells(s)

    def samples(self, s: Mapping) -> list[SampleShard]:
        """Every cell of every configured study, a sample family of its runs (:func:`.cells.plan_cells`)."""
        return plan_cells(s)

    def steps(self, s: Mapping, out: Mapping[str, str], config: Mapping) -> list[Step]:
        """toy, one step per configured study (:data:`STUDY_STEPS`), runtime, checks."""
        cells = all_cells(s)

        def study_settings(study):
            return {k: s[k] for k in ("fidelity", "seed", "instance_seed", "instances", "borda", "car", study)
                    if k in s}

        steps = [Step("toy", toy.write_toy, {"csv": out["toy_csv"], "instances": out["instances"],
                                             "png": out["toy_png"], "pdf": out["toy_pdf"]},
                      settings={k: s[k] for k in ("fidelity", "instance_seed", "instances", "hardness") if k in s},
                      message=f"{NAME}: the toy instance, the width example and every instance's ground truth")]
        for study in STUDIES:
            if study in s:
                function, keys = STUDY_STEPS[study]
                steps.append(Step(study, function, {k: out[f"{study}_{k}"] for k in keys},
                                  samples=tuple(c.family for c in cells if c.study == study),
                                  settings=study_settings(study), message=f"{NAME}: study {study}"))
        steps.append(Step("runtime", runtime.runtime, {"csv": out["runtime_csv"], "png": out["runtime_png"],
                                                       "pdf": out["runtime_pdf"]},
                          settings=study_settings("runtime"), message=f"{NAME}: time per round (host dependent)",
                          host_dependent=True))
        tables = [p for st in steps for k, p in st.outputs.items() if k in ("csv", "fits", "instances")
                  and st.name != "runtime"]
        # the checks read the studies' tables and, for the intervals, the runs themselves
        steps.append(Step("checks", checks.write_checks, {"csv": out["checks"]},
                          inputs={"tables": tables, "registry": str(data_file(NAME))},
                          samples=tuple(c.family for c in cells), settings=s,
                          message=f"{NAME}: evaluating the registry of the theorems' predictions"))
        return steps

    def items(self, s: Mapping, out: Mapping[str, str]) -> list[Item]:
        """Every table and figure with its caption: what the paper states, what runs, the readings."""
        b, c = s["borda"], s["car"]
        borda = ("Readings: radius ln(4Kt^3/delta) as printed (C3), a self-duel is a fair coin (C4), the exact "
                 f"uniform sampler (C5), runs capped at {int(b['max_samples']):,} samples (a capped run returned "
                 "nothing).")
        car = ("Readings: the exact LP oracle (C7; the FPTAS in one labelled cell), checks at rounds "
               f"ceil({c['ratio']}^k) and at epoch ends with binomial batches between (C8), bounds after the round's "
               "duels, line 18 read as R_t (erratum E5), CAR-Verify on fresh samples, CAR-Parallel's k from 0 (C9).")
        return [
            Item("toy", "figure", "Figures 1-7 and 8-10 (the toy instance, L46-L58, L561-L599)",
                 "The paper draws a bipartite graph of 4 candidates and 2 positions with 5 edges and prints its "
                 "preference matrix (Figure 2) and the Borda scores 0.64 and 0.615 of its Borda and Condorcet winners "
                 "(L83, L87); the edges' endpoints are lost. Here: the one assignment of endpoints (of 24) that gives "
                 "both scores, drawn with both winners; its maximum matchings, the G' reduction of Figures 5-7 with "
                 "(n - l)! = 2 copies per matching (the paper prints 'one-to-n', erratum E2), and a reconstruction of "
                 "Figures 8-10 (width 4). The scores select the instance, so they are no test of it.",
                 (out["toy_png"], out["toy_pdf"], out["toy_csv"], out["instances"])),
            Item("pac", "figure", "Theorem 1 (CLUCB-Borda-PAC, Algorithm 1): error rate and samples",
                 "Theorem 1 (L180-L188): with probability at least 1 - delta, B(Out) >= B(M*) - eps, with at most "
                 "N1 = 985 H_eps ln(4 H_eps/delta) + 2m samples (Eq. 10) and N1' (Eq. 9). Per instance, eps and delta: "
                 "the share of runs that miss (Clopper-Pearson 99% interval against delta) and the samples against N1 "
                 "and N1'; labelled cells: the biased sampler (d_tv = eta(1 - 1/|M|)), the radius over m, X = 1/2 "
                 f"self-duels. {borda}",
                 (out["pac_png"], out["pac_pdf"], out["pac_csv"])),
            Item("hardness", "figure", "Theorems 1-2: samples against hardness (the suite's study)",
                 "Theorem 1 predicts samples proportional to H_eps ln(H_eps/delta) (slope 1 on log-log axes); Theorem "
                 "2 samples proportional to H^B up to logarithms, so on linear-utility instances whose gaps scale "
                 "with s a slope of about 2 against 1/s. Here: CLUCB-Borda-PAC over eps on three instances and the "
                 f"exact-sampler variant V2 over s on K_4,2 and K_4,3 draws; OLS slopes with standard errors. {borda}",
                 (out["hardness_png"], out["hardness_pdf"], out["hardness_csv"], out["hardness_fits"])),
            Item("epochs", "figure", "Theorem 2 (CLUCB-Borda-Exact, Algorithm 5): final epoch against q*",
                 "The proof of Theorem 2 (L800-L812) says Algorithm 5 returns by epoch q* = floor(log2(l/Delta_min)) "
                 "+ 1. Its step at L802-L810 is no contradiction when M_t = M* (erratum E16), so the printed "
                 "algorithm (V0) can break epoch after epoch. Here: V0 as printed, V1 (break only once the radii on "
                 "the symmetric difference are below eps_q/4) and V2 (exact sampler, no epochs) on the toy and two "
                 f"K_3,2 draws. {borda}",
                 (out["epochs_png"], out["epochs_pdf"], out["epochs_csv"])),
            Item("lower_bounds", "figure", "Theorems 3 and 6: measured samples against the lower bounds",
                 "Theorem 3 (L211-L213, explicit constant L870-L874): any delta-correct algorithm needs at least "
                 "N3 = 0.2 g(1 - g)(4 g l/(1 - 4 g))^2 ln(1/delta) H^B samples in expectation when |p - 1/2| <= g and "
                 "|M|/(|M| - |M_e|) <= (1 - 4g)/(4 g l); Theorem 6 (L1342-L1383) N6 = sum over e outside M* of "
                 "0.4 g(1 - g) ln(1/delta)/(l^2 Delta_e^2) under its conditions on the beating sets. Here: instances "
                 "that meet the conditions (the largest admissible g), the exact-sampler CLUCB (V2) and CAR-Cond at "
                 f"two deltas; mean samples over N3 and N6 with 95% intervals. {borda}",
                 (out["lower_bounds_png"], out["lower_bounds_pdf"], out["lower_bounds_csv"])),
            Item("oracles", "figure", "Section 4.2: the offline Condorcet problem (Eq. 6), LP vs enumeration vs FPTAS",
                 "The paper solves Eq. (6) with an FPTAS (Algorithms 6-7, L308-L320, Lemmas 6-9). Eq. (6) is also one "
                 "exact LP (the matching polytope is integral; duality turns the inner minimum into a maximum). Here: "
                 "on random constrained cases of K_n,l the LP against the enumerated matrix game (up to 720 admissible "
                 "matchings per side) and the FPTAS with small budgets and two step rules (the paper's own parameters "
                 "need about 16384 l^6 K^6/eps^6 matching calls and cannot run).",
                 (out["oracles_png"], out["oracles_pdf"], out["oracles_csv"])),
            Item("lemma9", "figure", "Lemma 9: Algorithm 6 with an exact projection at the paper's T",
                 "Lemma 9 (L1188-L1243): with T = ceil((4lK)^2/eps^2) steps of size 2l/(K sqrt(T)) (L1086), "
                 "OPT - max_t f(x_t) <= eps; its proof bounds the ascent part by 2lK/sqrt(T). The paper's approximate "
                 "projection (Algorithm 7 at accuracy eps/(2K sqrt(T))) cannot run at these T; an exact projection "
                 "(non-negative least squares over the maximum matchings) meets any accuracy. Here: unconstrained "
                 "random cases of K3,2 and K4,3 with Q uniform on comparable pairs, every case's error against "
                 "1/sqrt(T) at T(eps) for the declared eps, with the bound and eps.",
                 (out["lemma9_png"], out["lemma9_pdf"], out["lemma9_csv"])),
            Item("car_cond", "figure", "Theorem 4 (CAR-Cond, Algorithm 2): error rate and samples",
                 "Theorem 4 (L298-L302): with probability at least 1 - delta CAR-Cond returns the Condorcet winner "
                 "with O(sum over pairs of ln(K/(delta Delta^2))/Delta^2) samples; the proof gives the explicit N4 "
                 "(L1049-L1066). Here: the toy, planted-Condorcet draws and linear-utility draws at three deltas; the "
                 f"every-round schedule and the FPTAS oracle as labelled cells. {car}",
                 (out["car_cond_png"], out["car_cond_pdf"], out["car_cond_csv"], out["car_cond_fits"])),
            Item("parallel", "figure", "Theorem 5 (CAR-Parallel, Algorithm 3): samples against ln(1/delta)",
                 "Theorem 5 (L374-L380) puts H_ver ln(1/delta) where Theorem 4 has the pair gaps: CAR-Parallel "
                 "achieves 'a tighter expected sample complexity for small confidence' (L356, L358). Here: both "
                 "algorithms on planted draws over deltas from 1e-3 to 1e-12; slopes of mean samples against "
                 "ln(1/delta). The archived runs 0-9 at three deltas fix the constants c_par = slope/H_ver and "
                 "c_cond = slope/sum of 1/Delta^2 over the pairs; every other run (and an out-of-sample instance) "
                 f"judges the predicted sign of the slope difference c_par H_ver - c_cond sum 1/Delta^2. {car}",
                 (out["parallel_png"], out["parallel_pdf"], out["parallel_csv"], out["parallel_fits"])),
            Item("runtime", "figure", "Time per round against size (host dependent)",
                 "The paper claims polynomial time per round (L28, L32, L125, L386). Measured here on this host: "
                 "Algorithm 1's round (two maximum-weight matchings and one exact uniform draw) and CAR-Cond's check "
                 "(4|U| oracle calls) against K_n,l, with the LP, the budgeted FPTAS and the exhaustive oracle. "
                 "Timings vary with the machine; no check reads them.",
                 (out["runtime_png"], out["runtime_pdf"], out["runtime_csv"])),
            Item("checks", "checks", "The theorems' predictions (data/published/chen2020.yaml)",
                 "Every check of the registry at the active fidelity: the toy's facts, error rates against delta, "
                 "samples against the proofs' explicit bounds, fitted slopes against the predicted ones, the oracles' "
                 "agreement. Checks gate on operation counts (samples, rounds, oracle calls), never on time; the "
                 "theorems' predictions are decided at paper fidelity.", (out["checks"],)),
        ]


EXPERIMENT = Chen2020()
