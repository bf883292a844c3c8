#!/usr/bin/env bash
# An emulated cluster on one machine: 2-4 "hosts" (network namespaces), each with
# one link (a veth pair) to a switch (a bridge in a namespace of its own), every
# link shaped by tc tbf in both directions; then mpirun with one rank per host,
# over Open MPI's TCP transport. Needs root (ip netns). Traffic stays between the
# namespaces this script makes: nothing is added to the machine's own network.
#
#   scripts/netbed.sh [-n hosts] [-r rate] -- program [args...]
#     -n  2, 3 or 4 hosts (default 2)
#     -r  link rate for tc tbf: 1gbit, 10gbit, any tbf rate, or none (default 1gbit)
#   e.g. scripts/netbed.sh -n 2 -r 1gbit -- build/release/perf/dlk-perf comm -b 64M -e 64M
#
# Facts it is built on (Open MPI 4.1 / PMIx 4.2, a kernel without netem):
# - mpirun must run inside one namespace and start each namespace's orted through
#   an rsh agent (`ip netns exec <host>`): the PMIx client of a rank started by
#   `ip netns exec` in an app context cannot reach mpirun's server on 127.0.0.1,
#   which is another loopback in another namespace.
# - --bind-to none: each orted would bind its one rank to core 0.
# - Delay cannot be added (no netem qdisc here): links differ by rate only; tbf's
#   128 KB burst lets small messages through unshaped.
# Everything it made is removed on exit, on failure and on Ctrl-C.
set -euo pipefail

hosts=2
rate=1gbit
while getopts "n:r:h" opt; do
  case $opt in
    n) hosts=$OPTARG ;;
    r) rate=$OPTARG ;;
    *) sed -n '2,12p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ $# -eq 0 ] || ! [[ $hosts =~ ^[2-4]$ ]]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
[ "$(id -u)" -eq 0 ] || { echo "netbed: needs root (ip netns, tc)" >&2; exit 1; }

prefix="dlkbed$$"           # unique per run: several beds may coexist
switch="${prefix}sw"
subnet="10.231.$(($$ % 200 + 20)).0/24"
net="${subnet%.0/24}"
workdir=$(mktemp -d)

cleanup() {
  local ns
  for ns in "$switch" $(for i in $(seq 1 "$hosts"); do echo "${prefix}h$i"; done); do
    if ip netns list | grep -qw "$ns"; then
      # Our own ranks and orteds still running there (after Ctrl-C, say).
      ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
      ip netns del "$ns" 2>/dev/null || true
    fi
  done
  rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

shape() {  # shape <namespace> <device>
  [ "$rate" = none ] && return
  ip netns exec "$1" tc qdisc add dev "$2" root tbf rate "$rate" burst 128kb latency 10ms
}

ip netns add "$switch"
ip -n "$switch" link add br0 type bridge
ip -n "$switch" link set br0 up
ip -n "$switch" link set lo up
host_list=()
for i in $(seq 1 "$hosts"); do
  h="${prefix}h$i"
  ip netns add "$h"
  ip link add eth0 netns "$h" type veth peer name "port$i" netns "$switch"
  ip -n "$switch" link set "port$i" master br0 up
  ip -n "$h" addr add "$net.$i/24" dev eth0
  ip -n "$h" link set eth0 up
  ip -n "$h" link set lo up
  shape "$h" eth0        # host -> switch
  shape "$switch" "port$i"  # switch -> host
  host_list+=("$h")
done

# The rsh agent: starts a host's orted inside its namespace, with the host's name.
cat > "$workdir/agent.sh" <<'EOF'
#!/bin/sh
host="$1"; shift
exec ip netns exec "$host" unshare --uts sh -c "hostname $host; exec $*"
EOF
chmod +x "$workdir/agent.sh"

echo "netbed: $hosts hosts on $subnet, links shaped to $rate (tc tbf, both directions)" >&2
hostnames=$(IFS=,; echo "${host_list[*]}")
ip netns exec "${prefix}h1" mpirun --allow-run-as-root --oversubscribe --bind-to none \
  --mca plm rsh --mca plm_rsh_agent "$workdir/agent.sh" --host "$hostnames" -np "$hosts" \
  --mca oob_tcp_if_include "$subnet" --mca btl tcp,self --mca btl_tcp_if_include "$subnet" \
  "$@"
