#!/usr/bin/env bash
# The sandbox's cost (README "Sandbox", BENCHMARKS.md): a sandboxed `true` against an
# unsandboxed one, per Linux backend (bubblewrap + the seccomp helper; Landlock + seccomp in
# the helper), and a command the size of a test run (2000 processes) sandboxed against not.
# The argv are the ones `Sandbox::wrap` builds for a project in a temp directory, sayso's
# directories hidden. Uses hyperfine when it is installed, else a timed loop (median of N).
#
#   scripts/bench-sandbox.sh [SAYSO_BINARY]     (default: target/release/sayso)
#   RUNS=200 scripts/bench-sandbox.sh           (runs per command, default 100)
set -euo pipefail
cd "$(dirname "$0")/.."
sayso=$(realpath "${1:-target/release/sayso}")
runs=${RUNS:-100}
[ -x "$sayso" ] || { echo "no sayso binary at $sayso (cargo build --release)" >&2; exit 2; }
command -v bwrap >/dev/null || { echo "bubblewrap (bwrap) is not installed" >&2; exit 2; }

project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT
mkdir -p "$project/.git"
tmp=$(realpath "${TMPDIR:-/tmp}")
config=${XDG_CONFIG_HOME:-$HOME/.config}/sayso
data=${XDG_DATA_HOME:-$HOME/.local/share}/sayso
state=${XDG_STATE_HOME:-$HOME/.local/state}/sayso

# bubblewrap: the mounts wrap() makes, then the helper with the seccomp filter.
bw="bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid --unshare-net --die-with-parent"
bw+=" --bind $project $project --bind $tmp $tmp --ro-bind $project/.git $project/.git"
hidden_json=""
for d in "$config" "$data" "$state"; do
  if [ -d "$d" ]; then
    d=$(realpath "$d")
    bw+=" --tmpfs $d --remount-ro $d"
    hidden_json+="${hidden_json:+,}\"$d\""
  fi
done
bw+=" --chdir $project -- $sayso __sandbox-exec '{\"l\":false,\"n\":false}' --"
# Landlock: the helper's policy (writable project and temp, hidden dirs, sayso's /proc).
ll="$sayso __sandbox-exec '{\"l\":true,\"n\":false,\"w\":[\"$project\",\"$tmp\"],\"h\":[$hidden_json],\"p\":$$}' --"

heavy="sh -c 'for i in \$(seq 2000); do /bin/true; done'"
cases=(
  "true" "$bw true" "$ll true"
  "$heavy" "$bw $heavy" "$ll $heavy"
)
names=(
  "true (unsandboxed)" "true (bubblewrap)" "true (landlock)"
  "2000 processes (unsandboxed)" "2000 processes (bubblewrap)" "2000 processes (landlock)"
)

# Each case must succeed once before it is timed (a broken sandbox would time its error).
for c in "${cases[@]}"; do
  (cd "$project" && eval "$c") >/dev/null || { echo "failed: $c" >&2; exit 1; }
done

if command -v hyperfine >/dev/null; then
  args=()
  for i in "${!cases[@]}"; do args+=(-n "${names[$i]}" "${cases[$i]}"); done
  cd "$project"
  hyperfine -N --warmup 5 --runs "$runs" "${args[@]}"
  exit 0
fi

# No hyperfine: the median of $runs timed runs of each, in milliseconds.
for i in "${!cases[@]}"; do
  times=()
  for _ in $(seq "$runs"); do
    t0=$(date +%s%N)
    (cd "$project" && eval "${cases[$i]}") >/dev/null
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
  printf '%-32s median %d.%03d ms\n' "${names[$i]}" $((median / 1000)) $((median % 1000))
done
