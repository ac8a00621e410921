#!/usr/bin/env bash
# grep_search (in process) against ripgrep on a generated tree of 100,000 source-like files.
#
# Usage: scripts/bench_grep.sh [FILES]        (default 100000)
#   RUNS=10 WARMUP=2   hyperfine runs and warm-up runs per command
#   KEEP_TREE=1        keep the generated tree (its path is printed) instead of deleting it
#
# The tree is generated deterministically (fixed seed) into a temp dir and deleted on exit:
# packages/pNN/src/dNN/eN/fNNNNNN.{rs,ts,py,go,md}, 30-90 lines (about 4 KB) each, with a
# .git directory and a .gitignore that excludes the tenth of the files under target/ and
# node_modules/ (both tools skip them). Each query is checked first: grep_search and `rg -c`
# must count the same matching lines. Then hyperfine times, with warm caches and output to a
# pipe:
#   rg -S -n [-F] QUERY            (run in the tree, as a user would)
#   grep_search --search TREE QUERY [--regex]   (benches/grep_search.rs: one tool call)
# and, for file_search, `rg --files -g '**/*.rs'` against `grep_search --files TREE '**/*.rs'`.
# Results (markdown and JSON) go to target/bench_grep/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT_DIR=$(pwd)
FILES=${1:-100000}
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-2}
OUT="$ROOT_DIR/target/bench_grep"
mkdir -p "$OUT"

need() {
    command -v "$1" >/dev/null && return
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing $2…"
        apt-get install -y -qq "$2" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }
    else
        echo "$1 is missing: apt-get install $2" >&2
        exit 1
    fi
}
need rg ripgrep
need hyperfine hyperfine
need python3 python3

