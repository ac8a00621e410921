#!/usr/bin/env bash
# End-to-end streaming benchmark: `sayso -p` reading a ~1 MiB streamed reply from a local
# server, compared with `curl -N` reading the same stream. See BENCHMARKS.md.
#
# Usage: scripts/bench_stream.sh [PORT]
#   env: BYTES      stream size in bytes (default 1048576)
#        RUNS       hyperfine runs per command (default 100)
#        ROUNDS     rounds of the interleaved comparison (default 60; 0 skips it)
#        SAYSO_BIN  measure this sayso binary instead of building target/release/sayso
#
# Goals: sayso's median wall time <= 1.2x curl's (hyperfine); sayso's peak RSS <= 20 MB.
# Exits 0 when both goals are met, 1 otherwise.
#
# Besides the hyperfine comparison it runs the commands interleaved (curl, sayso, curl, ...),
# which keeps a busy machine's load swings from favouring one side, and two diagnostic sayso
# variants that isolate fixed start-up costs:
#   - `--log-level off`: no file logging (tracing-appender allocates its line queue up front);
#   - the same with SSL_CERT_FILE/SSL_CERT_DIR pointing at one certificate: the HTTP client
#     then does not load and parse the system's root certificates at start-up.
#
# Needs: cargo, python3, curl, hyperfine, GNU time (/usr/bin/time). Only 127.0.0.1 is used; the
# server it starts is stopped on exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BYTES="${BYTES:-1048576}"
RUNS="${RUNS:-100}"
ROUNDS="${ROUNDS:-60}"

need() { command -v "$1" >/dev/null 2>&1; }
if ! need hyperfine || [ ! -x /usr/bin/time ]; then
    echo "installing hyperfine / time with apt-get" >&2
    apt-get install -y hyperfine time >/dev/null 2>&1 ||
        { apt-get update >/dev/null && apt-get install -y hyperfine time >/dev/null; }
fi

PORT="${1:-}"
if [ -z "$PORT" ]; then
    PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
fi

if [ -n "${SAYSO_BIN:-}" ]; then
    SAYSO="$(cd "$(dirname "$SAYSO_BIN")" && pwd)/$(basename "$SAYSO_BIN")"
else
    echo "== building sayso (release)" >&2
    (cd "$ROOT" && cargo build --release --quiet)
    SAYSO="$ROOT/target/release/sayso"
fi

# A clean environment for sayso: no user or project config, no API key, no proxy.
TMP="$(mktemp -d)"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$TMP/config" "$TMP/state" "$TMP/data" "$TMP/cwd" "$TMP/no-certs"
export XDG_CONFIG_HOME="$TMP/config" XDG_STATE_HOME="$TMP/state" XDG_DATA_HOME="$TMP/data"
unset SAYSO_CONFIG SAYSO_MODEL OPENAI_API_KEY SSL_CERT_FILE SSL_CERT_DIR
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
cd "$TMP/cwd"

python3 "$ROOT/scripts/sse_server.py" "$PORT" --bytes "$BYTES" >"$TMP/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$TMP/server.log" >&2; exit 1; }
    sleep 0.1
done
cat "$TMP/server.log" >&2

URL="http://127.0.0.1:$PORT/v1"
BODY='{"model":"x","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}'
# The two commands as a shell would run them with `> /dev/null`; hyperfine runs them without a
# shell (-N) and sends their stdout to /dev/null (--output=null), which is the same thing with
# less noise from spawning a shell.
SAYSO_CMD="$SAYSO -p hi --base-url $URL -m x"
CURL_CMD="curl -sN -X POST -H 'Content-Type: application/json' -d '$BODY' $URL/chat/completions"

# Sanity: both read the whole stream, and sayso succeeds.
got="$(curl -sN -X POST -H 'Content-Type: application/json' -d "$BODY" "$URL/chat/completions" | wc -c)"
text="$("$SAYSO" -p hi --base-url "$URL" -m x | wc -c)"
echo "curl read $got bytes of SSE; sayso printed $text bytes of text" >&2

echo "== wall time (hyperfine, $RUNS runs each)" >&2
hyperfine -N --output=null --warmup 5 --runs "$RUNS" --export-json "$TMP/hyperfine.json" \
    -n curl "$CURL_CMD" -n sayso "$SAYSO_CMD"

