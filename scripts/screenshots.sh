#!/usr/bin/env bash
# Regenerates screenshots/*.png from real runs of sayso's terminal UI.
#
#   scripts/screenshots.sh            # builds with `cargo build --release`, writes screenshots/
#   SAYSO_BIN=path/to/sayso scripts/screenshots.sh   # use that binary, skip the build
#
# Each screenshot is a real run of `sayso --demo` (the built-in scripted endpoint: no network, no
# API key) inside a private tmux server, driven with send-keys; the screen is read back with
# `tmux capture-pane -e` and rendered to PNG by scripts/ansi_to_png.py (which installs Pillow
# into a venv under ~/.cache and the DejaVu fonts by itself when they are missing).
#
#   chat.png           the demo's tour (headings, list, table, Rust code): `ls -la` runs unasked
#                      (the safe list, read-only in the sandbox), two approvals answered Accept /
#                      Reject-with-a-reason, the final reply
#   approval-diff.png  the approval modal for create_file, showing its coloured diff
#   auto-judge.png     --auto: ls runs (safe list), create_file runs, `date` goes to the
#                      scripted judge, which approves it ("ran unasked: the judge found it safe — …")
#   scrolled.png       a longer session, scrolled up while a reply streams in below
#
# Sizes: SCREENSHOT_COLS x SCREENSHOT_ROWS (110x34), except chat.png, which is
# SCREENSHOT_CHAT_ROWS (62) tall so the whole demo conversation fits on one screen.
# SCREENSHOT_ANSI_ONLY=1 writes each screen as captured (NAME.ans, with its escapes) instead of a
# PNG, with no renderer to install: the test suite runs the script that way to keep it working.
# Also: SCREENSHOT_DIR (screenshots/), SCREENSHOT_SCROLL_PAGES (2), SCREENSHOT_TIMEOUT (30 s per
# awaited screen state). Every run gets a fresh home and XDG dirs in a temp dir, TERM=xterm-256color
# and no API keys; the tmux server has a private socket in that temp dir, and both go at exit.
# Needs tmux (installed with apt-get when missing and running as root), python3 and cargo.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cols=${SCREENSHOT_COLS:-110}
rows=${SCREENSHOT_ROWS:-34}
chat_rows=${SCREENSHOT_CHAT_ROWS:-62}
out_dir=${SCREENSHOT_DIR:-$repo/screenshots}
scroll_pages=${SCREENSHOT_SCROLL_PAGES:-2} # PageUps for scrolled.png
timeout=${SCREENSHOT_TIMEOUT:-30} # seconds to wait for any one screen state

say() { printf 'screenshots: %s\n' "$*" >&2; }
die() {
    say "error: $*"
    exit 1
}

# --- tools ------------------------------------------------------------------------------------
if ! command -v tmux >/dev/null; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        say "installing tmux"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q tmux >/dev/null ||
            { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q tmux >/dev/null; }
    fi
    command -v tmux >/dev/null || die "tmux is needed (apt-get install tmux)"
fi
command -v python3 >/dev/null || die "python3 is needed"

# --- the binary -------------------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/sayso-screenshots.XXXXXX")
sock="$work/tmux.sock" # a private tmux server, removed with $work
cleanup() {
    tmux -S "$sock" kill-server 2>/dev/null || true
    # The sessions' processes may still be writing their state as they exit.
    rm -rf "$work" 2>/dev/null || { sleep 1 && rm -rf "$work"; }
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -n ${SAYSO_BIN:-} ]]; then
    bin=$SAYSO_BIN
else
    say "building (cargo build --release)"
    (cd "$repo" && cargo build --release --quiet) || die "cargo build failed"
    bin="${CARGO_TARGET_DIR:-$repo/target}/release/sayso"
fi
[[ -x $bin ]] || die "no sayso binary at $bin"
# A copy, so that a rebuild while this runs cannot swap the binary under the sessions.
cp "$bin" "$work/sayso"

# Make the renderer's dependencies ready now (a venv on first use), not inside the first capture.
ansi_only=${SCREENSHOT_ANSI_ONLY:-}
[[ -n $ansi_only ]] || python3 "$repo/scripts/ansi_to_png.py" --help >/dev/null

