# duelbench workflow: regenerates every table and figure from source.
#
#   snakemake --cores N                                  # everything, paper fidelity
#   snakemake --cores N demo                             # one experiment
#   snakemake --profile config/profiles/quick            # quick fidelity (minutes)
#   snakemake --profile config/profiles/slurm            # on a SLURM cluster
#
# Run from the repository root. See docs/workflow.md. The functions live in workflow/rules/common.smk (included first), the rules
# in the other workflow/rules/*.smk; each experiment's rules file registers its final outputs
# with register_experiment(), which creates the target rule named after the experiment and adds
# the outputs to `all`.

import os
import shutil
import sys

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

min_version("9")

CHECKOUT = os.path.abspath(workflow.basedir)

# Use this checkout's package even if another copy of duelbench is installed; jobs (also on
# cluster nodes) re-read this file, and shell commands inherit PYTHONPATH. (The workflow sets
# these variables for its jobs; it requires none from the user, hence no `envvars:`.)
_SRC = os.path.join(CHECKOUT, "src")
if os.path.isdir(os.path.join(_SRC, "duelbench")):
    if _SRC not in sys.path:
        sys.path.insert(0, _SRC)
    _pp = os.environ.get("PYTHONPATH", "")
    if _SRC not in _pp.split(os.pathsep):
        os.environ.update(PYTHONPATH=os.pathsep.join(p for p in (_SRC, _pp) if p))

# Shell jobs run `python`: the interpreter running this workflow (its folder first on PATH), or
# the rule's conda environment with --software-deployment-method conda (environment.yml, the
# same pins as requirements.lock).
_BIN = os.path.dirname(sys.executable)
if _BIN not in os.environ.get("PATH", "").split(os.pathsep)[:1]:
    os.environ.update(
        PATH=os.pathsep.join(p for p in (_BIN, os.environ.get("PATH", "")) if p)
    )
_job_python = shutil.which("python")
if workflow.is_main_process and (
    _job_python is None
    or os.path.realpath(_job_python) != os.path.realpath(sys.executable)
):
    print(
        f"warning: jobs will run {_job_python or 'no python'} (first `python` on PATH), not "
        f"{sys.executable}; run Snakemake from the environment that has duelbench installed "
        "(`make venv`, then .venv/bin/snakemake)",
        file=sys.stderr,
    )

# The user's configuration, read again before anything uses it: Snakemake has merged the
# --configfile files and --config into `config` already, but its reader lets a key given twice
# through and its errors name no file. Each layer's keys win over the fidelity's overrides, and
# every problem names its file (workflow/rules/common.smk: duelbench.config.files.resolve_config).
import duelbench.config.files as dbc_files
from duelbench.provenance.jobenv import job_environment

try:
    USER_LAYERS = dbc_files.command_line_layers(
        workflow.overwrite_configfiles, workflow.config_settings.config
    )
except dbc_files.ConfigError as _exc:
    raise WorkflowError(
        f"{_exc}\n(duelbench config-check FILE ... checks configuration files)"
    ) from None

# Job environment, inherited by every job: one thread per job (so --cores N means N busy
# cores), and the numba cache inside the checkout (filled once by the warmup_numba rule).
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(CHECKOUT, ".numba_cache"))
os.environ.update(job_environment())
os.environ.setdefault("MPLBACKEND", "Agg")


configfile: os.path.join(CHECKOUT, "config", "config.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"


# Every other rules file, in name order: adding workflow/rules/<paper>.smk is enough.
for _smk in sorted(os.listdir(os.path.join(CHECKOUT, "workflow", "rules"))):
    if _smk.endswith(".smk") and _smk != "common.smk":

        include: os.path.join("workflow", "rules", _smk)


# Target rules: `all` (the default) and one per registered experiment.
rule all:
    default_target: True
    input:
        lambda wildcards: all_targets(),
    localrule: True


for _name in sorted(EXPERIMENTS):

    rule:
        name:
            _name
        input:
            EXPERIMENTS[_name],
        localrule: True
