#!/usr/bin/env python3
"""Render a terminal screen captured with `tmux capture-pane -e -p` to a PNG.

Usage:
    tmux capture-pane -e -p -N -t PANE > screen.ans
    python3 scripts/ansi_to_png.py screen.ans out.png --cols 110 --rows 34 [--cursor X,Y]
    python3 scripts/ansi_to_png.py --self-test OUT_DIR

The input is text with SGR escape sequences (16 / 256 / truecolor foreground and background,
bold, dim, italic, underline, reverse, crossed-out, resets); other escape sequences (other CSI,
OSC hyperlinks) are skipped. Each input line is one terminal row. Wide characters (CJK, emoji)
take two cells, as they do in tmux. Box-drawing lines and block elements are drawn as shapes so
they join across cells; everything else is drawn with DejaVu Sans Mono, with fallbacks.

What it needs it installs by itself: Pillow, fontTools and wcwidth into a venv at
${XDG_CACHE_HOME:-$HOME/.cache}/sayso-screenshots-venv when `python3` lacks them (the script then
re-runs itself with that venv's Python), and the Debian package fonts-dejavu-core when the font
is missing and the script runs as root.
"""

from __future__ import annotations

import os
import subprocess
import sys

# --------------------------------------------------------------------------------------------
# Bootstrap: make sure Pillow, fontTools and wcwidth are importable, else re-exec in a venv.
# --------------------------------------------------------------------------------------------

VENV_PACKAGES = ["pillow", "fonttools", "wcwidth"]


def _venv_dir() -> str:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "sayso-screenshots-venv")


def _have_deps() -> bool:
    try:
        import PIL  # noqa: F401
        import fontTools  # noqa: F401
        import wcwidth  # noqa: F401
    except ImportError:
        return False
    return True


def _log(msg: str) -> None:
    print(f"ansi_to_png: {msg}", file=sys.stderr)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _apt_install(*packages: str) -> bool:
    """Installs Debian packages when running as root; True when apt-get succeeded."""
    if not _is_root() or not _which("apt-get"):
        return False
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": sys.stderr}
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    if subprocess.run(cmd, env=env, **quiet).returncode == 0:
        return True
    subprocess.run(["apt-get", "update"], env=env, **quiet)
    return subprocess.run(cmd, env=env, **quiet).returncode == 0


