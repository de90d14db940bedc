# The generic jobs of every experiment: the numba warm-up, one simulation shard, one sample
# shard, and the MSLR data. Each runs `python -m duelbench.job_main` (one call into
# duelbench.experiments, no Snakefile re-parse); the functions they use are in common.smk.


rule warmup_numba:
    output:
        flag=f"{RESULTS}/{dbj.WARMUP_DIR}/{{algorithm}}-{{codehash}}.done",
        meta=f"{RESULTS}/{dbj.WARMUP_DIR}/{{algorithm}}-{{codehash}}.done.json",
    log:
        f"{RESULTS}/logs/warmup/{{algorithm}}-{{codehash}}.log",
    wildcard_constraints:
        algorithm=r"[a-z0-9_]+",
        codehash=rf"[0-9a-f]{{{dbj.WARMUP_HASH_LEN}}}",
    conda:
        "../envs/duelbench.yaml"
    threads: 1
    resources:
        runtime=30,
        mem_mb=2000,
    message:
        "compiling numba kernels of {wildcards.algorithm}"
    shell:
        "python -m duelbench.job_main warmup {output.flag:q} {wildcards.algorithm} "
        "--expect-hash {wildcards.codehash} --log {log:q}"


# ---------------------------------------------------------------------------------------------
# one result shard: runs [a, b) of (dataset, algorithm+params, horizon) at a fidelity
# ---------------------------------------------------------------------------------------------
rule simulate_shard:
    input:
        warm=lambda wildcards: warmup_flag(wildcards.algorithm),
        data=lambda wildcards: dbc.dataset_inputs(wildcards.dataset, DATA),
        bundle=bundle_folder,
    output:
        npz=f"{RESULTS}/{{fidelity}}/{{dataset}}/{{algorithm}}-{{paramhash}}/T{{horizon}}/runs-{{a}}-{{b}}.npz",
        meta=f"{RESULTS}/{{fidelity}}/{{dataset}}/{{algorithm}}-{{paramhash}}/T{{horizon}}/runs-{{a}}-{{b}}.npz.json",
    log:
        f"{RESULTS}/logs/{{fidelity}}/{{dataset}}/{{algorithm}}-{{paramhash}}/T{{horizon}}/runs-{{a}}-{{b}}.log",
    wildcard_constraints:
        fidelity="|".join(re.escape(f) for f in sorted(config["fidelities"])),
        dataset=r"[A-Za-z0-9_.-]+",
        algorithm=r"[a-z0-9_]+",
        paramhash=r"[0-9a-f]{10}",
        horizon=r"[0-9]+",
        a=r"[0-9]+",
        b=r"[0-9]+",
    priority: bundled_first
    conda:
        "../envs/duelbench.yaml"
    threads: 1
    resources:
        runtime=shard_runtime,
        mem_mb=1000,
    params:
        code=lambda wildcards: code_hash(wildcards.algorithm),
        job=lambda wildcards: shard_spec(wildcards).job_params(),
        staged=staged_shard,
        bundled=lambda wildcards: "yes" if shard_bundle(wildcards) else "no",
    message:
        "simulating {wildcards.algorithm} on {wildcards.dataset}, T={wildcards.horizon}, "
        "runs {wildcards.a}-{wildcards.b} ({wildcards.fidelity})"
    # a bundled shard: link (or copy) the file its bundle computed, then mark it newer than the
    # bundle's folder; a shard that runs alone: its own process
    shell:
        "if [ {params.bundled} = yes ]; then"
        " for s in '' .json; do"
        ' ln -f {params.staged:q}"$s" {output.npz:q}"$s" 2>/dev/null'
        ' || cp {params.staged:q}"$s" {output.npz:q}"$s" || exit 1;'
        ' touch {output.npz:q}"$s";'
        " done;"
        " else python -m duelbench.job_main simulate {output.npz:q} {params.job:q} --log {log:q}; fi"


