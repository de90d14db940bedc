# Engine throughput: single-core steps per second of every compiled algorithm at K = 5, 16, 64
# and 500 (duelbench.bench), <figures>/engine/throughput.csv|md, shown in the report. Host
# dependent: a timing, never a result or a check. Settings: config `throughput`. Target: `engine`
# (also `make bench`); not part of `all`, so that `make figures` times nothing.

import duelbench.bench as dbx_bench
from duelbench.provenance.codehash import module_closure_hash
from duelbench.report.markdown import engine_throughput_table

# The table's path is the one REPORT.md links (also when `duelbench status --report` writes it).
THROUGHPUT_MD = engine_throughput_table(config)
THROUGHPUT_CSV = os.path.splitext(THROUGHPUT_MD)[0] + ".csv"


rule engine_throughput:
    input:
        # compiled once by the warm-up jobs (timings exclude compilation either way)
        warm=[warmup_flag(a) for a in dbx_bench.compiled_algorithms()],
        data=sorted(
            {
                f
                for d in dbx_bench.DEFAULT_INSTANCES
                for f in dbc.dataset_inputs(d, DATA)
            }
        ),
    output:
        csv=report(
            THROUGHPUT_CSV,
            caption="../report/engine_throughput.rst",
            category="engine",
        ),
        md=THROUGHPUT_MD,
        meta=sidecar(THROUGHPUT_CSV),
    log:
        f"{RESULTS}/logs/{FIDELITY}/engine_throughput.log",
    conda:
        "../envs/duelbench.yaml"
    threads: 1
    params:
        settings=config.get("throughput", {}),
        # the benchmark's own code closure and every algorithm's (an edit reruns the timing)
        code=module_closure_hash("duelbench.bench"),
        algorithms={a: code_hash(a) for a in dbx_bench.compiled_algorithms()},
    message:
        "engine throughput of every compiled algorithm -> {output.csv}"
    script:
        "../scripts/throughput.py"


register_experiment(
    "engine", with_sidecars([THROUGHPUT_CSV]) + [THROUGHPUT_MD], default=False
)
