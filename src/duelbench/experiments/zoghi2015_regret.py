"""Regret figures of Zoghi, Karnin, Whiteson & de Rijke (2015): Figures 1-3 and the gap variant.

Paper text ``shared/papers/001_46dfb6e9ef9a8784.txt`` (``Lnnn``), Appendix A (L380-L406):
cumulative regret (Definition 1, kind ``copeland_zoghi``; Z3) against t on a log axis.

* Figure 1: the 5-armed MSLR problem without a Condorcet winner (``mslr5_noncondorcet``, Z1);
  CCB, SCB, Copeland SAVAGE, RUCB.
* Figure 2: the 500-armed synthetic problem (``zoghi_copeland500``, Z2); CCB, SCB, RUCB.
* Figure 3: the 5-armed Condorcet example (``mslr5_condorcet``, Z1); CCB, RUCB.
* Gap sensitivity (labelled variant, not a paper figure): the 500-arm generator with gaps
  0.2 and 0.4.

Each figure comes from ordinary simulation shards (:func:`duelbench.experiments.plan_shards`),
so runs are shared with any other experiment that requests the same shards. Algorithms that
need the horizon in advance (SAVAGE, ``needs_horizon``) are run once per point of a log grid
of horizons (the engine's horizon mode), and once more at ``T/2`` so that the regret at T can
be compared with an independent run at T/2 (paper L392: "SAVAGE's cumulative regret at time
2x10^7 is lower than at time 10^7"); they are drawn as markers, one per horizon. Every run r of
every horizon starts from the same random stream, so the horizon points are separate runs
with common random numbers, not continuations.

Outputs: ``regret.csv`` (columns of :data:`duelbench.experiments.aggregate.CURVE_COLUMNS`;
kinds ``copeland_zoghi`` (Definition 1, plotted) and ``copeland`` (half of it, the
normalisation of Komiyama et al.)), one figure per item, and ``throughput.csv`` (steps per
second of every shard group, from the shard sidecars' ``run.info.steps_per_second``; host
dependent).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np

from . import ShardSpec, algorithm_entries, group_shards, plan_shards

#: Regret items (config keys of section ``zoghi2015``), in output order.
REGRET_ITEMS = ("figure1", "figure2", "figure3", "sensitivity")
#: Titles of the items.
ITEM_TITLES = {
    "figure1": "Figure 1: 5-armed MSLR problem without a Condorcet winner",
    "figure2": "Figure 2: 500-armed synthetic Copeland problem",
    "figure3": "Figure 3: 5-armed Condorcet example",
    "sensitivity": "Gap sensitivity of Figure 2 (labelled variant: all gaps 0.2 / 0.4)",
}
#: Regret definitions written to regret.csv; the first is plotted.
KINDS = ("copeland_zoghi", "copeland")


def item_settings(s: Mapping, item: str) -> dict:
    """One regret item's settings: ``datasets``, ``algorithms`` (entries), ``horizon``, ``runs``,
    ``runs_per_shard`` (the item's or the section's)."""
    d = dict(s[item])
    datasets = list(d["datasets"]) if "datasets" in d else [d["dataset"]]
    return {
        "item": item,
        "datasets": datasets,
        "algorithms": algorithm_entries(d["algorithms"], where=f"zoghi2015.{item}.algorithms"),
        "horizon": int(d["horizon"]),
        "runs": int(d["runs"]),
        "runs_per_shard": int(d.get("runs_per_shard", s["runs_per_shard"])),
    }


def needs_horizon(algorithm: str) -> bool:
    from duelbench.algorithms.registry import get_algorithm

    return bool(get_algorithm(algorithm).needs_horizon)


def half_horizon(T: int) -> int:
    """The independent comparison horizon of horizon-mode algorithms: T // 2."""
    return int(T) // 2


def item_shards(s: Mapping, item: str, *, fidelity: str, root: str) -> list[ShardSpec]:
    """Shards of one regret item (plus the T/2 shards of horizon-mode algorithms)."""
    it = item_settings(s, item)
    specs: list[ShardSpec] = []
    for dataset in it["datasets"]:
        for alg in it["algorithms"]:
            horizons = [it["horizon"]]
            if needs_horizon(alg.name) and half_horizon(it["horizon"]) >= 1:
                horizons.append(half_horizon(it["horizon"]))
            for T in horizons:
                specs.extend(plan_shards(
                    fidelity=fidelity, dataset=dataset, algorithm=alg.name, params=alg.params, horizon=T,
                    runs=it["runs"], runs_per_shard=it["runs_per_shard"], seed=int(s["seed"]), root=root))
    return specs