# --- each run gets its own isolated home, with a small project for the demo's tools -----------
# new_home NAME: prints the path of a fresh home with ~/hello-project in it.
new_home() {
    local home="$work/$1/home"
    local project="$home/hello-project"
    mkdir -p "$home"/{config,state,data,cache,tmp} "$project/src"
    printf '[package]\nname = "hello-project"\nversion = "0.1.0"\nedition = "2024"\n' >"$project/Cargo.toml"
    printf 'fn main() {\n    println!("hello");\n}\n' >"$project/src/main.rs"
    printf '# hello-project\n\nA tiny project for the sayso screenshots.\n' >"$project/README.md"
    # Fixed dates, so the `ls -la` in the screenshots does not change from run to run.
    touch -d '2025-06-01 10:00' "$project"/{Cargo.toml,README.md,src/main.rs} "$project/src" "$project" "$home"
    printf '%s\n' "$home"
}

cat >"$work/tmux.conf" <<'EOF'
set -s exit-empty off
set -g status off
set -g remain-on-exit on
set -g escape-time 0
set -g history-limit 0
EOF

tm() { LANG=C.UTF-8 LC_ALL=C.UTF-8 tmux -u -S "$sock" -f "$work/tmux.conf" "$@"; }

# start SESSION ROWS ARGS...: runs sayso with ARGS in a new detached session of cols x ROWS.
start() {
    local name=$1 height=$2 home
    shift 2
    home=$(new_home "$name")
    local cmd=(env -i
        HOME="$home" PATH=/usr/local/bin:/usr/bin:/bin TERM=xterm-256color
        LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC TMPDIR="$home/tmp"
        XDG_CONFIG_HOME="$home/config" XDG_STATE_HOME="$home/state"
        XDG_DATA_HOME="$home/data" XDG_CACHE_HOME="$home/cache"
        "$work/sayso" -C "$home/hello-project" "$@")
    tm new-session -d -s "$name" -x "$cols" -y "$height" "$(printf '%q ' "${cmd[@]}")"
    wait_for "$name" "Ask anything"
}

screen() { tm capture-pane -p -t "$1"; }

check_alive() {
    if [[ $(tm display -p -t "$1" '#{pane_dead}') == 1 ]]; then
        screen "$1" >&2
        die "sayso exited in session $1"
    fi
}

# wait_for SESSION TEXT...: until every TEXT is on the screen (bounded by $timeout).
wait_for() {
    local name=$1 s t ok
    shift
    local deadline=$((SECONDS + timeout))
    while :; do
        s=$(screen "$name")
        ok=1
        for t in "$@"; do [[ $s == *"$t"* ]] || ok=0; done
        ((ok)) && return 0
        check_alive "$name"
        if ((SECONDS >= deadline)); then
            printf '%s\n' "$s" >&2
            die "timed out in session $name waiting for: $*"
        fi
        sleep 0.1
    done
}

# wait_gone SESSION TEXT: until TEXT is no longer on the screen.
wait_gone() {
    local deadline=$((SECONDS + timeout))
    while [[ $(screen "$1") == *"$2"* ]]; do
        check_alive "$1"
        ((SECONDS < deadline)) || die "timed out in session $1 waiting for '$2' to go"
        sleep 0.1
    done
}

# settle SESSION: until the screen (with colours) stops changing for a moment.
settle() {
    local a b deadline=$((SECONDS + timeout))
    a=$(tm capture-pane -e -p -t "$1")
    while :; do
        sleep 0.4
        b=$(tm capture-pane -e -p -t "$1")
        [[ $a == "$b" ]] && return 0
        ((SECONDS < deadline)) || die "the screen of session $1 never settled"
        a=$b
    done
}

# read_modal SESSION: the approval modal has been read, as a user would: its key gate ignores
# keys until it has been on screen for 0.5 s with no typing (src/tui/key_gate.rs).
read_modal() {
    settle "$1"
    sleep 0.8
}

# idle SESSION: the turn is over (the footer shows the idle key hints) and the screen is still.
idle() {
    wait_for "$1" "Ctrl+D quit"
    settle "$1"
}

