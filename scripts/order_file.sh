#!/usr/bin/env bash
# Writes assets/link/sayso.order: the functions a run of sayso executes, in the order the linker
# should lay them out (build.rs passes the file to lld on x86_64 Linux). The kernel maps a
# binary's code 64 KiB around each page touched; with the code start-up and a chat need spread
# over the 8 MB of text, 7 MB of it was resident in an idle TUI. Laid out together, they take
# a few hundred KiB (BENCHMARKS.md §19).
#
# Usage: scripts/order_file.sh          then: cargo build --release (uses the new file)
#
# 1. Builds the release binary as usual, plus lld's map of where each function went
#    (SAYSO_LINK_MAP; the binary has no symbol table, the map names its addresses).
# 2. Runs it under valgrind's callgrind (every instruction counted, so nothing executed is
#    missed), in kinds of run whose code is laid out in this order:
#      start   the TUI (--demo) starting, idle, quitting; twice (the sandbox probe, its cache)
#      print   headless (-p) replies: a short one and 100 KiB of Markdown
#      stream  the TUI streaming 100 KiB of Markdown with code (highlighted), then quitting
#      tour    the demo's tour (reasoning, Markdown, tool calls in --auto)
# 3. Native passes (with perf): the same runs outside valgrind, with the new order, recording
#    page faults; a fault outside the ordered code names a function valgrind's runs did not
#    execute (timing, the sandbox, which behave differently under valgrind). Up to three, until
#    one finds nothing new.
# scripts/order_file.py names the executed addresses from the map and writes the file.
# Run it again when start-up or streaming code changed much, or after a toolchain or
# dependency update (symbol names carry crate hashes: a stale file costs memory, not
# correctness; BENCHMARKS.md §19 shows how to see how much of it still matches).
#
# Needs: cargo, python3, tmux, valgrind (apt-get install -y valgrind tmux). Loopback only.
set -euo pipefail
trap 'echo "failed at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GEN="${GEN:-$ROOT/../shared/bench/gen_scenarios.py}"
for tool in valgrind tmux python3; do
    command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y $tool)" >&2; exit 1; }
done
[ -f "$GEN" ] || { echo "no scenario generator at $GEN (set GEN=...)" >&2; exit 1; }

