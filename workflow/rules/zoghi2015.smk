# Zoghi, Karnin, Whiteson & de Rijke (NIPS 2015), config section `zoghi2015`:
#   Appendix C: sample shards -> tables (Figure 4, Table 1, Figure 5, Figure 6) -> figures;
#   regret: simulation shards -> regret.csv + throughput.csv -> Figures 1-3 + sensitivity;
#   checks.csv from the tables, the shards and data/published/zoghi2015.yaml.
# Every rule is one call into duelbench.experiments.zoghi2015.

import duelbench.experiments.zoghi2015 as zoghi_exp

validate(config["zoghi2015"], "../schemas/zoghi2015.schema.yaml")
try:
    ZOGHI_SETTINGS = zoghi_exp.check_settings(config)
    ZOGHI_AC = zoghi_exp.appendix_c_shards(config)
except (dbx.ConfigError, ValueError) as _exc:
    raise WorkflowError(f"invalid configuration: {_exc}") from None

ZOGHI_OUT = zoghi_exp.outputs(config)
ZOGHI_SHARDS = register_shards(zoghi_exp.shard_specs(config), owner="zoghi2015")
ZOGHI_AC_BY_PATH = {s.path: s for s in ZOGHI_AC}
ZOGHI_AC_PATHS = [s.path for s in ZOGHI_AC]
ZOGHI_SETTINGS_JSON = json.dumps(ZOGHI_SETTINGS, sort_keys=True)
# Editing the experiment's code (not only its settings) rebuilds its tables, figures and checks.
ZOGHI_CODE = zoghi_exp.experiment_code_hash()
ZOGHI_AC_TABLES = [ZOGHI_OUT[k] for k in zoghi_exp.APPENDIX_C_TABLES]
ZOGHI_AC_FIGURES = [ZOGHI_OUT[k] for k in zoghi_exp.APPENDIX_C_FIGURES]
ZOGHI_REGRET_FIGURES = [ZOGHI_OUT[k] for item in zoghi_exp.rg.REGRET_ITEMS for k in zoghi_exp.regret_figure_keys(item)]
ZOGHI_MATRICES = sorted({f for name in ("mslr_informational", "mslr_navigational", "mslr_perfect")
                         for f in dbx.dataset_inputs(name, DATA)})


def zoghi_ac_job(wildcards):
    path = os.path.normpath(
        f"{RESULTS}/{wildcards.fidelity}/zoghi2015_appendix_c/{wildcards.model}/{wildcards.layout}/"
        f"samples-{wildcards.a}-{wildcards.b}.npz")
    try:
        return ZOGHI_AC_BY_PATH[path]
    except KeyError:
        raise WorkflowError(f"no Appendix-C shard {path} in the zoghi2015 configuration") from None


rule zoghi2015_appendix_c_shard:
    input:
        data=lambda wildcards: dbx.dataset_inputs(wildcards.model, DATA),
    output:
        npz=f"{RESULTS}/{{fidelity}}/zoghi2015_appendix_c/{{model}}/{{layout}}/samples-{{a}}-{{b}}.npz",
        meta=f"{RESULTS}/{{fidelity}}/zoghi2015_appendix_c/{{model}}/{{layout}}/samples-{{a}}-{{b}}.npz.json",
    wildcard_constraints:
        fidelity="|".join(re.escape(f) for f in sorted(config["fidelities"])),
        model=r"mslr_(informational|navigational|perfect)",
        layout=r"seed[0-9]+-n[0-9]+-[a-z]+-[0-9a-f]{10}",
        a=r"[0-9]+",
        b=r"[0-9]+",
    params:
        code=zoghi_exp.appendix_c_code_hash(),
        job=lambda wildcards: zoghi_ac_job(wildcards).job_params(),
    log:
        f"{RESULTS}/logs/{{fidelity}}/zoghi2015_appendix_c/{{model}}/{{layout}}/samples-{{a}}-{{b}}.log",
    threads: 1
    resources:
        runtime=lambda wildcards: 10 + (int(wildcards.b) - int(wildcards.a)) // 2000,
        mem_mb=1000,
    message:
        "Appendix C samples {wildcards.a}-{wildcards.b} of {wildcards.model} ({wildcards.fidelity})"
    shell:
        "{PYTHON:q} -m duelbench.experiments.zoghi2015 appendix-c-shard {output.npz:q} {params.job:q} --log {log:q}"


