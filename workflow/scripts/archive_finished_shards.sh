#!/usr/bin/env bash
# Put every finished paper-fidelity simulation and sample shard of a checkout into the results
# archive (python -m duelbench.experiments.archiving: each shard with the regret kinds the
# experiments that read it use). Run it from the checkout whose code computed the shards (the
# archive refuses shards of other code), e.g. periodically during a long build, then commit
# archive/:
#
#   workflow/scripts/archive_finished_shards.sh [CHECKOUT] [ARCHIVE]
#
# Entries already valid are left alone, except that the CPU time a shard's sidecar measured is
# added to the entry's manifest line if the line has none (`duelbench cost` reads it); a
# re-archived shard is byte-identical (git sees no change).
set -euo pipefail
CHECKOUT=$(cd "${1:-.}" && pwd -P)
ARCHIVE=${2:-${CHECKOUT}/archive}
cd "${CHECKOUT}"
PY=${PYTHON:-${CHECKOUT}/.venv/bin/python}
export PYTHONPATH="${CHECKOUT}/src${PYTHONPATH:+:${PYTHONPATH}}"
"${PY}" -m duelbench.experiments.archiving --archive "${ARCHIVE}"
