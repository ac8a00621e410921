"""The steps of scripts/order_file.sh: which functions runs of the release binary executed, and
the link order made of them (assets/link/sayso.order).

  order_file.py names MAP BINARY OUT RUN [RUN ...]
      The functions the runs executed, one mangled symbol a line in the binary's order, to OUT.
      BINARY is the path the runs ran, MAP lld's -Map of it (the binary has no symbol table: the map
      names its addresses). A RUN is a callgrind output (--dump-instr=yes: every instruction
      executed) or a perf script of page faults (`perf script -F addr,ip,dso --show-mmap-events` of
      `perf record -e page-faults -d --call-graph dwarf`: the first touch of each 64 KiB the
      kernel mapped, and the functions on the stack then).
  order_file.py merge OUT LIST [LIST ...]
      The order file: the C runtime's start-up first, then each LIST's names (a file from
      `names`), the first list's first, each name once. Prints what each list added.

With one section a function (rustc's and cc's default), an input section of the map is named
after its function's mangled symbol (the map's symbol lines are demangled, so they cannot be
used); sections with no function name (assembly, crt) cannot be ordered and are left out.
"""

import bisect
import re
import sys

SECTION = re.compile(
    r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+\S.*:\("
    r"\.text(?:\.unlikely|\.hot|\.startup|\.exit)?\.([^)]+)\)$"
)


def read_map(path):
    """The named .text input sections, sorted: (starts, [(start, size, symbol)])."""
    sections = []
    for line in open(path, errors="replace"):
        m = SECTION.match(line)
        if m and int(m.group(2), 16) > 0:
            sections.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    sections.sort()
    return [s[0] for s in sections], sections


POSITION = re.compile(r"^(0x[0-9a-f]+|[+-]\d+|\*)")


def step(token, last):
    if token.startswith("0x"):
        return int(token, 16)
    if token == "*":
        return last
    return last + int(token)


def callgrind(path, binary):
    """Instruction addresses executed in the object at path `binary` (callgrind
    writes a position executable-relative for a PIE: the link's own addresses)."""
    names = {}
    current = None
    last = 0
    out = set()
    for line in open(path, errors="replace"):
        if line.startswith(("ob=", "cob=")):
            key, _, rest = line.partition("=")
            m = re.match(r"\((\d+)\)(?: (.*))?", rest.strip())
            if not m:
                continue
            if m.group(2):
                names[m.group(1)] = m.group(2)
            if key == "ob":
                current = names.get(m.group(1), "")
            continue
        if line.startswith("calls="):
            # calls=COUNT TARGET: the target's position is compressed like any other.
            parts = line.split()
            if len(parts) > 1:
                last = step(parts[1], last)
            continue
        m = POSITION.match(line)
        if not m:
            continue
        last = step(m.group(1), last)
        if current == binary:
            out.add(last)
    return out


MMAP = re.compile(r"PERF_RECORD_MMAP2 .*\[0x([0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) .*\]: r..p (\S+)$")
HEX = re.compile(r"\b[0-9a-f]{6,16}\b")


def faults(path, binary):
    """Addresses inside the binary in a perf script of page faults with their call chains
    (`perf script -F addr,ip,dso --show-mmap-events`): where each fault was (an address in the
    process: less the load base, the mapping at file offset 0) and every function of the binary
    on the stack at the time (perf prints those as the link's addresses already)."""
    base = None
    end = 0
    frame = re.compile(r"^\t\s*([0-9a-f]+) \((.*)\)$")
    out = set()
    for line in open(path, errors="replace"):
        m = MMAP.search(line.strip())
        if m:
            if m.group(4) == binary:
                start, size = int(m.group(1), 16), int(m.group(2), 16)
                if int(m.group(3), 16) == 0:
                    base = start
                end = max(end, start + size)
            continue
        m = frame.match(line.rstrip("\n"))
        if m:
            if m.group(2) == binary:
                out.add(int(m.group(1), 16))
            continue
        for token in HEX.findall(line):
            addr = int(token, 16)
            if base is not None and base <= addr < end:
                out.add(addr - base)
    return out


def names(argv):
    map_path, binary, out_path, runs = argv[0], argv[1], argv[2], argv[3:]
    starts, sections = read_map(map_path)
    hit = set()
    outside = 0
    for run in runs:
        watch = faults if run.endswith(".faults") else callgrind
        addrs = watch(run, binary)
        for addr in addrs:
            i = bisect.bisect_right(starts, addr) - 1
            if i >= 0 and addr < sections[i][0] + sections[i][1]:
                hit.add(i)
            else:
                outside += 1
    with open(out_path, "w") as f:
        for i in sorted(hit):
            f.write(sections[i][2] + "\n")
    size = sum(sections[i][1] for i in hit)
    print(
        f"{out_path}: {len(hit)} functions ({size / 1024:.0f} KiB); "
        f"{outside} addresses in no named function (data, assembly, crt)",
        file=sys.stderr,
    )


# The C runtime's start-up code (crt1, crtbegin): in sections of their own files without a
# function's name, so named here; `_start` runs first of all.
CRT = ["_start", "deregister_tm_clones", "register_tm_clones", "__do_global_dtors_aux", "frame_dummy"]


def merge(argv):
    out_path, lists = argv[0], argv[1:]
    seen = set(CRT)
    order = list(CRT)
    for path in lists:
        new = [n.strip() for n in open(path) if n.strip() and n.strip() not in seen]
        seen.update(new)
        order.extend(new)
        print(f"{path}: {len(new)} functions new", file=sys.stderr)
    with open(out_path, "w") as f:
        f.writelines(n + "\n" for n in order)
    print(f"{len(order)} functions in {out_path}", file=sys.stderr)


if __name__ == "__main__":
    {"names": names, "merge": merge}[sys.argv[1]](sys.argv[2:])
