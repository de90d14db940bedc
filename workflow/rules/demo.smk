# Demo experiment (config section `demo`): shards -> regret.csv -> regret.pdf/png.
# The template for a paper's rules file: build the shard list and the outputs with the
# experiment module, register both, and keep each rule a single call into that module.

import duelbench.experiments.demo as demo_exp

DEMO_OUT = demo_exp.outputs(config)
DEMO_SHARDS = register_shards(demo_exp.shard_specs(config), owner="demo")
DEMO_SETTINGS = json.dumps(demo_exp.settings(config), sort_keys=True)


rule demo_aggregate:
    input:
        DEMO_SHARDS,
    output:
        csv=DEMO_OUT["csv"],
        meta=sidecar(DEMO_OUT["csv"]),
    params:
        settings=DEMO_SETTINGS,
    log:
        f"{RESULTS}/logs/{FIDELITY}/demo/aggregate.log",
    threads: 1
    message:
        "aggregating the demo shards into {output.csv}"
    run:
        demo_exp.aggregate(list(input), output.csv, config, log=log[0])


rule demo_plot:
    input:
        DEMO_OUT["csv"],
    output:
        pdf=DEMO_OUT["pdf"],
        png=report(DEMO_OUT["png"], category="demo", labels={"figure": "cumulative regret"}),
        pdf_meta=sidecar(DEMO_OUT["pdf"]),
        png_meta=sidecar(DEMO_OUT["png"]),
    params:
        settings=DEMO_SETTINGS,
    log:
        f"{RESULTS}/logs/{FIDELITY}/demo/plot.log",
    threads: 1
    run:
        demo_exp.plot(input[0], [output.pdf, output.png], config, log=log[0])


register_experiment("demo", with_sidecars(DEMO_OUT.values()))
