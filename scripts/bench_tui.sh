#!/usr/bin/env bash
# End-to-end TUI benchmark of the release binary in `--demo` mode. See BENCHMARKS.md (TUI).
#
# Usage: scripts/bench_tui.sh        (env: RUNS=launches, default 10; IDLE=idle seconds,
#                                      default 10; MESSAGES=messages sent, default 200;
#                                      SKIP_BUILD=1 to use the existing target/release/sayso;
#                                      SAYSO_BIN=path to measure another build)
#
# (a) launch to first frame: a small Python PTY harness (a 120x40 pseudo-terminal that answers
#     the terminal queries a real terminal answers: primary device attributes, and nothing for
#     the kitty keyboard query) starts `sayso --demo` RUNS times and timestamps the bytes it
#     writes: the first byte, the switch to the alternate screen, and the end of the first
#     frame (the end-of-synchronized-update marker after the status bar text). Median and
#     range. Goal: <= 12 ms.
# (b) idle: after the UI has settled (2 s), IDLE seconds with no input: CPU time of every
#     thread (/proc/PID/task/*/schedstat, exact ns; /proc/PID/stat ticks), context switches
#     (voluntary_ctxt_switches + nonvoluntary_ctxt_switches from .../status: each one is a
#     wake-up) and bytes written to the terminal. Goal: no wake-ups at all without input; idle
#     VmRSS <= 15 MiB.
# (c) memory: VmRSS when idle, then, in tmux (120x40), MESSAGES messages typed into the demo one
#     after another (each waits for the reply); VmRSS at checkpoints and the growth per
#     transcript entry, extrapolated to 10,000 entries. The demo's later replies are short, so
#     the in-process measurement of 10,000 realistic entries is in `cargo bench --bench tui`
#     (printed before the benchmarks).
# (d) streaming into the TUI, in tmux (120x40) against scripts/sse_server.py: ~1 MiB of text
#     (~16 MiB of SSE) served as fast as sayso reads it, then a slow reply (SLOW_BYTES of text, default 20 KiB,
#     at SLOW_RATE bytes/s, default 1000). For each: CPU time of the whole process from Enter
#     to the idle footer (/proc/PID/stat utime+stime), peak RSS (VmHWM, reset before the reply
#     through /proc/PID/clear_refs) and the bytes sayso wrote to the terminal meanwhile (tmux
#     pipe-pane -O: what the program wrote to the pty), per byte of reply text.
#     Goals: fast <= 0.5 s CPU and <= 30 MiB; slow <= 2 % of a core and <= 5 bytes per byte.
#     STREAM=0 skips it; MESSAGES=0 skips (c).
#
# Needs: cargo, python3, tmux. Nothing leaves this machine (the demo endpoint is on 127.0.0.1).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${RUNS:-10}"
IDLE="${IDLE:-10}"
MESSAGES="${MESSAGES:-200}"
STREAM="${STREAM:-1}"
SLOW_BYTES="${SLOW_BYTES:-20480}"
SLOW_RATE="${SLOW_RATE:-1000}"

if ! command -v tmux >/dev/null 2>&1; then
    echo "installing tmux with apt-get" >&2
    apt-get install -y tmux >/dev/null 2>&1 ||
        { apt-get update >/dev/null && apt-get install -y tmux >/dev/null; }
fi

if [ -n "${SAYSO_BIN:-}" ]; then
    SAYSO="$(cd "$(dirname "$SAYSO_BIN")" && pwd)/$(basename "$SAYSO_BIN")"
else
    if [ "${SKIP_BUILD:-0}" != 1 ]; then
        echo "== building sayso (release)" >&2
        (cd "$ROOT" && cargo build --release --quiet --bin sayso)
    fi
    SAYSO="$ROOT/target/release/sayso"
fi