def _which(name: str) -> str | None:
    for d in os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def _bootstrap() -> None:
    if _have_deps():
        return
    if os.environ.get("SAYSO_ANSI_TO_PNG_IN_VENV"):
        sys.exit("ansi_to_png: the venv's Python still lacks Pillow / fontTools / wcwidth")
    venv = _venv_dir()
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        _log(f"creating a venv with {', '.join(VENV_PACKAGES)} at {venv}")
        os.makedirs(os.path.dirname(venv), exist_ok=True)
        if subprocess.run([sys.executable, "-m", "venv", venv]).returncode != 0:
            # Debian's python3 needs python3-venv for ensurepip.
            if not _apt_install("python3-venv") or subprocess.run(
                [sys.executable, "-m", "venv", "--clear", venv]
            ).returncode != 0:
                sys.exit("ansi_to_png: could not create a venv (install python3-venv)")
    check = [py, "-c", "import PIL, fontTools, wcwidth"]
    if subprocess.run(check, stderr=subprocess.DEVNULL).returncode != 0:
        pip = [py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        if subprocess.run(pip + VENV_PACKAGES).returncode != 0:
            # A venv left by another Python version, or half made: make it again, once.
            _log(f"recreating {venv}")
            if subprocess.run([sys.executable, "-m", "venv", "--clear", venv]).returncode != 0 or \
                    subprocess.run(pip + VENV_PACKAGES).returncode != 0:
                sys.exit(f"ansi_to_png: pip could not install {VENV_PACKAGES} into {venv}")
    env = dict(os.environ, SAYSO_ANSI_TO_PNG_IN_VENV="1")
    os.execve(py, [py, os.path.abspath(__file__), *sys.argv[1:]], env)


if __name__ == "__main__":
    _bootstrap()

import argparse  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import unicodedata  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Optional, Union  # noqa: E402

from fontTools.ttLib import TTFont  # noqa: E402
from PIL import Image, ImageDraw, ImageFont  # noqa: E402
from wcwidth import wcwidth as _wcwidth  # noqa: E402

# --------------------------------------------------------------------------------------------
# Colours: a dark terminal palette, in the style of VS Code's integrated terminal.
# --------------------------------------------------------------------------------------------

DEFAULT_FG = (0xD4, 0xD4, 0xD4)
DEFAULT_BG = (0x1E, 0x1E, 0x1E)
PALETTE_16 = [
    (0x1E, 0x1E, 0x1E),  # 0 black (the background, so "black" text still reads as dark)
    (0xE0, 0x4F, 0x4F),  # 1 red
    (0x2E, 0xC2, 0x7E),  # 2 green
    (0xD7, 0xBA, 0x3D),  # 3 yellow
    (0x4A, 0x8F, 0xE0),  # 4 blue
    (0xC5, 0x6F, 0xD2),  # 5 magenta
    (0x2A, 0xB3, 0xD1),  # 6 cyan
    (0xD4, 0xD4, 0xD4),  # 7 white
    (0x80, 0x80, 0x80),  # 8 bright black (ratatui's DarkGray)
    (0xF4, 0x6A, 0x6A),  # 9 bright red
    (0x4E, 0xE0, 0x9A),  # 10 bright green
    (0xF2, 0xE2, 0x6B),  # 11 bright yellow
    (0x6F, 0xAE, 0xF5),  # 12 bright blue
    (0xE0, 0x8D, 0xE8),  # 13 bright magenta
    (0x57, 0xD2, 0xEA),  # 14 bright cyan
    (0xF5, 0xF5, 0xF5),  # 15 bright white
]


def xterm_256(n: int) -> tuple[int, int, int]:
    if n < 16:
        return PALETTE_16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


Color = Union[None, int, tuple]  # None: default; int: palette index; tuple: RGB


def resolve(c: Color, default: tuple[int, int, int]) -> tuple[int, int, int]:
    if c is None:
        return default
    if isinstance(c, int):
        return xterm_256(c)
    return c


def blend(a, b, t: float):
    return tuple(round(x * (1 - t) + y * t) for x, y in zip(a, b))


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------


@dataclass
class Attr:
    fg: Color = None
    bg: Color = None
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: int = 0  # 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed
    blink: bool = False
    reverse: bool = False
    hidden: bool = False
    strike: bool = False
    overline: bool = False
    ul_color: Color = None

    def copy(self) -> "Attr":
        return Attr(**self.__dict__)


@dataclass
class Cell:
    ch: str = " "
    attr: Attr = field(default_factory=Attr)
    width: int = 1  # 2 for the first cell of a wide character, 0 for its second cell


def char_width(ch: str) -> int:
    w = _wcwidth(ch[0])
    if w < 0:
        return 1  # control characters: tmux never emits them, draw as one cell
    return w


def _ext_color(params: list[list[int]], i: int) -> tuple[Color, int]:
    """Parses 38/48/58 colour arguments at params[i]; returns (colour, index after them)."""
    p = params[i]
    if len(p) > 1:  # colon form: 38:5:n or 38:2:[cs]:r:g:b
        if p[1] == 5 and len(p) >= 3:
            return p[2] & 0xFF, i + 1
        if p[1] == 2:
            rgb = p[-3:] if len(p) >= 5 else (p[2:] + [0, 0, 0])[:3]
            return tuple(max(0, min(255, v)) for v in rgb), i + 1
        return None, i + 1
    nxt = [q[0] if q else 0 for q in params[i + 1 :]]
    if nxt[:1] == [5] and len(nxt) >= 2:
        return nxt[1] & 0xFF, i + 3
    if nxt[:1] == [2] and len(nxt) >= 4:
        return tuple(max(0, min(255, v)) for v in nxt[1:4]), i + 5
    return None, i + 1 + len(nxt[:1])


def apply_sgr(attr: Attr, param_str: str) -> Attr:
    if param_str == "":
        return Attr()
    params: list[list[int]] = []
    for part in param_str.split(";"):
        sub = [int(x) if x.isdigit() else 0 for x in part.split(":")] if part else [0]
        params.append(sub)
    a = attr
    i = 0
    while i < len(params):
        p = params[i]
        code = p[0]
        if code == 0:
            a = Attr()
        elif code == 1:
            a.bold = True
        elif code == 2:
            a.dim = True
        elif code == 3:
            a.italic = True
        elif code == 4:
            a.underline = p[1] if len(p) > 1 else 1
        elif code in (5, 6):
            a.blink = True
        elif code == 7:
            a.reverse = True
        elif code == 8:
            a.hidden = True
        elif code == 9:
            a.strike = True
        elif code == 21:
            a.underline = 2
        elif code == 22:
            a.bold = a.dim = False
        elif code == 23:
            a.italic = False
        elif code == 24:
            a.underline = 0
        elif code == 25:
            a.blink = False
        elif code == 27:
            a.reverse = False
        elif code == 28:
            a.hidden = False
        elif code == 29:
            a.strike = False
        elif 30 <= code <= 37:
            a.fg = code - 30
        elif code == 38:
            a.fg, i = _ext_color(params, i)
            continue
        elif code == 39:
            a.fg = None
        elif 40 <= code <= 47:
            a.bg = code - 40
        elif code == 48:
            a.bg, i = _ext_color(params, i)
            continue
        elif code == 49:
            a.bg = None
        elif code == 53:
            a.overline = True
        elif code == 55:
            a.overline = False
        elif code == 58:
            a.ul_color, i = _ext_color(params, i)
            continue
        elif code == 59:
            a.ul_color = None
        elif 90 <= code <= 97:
            a.fg = code - 90 + 8
        elif 100 <= code <= 107:
            a.bg = code - 100 + 8
        i += 1
    return a


# CSI: ESC [ params intermediates final; OSC: ESC ] ... (BEL | ESC \); other two-byte escapes.
_ESC_RE = re.compile(
    r"\x1b\[([0-9:;<=>?]*)([ -/]*)([@-~])"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]*\x1b\\"
    r"|\x1b[()*+][0-9A-Za-z]"
    r"|\x1b[ -/]*[0-~]"
)


