"""Agarwal, Ghuge & Nagarajan (ICML 2022), Batched Dueling Bandits: Figures 1-2, the batch
trade-off and the theorems' statements.

Paper: ``shared/papers/003_27d5cd025c82709f.txt``, one line of text, so locations are character
offsets ``@N``.  The readings A1-A9 of ``data/published/agarwal2022.yaml`` are declared in
``config/config.yaml`` (section ``agarwal2022``); this package carries them out on the experiment
contract (:mod:`duelbench.experiments.contract`).  Modules: :mod:`.curves` (aggregate, Figures
1-2), :mod:`.tradeoff` (the batch trade-off and the batch logs), :mod:`.theory` (data facts,
Lemmas 4.5-4.6, Theorem C.1's instances), :mod:`.checks` (statistics, ``checks.csv``).

Panels and curves
-----------------
The four panels are named by role: ``six_rankers`` (a), ``sushi`` (b), ``syn_btl`` (c),
``syn_cd`` (d); each names one registered dataset, for SYN-BTL and SYN-CD a family of per-run
instances (run r of every curve sees instance r, :func:`duelbench.data.registry.load_instance`).
Every panel runs every *curve*, an algorithm entry with an id used in the statistics:

* Figure 1: the entries of ``algorithms``, id = registry name (``pcomp`` … ``btm``);
* the B grid of Figure 2 and of the trade-off: a batched entry of ``algorithms`` with
  ``batches = B``, id ``<name>_b<B>`` (Figure 1's ``scomp2`` is ``scomp2_b16`` too: same
  parameters, same shards);
* theory (C13-C14): a batched entry with ``theory.params`` and ``batches = B``, id
  ``<name>_gamma_b<B>``.

A curve's parameters derive from its Figure-1 entry, so a reading variant's
``algorithm_params`` reach every curve of that algorithm.

What is built (under :func:`duelbench.config.figures_dir` ``(config, "agarwal2022")``)
-------------------------------------------------------------------------------------------
``regret.csv``, ``regret_figure.csv``
    Mean regret and s.e. per panel, curve and checkpoint, over all runs and over the figures'
    runs.
``final_regret.csv``
    R(T) per panel, curve and run.
``figure1.png|pdf``, ``figure2.png|pdf``
    The paper's 2 x 2 panels (linear axes, ± 1 s.e. bands over the figures' runs).
``batches.csv``
    Per panel, batched curve and run: batches used, comparisons, the switch round, |A'|, the
    good-event counts, the Condorcet winner's elimination and the regret identity, from the
    batch-log sample families (:mod:`.batchlogs`: one per panel, its samples the runs of every
    batched curve, archived like the simulation shards).
``tradeoff.csv``, ``tradeoff.png|pdf``
    R(T) against B and against the batches used, with the theory's shapes.
``switch_split.csv``
    Per panel and SCOMP/SCOMP2 curve: runs that switched to PCOMP, runs whose seed set holds
    the Condorcet winner, and mean and median R(T) of the runs with and without it
    (:func:`.tradeoff.switch_split`, from ``batches.csv``).
``theory.csv``
    Data facts, the seed-rank Monte Carlo, the lower-bound instances and Theorem 3.1's bound.
``checks.csv``
    Every check of ``data/published/agarwal2022.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping

from duelbench.config import data_file
from duelbench.data.registry import is_family
from duelbench.engine.families import family_sha256
from duelbench.engine.jobs import ShardSpec, plan_shards

from ..contract import Item, SampleShard, Step
from ..experiment import Experiment
from ..instances import RegretInstance
from ..samples import plan_samples
from . import batchlogs, checks, curves, theory, tradeoff
from .config import (
    KIND,
    KINDS,
    NAME,
    PANELS,
    batch_log_family,
    batched_curves,
    check_settings,
    curve_list,
    curve_settings,
)


class Agarwal2022(Experiment):
    """Figures 1 and 2 of Agarwal et al. (2022), the batch trade-off, the batch logs, the theory's
    statements and the registry's checks."""

    name = NAME
    kinds = KINDS
    output_files = {
        "regret": "regret.csv", "regret_figure": "regret_figure.csv", "final": "final_regret.csv",
        "figure1_pdf": "figure1.pdf", "figure1_png": "figure1.png",
        "figure2_pdf": "figure2.pdf", "figure2_png": "figure2.png",
        "batches": "batches.csv",
        "tradeoff_csv": "tradeoff.csv", "tradeoff_pdf": "tradeoff.pdf", "tradeoff_png": "tradeoff.png",
        "split": "switch_split.csv",
        "theory": "theory.csv",
        "checks": "checks.csv",
    }
    #: The paper's own figures among the items, with the registry items whose checks judge them.
    paper_items = {"figure1": ("Figure 1",), "figure2": ("Figure 2",)}
    curves = ("regret", KIND)
    #: Algorithm lists restricted to PCOMP, SCOMP and SCOMP2: ``duelbench bench-all`` adds its
    #: algorithm to Figure 1 (``algorithms``), never to these.
    FIXED_ALGORITHM_LISTS = ("tradeoff.algorithms", "theory.algorithms")

    def check(self, s: dict) -> None:
        check_settings(s)

    def shards(self, s: Mapping) -> list[ShardSpec]:
        """Every simulation shard: each panel x each distinct (algorithm, parameters) of the curves."""
        cs = curve_list(s)
        return [sp for dataset in s["panels"].values() for c in cs
                for sp in plan_shards(fidelity=s["fidelity"], dataset=dataset, algorithm=c.algorithm,
                                      params=c.entry.params, horizon=int(s["horizon"]), runs=int(s["runs"]),
                                      runs_per_shard=int(s["runs_per_shard"]), seed=int(s["seed"]), root=s["results"])]

    def regret_instances(self, s: Mapping) -> list[RegretInstance]:
        """Figure 1's panels (a)-(d) with its six curves (B = 16), ``runs`` x ``horizon`` (the
        checks' runs; the figure draws the first ``figure_runs``)."""
        entries = tuple(c.entry for c in curve_list(s) if "figure1" in c.roles)
        return [RegretInstance(NAME, f"Figure 1({chr(ord('a') + i)})", dataset, int(s["horizon"]), int(s["runs"]),
                               int(s["runs_per_shard"]), int(s["seed"]), KIND, entries)
                for i, dataset in enumerate(s["panels"].values())]

    def samples(self, s: Mapping) -> list[SampleShard]:
        """The batch-log sample shards: per panel, one shard of every run of every batched curve
        (a replayed run takes milliseconds: smaller jobs would spend their time starting up).

        A sample shard's key holds the sha256 of the matrices it reads (``datasets``); a family of
        per-run instances (SYN-BTL, SYN-CD) has none, so its job holds the sha256 of the instances
        of all its runs instead (:func:`duelbench.engine.families.family_sha256`): a changed
        instance makes the batch logs stale, as it does the simulation shards."""
        out, runs, batched = [], int(s["runs"]), batched_curves(s)
        for p, dataset in s["panels"].items():
            family = is_family(dataset)
            job = {"dataset": dataset, "horizon": int(s["horizon"]), "seed": int(s["seed"]), "runs": runs,
                   "curves": [[c.id, c.algorithm, c.entry.params] for c in batched]}
            if family:
                job["instances_sha256"] = family_sha256(dataset, 0, runs)
            n = runs * len(batched)
            out += plan_samples(experiment=NAME, family=batch_log_family(p), function=batchlogs.batch_log_samples,
                                job=job, n=n, per_shard=n, fidelity=s["fidelity"], root=s["results"],
                                datasets=() if family else (dataset,))
        return out

    def steps(self, s: Mapping, out: Mapping[str, str], config: Mapping) -> list[Step]:
        """aggregate, figure1, figure2, batches, tradeoff, split, theory, checks."""
        registry = str(data_file(NAME))
        cs = curve_settings(s)
        theory_settings = {k: s[k] for k in ("fidelity", "horizon", "runs", "panels", "theory", "seed_rank",
                                             "lower_bound")}
        return [
            Step("aggregate", curves.aggregate,
                 {"regret": out["regret"], "regret_figure": out["regret_figure"], "final": out["final"]},
                 shards=True, settings=cs, message=f"{NAME}: aggregating the simulation shards"),
            Step("figure1", curves.figure1, {"pdf": out["figure1_pdf"], "png": out["figure1_png"]},
                 inputs={"regret_figure": out["regret_figure"]}, settings=cs),
            Step("figure2", curves.figure2, {"pdf": out["figure2_pdf"], "png": out["figure2_png"]},
                 inputs={"regret_figure": out["regret_figure"]}, settings=cs),
            Step("batches", tradeoff.batch_logs, {"csv": out["batches"]}, inputs={"final": out["final"]},
                 settings=cs, samples=tuple(batch_log_family(p) for p in s["panels"]),
                 message=f"{NAME}: the batched runs' batch logs"),
            Step("tradeoff", tradeoff.tradeoff,
                 {"csv": out["tradeoff_csv"], "pdf": out["tradeoff_pdf"], "png": out["tradeoff_png"]},
                 inputs={"final": out["final"], "batches": out["batches"]}, settings=cs),
            Step("split", tradeoff.switch_split, {"csv": out["split"]}, inputs={"batches": out["batches"]},
                 settings=cs),
            Step("theory", theory.theory, {"csv": out["theory"]}, settings=theory_settings,
                 message=f"{NAME}: data facts, Lemmas 4.5-4.6 and Theorem C.1's instances"),
            Step("checks", checks.write_checks, {"csv": out["checks"]},
                 inputs={"final": out["final"], "batches": out["batches"], "theory": out["theory"],
                         "split": out["split"], "registry": registry},
                 settings=s, message=f"{NAME}: evaluating the published-number registry"),
        ]

    def items(self, s: Mapping, out: Mapping[str, str]) -> list[Item]:
        """The paper's figures and the suite's own items: what is shown, what runs, the readings."""
        data = "; ".join(f"({chr(97 + k)}) {PANELS[p]}: {s['panels'][p]}" for k, p in enumerate(PANELS))
        runs = (f"mean of runs 0-{int(s['figure_runs']) - 1} as the paper's 10 (@32425); the checks use all "
                f"{int(s['runs'])} runs (A3; fidelity {s['fidelity']})")
        fig1 = ", ".join(c.entry.label for c in curve_list(s) if "figure1" in c.roles)
        return [
            Item("figure1", "figure", "Figure 1 (regret v/s t, @33550)",
                 "The paper plots the average cumulative regret R(t), r(t) = (eps_t1 + eps_t2)/2 (@7018), of PCOMP, SCOMP "
                 "and SCOMP2 (B = 16, KL elimination) against RMED1, RUCB and BTM at T = 10^5 on four datasets. Here: "
                 f"{data}; {fig1}; {runs}. Readings A1-A9 of data/published/agarwal2022.yaml: SYN instances drawn "
                 "afresh per run and shared by all curves, KL threshold log(1/delta) (the printed log(T delta) is "
                 "degenerate, erratum E1), cumulative KL counts, only the elimination lines replaced, round-robin "
                 "batches truncated at T, BTM without the factor 3 as the library the paper used. Linear axes as the "
                 "paper; bands are ± 1 s.e.; curves above the frame are marked where they leave it.",
                 (out["figure1_png"], out["figure1_pdf"])),
            Item("figure2", "figure", "Figure 2 (regret of SCOMP2 for B = 2, 8, 16, Appendix A, @46044)",
                 f"The paper plots R(t) of SCOMP2 with B = {', '.join(str(b) for b in s['figure2']['batches'])} against "
                 f"RMED1 (@34700-@34830); its caption says 'Regret v/s B' although the axes are R(t) against t "
                 f"(erratum E3). Same runs and readings as Figure 1; B is SCOMP2's parameter, so up to 2B + 1 batches.",
                 (out["figure2_png"], out["figure2_pdf"])),
            Item("tradeoff", "figure", "Batch trade-off (the suite's own figure)",
                 "Not in the paper: final regret R(T) of PCOMP, SCOMP and SCOMP2 against B "
                 f"({', '.join(str(b) for b in s['tradeoff']['batches'])}) with RMED1 as a line, and against the batches "
                 "actually used, beside the shapes of the theorems (T^(1/B) of Theorem 3.1, B T^(1/B) of Theorem 3.4, "
                 "the lower bound's T^(1/B)/B^2 of Table 1), each scaled to the measured value at the largest B (the "
                 "bounds themselves are vacuous at T = 10^5).",
                 (out["tradeoff_png"], out["tradeoff_pdf"], out["tradeoff_csv"])),
            Item("batches", "table", "Batch logs",
                 "Every batched run replayed with its own random stream: batches used (at most B, B + 1 and 2B + 1, "
                 "Theorems 3.1, 3.2, 3.4), comparisons (exactly T), the switch round and |A'|, the good event of "
                 "Lemmas 4.1-4.2 for the gamma-rule runs (delta = 1/(6TK^2B), A8), the Condorcet winner's "
                 "elimination (Lemma 4.3) and the regret identity R(T) = 1/2 sum_j T_j eps_j.", (out["batches"],)),
            Item("split", "table", "Seed-set split of SCOMP and SCOMP2",
                 "Not in the paper: with delta = 1/(TK^2) the switch of SCOMP and SCOMP2 to PCOMP (a gamma-rule test) "
                 "fires in few runs, so a run's R(T) depends on whether its random seed set S holds the Condorcet "
                 "winner. Per panel and curve: runs, switches, runs with the winner in S and with S empty, mean and "
                 "median R(T) of the runs with and without the winner in S (from batches.csv; checks s1_* show the "
                 "ratio with its interval for B = 16).", (out["split"],)),
            Item("theory", "table", "Data facts and the theory's statements",
                 "Condorcet winners of every panel and instance, SST and STI of SYN-BTL (claimed, @32375) and of the "
                 "real matrices (not claimed), SYN-CD's structure, Lemmas 4.5-4.6 by Monte Carlo, Theorem C.1's hard "
                 "instances, Theorem 3.1's bound per panel.", (out["theory"],)),
            Item("curves", "table", "Regret curves behind Figures 1-2",
                 "Mean regret and s.e. per panel, curve and checkpoint over all runs (regret.csv) and over the figures' "
                 "runs (regret_figure.csv); per-run R(T) (final_regret.csv), "
                 "from which the claims are decided (paired ratios of mean R(T) with their 95 % intervals, A4).",
                 (out["regret"], out["regret_figure"], out["final"])),
            Item("checks", "checks", "Published claims and theory checks (data/published/agarwal2022.yaml)",
                 "Every check of the registry at the active fidelity: the claims of Section 5 on Figures 1-2, the data "
                 "facts, batch budgets, the regret identity, Lemmas 4.1-4.6, Theorem 3.1's bound and Theorem C.1's "
                 "instances. Published claims are asserted at paper fidelity only.", (out["checks"],)),
        ]


EXPERIMENT = Agarwal2022()
