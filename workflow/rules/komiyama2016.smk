# Komiyama, Honda & Nakagawa (ICML 2016): Table 1, Figures 1-2, bound constants and checks
# (config section `komiyama2016`; docs/komiyama2016.md). Each rule is one call into
# duelbench.experiments.komiyama2016 (or its _checks module); the target is `komiyama2016`.

import duelbench.experiments.komiyama2016 as kom_exp
import duelbench.experiments.komiyama2016_checks as kom_checks

validate(config["komiyama2016"], "../schemas/komiyama2016.schema.yaml")
try:
    KOM_S = kom_exp.settings(config)
except dbx.ConfigError as _exc:
    raise WorkflowError(f"invalid configuration: {_exc}") from None

KOM_OUT = kom_exp.outputs(config)
KOM_DIR = KOM_S["figures"]
KOM_SHARDS = register_shards(kom_exp.shard_specs(config), owner="komiyama2016")
KOM_CODE = kom_exp.code_hash()
KOM_REGISTRY = str(kom_exp.registry_path())
KOM_RECIPES = str(kom_exp.recipes_path())
KOM_BOUNDS_DATA = sorted({p for _d in kom_exp.bound_datasets(KOM_S) for p in dbx.dataset_inputs(_d, DATA)})
KOM_T1 = {sh["path"]: sh["job"] for sh in kom_exp.table1_shards(KOM_S)}
KOM_T1_DATA = dbx.dataset_inputs(KOM_S["table1"]["parent"], DATA)
KOM_LOGS = f"{RESULTS}/logs/{FIDELITY}/komiyama2016"


def _kom_json(obj):
    return json.dumps(obj, sort_keys=True)


def _kom_t1_job(wildcards, output):
    try:
        return KOM_T1[os.path.normpath(output.csv)]
    except KeyError:
        raise WorkflowError(f"{output.csv} is not a Table-1 shard of this configuration") from None


rule komiyama2016_bounds:
    input:
        data=KOM_BOUNDS_DATA,
        recipes=KOM_RECIPES,
    output:
        bounds=KOM_OUT["bounds"],
        winners=KOM_OUT["winners"],
        datasets=KOM_OUT["datasets"],
        meta=[sidecar(KOM_OUT[k]) for k in ("bounds", "winners", "datasets")],
    params:
        settings=_kom_json(kom_exp.bounds_settings(KOM_S)),
        code=KOM_CODE,
    log:
        f"{KOM_LOGS}/bounds.log",
    threads: 1
    message:
        "komiyama2016: bound constants of every matrix and panel"
    run:
        kom_exp.bounds_tables(config, output.bounds, output.winners, output.datasets, log=log[0])


rule komiyama2016_table1_shard:
    input:
        data=KOM_T1_DATA,
    output:
        csv=f"{RESULTS}/{FIDELITY}/komiyama2016/table1/{{key}}/samples-{{a}}-{{b}}.csv",
        meta=f"{RESULTS}/{FIDELITY}/komiyama2016/table1/{{key}}/samples-{{a}}-{{b}}.csv.json",
    wildcard_constraints:
        key=r"[A-Za-z0-9_.-]+",
        a=r"[0-9]+",
        b=r"[0-9]+",
    params:
        job=_kom_t1_job,
        code=KOM_CODE,
    log:
        f"{KOM_LOGS}/table1/{{key}}/samples-{{a}}-{{b}}.log",
    threads: 1
    resources:
        runtime=60,
    message:
        "komiyama2016: Table 1 samples {wildcards.a}-{wildcards.b}"
    shell:
        "{PYTHON:q} -m duelbench.experiments.komiyama2016 table1-shard {output.csv:q} {params.job:q} --log {log:q}"


rule komiyama2016_table1:
    input:
        shards=sorted(KOM_T1),
        registry=KOM_REGISTRY,
    output:
        csv=KOM_OUT["table1_csv"],
        md=KOM_OUT["table1_md"],
        meta=[sidecar(KOM_OUT["table1_csv"]), sidecar(KOM_OUT["table1_md"])],
    params:
        settings=_kom_json(kom_exp.table1_settings(KOM_S)),
    log:
        f"{KOM_LOGS}/table1.log",
    threads: 1
    run:
        kom_exp.table1(config, list(input.shards), output.csv, output.md, log=log[0])


rule komiyama2016_aggregate:
    input:
        KOM_SHARDS,
    output:
        regret=KOM_OUT["regret"],
        final=KOM_OUT["final"],
        meta=[sidecar(KOM_OUT["regret"]), sidecar(KOM_OUT["final"])],
    params:
        settings=_kom_json(kom_exp.curve_settings(KOM_S)),
    log:
        f"{KOM_LOGS}/aggregate.log",
    threads: 1
    message:
        "komiyama2016: aggregating the simulation shards"
    run:
        kom_exp.aggregate(config, list(input), output.regret, output.final, log=log[0])


rule komiyama2016_figure:
    input:
        regret=KOM_OUT["regret"],
        bounds=KOM_OUT["bounds"],
        datasets=KOM_OUT["datasets"],
    output:
        pdf=f"{KOM_DIR}/{{which}}.pdf",
        png=report(f"{KOM_DIR}/{{which}}.png", category="komiyama2016", labels={"figure": "{which}"}),
        meta=[f"{KOM_DIR}/{{which}}.pdf.json", f"{KOM_DIR}/{{which}}.png.json"],
    wildcard_constraints:
        which="figure1|figure2",
    params:
        settings=_kom_json(kom_exp.curve_settings(KOM_S)),
    log:
        f"{KOM_LOGS}/{{which}}.log",
    threads: 1
    run:
        kom_exp.plot_figure(config, wildcards.which, input.regret, input.bounds, input.datasets,
                            [output.pdf, output.png], log=log[0])


rule komiyama2016_robustness:
    input:
        final=KOM_OUT["final"],
        registry=KOM_REGISTRY,
    output:
        csv=KOM_OUT["robustness_csv"],
        md=KOM_OUT["robustness_md"],
        pdf=KOM_OUT["robustness_pdf"],
        png=report(KOM_OUT["robustness_png"], category="komiyama2016", labels={"figure": "robustness"}),
        meta=[sidecar(KOM_OUT[k]) for k in ("robustness_csv", "robustness_md", "robustness_pdf", "robustness_png")],
    params:
        settings=_kom_json(kom_exp.curve_settings(KOM_S)),
    log:
        f"{KOM_LOGS}/robustness.log",
    threads: 1
    run:
        kom_checks.robustness(config, input.final, output.csv, output.md, [output.pdf, output.png], log=log[0])


rule komiyama2016_checks:
    input:
        bounds=KOM_OUT["bounds"],
        winners=KOM_OUT["winners"],
        datasets=KOM_OUT["datasets"],
        table1=KOM_OUT["table1_csv"],
        final=KOM_OUT["final"],
        regret=KOM_OUT["regret"],
        registry=KOM_REGISTRY,
    output:
        csv=KOM_OUT["checks"],
        meta=sidecar(KOM_OUT["checks"]),
    params:
        settings=_kom_json(KOM_S),
    log:
        f"{KOM_LOGS}/checks.log",
    threads: 1
    message:
        "komiyama2016: evaluating the published-number registry"
    run:
        kom_checks.checks(config, bounds=input.bounds, winners=input.winners, datasets=input.datasets,
                          table1=input.table1, final=input.final, regret=input.regret, out_csv=output.csv,
                          log=log[0])


register_experiment("komiyama2016", with_sidecars(KOM_OUT.values()))