# A clean environment: no user or project config, no API key, no proxy.
TMP="$(mktemp -d)"
SOCK="$TMP/tmux.sock"
SERVER_PID=""
cleanup() {
    tmux -S "$SOCK" kill-server 2>/dev/null || true
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$TMP/config" "$TMP/state" "$TMP/data" "$TMP/cwd"
export XDG_CONFIG_HOME="$TMP/config" XDG_STATE_HOME="$TMP/state" XDG_DATA_HOME="$TMP/data"
unset SAYSO_CONFIG SAYSO_MODEL OPENAI_API_KEY OPENAI_BASE_URL COLORFGBG
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1 TERM=xterm-256color
cd "$TMP/cwd"

cat >"$TMP/pty_bench.py" <<'PY'
"""PTY harness: launch-to-first-frame and idle wake-ups of `sayso --demo`."""
import fcntl, os, pty, select, signal, statistics, struct, sys, termios, time

SAYSO, RUNS, IDLE = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
COLS, ROWS = 120, 40
STATUS = b"sayso-demo"          # the model name, in the status bar (after ALT)
BEGIN_SYNC = b"\x1b[?2026h"     # a frame begins
END_SYNC = b"\x1b[?2026l"       # end of a synchronized update: a frame is complete
ALT = b"\x1b[?1049h"
DA1_QUERY = b"\x1b[c"
DA1_REPLY = b"\x1b[?62;22c"     # what xterm answers; no reply to the kitty query `CSI ? u`


def spawn():
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        os.execv(SAYSO, [SAYSO, "--demo"])
    return t0, pid, fd


class Session:
    def __init__(self):
        self.t0, self.pid, self.fd = spawn()
        self.buf = b""
        self.marks = {}
        self.out_bytes = 0

    def pump(self, timeout):
        """Reads what is there (waiting up to `timeout`); answers DA1; timestamps marks."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            raise EOFError
        if not data:
            raise EOFError
        now = time.perf_counter() - self.t0
        self.out_bytes += len(data)
        old = len(self.buf)
        self.buf += data
        if DA1_QUERY in self.buf[max(0, old - 8):]:
            self.buf = self.buf.replace(DA1_QUERY, b"<da1>")
            os.write(self.fd, DA1_REPLY)
            self.marks.setdefault("da1_query", now)
        self.marks.setdefault("first_byte", now)
        if ALT in self.buf:
            self.marks.setdefault("alt_screen", now)
        alt = self.buf.find(ALT)
        if alt >= 0 and BEGIN_SYNC in self.buf[alt:]:
            self.marks.setdefault("frame_start", now)
        i = self.buf.find(STATUS, alt) if alt >= 0 else -1
        if i >= 0 and END_SYNC in self.buf[i:] and "first_frame" not in self.marks:
            self.marks["first_frame"] = now
            self.sched = schedstat(self.pid)
        return True

    def wait_frame(self, limit=10.0):
        end = time.perf_counter() + limit
        while "first_frame" not in self.marks:
            if time.perf_counter() > end:
                raise TimeoutError("no first frame: %r" % self.buf[-400:])
            self.pump(0.05)

    def drain(self, seconds):
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            self.pump(left)

    def stop(self):
        os.kill(self.pid, signal.SIGTERM)
        try:
            while True:
                self.pump(0.2)
        except (EOFError, OSError):
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def schedstat(pid):
    """(cpu ns, runqueue-wait ns) of the main thread, and cpu ns of all threads so far."""
    main, total = (0, 0), 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            run, wait, _ = map(int, open(f"/proc/{pid}/task/{tid}/schedstat").read().split())
        except (FileNotFoundError, ValueError):
            continue
        total += run
        if tid == str(pid):
            main = (run, wait)
    return main[0], main[1], total


def threads(pid):
    out = {}
    for tid in sorted(os.listdir(f"/proc/{pid}/task"), key=int):
        base = f"/proc/{pid}/task/{tid}"
        try:
            comm = open(f"{base}/comm").read().strip()
            stat = open(f"{base}/stat").read().rsplit(")", 1)[1].split()
            status = dict(
                l.split(":", 1) for l in open(f"{base}/status").read().splitlines() if ":" in l
            )
            sched = open(f"{base}/schedstat").read().split()
        except FileNotFoundError:
            continue
        out[tid] = {
            "comm": comm,
            "ticks": int(stat[11]) + int(stat[12]),  # utime + stime
            "ns": int(sched[0]),
            "vol": int(status["voluntary_ctxt_switches"]),
            "nonvol": int(status["nonvoluntary_ctxt_switches"]),
        }
    return out


def vm(pid, key):
    for l in open(f"/proc/{pid}/status"):
        if l.startswith(key + ":"):
            return int(l.split()[1])
    return 0


def ms(x):
    return f"{x * 1000:.1f} ms"


# (a) launch to first frame
frames, firsts, alts, das, starts, cpus, waits, totals = [], [], [], [], [], [], [], []
print("load average before: " + open("/proc/loadavg").read().strip())
for _ in range(RUNS):
    s = Session()
    s.wait_frame()
    frames.append(s.marks["first_frame"])
    firsts.append(s.marks["first_byte"])
    alts.append(s.marks.get("alt_screen", float("nan")))
    das.append(s.marks.get("da1_query", float("nan")))
    starts.append(s.marks.get("frame_start", float("nan")))
    cpus.append(s.sched[0] / 1e9)
    waits.append(s.sched[1] / 1e9)
    totals.append(s.sched[2] / 1e9)
    s.stop()
    time.sleep(0.2)
print(f"(a) launch to first frame, {RUNS} runs (120x40 PTY):")
print(f"    first frame complete: median {ms(statistics.median(frames))} "
      f"(min {ms(min(frames))}, max {ms(max(frames))})  goal <= 12 ms")
print(f"    first output (the demo's note on stderr): median {ms(statistics.median(firsts))}; "
      f"alternate screen: median {ms(statistics.median(alts))}; "
      f"terminal query (DA1): median {ms(statistics.median(das))}; "
      f"first frame begins: median {ms(statistics.median(starts))}")
print(f"    at the first frame (medians): main thread on cpu {ms(statistics.median(cpus))}, "
      f"waiting for a cpu {ms(statistics.median(waits))}; all threads on cpu "
      f"{ms(statistics.median(totals))}")
print("    all runs (ms): " + " ".join(f"{f * 1000:.1f}" for f in frames))

# (b) idle
s = Session()
s.wait_frame()
s.drain(2.0)
pid = s.pid
before, bytes_before, t_before = threads(pid), s.out_bytes, time.perf_counter()
s.drain(IDLE)
after, bytes_after, t_after = threads(pid), s.out_bytes, time.perf_counter()
tick = os.sysconf("SC_CLK_TCK")
print(f"(b) idle for {t_after - t_before:.1f} s after the UI settled (no input):")
tot_ns = tot_ticks = tot_sw = 0
for tid, a in after.items():
    b = before.get(tid, {"ticks": 0, "ns": 0, "vol": 0, "nonvol": 0})
    d_ns, d_ticks = a["ns"] - b["ns"], a["ticks"] - b["ticks"]
    d_vol, d_non = a["vol"] - b["vol"], a["nonvol"] - b["nonvol"]
    tot_ns += d_ns
    tot_ticks += d_ticks
    tot_sw += d_vol + d_non
    role = " (UI thread)" if tid == str(pid) else ""
    print(f"    tid {tid:>7} {a['comm']:<18}{role:<12} cpu {d_ns / 1e6:8.3f} ms "
          f"({d_ticks} ticks)  ctxt switches +{d_vol} voluntary +{d_non} involuntary")
gone = set(before) - set(after)
if gone:
    print(f"    threads that ended meanwhile: {len(gone)}")
print(f"    process: cpu {tot_ns / 1e6:.3f} ms ({tot_ticks * 1000 // tick} ms by ticks), "
      f"{tot_sw} wake-ups, {bytes_after - bytes_before} bytes written to the terminal")
print(f"    VmRSS idle: {vm(pid, 'VmRSS') / 1024:.1f} MiB (VmHWM {vm(pid, 'VmHWM') / 1024:.1f} MiB), "
      f"{len(after)} threads  goal <= 15 MiB")
s.stop()
PY

[ "$RUNS" -gt 0 ] && python3 "$TMP/pty_bench.py" "$SAYSO" "$RUNS" "$IDLE"

screen() { tmux -S "$SOCK" capture-pane -p -t bench; }
# Idle = the footer shows the idle key hints again and no modal is open.
wait_idle() {
    local want="$1" i
    for i in $(seq 6000); do
        local s
        s="$(screen)"
        if grep -q "Enter send" <<<"$s" && grep -qF -- "$want" <<<"$s"; then
            return 0
        fi
        sleep 0.01
    done
    echo "timed out waiting for: $want" >&2
    screen >&2
    return 1
}
calc() { awk "BEGIN { print $1 }"; }

if [ "$MESSAGES" -gt 0 ]; then
# (c) memory while a conversation grows, in tmux.
echo "(c) memory while the conversation grows (tmux 120x40, --demo --auto):"
tmux -S "$SOCK" -f /dev/null new-session -d -x 120 -y 40 -s bench \
    "exec env XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' XDG_DATA_HOME='$XDG_DATA_HOME' TERM=xterm-256color '$SAYSO' --demo --auto 2>/dev/null"
PANE_PID="$(tmux -S "$SOCK" display-message -p -t bench '#{pane_pid}')"
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$PANE_PID/status"; }
wait_idle "Enter send"
sleep 2 # let start-up settle (the syntax tables load only with the first code block)
RSS0="$(rss)"
printf '    idle, empty chat: VmRSS %.1f MiB\n' "$(calc "$RSS0 / 1024")"
START="$(date +%s.%N)"
# The first message gets the demo's tour (reasoning, Markdown, three tool calls in auto mode).
tmux -S "$SOCK" send-keys -t bench -l "hello"
tmux -S "$SOCK" send-keys -t bench Enter
wait_idle "Here is what happened"
RSS1="$(rss)"
printf '    after the tour (1 message): VmRSS %.1f MiB\n' "$(calc "$RSS1 / 1024")"
HALF=$((MESSAGES / 2))
RSS_HALF="$RSS1"
for i in $(seq 2 "$MESSAGES"); do
    tmux -S "$SOCK" send-keys -t bench -l "message number $i, please quote it back"
    tmux -S "$SOCK" send-keys -t bench Enter
    wait_idle "│ message number $i, please"
    if [ "$i" = "$HALF" ]; then
        RSS_HALF="$(rss)"
        printf '    after %d messages: VmRSS %.1f MiB\n' "$i" "$(calc "$RSS_HALF / 1024")"
    fi
done
END="$(date +%s.%N)"
RSS_END="$(rss)"
HWM="$(awk '/^VmHWM:/ {print $2}' "/proc/$PANE_PID/status")"
# Each later message adds two entries: the user's and the short reply.
PER_ENTRY="$(calc "($RSS_END - $RSS_HALF) * 1024 / (2 * ($MESSAGES - $HALF))")"
printf '    after %d messages: VmRSS %.1f MiB (VmHWM %.1f MiB), %.1f s of typing and replies\n' \
    "$MESSAGES" "$(calc "$RSS_END / 1024")" "$(calc "$HWM / 1024")" \
    "$(calc "$END - $START")"
printf '    growth from message %d to %d: %.0f bytes per entry (user message + short reply);\n' \
    "$HALF" "$MESSAGES" "$PER_ENTRY"
printf '    extrapolated to 10,000 such entries: %.1f MiB over the idle RSS\n' \
    "$(calc "$PER_ENTRY * 10000 / 1048576")"
tmux -S "$SOCK" kill-server 2>/dev/null || true
fi

[ "$STREAM" = 1 ] || exit 0
# (d) streaming into the TUI.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ui_ticks() { awk '{print $14 + $15}' "/proc/$1/task/$1/stat"; }
stream_case() { # NAME, then sse_server.py options
    local name="$1" port
    shift
    port="$(free_port)"
    python3 "$ROOT/scripts/sse_server.py" "$port" "$@" >"$TMP/server.log" 2>&1 &
    SERVER_PID=$!
    local content=""
    for _ in $(seq 600); do
        content="$(sed -n 's/.*(\([0-9]*\) bytes of content).*/\1/p' "$TMP/server.log" 2>/dev/null)"
        [ -n "$content" ] && break
        sleep 0.05
    done
    [ -n "$content" ] || { echo "the SSE server did not start:" >&2; cat "$TMP/server.log" >&2; exit 1; }
    rm -f "$TMP/pane.out"
    tmux -S "$SOCK" -f /dev/null new-session -d -x 120 -y 40 -s bench \
        "exec env XDG_CONFIG_HOME='$XDG_CONFIG_HOME' XDG_STATE_HOME='$XDG_STATE_HOME' XDG_DATA_HOME='$XDG_DATA_HOME' TERM=xterm-256color '$SAYSO' --no-session --base-url http://127.0.0.1:$port/v1 -m bench-model 2>/dev/null"
    tmux -S "$SOCK" pipe-pane -O -t bench "cat >> '$TMP/pane.out'"
    PANE_PID="$(tmux -S "$SOCK" display-message -p -t bench '#{pane_pid}')"
    wait_idle "bench-model"
    sleep 1
    echo 5 >"/proc/$PANE_PID/clear_refs" 2>/dev/null || true # resets VmHWM to the current RSS
    local t0 u0 b0 rss0 start
    t0="$(cpu_ticks "$PANE_PID")"
    u0="$(ui_ticks "$PANE_PID")"
    b0="$(stat -c %s "$TMP/pane.out" 2>/dev/null || echo 0)"
    rss0="$(awk '/^VmRSS:/ {print $2}' "/proc/$PANE_PID/status")"
    start="$(date +%s.%N)"
    tmux -S "$SOCK" send-keys -t bench -l "go"
    tmux -S "$SOCK" send-keys -t bench Enter
    sleep 0.5
    wait_idle "bench-model"
    local end t1 u1 b1 hwm tick
    end="$(date +%s.%N)"
    t1="$(cpu_ticks "$PANE_PID")"
    u1="$(ui_ticks "$PANE_PID")"
    sleep 0.3
    b1="$(stat -c %s "$TMP/pane.out")"
    hwm="$(awk '/^VmHWM:/ {print $2}' "/proc/$PANE_PID/status")"
    tick="$(getconf CLK_TCK)"
    local wall cpu
    wall="$(calc "$end - $start")"
    cpu="$(calc "($t1 - $t0) / $tick")"
    printf '    %s: %d bytes of reply text in %.2f s; CPU %.2f s (%.1f %% of a core); RSS %.1f MiB before, peak %.1f MiB;\n' \
        "$name" "$content" "$wall" "$cpu" "$(calc "100 * $cpu / $wall")" \
        "$(calc "$rss0 / 1024")" "$(calc "$hwm / 1024")"
    printf '      UI thread %.2f s of it; %d bytes written to the terminal (%.1f per byte of reply)\n' \
        "$(calc "($u1 - $u0) / $tick")" "$((b1 - b0))" "$(calc "($b1 - $b0) / $content")"
    tmux -S "$SOCK" kill-server 2>/dev/null || true
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}
echo "(d) a reply streamed into the TUI (tmux 120x40):"
stream_case "fast, 1 MiB of reply text as fast as read" --content 1048576
stream_case "slow, $SLOW_BYTES bytes at $SLOW_RATE bytes/s" --content "$SLOW_BYTES" --rate "$SLOW_RATE"
