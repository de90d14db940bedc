# duelbench workflow: regenerates every table and figure from source.
#
#   snakemake --cores N                                  # everything, paper fidelity
#   snakemake --cores N demo                             # one experiment
#   snakemake --profile config/profiles/quick            # quick fidelity (minutes)
#   snakemake --profile config/profiles/slurm            # on a SLURM cluster
#
# See docs/workflow.md. Rules live in workflow/rules/*.smk (common.smk first); each experiment's
# rules file registers its final outputs with register_experiment(), which creates the target
# rule named after the experiment and adds the outputs to `all`.

import os
import sys

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

min_version("9")

CHECKOUT = os.path.abspath(workflow.basedir)

# Use this checkout's package even if another copy of duelbench is installed; jobs (also on
# cluster nodes) re-read this file, and shell commands inherit PYTHONPATH.
_SRC = os.path.join(CHECKOUT, "src")
if os.path.isdir(os.path.join(_SRC, "duelbench")):
    if _SRC not in sys.path:
        sys.path.insert(0, _SRC)
    _pp = os.environ.get("PYTHONPATH", "")
    if _SRC not in _pp.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_SRC, _pp) if p)

# The user's configuration, read again before anything uses it: Snakemake has merged the
# --configfile files and --config into `config` already, but its reader lets a key given twice
# through and its errors name no file. Each layer's keys win over the fidelity's overrides, and
# every problem names its file (workflow/rules/common.smk: duelbench.config.files.resolve_config).
import duelbench.config.files as dbc_files

try:
    USER_LAYERS = dbc_files.command_line_layers(workflow.overwrite_configfiles, workflow.config_settings.config)
except dbc_files.ConfigError as _exc:
    raise WorkflowError(f"{_exc}\n(duelbench config-check FILE ... checks configuration files)") from None

# Job environment, inherited by every job: one thread per job (so --cores N means N busy
# cores), and the numba cache inside the checkout (filled once by the warmup_numba rule).
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(CHECKOUT, ".numba_cache"))
for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
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
    localrule: True
    input:
        lambda wildcards: all_targets(),


for _name in sorted(EXPERIMENTS):

    rule:
        name:
            _name
        localrule: True
        input:
            EXPERIMENTS[_name],