peak_rss() { # the largest "Maximum resident set size" (KiB) of 10 runs of "$@"
    local max=0 rss
    for _ in $(seq 10); do
        /usr/bin/time -v -o "$TMP/time.txt" "$@" >/dev/null
        rss="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/time.txt")"
        [ "$rss" -gt "$max" ] && max="$rss"
    done
    echo "$max"
}
echo "== peak RSS (/usr/bin/time -v, 10 runs each)" >&2
sayso_rss="$(peak_rss "$SAYSO" -p hi --base-url "$URL" -m x)"
sayso_nolog_rss="$(peak_rss "$SAYSO" --log-level off -p hi --base-url "$URL" -m x)"
curl_rss="$(peak_rss curl -sN -X POST -H 'Content-Type: application/json' -d "$BODY" "$URL/chat/completions")"

# One root certificate, so that the HTTP client has a valid (tiny) root store to build.
ONE_CERT=""
if [ -r /etc/ssl/certs/ca-certificates.crt ]; then
    awk '/BEGIN CERTIFICATE/ {n++} n == 1' /etc/ssl/certs/ca-certificates.crt >"$TMP/one-cert.pem"
    ONE_CERT="$TMP/one-cert.pem"
fi

python3 - "$TMP/hyperfine.json" "$sayso_rss" "$sayso_nolog_rss" "$curl_rss" "$ROUNDS" \
    "$SAYSO" "$URL" "$BODY" "$TMP/no-certs" "$ONE_CERT" <<'EOF'
import json, os, statistics, sys, time

hf, sayso_rss, nolog_rss, curl_rss, rounds, sayso, url, body, no_certs, one_cert = sys.argv[1:]
rounds = int(rounds)
ms = lambda s: s * 1000

# Interleaved runs: every round runs each command once, in alternating order.
commands = [
    ("curl", ["curl", "-sN", "-X", "POST", "-H", "Content-Type: application/json", "-d", body,
              url + "/chat/completions"], {}),
    ("sayso", [sayso, "-p", "hi", "--base-url", url, "-m", "x"], {}),
    ("sayso --log-level off", [sayso, "--log-level", "off", "-p", "hi", "--base-url", url,
                               "-m", "x"], {}),
]
if one_cert:
    commands.append(("sayso --log-level off, 1 root cert", commands[2][1],
                     {"SSL_CERT_FILE": one_cert, "SSL_CERT_DIR": no_certs}))
stats = {name: ([], []) for name, _, _ in commands}
if rounds:
    devnull = os.open(os.devnull, os.O_WRONLY)
    for i in range(rounds + 3):
        for name, argv, env in (commands if i % 2 == 0 else commands[::-1]):
            start = time.perf_counter()
            pid = os.fork()
            if pid == 0:
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
                os.execvpe(argv[0], argv, {**os.environ, **env})
            _, status, usage = os.wait4(pid, 0)
            wall = time.perf_counter() - start
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"{name} failed with status {status}")
            if i >= 3:  # the first rounds are warm-up
                stats[name][0].append(ms(wall))
                stats[name][1].append(ms(usage.ru_utime + usage.ru_stime))

results = {r["command"]: r for r in json.load(open(hf))["results"]}
curl, say = results["curl"], results["sayso"]
print()
print("hyperfine:")
for name, r in (("curl ", curl), ("sayso", say)):
    print(f"  {name}: median {ms(r['median']):.1f} ms, mean {ms(r['mean']):.1f} ± "
          f"{ms(r['stddev']):.1f} ms, min {ms(r['min']):.1f} ms, user {ms(r['user']):.1f} ms, "
          f"system {ms(r['system']):.1f} ms")
ratio = say["median"] / curl["median"]
print(f"  sayso/curl: median {ratio:.2f}, mean {say['mean'] / curl['mean']:.2f}, "
      f"min {say['min'] / curl['min']:.2f}")
if rounds:
    print(f"interleaved ({rounds} rounds; wall includes fork/exec from Python):")
    base_wall = statistics.median(stats["curl"][0])
    for name, _, _ in commands:
        wall, cpu = stats[name]
        print(f"  {name:36s} wall median {statistics.median(wall):5.1f} ms "
              f"({statistics.median(wall) / base_wall:.2f}x curl), min {min(wall):5.1f} ms; "
              f"cpu median {statistics.median(cpu):5.1f} ms")
print("peak RSS (max of 10 runs):")
print(f"  curl {curl_rss} KiB, sayso {sayso_rss} KiB, sayso --log-level off {nolog_rss} KiB")
rss_mb = int(sayso_rss) * 1024 / 1e6
print()
print(f"wall time sayso/curl (hyperfine median): {ratio:.2f}  "
      f"(goal <= 1.20: {'met' if ratio <= 1.2 else 'MISSED'})")
print(f"sayso peak RSS: {rss_mb:.1f} MB  (goal <= 20 MB: {'met' if rss_mb <= 20 else 'MISSED'})")
sys.exit(0 if ratio <= 1.2 and rss_mb <= 20 else 1)
EOF
