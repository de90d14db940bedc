#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, to run the workflow through the SLURM profile
# (config/profiles/slurm) for real: no systemd, no slurmdbd, loopback only.
#
#   workflow/cluster/local-slurm.sh install        Debian's slurm-wlm and munge (apt-get, as root)
#   workflow/cluster/local-slurm.sh start [DIR]    write DIR/slurm.conf, start munged, slurmctld, slurmd
#   workflow/cluster/local-slurm.sh stop  [DIR]    stop the three daemons started from DIR
#   workflow/cluster/local-slurm.sh env   [DIR]    print `export SLURM_CONF=...` for this cluster
#
# DIR (default: $DUELBENCH_SLURM_DIR, else /tmp/duelbench-slurm) holds the configuration, the
# daemons' state, pid and log files, and the munge socket. Client commands (sbatch, squeue,
# scancel) find the cluster through SLURM_CONF; the one file written outside DIR is the link
# /etc/slurm/slurm.conf -> DIR/slurm.conf, because the executor plugin's job step removes every
# SLURM_* variable before it calls `srun` inside a job, so srun reads the default location.
# `start` refuses to replace an /etc/slurm/slurm.conf it did not write, or the link of another
# local cluster that is still running; `stop` removes the link.
#
# The node has this machine's CPUs (nproc) and memory; one partition `local`. Choices the
# machine imposes: ProctrackType=proctrack/linuxproc and TaskPlugin=task/none (no cgroups in a
# container), no accounting (AccountingStorageType=accounting_storage/none: `sacct` has nothing
# to say, so job status comes from `squeue`), and MinJobAge=3600 so that a finished job stays
# visible to `squeue` for an hour (the executor plugin reads its final state there).
# Ports: $DUELBENCH_SLURMCTLD_PORT (6817) and $DUELBENCH_SLURMD_PORT (6818).
set -euo pipefail

usage() { sed -n '2,9p' "$0" >&2; exit 2; }
fail() { echo "local-slurm: error: $*" >&2; exit 1; }

cmd=${1:-}
DIR=${2:-${DUELBENCH_SLURM_DIR:-/tmp/duelbench-slurm}}
CTLD_PORT=${DUELBENCH_SLURMCTLD_PORT:-6817}
SLURMD_PORT=${DUELBENCH_SLURMD_PORT:-6818}
NODE=localnode

install() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null \
        && command -v sbatch >/dev/null; then
        return 0
    fi
    [[ $(id -u) -eq 0 ]] || fail "slurm-wlm and munge are not installed and installing needs root: sudo apt-get install slurm-wlm munge"
    command -v apt-get >/dev/null || fail "no apt-get: install SLURM (slurmctld, slurmd, sbatch, squeue) and munge by hand"
    echo "local-slurm: installing slurm-wlm and munge (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || fail "apt-get update failed (is the Debian package mirror reachable?)"
    apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null ||
        fail "apt-get install slurm-wlm munge failed"
}

write_conf() {
    local cpus mem_mb user
    cpus=$(nproc)
    mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
    user=$(id -un)
    mkdir -p "$DIR"/{state,spool,log,munge}
    chmod 711 "$DIR/munge"  # clients need to reach the socket
    cat >"$DIR/slurm.conf" <<EOF
# one-node cluster written by workflow/cluster/local-slurm.sh
ClusterName=duelbench-local
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
MinJobAge=3600
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=10
NodeName=$NODE NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    local key=$DIR/munge/munge.key
    [[ -s $key ]] || { dd if=/dev/urandom of="$key" bs=1024 count=1 status=none; chmod 400 "$key"; }
    munged --force --socket="$DIR/munge/munge.socket" --key-file="$key" \
        --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/log/munged.log" \
        --seed-file="$DIR/munge/munged.seed" ||
        fail "munged did not start (log: $DIR/log/munged.log)"
}

wait_until() { # wait_until SECONDS WHAT COMMAND...: poll COMMAND each half second
    local limit=$1 what=$2 i
    shift 2
    for ((i = 0; i < limit * 2; i++)); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.5
    done
    fail "$what not up after ${limit}s (logs in $DIR/log)"
}

ETC_CONF=/etc/slurm/slurm.conf

running() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; } # running PIDFILE: its daemon is alive

link_conf() {
    local target other
    if [[ -L $ETC_CONF ]]; then
        target=$(readlink "$ETC_CONF")
        other=$(dirname "$target")
        if [[ $target != "$DIR/slurm.conf" && $target == */slurm.conf ]] && running "$other/slurmctld.pid"; then
            fail "another local cluster is running from $other (stop it first: $0 stop $other)"
        fi
        # else: the link of a stopped (or crashed) local cluster: replaced below
    elif [[ -e $ETC_CONF ]]; then
        fail "$ETC_CONF exists and is not a link written by this script: this machine has a SLURM configuration of its own (use its cluster, or move the file away)"
    fi
    mkdir -p "$(dirname "$ETC_CONF")"
    ln -sfn "$DIR/slurm.conf" "$ETC_CONF" ||
        fail "cannot link $ETC_CONF to $DIR/slurm.conf (needs write access to /etc/slurm, e.g. as root)"
}

node_idle() { sinfo -h -N -o '%t' | grep -qE '^(idle|mix|alloc)'; }

start() {
    install
    running "$DIR/slurmctld.pid" && fail "a cluster from $DIR is already running (stop it first: $0 stop $DIR)"
    write_conf
    link_conf
    export SLURM_CONF=$DIR/slurm.conf
    start_munge
    slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start (log: $DIR/log/slurmctld.log)"
    wait_until 30 slurmctld scontrol ping
    slurmd -N "$NODE" -f "$SLURM_CONF" || fail "slurmd did not start (log: $DIR/log/slurmd.log)"
    wait_until 60 "the node" node_idle
    echo "local-slurm: cluster up ($(nproc) CPUs, partition local); use it with: export SLURM_CONF=$SLURM_CONF"
}

stop_pid() { # stop_pid FILE: TERM the daemon in FILE, KILL it after 10 s
    local file=$1 pid i
    [[ -f $file ]] || return 0
    pid=$(cat "$file")
    kill "$pid" 2>/dev/null || { rm -f "$file"; return 0; }
    for ((i = 0; i < 20; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$file"
}

stop() {
    if [[ -f $DIR/slurm.conf ]]; then
        SLURM_CONF=$DIR/slurm.conf scancel --user="$(id -un)" >/dev/null 2>&1 || true
    fi
    stop_pid "$DIR/slurmd.pid"
    stop_pid "$DIR/slurmctld.pid"
    stop_pid "$DIR/munge/munged.pid"
    if [[ -L $ETC_CONF && $(readlink "$ETC_CONF") == "$DIR/slurm.conf" ]]; then rm -f "$ETC_CONF"; fi
    echo "local-slurm: stopped the cluster of $DIR"
}

case $cmd in
    install) install ;;
    start) start ;;
    stop) stop ;;
    env) echo "export SLURM_CONF=$DIR/slurm.conf" ;;
    *) usage ;;
esac