TMP="$(mktemp -d)"
REAL_HOME="$HOME"
SOCK="$TMP/tmux.sock"
SERVER_PID=""
cleanup() {
    tmux -S "$SOCK" kill-server 2>/dev/null || true
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

# Builds the release binary with a map of where each function went (pass N); sets SAYSO.
build() {
    echo "== pass $1: building the release binary with a link map" >&2
    (cd "$ROOT" && HOME="$REAL_HOME" SAYSO_LINK_MAP="$TMP/sayso.$1.map" cargo build --release --quiet --bin sayso)
    cp "$ROOT/target/release/sayso" "$TMP/sayso.$1"
    SAYSO="$TMP/sayso.$1"
}
build 0

mkdir -p "$TMP/home" "$TMP/cwd" "$TMP/runs" "$TMP/names"
# A new user's home; the XDG directories are set for the valgrind runs and left to their
# defaults under it for the native ones (both ways of finding them run).
export HOME="$TMP/home" TERM=xterm-256color NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
xdg() {
    if [ "$1" = on ]; then
        export XDG_CONFIG_HOME="$HOME/config" XDG_STATE_HOME="$HOME/state"
        export XDG_DATA_HOME="$HOME/data" XDG_CACHE_HOME="$HOME/cache"
    else
        unset XDG_CONFIG_HOME XDG_STATE_HOME XDG_DATA_HOME XDG_CACHE_HOME
    fi
}
xdg on
unset SAYSO_CONFIG SAYSO_MODEL OPENAI_API_KEY OPENAI_BASE_URL
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY
cd "$TMP/cwd"
python3 "$GEN" "$TMP/scen" >/dev/null

# How a run is watched: "grind" (callgrind: every instruction) or "faults" (perf: the page
# faults of a native run, which catch what differs outside valgrind: timing, the sandbox probe).
WATCH=grind
PASS=0
wrap() { # GROUP, then the command: the command line that runs it watched
    local group="$1"
    shift
    if [ "$WATCH" = grind ]; then
        echo "exec valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file='$TMP/runs/$group.$PASS.%p.cg' $* 2>/dev/null"
    else
        echo "exec perf record -q -e page-faults -c 1 -d --call-graph dwarf,16384 -o '$TMP/runs/$group.$PASS.$RANDOM$RANDOM.perf' -- $* 2>/dev/null"
    fi
}
screen() { tmux -S "$SOCK" capture-pane -p -t run; }
wait_for() { # TEXT: until the screen shows it and the footer is idle (10 minutes at most)
    local i
    for i in $(seq 6000); do
        local s
        s="$(screen 2>/dev/null || true)"
        if grep -q "Enter send" <<<"$s" && grep -qF -- "$1" <<<"$s"; then
            return 0
        fi
        sleep 0.1
    done
    echo "timed out waiting for: $1" >&2
    screen >&2
    return 1
}
tui() { # GROUP, then sayso's arguments: starts it in tmux, watched
    local group="$1"
    shift
    tmux -S "$SOCK" -f /dev/null new-session -d -x 120 -y 40 -s run "$(wrap "$group" "$SAYSO" "$@")"
}
quit() { # Ctrl+D, then wait for the watcher to write its file
    tmux -S "$SOCK" send-keys -t run C-d
    local i
    for i in $(seq 600); do
        tmux -S "$SOCK" has-session -t run 2>/dev/null || return 0
        sleep 0.1
    done
    echo "sayso did not quit" >&2
    return 1
}
type_line() {
    tmux -S "$SOCK" send-keys -t run -l "$1"
    tmux -S "$SOCK" send-keys -t run Enter
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
serve() { # SCENARIO: scripts/sse_server.py on a free port; sets PORT
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    PORT="$(free_port)"
    python3 "$ROOT/scripts/sse_server.py" "$PORT" --scenario "$TMP/scen/$1.json" >"$TMP/server.log" 2>&1 &
    SERVER_PID=$!
    local i
    for i in $(seq 100); do
        grep -q "bytes of content" "$TMP/server.log" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "the SSE server did not start" >&2
    return 1
}
runs() { # every kind of run, watched as WATCH says
    echo "== pass $PASS ($WATCH): start: the TUI starting, idle, quitting (twice: the sandbox probe, then its cache)" >&2
    rm -rf "${XDG_CACHE_HOME:-$HOME/.cache}"
    local i sc
    for i in 1 2; do
        tui start --demo
        wait_for "sayso-demo"
        sleep 2
        quit
    done
    echo "== pass $PASS ($WATCH): print: headless replies" >&2
    for sc in short long100k; do
        serve "$sc"
        eval "$(wrap print "$SAYSO" -p go --no-session --base-url "http://127.0.0.1:$PORT/v1" -m bench-model)" >/dev/null &
        wait $!
    done
    echo "== pass $PASS ($WATCH): stream: the TUI streaming Markdown with code" >&2
    serve long100k
    tui stream --no-session --base-url "http://127.0.0.1:$PORT/v1" -m bench-model
    wait_for "bench-model"
    type_line go
    sleep 2
    wait_for "bench-model"
    quit
    echo "== pass $PASS ($WATCH): tour: the demo's tour in --auto" >&2
    tui tour --demo --auto
    wait_for "sayso-demo"
    type_line hello
    wait_for "Here is what happened"
    quit
    local g
    for g in start print stream tour; do
        if [ "$WATCH" = faults ]; then
            for f in "$TMP/runs/$g.$PASS".*.perf; do
                perf script -i "$f" -F addr,ip,dso --show-mmap-events >"${f%.perf}.faults" 2>/dev/null
            done
        fi
        python3 "$ROOT/scripts/order_file.py" names "$TMP/sayso.$PASS.map" "$TMP/sayso.$PASS" "$TMP/names/$g.$PASS" \
            $(ls "$TMP/runs/$g.$PASS".*.cg "$TMP/runs/$g.$PASS".*.faults 2>/dev/null)
    done
}
# The order: each kind of run's functions, from every pass, start-up first.
merge() {
    local lists=() g
    for g in start print stream tour; do
        lists+=($(ls "$TMP/names/$g".* 2>/dev/null))
    done
    python3 "$ROOT/scripts/order_file.py" merge "$ROOT/assets/link/sayso.order" "${lists[@]}"
}

runs
merge
# Native passes: what a run outside valgrind executes that the passes before did not see (its
# page faults land outside the ordered code), until a pass finds nothing new.
if command -v perf >/dev/null && perf stat -e page-faults true >/dev/null 2>&1; then
    WATCH=faults
    xdg off
    for PASS in 1 2 3; do
        before="$(wc -l <"$ROOT/assets/link/sayso.order")"
        build "$PASS"
        runs
        merge
        [ "$(wc -l <"$ROOT/assets/link/sayso.order")" = "$before" ] && break
    done
else
    echo "== no perf: the native passes are skipped (apt-get install -y linux-perf)" >&2
fi
echo "== now: cargo build --release" >&2