echo "== building the bench binary (release)"
BIN=$(cargo bench --bench grep_search --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "grep_search" and m.get("executable"):
        print(m["executable"])
')
[ -x "$BIN" ] || { echo "could not find the grep_search bench binary" >&2; exit 1; }

TREE=$(mktemp -d "${TMPDIR:-/tmp}/sayso-grep-bench.XXXXXX")
if [ "${KEEP_TREE:-0}" = 1 ]; then
    echo "keeping the tree at $TREE"
else
    trap 'rm -rf "$TREE"' EXIT
fi

echo "== generating $FILES files in $TREE"
python3 - "$TREE" "$FILES" <<'PY'
import os, random, sys

root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(20240601)
words = ("request buffer config parse value state event token stream index cache entry queue "
         "result error handle client server path line count render layout widget message "
         "session model tool command output reader writer parser lexer frame window option "
         "builder context schema record digest report filter matcher worker thread signal").split()
types = "u32 u64 usize String Vec<u8> Option<String> bool PathBuf Config State".split()

def ident():
    return rng.choice(words) + "_" + rng.choice(words)

def line():
    k = rng.randrange(12)
    a, b = rng.choice(words), rng.choice(words)
    if k == 0: return f"pub fn {ident()}({a}: &{rng.choice(types)}) -> Result<{rng.choice(types)}, Error> {{"
    if k == 1: return f"    let {a} = {b}.{ident()}({rng.randrange(1000)});"
    if k == 2: return f"    // {a} the {b} before the next {rng.choice(words)} is {rng.choice(words)}"
    if k == 3: return f"    if {a}.len() > {rng.randrange(100)} {{ return Err(Error::{b.capitalize()}); }}"
    if k == 4: return f"fn {a}_handler({b}: {rng.choice(types)}) {{"
    if k == 5: return "}"
    if k == 6: return f"    self.{a}.push({b}.clone());"
    if k == 7: return f"use crate::{a}::{{{b.capitalize()}, {rng.choice(words).capitalize()}}};"
    if k == 8: return f"    match {a} {{ Some(x) => x.{b}(), None => {rng.randrange(10)} }}"
    if k == 9: return ""
    if k == 10: return f"    assert_eq!({a}.{b}, {rng.randrange(10000)});"
    return f"    /// Returns the {a} of the {b}, or the default {rng.choice(words)}."

pool = [line() for _ in range(20000)]
exts = ["rs", "rs", "ts", "py", "go", "md"]
with open(os.path.join(root, ".gitignore"), "w") as f:
    f.write("target/\nnode_modules/\n*.min.js\n")
os.makedirs(os.path.join(root, ".git"))
made = set()
for i in range(n):
    pkg, d2, d3 = i // 2500, (i // 100) % 25, (i // 20) % 5
    top = "src" if i % 10 != 9 else ("target" if (i // 10) % 2 else "node_modules")
    d = os.path.join(root, "packages", f"p{pkg:02}", top, f"d{d2:02}", f"e{d3}")
    if d not in made:
        os.makedirs(d, exist_ok=True)
        made.add(d)
    lines = [pool[rng.randrange(len(pool))] for _ in range(rng.randrange(30, 91))]
    if rng.randrange(200) == 0:
        lines.insert(rng.randrange(len(lines)), "    // FIXME(perf): avoid this allocation")
    with open(os.path.join(d, f"f{i:06}.{rng.choice(exts)}"), "w") as f:
        f.write("\n".join(lines) + "\n")
PY
echo "files: $(find "$TREE" -type f | wc -l) in all, $(cd "$TREE" && rg --files | wc -l) not ignored, $(du -sh "$TREE" | cut -f1)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(rg --version | sed -n 1p); $(hyperfine --version)"

# name | rg flags | grep_search flags | query
# literal: a rare literal (1 file in 200); regex: a selective regex (about 1 file in 30);
# common: a literal on many lines (every one is counted; rg prints them all, grep_search
# keeps 200).
QUERIES=(
    "literal|-F|               |FIXME(perf)"
    "regex  |  |--regex        |\\bfn\\s+(token|digest)_handler\\(\\w+:\\s*PathBuf\\)"
    "common |-F|               |self"
)

cd "$TREE"
for q in "${QUERIES[@]}"; do
    IFS='|' read -r name rgflags ourflags query <<<"$q"
    name=$(echo $name)
    rgflags=$(echo $rgflags)
    ourflags=$(echo $ourflags)
    echo
    echo "== $name: $query"
    ours=$("$BIN" --search "$TREE" "$query" $ourflags | head -1)
    # shellcheck disable=SC2086
    theirs=$(rg -S $rgflags -c -- "$query" | awk -F: '{s += $NF; f++} END {print s+0 " in " f+0}')
    echo "grep_search: $ours"
    echo "rg -c:       $theirs (matching lines in files)"
    m=$(echo "$ours" | sed -E 's/^([0-9]+) match(es)? in ([0-9]+) files?.*/\1 in \3/')
    [ "$m" = "$theirs" ] || { echo "MISMATCH between grep_search and rg" >&2; exit 1; }
    hyperfine -N --output=pipe --warmup "$WARMUP" --runs "$RUNS" \
        --export-markdown "$OUT/$name.md" --export-json "$OUT/$name.json" \
        -n "rg" "rg -S -n $rgflags -- '$query'" \
        -n "grep_search" "$BIN --search $TREE '$query' $ourflags"
done

echo
echo "== files: **/*.rs (file_search lists up to 1000 paths; rg --files lists all)"
ours=$("$BIN" --files "$TREE" '**/*.rs' | head -1)
theirs=$(rg --files -g '**/*.rs' | wc -l)
echo "file_search:  $ours"
echo "rg --files:   $theirs files"
[ "$(echo "$ours" | sed -E 's/^Found ([0-9]+) files?.*/\1/')" = "$theirs" ] || { echo "MISMATCH between file_search and rg" >&2; exit 1; }
hyperfine -N --output=pipe --warmup "$WARMUP" --runs "$RUNS" \
    --export-markdown "$OUT/files.md" --export-json "$OUT/files.json" \
    -n "rg" "rg --files -g '**/*.rs'" \
    -n "grep_search" "$BIN --files $TREE '**/*.rs'"

echo
echo "== summary (mean ± σ over $RUNS runs, $FILES files)"
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
print("wall: mean ± σ; cpu: user + system, mean. The machine may be shared: cpu is the steadier measure.")
for name in ["literal", "regex", "common", "files"]:
    r = {x["command"]: x for x in json.load(open(os.path.join(out, name + ".json")))["results"]}
    rg, us = r["rg"], r["grep_search"]
    cpu = lambda x: (x["user"] + x["system"]) * 1000
    print(f"{name:8} rg {rg['mean']*1000:7.1f} ± {rg['stddev']*1000:5.1f} ms (cpu {cpu(rg):6.1f})   "
          f"grep_search {us['mean']*1000:7.1f} ± {us['stddev']*1000:5.1f} ms (cpu {cpu(us):6.1f})   "
          f"wall ratio {us['mean']/rg['mean']:.2f}x, cpu ratio {cpu(us)/cpu(rg):.2f}x")
PY
