"""Agarwal, Ghuge & Nagarajan (2022): the paper's panels and curves, and the checks of its settings.

What the steps (:mod:`.curves`, :mod:`.tradeoff`, :mod:`.theory`, :mod:`.checks`) and the
experiment's declaration (:class:`duelbench.experiments.agarwal2022.Agarwal2022`) share; see the
package's docstring for the readings taken.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from duelbench.config import algorithm_entries, AlgorithmEntry, check_datasets, ConfigError, require_keys

from ..plotting import algorithm_label

NAME = "agarwal2022"
#: The regret of @7018, r(t) = (eps_t1 + eps_t2)/2 against the Condorcet winner.
KIND = "condorcet"
KINDS = (KIND,)
#: Panel roles in figure order with the paper's panel titles (@33550; (b) and (d) lost in extraction).
PANELS = {"six_rankers": "Six rankers", "sushi": "Sushi", "syn_btl": "SYN-BTL", "syn_cd": "SYN-CD"}
#: Real and synthetic panels (claims C5 and C8 compare the two groups).
REAL, SYNTHETIC = ("six_rankers", "sushi"), ("syn_btl", "syn_cd")
#: The batched algorithms (duelbench.algorithms.batched) and their batch budgets (Theorems 3.1, 3.2, 3.4).
BATCHED = ("pcomp", "scomp", "scomp2")
BATCH_BUDGET = {"pcomp": lambda B: B, "scomp": lambda B: B + 1, "scomp2": lambda B: 2 * B + 1}


@dataclass(frozen=True)
class Curve:
    """One regret curve on every panel: ``id`` (statistics' name), the algorithm entry, the roles
    it serves (``figure1``, ``figure2``, ``tradeoff``, ``theory``) and B for batched curves."""

    id: str
    entry: AlgorithmEntry
    roles: tuple[str, ...]
    batches: int | None = None

    @property
    def algorithm(self) -> str:
        return self.entry.name


REQUIRED = ("seed", "horizon", "runs", "figure_runs", "runs_per_shard", "panels", "algorithms", "figure2", "tradeoff",
            "theory", "seed_rank", "lower_bound")


def names_of(entries) -> list[str]:
    """Registry names of a list of algorithm entries (names or ``{name, ...}`` mappings: a reading
    variant's ``algorithm_params`` rewrite every ``algorithms`` list of the section)."""
    return [e if isinstance(e, str) else e["name"] for e in entries]


def check_settings(s: Mapping) -> None:
    """Checks beyond the JSON schema; :class:`ConfigError` names the offending key."""
    require_keys(NAME, s, REQUIRED)
    if list(s["panels"]) != list(PANELS):
        raise ConfigError(f"{NAME}.panels: expected the panels {list(PANELS)} in this order, got {list(s['panels'])}")
    for p, dataset in s["panels"].items():
        check_datasets([dataset], where=f"{NAME}.panels.{p}")
    if int(s["figure_runs"]) > int(s["runs"]):
        raise ConfigError(f"{NAME}.figure_runs: {s['figure_runs']} exceeds runs = {s['runs']}")
    if int(s.get("check_runs_from", 0)) >= int(s["runs"]):
        raise ConfigError(f"{NAME}.check_runs_from: {s['check_runs_from']} leaves no run of runs = {s['runs']} "
                          "to the checks")
    names = [e.name for e in algorithm_entries(s["algorithms"], where=f"{NAME}.algorithms")]
    for key in ("figure2.algorithm", "figure2.baseline", "tradeoff.baseline"):
        section, field = key.split(".")
        if s[section][field] not in names:
            raise ConfigError(f"{NAME}.{key}: {s[section][field]!r} is not in {NAME}.algorithms")
    for section in ("tradeoff", "theory"):
        for a in names_of(s[section]["algorithms"]):
            if a not in names or a not in BATCHED:
                raise ConfigError(f"{NAME}.{section}.algorithms: {a!r} must be a batched algorithm of "
                                  f"{NAME}.algorithms ({', '.join(BATCHED)})")
    if s["figure2"]["algorithm"] not in BATCHED:
        raise ConfigError(f"{NAME}.figure2.algorithm: {s['figure2']['algorithm']!r} is not batched ({', '.join(BATCHED)})")


def curve_list(s: Mapping) -> list[Curve]:
    """Every curve of the settings, each once (see the module docstring), Figure 1's first."""
    entries = {e.name: e for e in algorithm_entries(s["algorithms"], where=f"{NAME}.algorithms")}
    found: dict[str, Curve] = {}

    def add(id_, entry, role, batches=None):
        c = found.get(id_)
        found[id_] = Curve(id_, entry, (c.roles if c else ()) + (role,), batches)

    def labelled(name, params, label):
        return algorithm_entries([{"name": name, "params": params, "label": label}], where=f"{NAME}.algorithms")[0]

    for name, e in entries.items():
        e = e if e.label else AlgorithmEntry(e.name, e.params, e.param_hash, algorithm_label(e.name))
        add(name, e, "figure1", int(e.params["batches"]) if name in BATCHED else None)
    grid = [("figure2", s["figure2"]["algorithm"], B) for B in s["figure2"]["batches"]]
    grid += [("tradeoff", a, B) for a in names_of(s["tradeoff"]["algorithms"]) for B in s["tradeoff"]["batches"]]
    for role, a, B in grid:
        base = entries[a]
        add(f"{a}_b{int(B)}", labelled(a, {**base.params, "batches": float(B)}, f"{algorithm_label(a)} (B = {int(B)})"),
            role, int(B))
    for a in names_of(s["theory"]["algorithms"]):
        for B in s["theory"]["batches"]:
            params = {**entries[a].params, **s["theory"]["params"], "batches": float(B)}
            add(f"{a}_gamma_b{int(B)}", labelled(a, params, f"{algorithm_label(a)} gamma-rule (B = {int(B)})"),
                "theory", int(B))
    return list(found.values())


def batch_log_family(panel: str) -> str:
    """The sample family of a panel's batch logs (every batched curve, :mod:`.batchlogs`)."""
    return f"batchlog__{panel}"


def batched_curves(s: Mapping) -> list[Curve]:
    """The batched curves, in the order of their batch logs in a panel's family."""
    return [c for c in curve_list(s) if c.algorithm in BATCHED]


def curve_settings(s: Mapping) -> dict:
    """The settings the curves' tables and figures depend on (a change reruns their steps)."""
    return {k: s[k] for k in ("fidelity", "seed", "horizon", "runs", "figure_runs", "runs_per_shard", "panels",
                              "algorithms", "figure2", "tradeoff", "theory")}