# ---------------------------------------------------------------------------------------------
# one bundle: several small shards of one algorithm in one process (duelbench.experiments.bundling)
# ---------------------------------------------------------------------------------------------
rule simulate_bundle:
    input:
        warm=lambda wildcards: warmup_flag(wildcards.algorithm),
        data=bundle_data,
    output:
        temp(directory(f"{RESULTS}/{{fidelity}}/bundles/{{algorithm}}/{{bundle}}")),
    log:
        f"{RESULTS}/logs/{{fidelity}}/bundles/{{algorithm}}/{{bundle}}.log",
    wildcard_constraints:
        fidelity="|".join(re.escape(f) for f in sorted(config["fidelities"])),
        algorithm=r"[a-z0-9_]+",
        bundle=r"[A-Za-z0-9_.-]+-[0-9a-f]{12}",
    conda:
        "../envs/duelbench.yaml"
    threads: 1
    resources:
        runtime=bundle_runtime,
        mem_mb=1000,
    params:
        code=lambda wildcards: code_hash(wildcards.algorithm),
        job=lambda wildcards: bundle_of(wildcards).job_params(),
    message:
        "simulating a bundle of small shards of {wildcards.algorithm} ({wildcards.bundle}, {wildcards.fidelity})"
    shell:
        "python -m duelbench.job_main simulate-bundle {output:q} {params.job:q} --log {log:q}"


# ---------------------------------------------------------------------------------------------
# one sample shard: samples [a, b) of a seeded instance-sample family of an experiment
# ---------------------------------------------------------------------------------------------
rule sample_shard:
    input:
        data=lambda wildcards: sorted(
            {
                f
                for d in sample_of(wildcards).datasets
                for f in dbc.dataset_inputs(d, DATA)
            }
        ),
    output:
        npz=f"{RESULTS}/{{fidelity}}/samples/{{experiment}}/{{family}}/{{layout}}/samples-{{a}}-{{b}}.npz",
        meta=f"{RESULTS}/{{fidelity}}/samples/{{experiment}}/{{family}}/{{layout}}/samples-{{a}}-{{b}}.npz.json",
    log:
        f"{RESULTS}/logs/{{fidelity}}/samples/{{experiment}}/{{family}}/{{layout}}/samples-{{a}}-{{b}}.log",
    wildcard_constraints:
        fidelity="|".join(re.escape(f) for f in sorted(config["fidelities"])),
        experiment=r"[a-z0-9_]+",
        family=r"[A-Za-z0-9_]+",
        layout=r"[0-9a-f]{10}",
        a=r"[0-9]+",
        b=r"[0-9]+",
    conda:
        "../envs/duelbench.yaml"
    threads: 1
    resources:
        runtime=60,
        mem_mb=1000,
    params:
        job=lambda wildcards: sample_of(wildcards).job_params(),
        code=lambda wildcards: dbx_samples.function_code_hash(
            sample_of(wildcards).experiment, sample_of(wildcards).function
        ),
    message:
        "{wildcards.experiment}: {wildcards.family} samples {wildcards.a}-{wildcards.b} ({wildcards.fidelity})"
    shell:
        "python -m duelbench.job_main sample {output.npz:q} {params.job:q} --log {log:q}"


# ---------------------------------------------------------------------------------------------
# data: MSLR preference matrices (download with sha256 check, or copy from a mirror folder)
# ---------------------------------------------------------------------------------------------
# Target `data`: every downloaded data file (the MSLR matrices). Fetch them before a build reads
# the archive: an archived shard's key holds its matrix's sha256, so it can only be verified,
# hence used, once the matrix is installed (`make figures` runs this first).
rule data:
    input:
        [f"{DATA}/mslr/{f.filename}" for f in dbx_mslr.MSLR_FILES.values()],
    localrule: True


rule fetch_mslr:
    output:
        f"{DATA}/mslr/{{file}}.npz",
    log:
        f"{RESULTS}/logs/fetch_mslr/{{file}}.log",
    wildcard_constraints:
        file=r"[A-Za-z0-9_.-]+",
    localrule: True
    conda:
        "../envs/duelbench.yaml"
    message:
        "fetching MSLR matrix {wildcards.file}.npz (mirror: $DUELBENCH_DATA_MIRROR, else download)"
    shell:
        "python -m duelbench.job_main fetch-mslr {wildcards.file:q}.npz {output:q} --log {log:q}"
