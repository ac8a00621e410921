#!/usr/bin/env bash
# What `sayso -p` sends before its first chat request: the probes' count and bytes, for two
# runs in one home (the second finds the cache). A counting proxy (probe_count_proxy.py) sits
# between sayso and the server. See docs/local-models-probing.md.
#
# Usage: scripts/bench_probes.sh BIN SERVER_PORT MODEL   e.g. target/debug/sayso 8080 tiny
set -eu
BIN=$1; TARGET=$2; MODEL=$3
DIR=$(mktemp -d /tmp/sayso-probes.XXXX)
PORT=${PROXY_PORT:-18181}
python3 "$(dirname "$0")/probe_count_proxy.py" "$PORT" "$TARGET" "$DIR/log" &
PROXY=$!
trap 'kill $PROXY; rm -rf "$DIR"' EXIT
sleep 0.5
H=$DIR/home
mkdir -p "$H/config/sayso"
printf '[chat]\ndefault_tools = []\n' > "$H/config/sayso/config.toml"
for run in 1 2; do
  : > "$DIR/log"
  env -i PATH="$PATH" HOME="$H" XDG_CONFIG_HOME="$H/config" XDG_STATE_HOME="$H/state" \
    XDG_DATA_HOME="$H/data" XDG_CACHE_HOME="$H/cache" SAYSO_PROBE_PORTS=none \
    "$BIN" -p --no-session --base-url "http://127.0.0.1:$PORT/v1" -m "$MODEL" "say hi" >/dev/null 2>&1 \
    || echo "run $run: sayso exited $?"
  sleep 0.5
  python3 - "$DIR/log" "$run" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
probes = [r for r in recs if "chat/completions" not in r["req"]]
routes = ", ".join(sorted(r["req"].split(" HTTP")[0] for r in probes))
print(f"run {sys.argv[2]}: {len(probes)} probes, {sum(r['up'] for r in probes)} B sent, "
      f"{sum(r['down'] for r in probes)} B received; {routes}")
PY
done