end_session() { tm kill-session -t "$1" 2>/dev/null || true; }

type_line() {
    tm send-keys -t "$1" -l "$2"
    tm send-keys -t "$1" Enter
}

written=()
# snap SESSION NAME ROWS: renders the screen to $out_dir/NAME.png.
snap() {
    local name=$1 file="$out_dir/$2.png" height=$3 cursor=()
    tm capture-pane -e -p -N -t "$name" >"$work/$2.ans"
    if [[ -n $ansi_only ]]; then
        cp "$work/$2.ans" "$out_dir/$2.ans"
        written+=("$out_dir/$2.ans")
        return
    fi
    read -r flag xy < <(tm display -p -t "$name" '#{cursor_flag} #{cursor_x},#{cursor_y}')
    [[ $flag == 1 ]] && cursor=(--cursor "$xy")
    python3 "$repo/scripts/ansi_to_png.py" "$work/$2.ans" "$file" \
        --cols "$cols" --rows "$height" "${cursor[@]}"
    written+=("$file")
}

mkdir -p "$out_dir"

# --- chat.png: the tour, `ls -la` unasked, two approvals, the final reply -----------------------
say "chat.png"
start chat "$chat_rows" --demo
type_line chat "Show me what you can do"
wait_for chat "Approval needed — 2 of 3" "+++ b/hello.md"
read_modal chat
tm send-keys -t chat y
wait_for chat "Approval needed — 3 of 3" "date"
read_modal chat
tm send-keys -t chat r
wait_for chat "Reason for rejecting"
tm send-keys -t chat -l "no need to check the clock"
tm send-keys -t chat Enter
wait_for chat "That is the whole demo"
idle chat
snap chat chat "$chat_rows"
end_session chat

# --- approval-diff.png: the create_file modal with its diff ------------------------------------
say "approval-diff.png"
start diff "$rows" --demo
type_line diff "Write a hello.md for me"
wait_for diff "Approval needed — 2 of 3" "+++ b/hello.md" "+This file was written"
settle diff
snap diff approval-diff "$rows"
end_session diff

# --- auto-judge.png: auto mode, the judge approves `date` --------------------------------------
say "auto-judge.png"
start auto "$rows" --demo --auto
wait_for auto " AUTO "
type_line auto "Look around and tell me the time"
wait_for auto "That is the whole demo" "the judge found it safe"
idle auto
snap auto auto-judge "$rows"
end_session auto

# --- scrolled.png: a longer session, scrolled up while the next reply streams ------------------
say "scrolled.png"
start long "$rows" --demo
type_line long "Show me what you can do"
for n in 2 3; do
    wait_for long "Approval needed — $n of 3"
    read_modal long
    tm send-keys -t long y
    [[ $n == 3 ]] || wait_gone long "Approval needed — $n of 3"
done
wait_for long "That is the whole demo"
idle long
for msg in "Can you add a test for hello.md?" \
    "What does the --auto flag change?" \
    "How do I point you at a local llama.cpp server?" \
    "Which tools can you use, and which ones ask first?" \
    "Can I keep my settings in a config file?" \
    "What happens if I press Esc while you are answering?" \
    "Does /copy put the last reply on my clipboard?" \
    "How do I see the whole output of ls -la?" \
    "Can I switch models in the middle of a chat?"; do
    type_line long "$msg"
    wait_for long "› $msg" "Connect a real model to get real answers"
    idle long
done
# Send one more and scroll up at once (in the same send-keys), so the reply streams in below
# the view and the "new output below" marker shows.
marker="new output below"
for attempt in 1 2 3; do
    tm send-keys -t long -l "Thanks, that is all for now."
    tm send-keys -t long Enter $(printf 'PageUp %.0s' $(seq "$scroll_pages"))
    idle long
    [[ $(screen long) == *"$marker"* ]] && break
    say "no '$marker' marker (attempt $attempt): the reply beat the scroll; again"
    tm send-keys -t long End
    settle long
done
[[ $(screen long) == *"$marker"* ]] || say "warning: scrolled.png has no '$marker' marker"
snap long scrolled "$rows"
end_session long

for f in "${written[@]}"; do
    printf '%s\n' "$f"
done