rule zoghi2015_appendix_c_tables:
    input:
        shards=ZOGHI_AC_PATHS,
        registry=os.path.join(CHECKOUT, "data", "published", "zoghi2015.yaml"),
    output:
        ZOGHI_AC_TABLES + [sidecar(p) for p in ZOGHI_AC_TABLES],
    params:
        settings=ZOGHI_SETTINGS_JSON,
        code=ZOGHI_CODE,
    log:
        f"{RESULTS}/logs/{FIDELITY}/zoghi2015/appendix_c_tables.log",
    threads: 1
    message:
        "Zoghi 2015 Appendix C: Figure 4, Table 1, Figure 5, Figure 6 tables"
    run:
        zoghi_exp.appendix_c_tables(list(input.shards), ZOGHI_OUT, config, log=log[0])


rule zoghi2015_appendix_c_figures:
    input:
        ZOGHI_AC_TABLES,
    output:
        ZOGHI_AC_FIGURES + [sidecar(p) for p in ZOGHI_AC_FIGURES],
    params:
        settings=ZOGHI_SETTINGS_JSON,
        code=ZOGHI_CODE,
    log:
        f"{RESULTS}/logs/{FIDELITY}/zoghi2015/appendix_c_figures.log",
    threads: 1
    run:
        zoghi_exp.appendix_c_figures(ZOGHI_OUT, config, log=log[0])


rule zoghi2015_regret_aggregate:
    input:
        shards=ZOGHI_SHARDS,
    output:
        csv=ZOGHI_OUT["regret_csv"],
        csv_meta=sidecar(ZOGHI_OUT["regret_csv"]),
        throughput=ZOGHI_OUT["throughput_csv"],
        throughput_meta=sidecar(ZOGHI_OUT["throughput_csv"]),
    params:
        settings=ZOGHI_SETTINGS_JSON,
        code=ZOGHI_CODE,
    log:
        f"{RESULTS}/logs/{FIDELITY}/zoghi2015/regret_aggregate.log",
    threads: 1
    message:
        "Zoghi 2015: aggregating the regret shards"
    run:
        zoghi_exp.regret_aggregate(list(input.shards), ZOGHI_OUT, config, log=log[0])


rule zoghi2015_regret_figures:
    input:
        ZOGHI_OUT["regret_csv"],
    output:
        ZOGHI_REGRET_FIGURES + [sidecar(p) for p in ZOGHI_REGRET_FIGURES],
    params:
        settings=ZOGHI_SETTINGS_JSON,
        code=ZOGHI_CODE,
    log:
        f"{RESULTS}/logs/{FIDELITY}/zoghi2015/regret_figures.log",
    threads: 1
    run:
        zoghi_exp.regret_figures(input[0], ZOGHI_OUT, config, log=log[0])


rule zoghi2015_checks:
    input:
        tables=ZOGHI_AC_TABLES,
        shards=ZOGHI_SHARDS,
        matrices=ZOGHI_MATRICES,
        registry=os.path.join(CHECKOUT, "data", "published", "zoghi2015.yaml"),
        generated=os.path.join(CHECKOUT, "data", "generated", "zoghi2015.yaml"),
    output:
        csv=ZOGHI_OUT["checks_csv"],
        meta=sidecar(ZOGHI_OUT["checks_csv"]),
    params:
        settings=ZOGHI_SETTINGS_JSON,
        code=ZOGHI_CODE,
    log:
        f"{RESULTS}/logs/{FIDELITY}/zoghi2015/checks.log",
    threads: 1
    message:
        "Zoghi 2015: evaluating data/published/zoghi2015.yaml at fidelity {FIDELITY}"
    run:
        zoghi_exp.checks(ZOGHI_OUT, list(input.shards), config, log=log[0])


register_experiment("zoghi2015", with_sidecars(ZOGHI_OUT.values()))