def shard_specs(s: Mapping, *, fidelity: str, root: str) -> dict[str, list[ShardSpec]]:
    """Item name -> its shards."""
    return {item: item_shards(s, item, fidelity=fidelity, root=root) for item in REGRET_ITEMS}


def main_groups(s: Mapping, item: str, specs: Sequence[ShardSpec]) -> dict[tuple[str, str], list[ShardSpec]]:
    """(dataset, algorithm) -> the shards at the item's horizon T."""
    T = item_settings(s, item)["horizon"]
    out = {}
    for (dataset, alg, _h, horizon), group in group_shards(specs).items():
        if horizon == T:
            out[(dataset, alg)] = group
    return out


def regret_table(s: Mapping, specs_by_item: Mapping[str, Sequence[ShardSpec]]):
    """All curves of all items (``CURVE_COLUMNS``), rows ordered by dataset, algorithm, kind, t.

    For horizon-mode algorithms the T/2 job contributes its final point only (the other points
    of its grid are runs at other horizons, already covered by the job at T).
    """
    import pandas as pd

    from .aggregate import CURVE_COLUMNS, load_group, summarise

    frames = []
    seen = set()
    for item in REGRET_ITEMS:
        T = item_settings(s, item)["horizon"]
        for key, group in group_shards(specs_by_item[item]).items():
            if key in seen:
                continue
            seen.add(key)
            table = summarise(load_group(group, KINDS), param_hash=group[0].param_hash, kinds=KINDS)
            if key[3] != T:  # the T/2 job of a horizon-mode algorithm
                table = table[table["t"] == key[3]]
            frames.append(table)
    table = pd.concat(frames, ignore_index=True)[CURVE_COLUMNS]
    order = {k: i for i, k in enumerate(KINDS)}
    table = table.assign(_k=table["kind"].map(order)).sort_values(
        ["dataset", "algorithm", "param_hash", "_k", "t"], kind="stable").drop(columns="_k")
    table = table.drop_duplicates(subset=["dataset", "algorithm", "param_hash", "kind", "t"], keep="first")
    return table.reset_index(drop=True)


def throughput_table(s: Mapping, specs_by_item: Mapping[str, Sequence[ShardSpec]]):
    """Steps per second per (item, dataset, algorithm, horizon) from the shard sidecars.

    Columns: ``item, dataset, K, algorithm, horizon, shards, runs, steps, wall_s,
    steps_per_second`` (total steps / total wall time), ``cpu_s, cpu_steps_per_second`` (the
    same per CPU second: less sensitive to other load on the host),
    ``min_shard_steps_per_second``, ``max_shard_steps_per_second`` (the sidecars'
    ``run.info.steps_per_second``). Host dependent: a measurement, not a result. Horizon-mode
    algorithms count ``horizon x runs`` steps although they simulate every point of their
    horizon grid.
    """
    import pandas as pd

    from duelbench.data.registry import dataset_info
    from duelbench.provenance.sidecar import read_sidecar

    rows = []
    for item in REGRET_ITEMS:
        for (dataset, alg, _h, horizon), group in group_shards(specs_by_item[item]).items():
            steps = wall = cpu = 0.0
            rates = []
            for spec in group:
                doc = read_sidecar(spec.path)
                st = float(doc["content"]["extra"].get("steps", horizon * (spec.run_stop - spec.run_start)))
                steps += st
                wall += float(doc["run"].get("wall_time_s") or np.nan)
                cpu += float(doc["run"].get("cpu_time_s") or np.nan)
                rate = (doc["run"].get("info") or {}).get("steps_per_second")
                if rate is not None:
                    rates.append(float(rate))
            rows.append({"item": item, "dataset": dataset, "K": dataset_info(dataset).K, "algorithm": alg,
                         "horizon": int(horizon), "shards": len(group),
                         "runs": int(sum(sp.run_stop - sp.run_start for sp in group)), "steps": int(steps),
                         "wall_s": wall, "steps_per_second": steps / wall if wall > 0 else np.nan,
                         "cpu_s": cpu, "cpu_steps_per_second": steps / cpu if cpu > 0 else np.nan,
                         "min_shard_steps_per_second": min(rates) if rates else np.nan,
                         "max_shard_steps_per_second": max(rates) if rates else np.nan})
    return pd.DataFrame(rows)


