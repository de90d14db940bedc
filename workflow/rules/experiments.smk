# The generic rules of every experiment package on the contract of
# duelbench.experiments.contract (plans from duelbench.experiments.planning): for each configured experiment, one rule per declared step
# (`<experiment>_steps`, running workflow/scripts/steps.py), the target rule `<experiment>`
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

# One job per plan: `<paper>_steps` runs the declared reading's steps, `<paper>__<reading>__steps`
# each reading variant's (its outputs under readings/<id>/, not in the report: the paper's
# `readings` item shows them) and `bench_all__<paper>__steps` the bench-all plan's (outputs under
# results/bench_all/, built only by the `bench_all` target). Its steps run in declared order in
# one process (duelbench.experiments.planning.run_steps), each with its own log and sidecars. A
# host-dependent step (a timing) runs in a job of its own, `<prefix><step>`, whose outputs only
# the target `<paper>_timing` builds, never `all`. Of a reading variant or a bench-all plan, only
# the steps whose outputs are read elsewhere (by the paper's `readings` step, by the bench-all
# leaderboard and figures) run in `<prefix>steps`; the others (its own figures) in
# `<prefix>other_steps`, built only when named. Of a paper's own plan, the steps that read other
# plans' outputs (the comparison of the reading variants) run in `<prefix>joined_steps`.
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
#: every file a step of a declared plan reads, and what the bench-all target reads
_WANTED = {
    p for _plan in PLANS.values() for _s in _plan.steps for p in _s.input_files()
} | {str(p) for _plan in BENCH_ALL_PLANS.values() for p in dbx_bench_all.wanted(_plan)}
#: every output of every plan
_PLANNED = {str(p) for _entry in _ALL_PLANS for p in _entry[1].outputs()}
for _name, _plan, _prefix, _logs, _rid, _bench in _ALL_PLANS:
    _declared = not (_rid or _bench)
    register_shards(_plan.shards, owner=_logs)
    register_samples(_plan.samples)
    _code = dbx_contract.code_hash(_name)
    _listing = shard_list_path(_logs)
    if _plan.shards or _plan.samples:

        rule:
            name:
                f"{_prefix}shard_list"
            input:
                **shard_list_inputs(_plan),
            output:
                _listing,
            log:
                f"{RESULTS}/logs/{FIDELITY}/{_logs}/shard_list.log",
            # first, so that no job with thousands of inputs waits in the queue
            priority: 100
            localrule: True
            conda:
                "../envs/duelbench.yaml"
            threads: 1
            message:
                f"{_logs}: the list of its shards"
            script:
                "../scripts/shard_list.py"

    for _rule, _steps in plan_jobs(
        _plan,
        _prefix,
        None if _declared else _WANTED,
        _PLANNED - set(_plan.outputs()),
    ):

        rule:
            name:
                _rule
            input:
                **plan_inputs(_plan, _steps, _listing),
            output:
                **plan_outputs(_plan, _steps, in_report=_declared),
            log:
                **{
                    s.name: f"{RESULTS}/logs/{FIDELITY}/{_logs}/{s.name}.log"
                    for s in _steps
                },
            conda:
                "../envs/duelbench.yaml"
            threads: 1
            params:
                experiment=_name,
                reading=_rid,
                bench_all=_bench,
                steps=[s.name for s in _steps],
                settings=json.dumps(
                    {s.name: s.settings for s in _steps}, sort_keys=True, default=str
                ),
                code=_code,
            message:
                f"{_logs}: " + ", ".join(s.name for s in _steps)
            script:
                "../scripts/steps.py"

    if _declared:
        register_experiment(
            _name, with_sidecars(_plan.results()), default=_plan.in_all
        )
        if _plan.timings():
            register_experiment(
                f"{_name}_timing", with_sidecars(_plan.timings()), default=False
            )


# `bench_all`: the leaderboard of the benchmarked algorithm and every figure with it drawn in
# (outputs under results/bench_all/<NAME>/<fidelity>/; not part of `all`).
if BENCH_ALL_PLANS:
    _BENCH_OUT = dbx_bench_all.leaderboard_paths(config)

    rule bench_all_leaderboard:
        input:
            dbx_bench_all.benchmark_table(BENCH_ALL_PLANS),
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
            fidelity=FIDELITY,
        script:
            "../scripts/bench_all.py"

    rule bench_all:
        input:
            _BENCH_OUT["csv"],
            [path for p in BENCH_ALL_PLANS.values() for path in dbx_bench_all.wanted(p)],
        localrule: True
