"""Wu & Liu (2016): the paper's panels and curves, and the checks of its settings.

What the steps (:mod:`.curves`, :mod:`.figure2`, :mod:`.checks`) and the experiment's declaration
(:class:`duelbench.experiments.wu2016.WuLiu2016`) share; see the package's docstring for the
readings taken.
"""

from __future__ import annotations

from collections.abc import Mapping

from duelbench.config import algorithm_entries, check_datasets, ConfigError, require_keys

from ..plotting import algorithm_label

NAME = "wu2016"
#: Regret kinds the experiment reads (and the results archive keeps for its shards).
KINDS = ("copeland",)
#: Panel names in figure order, with the paper's panel titles (L908-L910).
PANELS = {"condorcet": "K = 5, Condorcet", "noncondorcet": "K = 5, non-Condorcet"}
#: Registry names that statistics may call ``savage`` (the panel's SAVAGE variant, W4).
SAVAGES = ("condorcet_savage", "copeland_savage")
#: The curves whose per-run slopes and t0 regret ``run_slopes.csv`` keeps (the slope and flatness
#: statistics compare them).
SLOPE_ALGORITHMS = ("dts", "dts_plus", "rmed1", "ecw_rmed")
#: The algorithms a run can be traced for (:mod:`.traces`).
TRACEABLE = ("dts", "dts_plus")


def check_settings(s: Mapping) -> None:
    """Checks beyond the JSON schema; :class:`ConfigError` names the offending key."""
    require_keys(NAME, s, ("seed", "runs", "runs_per_shard", "algorithms", "panels", "figure2", "traces"))
    if sorted(s["panels"]) != sorted(PANELS):
        raise ConfigError(f"{NAME}.panels: expected the panels {list(PANELS)}, got {sorted(s['panels'])}")
    names = [e.name for e in algorithm_entries(s["algorithms"], where=f"{NAME}.algorithms")]
    for p, panel in s["panels"].items():
        check_datasets([panel["dataset"]], where=f"{NAME}.panels.{p}.dataset")
        unknown = sorted(set(panel.get("skip") or []) - set(names))
        if unknown:
            raise ConfigError(f"{NAME}.panels.{p}.skip: {unknown} are not in {NAME}.algorithms")
        savages = [e.name for e in panel_curves(s, p) if e.name in SAVAGES]
        if len(savages) > 1:
            raise ConfigError(f"{NAME}.panels.{p}: runs {savages}; skip all but one SAVAGE (statistics call it "
                              "'savage')")
    for a in s["figure2"]["shown"]:
        if a not in names:
            raise ConfigError(f"{NAME}.figure2.shown: {a!r} is not in {NAME}.algorithms")
    traced = s["traces"]
    bad = [a for a in traced["curves"] if a not in TRACEABLE]
    if bad:
        raise ConfigError(f"{NAME}.traces.curves: {bad} cannot be traced (traceable: {', '.join(TRACEABLE)})")
    if int(traced["runs"]) > int(s["runs"]):
        raise ConfigError(f"{NAME}.traces.runs: {traced['runs']} traced runs of {s['runs']} simulated (the traces "
                          "replay simulated runs)")


def panel_curves(s: Mapping, panel: str | None) -> list:
    """The :class:`~duelbench.experiments.AlgorithmEntry` s that run on ``panel`` (every entry of
    ``algorithms`` for ``None``), in legend order, labelled."""
    skip = set(s["panels"][panel].get("skip") or []) if panel else set()
    return [e if e.label else type(e)(e.name, e.params, e.param_hash, algorithm_label(e.name))
            for e in algorithm_entries(s["algorithms"], where=f"{NAME}.algorithms") if e.name not in skip]


def figure2_time(s: Mapping) -> int:
    """Figure 2's time: ``figure2.t``, at most each panel's horizon."""
    return min([int(s["figure2"]["t"]), *(int(p["horizon"]) for p in s["panels"].values())])


def trace_family(panel: str) -> str:
    """The sample family of a panel's traced runs (:mod:`.traces`)."""
    return f"traces__{panel}"


def trace_curves(s: Mapping, panel: str) -> list:
    """The traced curves of ``panel``: the entries of ``traces.curves`` that run there."""
    return [e for e in panel_curves(s, panel) if e.name in s["traces"]["curves"]]


def curve_settings(s: Mapping) -> dict:
    """The settings the tables and figures depend on (a change reruns their steps)."""
    return {k: s[k] for k in ("fidelity", "seed", "runs", "runs_per_shard", "algorithms", "panels", "figure2")}
