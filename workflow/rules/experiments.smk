# The generic rules of every experiment package on the contract of
# duelbench.experiments.contract: for each configured experiment, one rule per declared step
# (`<experiment>_<step>`, running workflow/scripts/step.py), the target rule `<experiment>`
# and its outputs in `all`. Simulation shards come from the results archive when it holds them
# (valid for this code and requirements.lock), else from the generic simulate_shard rule;
# sample shards likewise, else from the generic sample_shard rule (common.smk).

import duelbench.experiments.contract as dbx_contract
from duelbench.engine.shard_sources import sources_for

#: experiment name -> its Plan (the effective configuration's declaration)
PLANS = {}
for _name in dbx_contract.configured(config):
    try:
        PLANS[_name] = dbx_contract.plan(config, _name)
    except (dbx.ConfigError, ValueError) as _exc:
        raise WorkflowError(f"invalid configuration of {_name}: {_exc}") from None


def step_shards(plan):
    """Input function: each shard's archive entry when valid, else its results file."""

    def inputs(wildcards):
        sources = sources_for(plan.kinds)
        return [sources.source(spec) for spec in plan.shards]

    return inputs


def step_samples(plan, families):
    """Input function: each sample shard's archive entry when valid, else its results file."""

    def inputs(wildcards):
        return [sample_source(shard) for family in families for shard in plan.sample_family(family)]

    return inputs


#: Outputs shown in the Snakemake report (`snakemake --report`): figures as PNG, tables as CSV.
REPORT_SUFFIXES = (".png", ".csv")


def step_outputs(plan, step):
    """Named outputs of a step and their sidecars; what an item shows goes to the report, with
    the item's caption (written from the plan by dbx_contract.write_caption)."""
    shown = {p: item for item in plan.items for p in item.outputs}
    out = {}
    for key, path in step.outputs.items():
        item = shown.get(path)
        if item is not None and path.endswith(REPORT_SUFFIXES):
            caption = dbx_contract.write_caption(plan, item, f".snakemake/report_captions/{FIDELITY}")
            out[key] = report(path, caption=os.path.abspath(caption), category=plan.name,
                              subcategory=item.title, labels={"item": item.id, "file": os.path.basename(path)})
        else:
            out[key] = path
        out[f"{key}_meta"] = sidecar(path)
    return out


def step_inputs(plan, step):
    named = dict(step.inputs)
    if step.shards:
        named["shards"] = step_shards(plan)
    if step.families:
        named["samples"] = step_samples(plan, step.families)
    return named


for _name, _plan in PLANS.items():
    register_shards(_plan.shards, owner=_name)
    register_samples(_plan.samples)
    _code = dbx_contract.code_hash(_name)
    for _step in _plan.steps:

        rule:
            name:
                f"{_name}_{_step.name}"
            input:
                **step_inputs(_plan, _step),
            output:
                **step_outputs(_plan, _step),
            params:
                experiment=_name,
                step=_step.name,
                settings=json.dumps(_step.settings, sort_keys=True, default=str),
                code=_code,
            log:
                f"{RESULTS}/logs/{FIDELITY}/{_name}/{_step.name}.log",
            message:
                _step.message or f"{_name}: {_step.name}"
            threads: 1
            script:
                "../scripts/step.py"

    register_experiment(_name, with_sidecars(_plan.outputs()))
