"""The plans the workflow builds, and the entry point of every step job.

For each configured paper, :func:`plans` builds the declared reading's plan (the paper's
:meth:`~duelbench.experiments.experiment.Experiment.plan`, ending with the ``readings`` step when
the paper declares reading variants, :func:`duelbench.experiments.readings.with_readings`) and
the plan of each reading variant (:mod:`.variants`). ``workflow/scripts/step.py`` calls
:func:`run_step`, which re-plans the step's plan (declared, a reading variant, or the bench-all
plan of :mod:`.bench_all`) and runs the step's function on the framework's harness
(:func:`duelbench.experiments.contract.run_harnessed`).
"""

from __future__ import annotations

from collections.abc import Mapping

from duelbench.config import ConfigError

from . import bench_all, readings
from .contract import declaration, named_files, Plan, run_harnessed, StepContext


def plans(config: Mapping, experiment: str) -> tuple[Plan, dict[str, Plan]]:
    """(the declared reading's plan, reading id -> the plan of that reading variant), each built
    once. The paper never sees the ``readings`` key: its steps depend on the declared reading
    only; the ``readings`` step that compares the variants is appended here."""
    variants = {r.id: r.variant(config).plan(config)[0] for r in readings.declared(config, experiment)}
    p = readings.with_readings(declaration(experiment).plan(readings.without(config, experiment)), config, variants)
    p.check()
    return p, variants


def plan(config: Mapping, experiment: str, reading: str | None = None) -> Plan:
    """The checked :class:`~duelbench.experiments.contract.Plan` of ``experiment`` under
    ``config`` (the effective configuration): the declared reading's (:func:`plans`), or with
    ``reading`` the plan of that declared reading variant."""
    if reading is not None:
        return readings.find(config, experiment, reading).variant(config).plan(config)[0]
    return plans(config, experiment)[0]


def reading_plans(config: Mapping, experiment: str) -> dict[str, Plan]:
    """Reading id -> the plan of that declared reading variant of ``experiment``."""
    return plans(config, experiment)[1]


def run_step(experiment: str, step: str, config: Mapping, inputs: Mapping, outputs: Mapping,
             log: str | None = None, reading: str | None = None, bench_all_plan: bool = False) -> None:
    """Run ``step`` of ``experiment`` (of its reading variant ``reading``, or of its bench-all
    plan): re-plan from ``config``, then run the step's function on the framework's harness."""
    aliases: Mapping = {}
    if bench_all_plan:
        p, cfg = bench_all.variant(config, experiment).plan(config)
    elif reading:
        variant = readings.find(config, experiment, reading).variant(config)
        (p, cfg), aliases = variant.plan(config), variant.aliases
    else:
        p, cfg = plan(config, experiment), dict(config)
    s = p.step(step)
    missing = sorted(set(s.outputs) - set(outputs))
    if missing:
        raise ConfigError(f"{experiment}_{step}: outputs {missing} were not passed by the rule")
    run_harnessed(s.function, StepContext(plan=p, config=cfg, step=s, input=named_files(inputs), output=named_files(outputs),
                                          log=log, aliases=dict(aliases)))
