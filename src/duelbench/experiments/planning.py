"""The plans the workflow builds, and the entry point of every step job.

For each configured paper, :func:`plans` builds the declared reading's plan (the paper's
:meth:`~duelbench.experiments.experiment.Experiment.plan`, ending with the ``readings`` step when
the paper declares reading variants, :func:`duelbench.experiments.readings.with_readings`) and
the plan of each reading variant (:mod:`.variants`). ``workflow/scripts/steps.py`` calls
:func:`run_steps`, which re-plans the steps' plan once (declared, a reading variant, or the
bench-all plan of :mod:`.bench_all`) and runs each step's function, in declared order, on the
framework's harness (:func:`duelbench.experiments.contract.run_harnessed`): one job runs all the
steps of a plan (but a host-dependent step, which runs alone), so the interpreter, the imports and
the planning are paid once per plan, not once per step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from duelbench.config import ConfigError

from . import bench_all, readings
from .contract import declaration, named_files, Plan, run_harnessed, Step, StepContext


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


def _replan(config: Mapping, experiment: str, reading: str | None, bench_all_plan: bool):
    """(plan, its configuration, dataset aliases) of the declared reading, a reading variant or
    the bench-all plan of ``experiment``."""
    if bench_all_plan:
        return (*bench_all.variant(config, experiment).plan(config), {})
    if reading:
        variant = readings.find(config, experiment, reading).variant(config)
        return (*variant.plan(config), variant.aliases)
    return plan(config, experiment), dict(config), {}


def step_files(step: Step, shards: Sequence[str] = (), samples: Sequence[str] = ()) -> tuple[dict, dict]:
    """(named inputs, named outputs) of ``step`` as its function sees them: the declared inputs,
    then ``shards`` and ``samples`` (the workflow's resolved paths: archive entries or results
    files) when the step reads them; each output followed by its sidecar (``<key>_meta``)."""
    inputs = dict(step.inputs)
    if step.shards:
        inputs["shards"] = list(shards)
    if step.families:
        inputs["samples"] = list(samples)
    outputs = {}
    for key, path in step.outputs.items():
        outputs[key], outputs[f"{key}_meta"] = path, f"{path}.json"
    return inputs, outputs


def run_steps(experiment: str, steps: Sequence[str], config: Mapping, shards: Sequence[str] = (),
              samples: Mapping[str, Sequence[str]] | None = None, logs: Mapping[str, str] | None = None,
              reading: str | None = None, bench_all_plan: bool = False) -> None:
    """Run ``steps`` of ``experiment`` (of its reading variant ``reading``, or of its bench-all
    plan) in the given order in this process: re-plan once from ``config``, then run each step's
    function on the framework's harness.

    Parameters
    ----------
    shards : sequence of str
        The plan's simulation shards, as the workflow resolved them (input of every step that
        reads shards).
    samples : mapping of str to sequence of str
        Sample family -> its sample shards, resolved likewise (a step reads those of its
        families, in family order).
    logs : mapping of str to str
        Step name -> its log file.
    """
    p, cfg, aliases = _replan(config, experiment, reading, bench_all_plan)
    samples, logs = samples or {}, logs or {}
    for name in steps:
        s = p.step(name)
        inputs, outputs = step_files(s, shards, [path for family in s.families for path in samples[family]])
        run_harnessed(s.function, StepContext(plan=p, config=cfg, step=s, input=named_files(inputs),
                                              output=named_files(outputs), log=logs.get(name),
                                              aliases=dict(aliases)))


def run_step(experiment: str, step: str, config: Mapping, inputs: Mapping, outputs: Mapping,
             log: str | None = None, reading: str | None = None, bench_all_plan: bool = False) -> None:
    """Run one ``step`` of ``experiment`` with explicitly named ``inputs`` and ``outputs`` (as
    :func:`run_steps`, for one step whose files the caller chose)."""
    p, cfg, aliases = _replan(config, experiment, reading, bench_all_plan)
    s = p.step(step)
    missing = sorted(set(s.outputs) - set(outputs))
    if missing:
        raise ConfigError(f"{experiment}_{step}: outputs {missing} were not passed by the rule")
    run_harnessed(s.function, StepContext(plan=p, config=cfg, step=s, input=named_files(inputs), output=named_files(outputs),
                                          log=log, aliases=dict(aliases)))