def plot_item(table, s: Mapping, item: str, out_paths: Sequence[str], *, fidelity: str) -> None:
    """Draw one item: a panel per dataset, mean +- 1 s.e. (shaded), log x; horizon-mode
    algorithms as markers with error bars at their independent horizons."""
    import matplotlib.pyplot as plt

    from .plotting import algorithm_style, save_figure

    it = item_settings(s, item)
    kind = KINDS[0]
    data = table[table["kind"] == kind]
    panels = it["datasets"]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.0 * len(panels), 3.8), squeeze=False)
    handles = {}
    for ax, dataset in zip(axes[0], panels):
        sub = data[data["dataset"] == dataset]
        finals = {}
        for alg in it["algorithms"]:
            curve = sub[(sub["algorithm"] == alg.name) & (sub["param_hash"] == alg.param_hash)].sort_values("t")
            if curve.empty:
                continue
            t = curve["t"].to_numpy(dtype=float)
            mean = curve["mean"].to_numpy(dtype=float)
            se = np.nan_to_num(curve["stderr"].to_numpy(dtype=float))
            style = algorithm_style(alg.name)
            if alg.label:
                style["label"] = alg.label
            if needs_horizon(alg.name):
                line = ax.errorbar(t, mean, yerr=se, fmt="o", ms=4, capsize=2, color=style["color"],
                                   label=style["label"], lw=0.8)
                ax.plot(t, mean, color=style["color"], lw=0.6, ls=":")
            else:
                (line,) = ax.plot(t, mean, lw=1.6, **style)
                ax.fill_between(t, mean - se, mean + se, color=style["color"], alpha=0.2, lw=0)
            handles.setdefault(style["label"], line)
            finals[alg.name] = float(mean[-1])
        # Figure 1 of the paper truncates the linear RUCB curve (L392): clip the y range when one
        # curve ends far above all the others, and say so.
        others = [v for k, v in finals.items() if k != "rucb"]
        if item == "figure1" and "rucb" in finals and others and finals["rucb"] > 3 * max(others) > 0:
            ax.set_ylim(0, 1.5 * max(others))
            ax.text(0.02, 0.95, "RUCB truncated (linear growth)", transform=ax.transAxes, fontsize=7,
                    va="top", color="#555555")
        ax.set_xscale("log")
        ax.set_title(dataset, fontsize=9)
        ax.set_xlabel("time step t")
        ax.grid(True, which="major", alpha=0.3)
        if sub.empty:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    axes[0][0].set_ylabel("cumulative regret (Definition 1)")
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="upper center", ncol=min(len(handles), 5),
                   frameon=False, bbox_to_anchor=(0.5, 1.0), fontsize=8)
    runs = it["runs"]
    fig.suptitle(f"{ITEM_TITLES[item]}\nmean ± 1 s.e. over {runs} runs, T = {it['horizon']:.3g}, fidelity {fidelity}",
                 y=0.01, va="bottom", fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.08, 1, 0.97))
    save_figure(fig, out_paths)


def final_values(specs: Sequence[ShardSpec], kind: str = KINDS[0]) -> np.ndarray:
    """Per-run cumulative regret at the horizon of one (dataset, algorithm) job."""
    from .aggregate import load_group

    return np.asarray(load_group(specs, KINDS).final(kind), dtype=float)


def mean_curve(specs: Sequence[ShardSpec], kind: str = KINDS[0]) -> tuple[np.ndarray, np.ndarray]:
    """(checkpoints, mean cumulative regret) of one job."""
    from .aggregate import load_group

    r = load_group(specs, KINDS)
    return np.asarray(r.checkpoints, dtype=np.int64), np.asarray(r.mean(kind), dtype=float)


def describe(specs: Sequence[ShardSpec]) -> str:
    s = specs[0]
    return json.dumps({"dataset": s.dataset, "algorithm": s.algorithm, "horizon": s.horizon,
                       "runs": sum(x.run_stop - x.run_start for x in specs)})
