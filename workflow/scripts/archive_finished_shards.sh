#!/usr/bin/env bash
# Put every finished paper-fidelity simulation shard of a checkout into the results archive,
# with the regret kinds each paper reads (Komiyama et al. 2016: copeland; Zoghi et al. 2015:
# copeland_zoghi and copeland). Run it from the checkout whose code computed the shards (the
# archive refuses shards of other code), e.g. periodically during a long build:
#
#   workflow/scripts/archive_finished_shards.sh [CHECKOUT] [ARCHIVE]
#
# Shards already archived with the same key are rewritten byte-identically (git sees no change).
set -euo pipefail
CHECKOUT=$(cd "${1:-.}" && pwd -P)
ARCHIVE=${2:-${CHECKOUT}/archive}
cd "${CHECKOUT}"
PY=${PYTHON:-${CHECKOUT}/.venv/bin/python}
export PYTHONPATH="${CHECKOUT}/src${PYTHONPATH:+:${PYTHONPATH}}"

zoghi='^results/paper/(mslr5_noncondorcet|mslr5_condorcet|zoghi_copeland500[a-z0-9_]*)/'
mapfile -t all < <(find results/paper -name 'runs-*.npz' 2>/dev/null | sort)
z=(); k=()
for f in "${all[@]}"; do
    # a shard is finished when its provenance sidecar exists (written after the shard)
    [[ -f "${f}.json" ]] || continue
    if [[ "${f}" =~ ${zoghi} ]]; then z+=("${f}"); else k+=("${f}"); fi
done
if ((${#k[@]})); then "${PY}" -m duelbench archive --archive "${ARCHIVE}" add --kinds copeland "${k[@]}" >/dev/null; fi
if ((${#z[@]})); then "${PY}" -m duelbench archive --archive "${ARCHIVE}" add --kinds copeland_zoghi,copeland "${z[@]}" >/dev/null; fi
echo "archived ${#k[@]} Komiyama and ${#z[@]} Zoghi shards into ${ARCHIVE}"