def parse(text: str, cols: Optional[int] = None, rows: Optional[int] = None):
    """Parses captured text into a grid of cells; returns (grid, warnings)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last row
    grid: list[list[Cell]] = []
    warnings: list[str] = []
    attr = Attr()  # tmux carries attributes across lines until the next SGR
    for y, line in enumerate(lines):
        row: list[Cell] = []
        pos = 0
        for m in _ESC_RE.finditer(line):
            _put_text(row, line[pos : m.start()], attr)
            if m.group(3) == "m" and not m.group(2) and not (m.group(1) or "").startswith(("<", "=", ">", "?")):
                attr = apply_sgr(attr.copy(), m.group(1))
            pos = m.end()
        _put_text(row, line[pos:], attr)
        if cols is not None and len(row) > cols:
            warnings.append(f"row {y}: {len(row)} cells, wider than {cols} (width mismatch?)")
        grid.append(row)
    if cols is None:
        cols = max((len(r) for r in grid), default=1)
    if rows is None:
        rows = len(grid)
    grid = grid[:rows]
    while len(grid) < rows:
        grid.append([])
    for r in grid:
        del r[cols:]
        if r and r[-1].width == 2:  # a wide char cut at the right edge
            r[-1] = Cell(" ", r[-1].attr, 1)
        while len(r) < cols:
            r.append(Cell(" ", Attr(), 1))
    return grid, warnings


def _put_text(row: list[Cell], s: str, attr: Attr) -> None:
    for ch in s:
        if ch == "\t":
            for _ in range(8 - len(row) % 8):
                row.append(Cell(" ", attr.copy(), 1))
            continue
        if ch == "\r":
            continue
        w = char_width(ch)
        if w == 0:
            # A combining mark or zero-width joiner: attach to the previous character.
            target = next((c for c in reversed(row) if c.width != 0), None)
            if target is not None:
                target.ch += ch
            continue
        if w == 2:
            row.append(Cell(ch, attr.copy(), 2))
            row.append(Cell("", attr.copy(), 0))
        else:
            row.append(Cell(ch, attr.copy(), 1))


# --------------------------------------------------------------------------------------------
# Fonts
# --------------------------------------------------------------------------------------------

FONT_DIRS = ["/usr/share/fonts", "/usr/local/share/fonts", os.path.expanduser("~/.local/share/fonts")]
MONO = {
    (False, False): ["DejaVuSansMono.ttf"],
    (True, False): ["DejaVuSansMono-Bold.ttf"],
    (False, True): ["DejaVuSansMono-Oblique.ttf"],
    (True, True): ["DejaVuSansMono-BoldOblique.ttf"],
}
# Fallbacks for characters DejaVu Sans Mono lacks, tried in order (those present are used).
FALLBACK = [
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "NotoSansMono-Regular.ttf",
    "NotoSansSymbols2-Regular.ttf",
    "NotoSansSymbols-Regular.ttf",
    "NotoSansCJK-Regular.ttc",
    "NotoSansCJKsc-Regular.otf",
    "NotoSansMonoCJKsc-Regular.otf",
    "wqy-microhei.ttc",
    "wqy-zenhei.ttc",
    "DroidSansFallbackFull.ttf",
    "DroidSansFallback.ttf",
    "Symbola_hint.ttf",
    "Symbola.ttf",
    "unifont.ttf",
    "unifont.otf",
]


def find_font(name: str) -> Optional[str]:
    for d in FONT_DIRS:
        if not os.path.isdir(d):
            continue
        for root, _dirs, files in os.walk(d):
            if name in files:
                return os.path.join(root, name)
    return None


def ensure_dejavu() -> str:
    path = find_font("DejaVuSansMono.ttf")
    if path is None:
        _log("DejaVu Sans Mono is missing; installing fonts-dejavu-core")
        if not _apt_install("fonts-dejavu-core"):
            sys.exit("ansi_to_png: no DejaVuSansMono.ttf; install fonts-dejavu-core")
        path = find_font("DejaVuSansMono.ttf")
        if path is None:
            sys.exit("ansi_to_png: fonts-dejavu-core installed but DejaVuSansMono.ttf not found")
    return path


class Fonts:
    def __init__(self, size: int):
        self.size = size
        ensure_dejavu()
        self.mono: dict[tuple[bool, bool], tuple[ImageFont.FreeTypeFont, bool]] = {}
        for (bold, italic), names in MONO.items():
            path = next((p for p in (find_font(n) for n in names) if p), None)
            synth = False
            if path is None and italic:
                path = find_font(MONO[(bold, False)][0])
                synth = True  # no oblique face: shear the upright one
            if path is None:
                path = find_font(MONO[(False, False)][0])
            self.mono[(bold, italic)] = (ImageFont.truetype(path, size), synth)
        regular = self.mono[(False, False)][0]
        self.mono_cmap = _cmap(regular.path)
        ascent, descent = regular.getmetrics()
        self.ascent = ascent
        self.cell_w = round(regular.getlength("M"))
        self.cell_h = ascent + descent
        self.fallbacks: list[tuple[str, set[int]]] = []
        for n in FALLBACK:
            p = find_font(n)
            if p:
                try:
                    self.fallbacks.append((p, _cmap(p)))
                except Exception as e:  # an unreadable font file: skip it
                    _log(f"skipping font {p}: {e}")
        self._cache: dict[tuple[str, int], ImageFont.FreeTypeFont] = {}
        self.missing: set[str] = set()

    def font_at(self, path: str, size: int) -> ImageFont.FreeTypeFont:
        key = (path, size)
        if key not in self._cache:
            try:
                self._cache[key] = ImageFont.truetype(path, size)
            except OSError:
                # Bitmap-only fonts (colour emoji) load at their fixed strike size only.
                self._cache[key] = ImageFont.truetype(path, 109)
        return self._cache[key]

    def pick(self, ch: str, bold: bool, italic: bool):
        """(font, needs synthetic italic) for a character, or (None, False) when none has it."""
        cp = ord(ch[0])
        if cp in self.mono_cmap:
            font, synth = self.mono[(bold, italic)]
            return font, synth
        for path, cmap in self.fallbacks:
            if cp in cmap:
                if bold and path.endswith("DejaVuSans.ttf"):
                    b = path.replace("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
                    if os.path.exists(b):
                        path = b
                return self.font_at(path, self.size), italic
        self.missing.add(ch)
        return None, False


def _cmap(path: str) -> set[int]:
    kw = {"fontNumber": 0} if path.endswith((".ttc", ".otc")) else {}
    with TTFont(path, lazy=True, **kw) as f:
        return set(f.getBestCmap() or {})


# --------------------------------------------------------------------------------------------
# Box drawing and block elements, drawn as shapes so that lines join across cells
# --------------------------------------------------------------------------------------------

_WEIGHT = {"LIGHT": 1, "SINGLE": 1, "HEAVY": 2, "DOUBLE": 3}
_DIRS = {
    "UP": ("u",),
    "DOWN": ("d",),
    "LEFT": ("l",),
    "RIGHT": ("r",),
    "HORIZONTAL": ("l", "r"),
    "VERTICAL": ("u", "d"),
}


def box_segments(ch: str) -> Optional[dict]:
    """{'u'|'d'|'l'|'r': weight} for a box-drawing character, plus 'arc': True for ╭╮╯╰.

    Parsed from the Unicode name; dashed and diagonal lines return None (drawn from the font).
    """
    if len(ch) != 1 or not 0x2500 <= ord(ch) <= 0x257F:
        return None
    name = unicodedata.name(ch, "")
    if not name.startswith("BOX DRAWINGS ") or "DASH" in name or "DIAGONAL" in name:
        return None
    words = name[len("BOX DRAWINGS ") :].split()
    arc = "ARC" in words
    words = [w for w in words if w != "ARC"]
    groups = [g.split() for g in " ".join(words).split(" AND ")]
    segs: dict[str, int] = {}
    carry = None
    pending = []
    for g in groups:
        weights = [_WEIGHT[w] for w in g if w in _WEIGHT]
        dirs = [d for w in g if w in _DIRS for d in _DIRS[w]]
        wgt = weights[0] if weights else None
        if wgt is None:
            pending.extend(dirs)  # "LIGHT DOWN AND RIGHT": RIGHT takes the weight before it
            if carry is not None:
                for d in pending:
                    segs[d] = carry
                pending = []
            continue
        for d in dirs + pending:
            segs[d] = wgt
        pending = []
        carry = wgt
    for d in pending:
        segs[d] = carry or 1
    if not segs:
        return None
    if arc:
        segs["arc"] = True
    return segs


def draw_box(draw: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int, segs: dict, color, light: int) -> bool:
    """Draws a box-drawing character in the cell at (x, y); False when it needs the font."""
    weights = {k: v for k, v in segs.items() if k != "arc"}
    if 3 in weights.values():
        return draw_double(draw, x, y, w, h, weights, color, light)
    heavy = light * 2 + 1
    cx = x + (w - light) // 2  # left edge of a light vertical line
    cy = y + (h - light) // 2  # top edge of a light horizontal line

    def thick(wgt):
        return light if wgt == 1 else heavy

    if segs.get("arc"):
        # ╭ ╮ ╯ ╰: a quarter circle between two half lines.
        t = light
        r = max(2, min(w, h) // 2 - 1)
        mx, my = cx + t / 2, cy + t / 2  # centre of the cell's lines
        vert = "u" if "u" in weights else "d"
        horiz = "l" if "l" in weights else "r"
        sx = 1 if horiz == "r" else -1
        sy = 1 if vert == "d" else -1
        # circle centre, offset r from the cell centre towards the two ends
        ccx, ccy = mx + sx * r, my + sy * r
        bbox = [ccx - r - t / 2 + 0.5, ccy - r - t / 2 + 0.5, ccx + r + t / 2 - 0.5, ccy + r + t / 2 - 0.5]
        start = {(-1, -1): 0, (1, -1): 90, (1, 1): 180, (-1, 1): 270}[(sx, sy)]
        draw.arc(bbox, start, start + 90, fill=color, width=t)
        # straight parts from the arc's ends to the cell edges
        def bar(x0, y0, x1, y1):
            x0, x1 = sorted((round(x0), round(x1)))
            y0, y1 = sorted((round(y0), round(y1)))
            draw.rectangle([x0, y0, x1, y1], fill=color)

        if sy == 1:
            bar(cx, ccy, cx + t - 1, y + h - 1)
        else:
            bar(cx, y, cx + t - 1, ccy)
        if sx == 1:
            bar(ccx, cy, x + w - 1, cy + t - 1)
        else:
            bar(x, cy, ccx, cy + t - 1)
        return True

    # Each half line runs from the cell edge to the far side of the crossing line, so corners
    # and junctions are filled.
    vmax = max([thick(weights[d]) for d in "ud" if d in weights] or [0])
    hmax = max([thick(weights[d]) for d in "lr" if d in weights] or [0])
    for d, wgt in weights.items():
        t = thick(wgt)
        if d in "ud":
            left = x + (w - t) // 2
            top_mid = y + (h - hmax) // 2 if hmax else y + h // 2
            bot_mid = top_mid + hmax - 1 if hmax else y + h // 2
            if d == "u":
                draw.rectangle([left, y, left + t - 1, bot_mid], fill=color)
            else:
                draw.rectangle([left, top_mid, left + t - 1, y + h - 1], fill=color)
        else:
            top = y + (h - t) // 2
            l_mid = x + (w - vmax) // 2 if vmax else x + w // 2
            r_mid = l_mid + vmax - 1 if vmax else x + w // 2
            if d == "l":
                draw.rectangle([x, top, r_mid, top + t - 1], fill=color)
            else:
                draw.rectangle([l_mid, top, x + w - 1, top + t - 1], fill=color)
    return True


def draw_double(draw, x, y, w, h, weights, color, t) -> bool:
    """Double lines (═ ║ ╔ ╗ ╚ ╝ ╠ ╣ ╦ ╩ ╬ and the mixed single/double ones).

    Each arm is one stroke (single) or two strokes (double) at offsets from the cell's centre
    line. A stroke runs from its cell edge towards the centre and stops where it meets the
    strokes of the perpendicular arm on its side; with no arm on its side, it runs on to the
    centre (when the opposite arm continues it) or to the far stroke of the other side's arm.
    """
    g = t + 1  # the gap between the two strokes of a double line
    mx, my = x + (w - t) // 2, y + (h - t) // 2
    perp = {"u": "lr", "d": "lr", "l": "ud", "r": "ud"}
    opp = {"u": "d", "d": "u", "l": "r", "r": "l"}

    def offs(arm):
        wgt = weights.get(arm, 0)
        return [-g, g] if wgt == 3 else [0] if wgt else []

    for arm in weights:
        low = arm in "ul"  # this arm's edge is on the negative side of the centre
        for o in offs(arm):
            sides = perp[arm] if o == 0 else perp[arm][0 if o < 0 else 1]
            stops = []
            for side in sides:
                if weights.get(side):
                    stops.append(min(offs(side)) if low else max(offs(side)))
                elif weights.get(opp[arm]):
                    stops.append(0)
                elif weights.get(opp[side]):
                    stops.append(max(offs(opp[side])) if low else min(offs(opp[side])))
                else:
                    stops.append(0)
            stop = max(stops) if low else min(stops)
            if arm == "u":
                draw.rectangle([mx + o, y, mx + o + t - 1, my + stop + t - 1], fill=color)
            elif arm == "d":
                draw.rectangle([mx + o, my + stop, mx + o + t - 1, y + h - 1], fill=color)
            elif arm == "l":
                draw.rectangle([x, my + o, mx + stop + t - 1, my + o + t - 1], fill=color)
            else:
                draw.rectangle([mx + stop, my + o, x + w - 1, my + o + t - 1], fill=color)
    return True


def draw_block(draw: ImageDraw.ImageDraw, img: Image.Image, x, y, w, h, ch, fg, bg) -> bool:
    """Block elements U+2580..U+259F; False for anything else."""
    cp = ord(ch[0]) if len(ch) == 1 else 0
    if not 0x2580 <= cp <= 0x259F:
        return False
    rect = lambda x0, y0, x1, y1: draw.rectangle(  # noqa: E731
        [x + round(x0 * w), y + round(y0 * h), x + round(x1 * w) - 1, y + round(y1 * h) - 1], fill=fg
    )
    if cp == 0x2580:
        rect(0, 0, 1, 0.5)
    elif 0x2581 <= cp <= 0x2588:  # lower n/8 blocks and the full block
        rect(0, 1 - (cp - 0x2580) / 8, 1, 1)
    elif 0x2589 <= cp <= 0x258F:  # left n/8 blocks
        rect(0, 0, (0x2590 - cp) / 8, 1)
    elif cp == 0x2590:
        rect(0.5, 0, 1, 1)
    elif cp in (0x2591, 0x2592, 0x2593):  # shades
        draw.rectangle([x, y, x + w - 1, y + h - 1], fill=blend(bg, fg, (cp - 0x2590) / 4))
    elif cp == 0x2594:
        rect(0, 0, 1, 1 / 8)
    elif cp == 0x2595:
        rect(7 / 8, 0, 1, 1)
    else:  # quadrants ▖▗▘▙▚▛▜▝▞▟
        quads = {
            0x2596: "3", 0x2597: "4", 0x2598: "1", 0x2599: "134", 0x259A: "14",
            0x259B: "123", 0x259C: "124", 0x259D: "2", 0x259E: "23", 0x259F: "234",
        }[cp]
        for q in quads:
            qx, qy = (0, 0.5)[q in "24"], (0, 0.5)[q in "34"]
            rect(qx, qy, qx + 0.5, qy + 0.5)
    return True


# Symbols that none of the usual fonts have, drawn as simple shapes.
def draw_symbol(draw, x, y, w, h, ch, fg) -> bool:
    cp = ord(ch[0]) if len(ch) == 1 else 0
    s = min(w, h) * 0.62
    cx, cy = x + w / 2, y + h / 2 + h * 0.04
    if cp == 0x23F9:  # ⏹ stop
        draw.rectangle([cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2], fill=fg)
    elif cp == 0x23F8:  # ⏸ pause
        bw = s / 3
        draw.rectangle([cx - s / 2, cy - s / 2, cx - s / 2 + bw, cy + s / 2], fill=fg)
        draw.rectangle([cx + s / 2 - bw, cy - s / 2, cx + s / 2, cy + s / 2], fill=fg)
    elif cp == 0x23F5:  # ⏵ play
        draw.polygon([(cx - s / 2, cy - s / 2), (cx + s / 2, cy), (cx - s / 2, cy + s / 2)], fill=fg)
    else:
        return False
    return True


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


def cell_colors(a: Attr, bold_is_bright: bool):
    fg_c = a.fg
    if bold_is_bright and a.bold and isinstance(fg_c, int) and fg_c < 8:
        fg_c += 8
    fg = resolve(fg_c, DEFAULT_FG)
    bg = resolve(a.bg, DEFAULT_BG)
    if a.reverse:
        fg, bg = bg, fg
    if a.dim:
        fg = blend(fg, bg, 0.4)
    return fg, bg


def render(
    grid: list[list[Cell]],
    font_size: int = 16,
    padding: int = 12,
    cursor: Optional[tuple[int, int]] = None,
    bold_is_bright: bool = False,
) -> tuple[Image.Image, Fonts]:
    fonts = Fonts(font_size)
    cw, ch = fonts.cell_w, fonts.cell_h
    rows = len(grid)
    cols = max((len(r) for r in grid), default=0)
    img = Image.new("RGB", (cols * cw + 2 * padding, rows * ch + 2 * padding), DEFAULT_BG)
    draw = ImageDraw.Draw(img)
    light = max(1, round(font_size / 11))

    def cell_xy(cx_, cy_):
        return padding + cx_ * cw, padding + cy_ * ch

    # Backgrounds first, so that glyphs overhanging a cell are not painted over.
    for y, row in enumerate(grid):
        for x, cell in enumerate(row):
            if cell.width == 0:
                continue
            _fg, bg = cell_colors(cell.attr, bold_is_bright)
            if cursor == (x, y):
                _fg, bg = bg, _fg
            if bg != DEFAULT_BG:
                px, py = cell_xy(x, y)
                draw.rectangle([px, py, px + cw * cell.width - 1, py + ch - 1], fill=bg)

    for y, row in enumerate(grid):
        for x, cell in enumerate(row):
            if cell.width == 0:
                continue
            a = cell.attr
            fg, bg = cell_colors(a, bold_is_bright)
            if cursor == (x, y):
                fg, bg = bg, fg
            px, py = cell_xy(x, y)
            span = cw * cell.width
            c = cell.ch
            if not a.hidden and c not in (" ", ""):
                draw_glyph(img, draw, fonts, px, py, span, ch, c, a, fg, bg, light)
            ul = a.ul_color and resolve(a.ul_color, fg) or fg
            base = py + fonts.ascent
            if a.underline:
                uy = min(py + ch - 1, base + max(1, ch // 12))
                if a.underline == 2:
                    draw.line([px, uy - 1, px + span - 1, uy - 1], fill=ul)
                    draw.line([px, uy + 1, px + span - 1, uy + 1], fill=ul)
                else:
                    draw.line([px, uy, px + span - 1, uy], fill=ul, width=light)
            if a.strike:
                sy = py + round(fonts.ascent * 0.62)
                draw.line([px, sy, px + span - 1, sy], fill=fg, width=light)
            if a.overline:
                draw.line([px, py, px + span - 1, py], fill=fg, width=light)
    return img, fonts


def draw_glyph(img, draw, fonts: Fonts, px, py, span, ch_h, c, a: Attr, fg, bg, light) -> None:
    segs = box_segments(c)
    if segs is not None and draw_box(draw, px, py, span, ch_h, segs, fg, light):
        return
    if draw_block(draw, img, px, py, span, ch_h, c, fg, bg):
        return
    font, synth_italic = fonts.pick(c, a.bold, a.italic)
    if font is None:
        if draw_symbol(draw, px, py, span, ch_h, c, fg):
            return
        # No font has it: a hollow box, as terminals do.
        draw.rectangle([px + 1, py + 2, px + span - 2, py + ch_h - 3], outline=fg)
        return
    size = font.size
    adv = font.getlength(c)
    if adv > span * 1.05:
        # A fallback glyph wider than its cells (a wide CJK or symbol font): shrink it to fit.
        size = max(6, math.floor(size * span / adv))
        font = fonts.font_at(font.path, size)
        adv = font.getlength(c)
    # Baseline at the primary font's ascent; centre glyphs narrower than their cells.
    fallback = ord(c[0]) not in fonts.mono_cmap
    gx = px + max(0, (span - adv) / 2) if fallback else px
    gy = py + fonts.ascent
    if not synth_italic:
        draw.text((gx, gy), c, font=font, fill=fg, anchor="ls")
        return
    # Synthetic italic: draw on a small transparent layer, shear it, paste it.
    pad = span
    layer = Image.new("L", (span + 2 * pad, ch_h), 0)
    ImageDraw.Draw(layer).text((gx - px + pad, fonts.ascent), c, font=font, fill=255, anchor="ls")
    k = 0.2
    layer = layer.transform(layer.size, Image.AFFINE, (1, k, -k * fonts.ascent, 0, 1, 0), resample=Image.BILINEAR)
    img.paste(Image.new("RGB", layer.size, fg), (px - pad, py), layer)


# --------------------------------------------------------------------------------------------
# Command line and self-test
# --------------------------------------------------------------------------------------------


# Debian packages that cover what DejaVu lacks: CJK (WenQuanYi Micro Hei) and symbols / emoji
# (Symbola). Installed only when a screen needs them and the script runs as root.
EXTRA_FONT_PACKAGES = ["fonts-wqy-microhei", "fonts-symbola"]


def convert(text: str, out: str, cols=None, rows=None, font_size=16, padding=12, cursor=None,
            bold_is_bright=False, install=True):
    grid, warnings = parse(text, cols, rows)
    for w in warnings:
        _log(f"warning: {w}")
    img, fonts = render(grid, font_size, padding, cursor, bold_is_bright)
    if fonts.missing and install and _is_root():
        _log(f"installing {' '.join(EXTRA_FONT_PACKAGES)} for characters DejaVu lacks")
        if _apt_install(*EXTRA_FONT_PACKAGES):
            img, fonts = render(grid, font_size, padding, cursor, bold_is_bright)
    if fonts.missing:
        _log("warning: no font has " + " ".join(f"{m} (U+{ord(m[0]):04X})" for m in sorted(fonts.missing)))
    img.save(out, optimize=True)
    return img, grid


SAMPLE = (
    "\x1b[1;36m# Heading\x1b[0m plain \x1b[3mitalic\x1b[23m \x1b[1mbold\x1b[22m \x1b[2mdim\x1b[22m "
    "\x1b[4munder\x1b[24m \x1b[9mstrike\x1b[29m \x1b[7mreverse\x1b[27m \x1b[1;3mbold-italic\x1b[0m\n"
    + "".join(f"\x1b[{30 + i}m{i}" for i in range(8))
    + " "
    + "".join(f"\x1b[{90 + i}m{i + 8:X}" for i in range(8))
    + "\x1b[39m "
    + "".join(f"\x1b[{40 + i}m " for i in range(8))
    + "".join(f"\x1b[{100 + i}m " for i in range(8))
    + "\x1b[49m "
    + "".join(f"\x1b[48;5;{n}m " for n in range(16, 232, 9))
    + "\x1b[0m\n"
    + "".join(f"\x1b[38;2;{255 - i * 8};{i * 8};128m█" for i in range(32))
    + "\x1b[0m truecolor \x1b[38:2::255:128:0mcolon\x1b[0m \x1b[38;5;208m256:208\x1b[0m\n"
    "\x1b[90m┌──────┬──────┐\x1b[0m ╭────╮ ┏━━┳━━┓ ╔══╦══╗ \x1b[32m✓\x1b[0m ok \x1b[31m✗\x1b[0m fail ⏹ ◐ ○ ⊘ ⏎\n"
    "\x1b[90m│\x1b[0m 漢字 \x1b[90m│\x1b[0m cell \x1b[90m│\x1b[0m │ab  │ ┃  ┃  ┃ ║  ║  ║ › • · — … ▼ ← → ↑ ↓\n"
    "\x1b[90m├──────┼──────┤\x1b[0m ╰────╯ ┣━━╋━━┫ ╠══╬══╣ ▁▂▃▄▅▆▇█ ▏▎▍▌▋▊▉ ░▒▓ ▘▝▖▗\n"
    "\x1b[90m│\x1b[0m 日本 \x1b[90m│\x1b[0m かな \x1b[90m│\x1b[0m ┆dash┆ ┗━━┻━━┛ ╚══╩══╝ é ö ½ © e\u0301 😀 🦀\n"
    "\x1b[90m└──────┴──────┘\x1b[0m \x1b]8;;https://example.com\x1b\\\x1b[34;4mlink\x1b[0m\x1b]8;;\x1b\\ "
    "\x1b[7;32m AUTO \x1b[0m\x1b[48;5;236m status bar with a background                \x1b[0m\n"
    "\x1b[41;97m white on red \x1b[0m \x1b[43;30m black on yellow \x1b[0m \x1b[2;3;90mdim italic grey\x1b[0m "
    "\x1b[1;35m› \x1b[0muser text\x1b[K tail\n"
)


def self_test(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    cols, rows = 96, 10
    grid, warnings = parse(SAMPLE, cols, rows)
    assert not warnings, warnings
    # attributes and colours
    assert grid[0][0].ch == "#" and grid[0][0].attr.bold and grid[0][0].attr.fg == 6
    row0 = "".join(c.ch for c in grid[0])
    assert row0.startswith("# Heading plain italic bold dim under strike reverse bold-italic"), row0
    it = row0.index("italic")
    assert grid[0][it].attr.italic and not grid[0][it + 7].attr.italic
    assert grid[1][0].attr.fg == 0 and grid[1][9].attr.fg == 8 and grid[1][16].attr.fg == 15
    assert grid[2][0].attr.fg == (255, 0, 128)
    col = "".join(c.ch for c in grid[2]).index("colon")
    assert grid[2][col].attr.fg == (255, 128, 0), grid[2][col].attr
    n = "".join(c.ch for c in grid[2]).index("256:208")
    assert grid[2][n].attr.fg == 208
    # wide characters take two cells, and the columns after them stay aligned
    assert grid[4][2].ch == "漢" and grid[4][2].width == 2 and grid[4][3].width == 0
    assert grid[4][7].ch == "│" and grid[3][7].ch == "┬", (grid[4][7].ch, grid[3][7].ch)
    assert grid[6][2].ch == "日" and grid[6][9].ch == "か" and grid[6][14].ch == "│"
    # combining accents join their base; the emoji are wide
    e_acute = [c for c in grid[6] if c.ch.startswith("e\u0301")]
    assert e_acute, "combining mark not attached"
    crab = next(i for i, c in enumerate(grid[6]) if c.ch == "🦀")
    assert grid[6][crab].width == 2
    # OSC 8 hyperlinks are skipped, the link text keeps its style
    r7 = "".join(c.ch for c in grid[7])
    assert "link  AUTO " in r7 and grid[7][r7.index("link")].attr.underline == 1
    assert grid[7][r7.index("AUTO")].attr.reverse
    # reset by SGR 0 and by an empty SGR
    assert apply_sgr(Attr(bold=True, fg=3), "").fg is None
    assert apply_sgr(Attr(bold=True), "0").bold is False
    assert apply_sgr(Attr(), "1;2;22").bold is False
    a = apply_sgr(Attr(), "38;5;8;48;2;1;2;3;1")
    assert a.fg == 8 and a.bg == (1, 2, 3) and a.bold
    # box drawing names
    assert box_segments("┌") == {"d": 1, "r": 1}
    assert box_segments("┼") == {"u": 1, "d": 1, "l": 1, "r": 1}
    assert box_segments("╭") == {"d": 1, "r": 1, "arc": True}
    assert box_segments("┡") == {"u": 2, "r": 2, "d": 1}, box_segments("┡")
    assert box_segments("╔") == {"d": 3, "r": 3}
    assert box_segments("╒") == {"d": 1, "r": 3}, box_segments("╒")
    assert box_segments("┆") is None
    # the render: a known background, the padding, and cell-exact size
    img, _ = convert(SAMPLE, os.path.join(out_dir, "self-test.png"), cols, rows, cursor=(40, 9))
    fonts = Fonts(16)
    assert img.size == (cols * fonts.cell_w + 24, rows * fonts.cell_h + 24), img.size
    assert img.getpixel((2, 2)) == DEFAULT_BG
    # horizontal box lines are continuous across the whole border (no gaps between cells)
    y_mid = 12 + 5 * fonts.cell_h + (fonts.cell_h - 1) // 2
    grey = PALETTE_16[8]
    x0 = 12 + (fonts.cell_w - 1) // 2
    row_px = [img.getpixel((x, y_mid)) for x in range(x0, x0 + 14 * fonts.cell_w + 1)]
    assert all(p == grey for p in row_px), "├──┼──┤ has gaps"
    # and vertical ones across rows
    x_mid = 12 + (fonts.cell_w - 1) // 2
    col_px = [img.getpixel((x_mid, y)) for y in range(12 + 4 * fonts.cell_h, 12 + 7 * fonts.cell_h)]
    assert all(p == grey for p in col_px), "│ column has gaps"
    # every box-drawing and block character renders without a font
    all_box = "".join(chr(c) for c in range(0x2500, 0x25A0))
    convert(all_box[:64] + "\n" + all_box[64:128] + "\n" + all_box[128:] + "\n",
            os.path.join(out_dir, "self-test-box.png"), 70, 3, font_size=28)
    print(f"self-test passed; look at {out_dir}/self-test.png and self-test-box.png")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input", nargs="?", help="captured text (`-` for stdin)")
    ap.add_argument("output", nargs="?", help="PNG to write")
    ap.add_argument("--cols", type=int, help="terminal width in cells [widest line]")
    ap.add_argument("--rows", type=int, help="terminal height in rows [number of lines]")
    ap.add_argument("--font-size", type=int, default=16, help="pixels [16]")
    ap.add_argument("--padding", type=int, default=12, help="pixels around the grid [12]")
    ap.add_argument("--cursor", help="X,Y: draw a block cursor at this cell (0-based)")
    ap.add_argument("--bold-is-bright", action="store_true", help="bold ANSI 0-7 use the bright colours")
    ap.add_argument("--no-install", action="store_true", help="never apt-get install extra fonts")
    ap.add_argument("--self-test", metavar="OUT_DIR", help="run the unit checks, write sample PNGs there")
    args = ap.parse_args()
    if args.self_test:
        self_test(args.self_test)
        return
    if not args.input or not args.output:
        ap.error("input and output are required")
    if args.input == "-":
        text = sys.stdin.buffer.read().decode("utf-8", "replace")
    else:
        with open(args.input, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    cursor = tuple(int(v) for v in args.cursor.split(",")) if args.cursor else None
    convert(text, args.output, args.cols, args.rows, args.font_size, args.padding, cursor,
            args.bold_is_bright, not args.no_install)


if __name__ == "__main__":
    main()
