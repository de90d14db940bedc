# The generic rules of every experiment package on the contract of
# duelbench.experiments.contract (plans from duelbench.experiments.planning): for each configured experiment, one rule per declared step
# (`<experiment>_<step>`, running workflow/scripts/step.py), the target rule `<experiment>`
# and its outputs in `all`. Simulation shards come from the results archive when it holds them
# (valid for this code and requirements.lock), else from the generic simulate_shard rule (jobs.smk);
# sample shards likewise, else from the generic sample_shard rule (jobs.smk).

import duelbench.experiments.bench_all as dbx_bench_all
import duelbench.experiments.planning as dbx_planning

#: experiment name -> its Plan (the effective configuration's declaration)
PLANS = {}
#: (experiment, reading id) -> the Plan of that declared reading variant (duelbench.experiments.readings)
READING_PLANS = {}
for _name in dbx_contract.configured(config):
    try:
        PLANS[_name], _variants = dbx_planning.plans(config, _name)
        READING_PLANS.update(
            {(_name, _rid): _rplan for _rid, _rplan in _variants.items()}
        )
    except (dbc.ConfigError, ValueError) as _exc:
        raise WorkflowError(f"invalid configuration of {_name}: {_exc}") from None


#: paper -> its plan with the algorithm of `--config bench_all=NAME` added (duelbench.experiments.bench_all)
try:
    BENCH_ALL_PLANS = dbx_bench_all.plans(config)
except (dbc.ConfigError, ValueError) as _exc:
    raise WorkflowError(f"invalid bench_all configuration: {_exc}") from None

#: On a cluster, the steps of one experiment (seconds each) run as one job: jobs of a group
#: that depend on each other are submitted together. Local runs ignore groups.
STEP_GROUP = "steps"

# One rule per step of every plan: `<paper>_<step>` for the declared reading,
# `<paper>__<reading>__<step>` for each reading variant (its outputs under readings/<id>/, not in
# the report: the paper's `readings` item shows them) and `bench_all__<paper>__<step>` for the
# bench-all plans (outputs under results/bench_all/, built only by the `bench_all` target).
# Each entry: (experiment, plan, rule-name prefix, log folder, reading id, bench-all plan?).
_ALL_PLANS = (
    [(_name, _plan, f"{_name}_", _name, "", False) for _name, _plan in PLANS.items()]
    + [
        (_name, _plan, f"{_name}__{_rid}__", f"{_name}/readings/{_rid}", _rid, False)
        for (_name, _rid), _plan in READING_PLANS.items()
    ]
    + [
        (_name, _plan, f"bench_all__{_name}__", f"bench_all/{_name}", "", True)
        for _name, _plan in BENCH_ALL_PLANS.items()
    ]
)
for _name, _plan, _prefix, _logs, _rid, _bench in _ALL_PLANS:
    _declared = not (_rid or _bench)
    register_shards(_plan.shards, owner=_logs)
    register_samples(_plan.samples)
    _code = dbx_contract.code_hash(_name)
    for _step in _plan.steps:

        rule:
            name:
                f"{_prefix}{_step.name}"
            input:
                **step_inputs(_plan, _step),
            output:
                **step_outputs(_plan, _step, in_report=_declared),
            log:
                f"{RESULTS}/logs/{FIDELITY}/{_logs}/{_step.name}.log",
            group:
                STEP_GROUP
            conda:
                "../envs/duelbench.yaml"
            threads: 1
            params:
                experiment=_name,
                reading=_rid,
                bench_all=_bench,
                step=_step.name,
                settings=json.dumps(_step.settings, sort_keys=True, default=str),
                code=_code,
            message:
                _step.message or f"{_logs}: {_step.name}"
            script:
                "../scripts/step.py"

    if _declared:
        register_experiment(_name, with_sidecars(_plan.outputs()))


# `bench_all`: the leaderboard of the benchmarked algorithm and every figure with it drawn in
# (outputs under results/bench_all/<NAME>/<fidelity>/; not part of `all`).
if BENCH_ALL_PLANS:
    _BENCH_OUT = dbx_bench_all.leaderboard_paths(config)

    rule bench_all_leaderboard:
        input:
            [p.curves[0] for p in BENCH_ALL_PLANS.values()],
        output:
            csv=_BENCH_OUT["csv"],
            md=_BENCH_OUT["md"],
            csv_meta=sidecar(_BENCH_OUT["csv"]),
            md_meta=sidecar(_BENCH_OUT["md"]),
        log:
            f"{RESULTS}/logs/{FIDELITY}/bench_all/leaderboard.log",
        conda:
            "../envs/duelbench.yaml"
        threads: 1
        params:
            algorithm=dbx_bench_all.algorithm(config),
            curves=json.dumps({n: list(p.curves) for n, p in BENCH_ALL_PLANS.items()}),
            fidelity=FIDELITY,
        script:
            "../scripts/bench_all.py"

    rule bench_all:
        input:
            _BENCH_OUT["csv"],
            [
                path
                for p in BENCH_ALL_PLANS.values()
                for path in dbx_bench_all.regret_figures(p)
            ],
        localrule: True
