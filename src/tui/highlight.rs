//! Syntax highlighting for fenced code, with syntect, two-face's bundled syntaxes (bat's set)
//! and bat's `ansi` theme.
//!
//! The `ansi` theme names *palette* colours instead of RGB values, so code follows the
//! terminal's own palette and reads on light and dark backgrounds alike. bat encodes them in
//! syntect's RGBA colour: alpha `0x00` means "palette colour number `r`" (0–7, or 8–255 for
//! the extended palette), alpha `0x01` means "the terminal's default colour" (no escape at all).
//! See bat's `to_ansi_color` (`src/terminal.rs`). Other alphas would be true colours; the
//! `ansi` theme has none, but they are mapped to RGB for safety. Backgrounds are ignored.
//!
//! The syntax set and theme are deserialized once, on first use: ~2 ms in a release build
//! (~60 ms in debug), so nothing loads them before the first code block. Each syntax's
//! contexts are decompressed, and its regexes compiled, lazily on first use; [`warm_up`] primes
//! Rust, Python and Bash. The regexes run on Oniguruma (syntect's `regex-onig`): its compiled
//! grammars are small bytecode, where fancy-regex's automata held ~30 MiB for the four
//! languages of a long reply, and the TUI's 1 MiB markdown reply costs 0.60 s of CPU instead of
//! 2.14 s (BENCHMARKS.md, issue 26). The TUI calls
//! [`load_in_background`]: then the first code block starts the loading (and the warm-up) on
//! another thread and is shown plain until it is done; elsewhere (tests, benches) the first
//! call loads them on the spot. While a code block streams in, the state after its last
//! complete line is kept (per thread: Oniguruma's state is not `Send`) and the next call
//! resumes from it.
//!
//! Limits (as in Codex): code over 512 KiB, over 10,000 lines, or with a line over 10,000
//! bytes is not highlighted — regex-based highlighting of such input can take seconds.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{self as sh, FontStyle, HighlightState};
use syntect::parsing::{ParseState, SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;
use two_face::theme::EmbeddedThemeName;
use unicode_width::UnicodeWidthChar;

/// Code above this size is shown without highlighting.
const MAX_BYTES: usize = 512 * 1024;
/// Code with more lines than this is shown without highlighting.
const MAX_LINES: usize = 10_000;
/// Code with a line longer than this (bytes) is shown without highlighting.
const MAX_LINE_BYTES: usize = 10_000;
/// Tab stops every this many columns.
const TAB_WIDTH: usize = 4;

struct Assets {
    syntaxes: SyntaxSet,
    theme: sh::Theme,
}

static ASSETS: OnceLock<Assets> = OnceLock::new();

fn assets() -> &'static Assets {
    ASSETS.get_or_init(|| Assets {
        syntaxes: two_face::syntax::extra_newlines(),
        theme: two_face::theme::extra()
            .get(EmbeddedThemeName::Ansi)
            .clone(),
    })
}

/// Set by [`load_in_background`]: what to call once the assets are loaded.
static ON_READY: OnceLock<Box<dyn Fn() + Send + Sync>> = OnceLock::new();
static LOADING: AtomicBool = AtomicBool::new(false);

/// From now on the assets load off the calling thread, on the first code block (which is shown
/// plain); `on_ready` is called when they are there. Once per process; later calls are ignored.
pub fn load_in_background(on_ready: impl Fn() + Send + Sync + 'static) {
    let _ = ON_READY.set(Box::new(on_ready));
}

/// The assets when they can be used now; `None` while they load in the background.
fn ready_assets() -> Option<&'static Assets> {
    if let Some(a) = ASSETS.get() {
        return Some(a);
    }
    let Some(on_ready) = ON_READY.get() else {
        return Some(assets());
    };
    if !LOADING.swap(true, Ordering::SeqCst) {
        std::thread::spawn(move || {
            warm_up();
            on_ready();
        });
    }
    None
}

/// Load the syntaxes and the theme now, and compile the regexes of a few common languages
/// (they compile lazily, on first use). Idempotent; meant
/// for a background thread at startup.
pub fn warm_up() {
    let _ = assets();
    for (lang, code) in [
        ("rust", "fn f(x: &str) -> u8 { let s = \"a\"; 1 } // c\n"),
        ("python", "def f(x):\n    return \"a\" # c\n"),
        ("bash", "for f in *; do echo \"$f\"; done # c\n"),
    ] {
        let _ = highlight_code(code, lang);
    }
}

/// Highlight `code` written in `lang` (a fence info token such as `rust`, `rs`, `py`, `sh`,
/// `toml`, `diff`; matched by file extension, then by syntax name, then by a few aliases).
/// Returns one line per source line, without the line ends; tabs are expanded and control
/// characters removed. An empty or unknown language, input over the limits, or any error gives
/// plain unstyled lines. Never panics.
pub fn highlight_code(code: &str, lang: &str) -> Vec<Line<'static>> {
    let lang = lang.trim();
    if lang.is_empty()
        || code.len() > MAX_BYTES
        || code.lines().count() > MAX_LINES
        || code.lines().any(|l| l.len() > MAX_LINE_BYTES)
    {
        return plain_lines(code);
    }
    let Some(assets) = ready_assets() else {
        return plain_lines(code);
    };
    let highlighted = super::terminal::catching(|| {
        let syntax = find_syntax(&assets.syntaxes, lang)?;
        highlight_with(assets, syntax, lang, code)
    });
    match highlighted {
        Ok(Some(lines)) => lines,
        _ => plain_lines(code),
    }
}

/// Whether `lang` names a known syntax (loads the syntaxes).
pub fn is_known_language(lang: &str) -> bool {
    let lang = lang.trim();
    !lang.is_empty() && find_syntax(&assets().syntaxes, lang).is_some()
}

fn find_syntax<'a>(set: &'a SyntaxSet, lang: &str) -> Option<&'a SyntaxReference> {
    let lower = lang.to_ascii_lowercase();
    let alias = match lower.as_str() {
        "shell" | "console" | "shellsession" | "zsh" | "ksh" | "sh-session" => "sh",
        "c++" => "cpp",
        "c#" | "csharp" => "cs",
        "golang" => "go",
        "objc" | "objective-c" => "m",
        "jsonc" | "json5" => "json",
        "docker" => "dockerfile",
        "patch" => "diff",
        "text" | "txt" | "plain" | "plaintext" => return None,
        other => other,
    };
    set.find_syntax_by_token(&lower)
        .or_else(|| set.find_syntax_by_token(alias))
        .filter(|s| s.name != "Plain Text")
}

/// The last highlighted code, to resume from while a code block streams in: if the next
/// call's code extends `code` (complete lines only), only the new lines are highlighted.
struct Resume {
    lang: String,
    code: String,
    lines: Vec<Line<'static>>,
    parse: ParseState,
    highlight: HighlightState,
}

thread_local! {
    // Per thread: Oniguruma's parse state holds raw pointers (not `Send`), and the UI thread is
    // the one that streams.
    static RESUME: std::cell::RefCell<Option<Resume>> = const { std::cell::RefCell::new(None) };
}

fn highlight_with(
    assets: &'static Assets,
    syntax: &SyntaxReference,
    lang: &str,
    code: &str,
) -> Option<Vec<Line<'static>>> {
    let cached = RESUME
        .with(|c| c.borrow_mut().take())
        .filter(|c| c.lang == lang && code.starts_with(&c.code));
    let (mut h, mut out, start) = match cached {
        Some(c) => (
            HighlightLines::from_state(&assets.theme, c.highlight, c.parse),
            c.lines,
            c.code.len(),
        ),
        None => (HighlightLines::new(syntax, &assets.theme), Vec::new(), 0),
    };
    // Complete lines first; remember the state after them; then the unfinished last line.
    let complete_end = code.rfind('\n').map_or(0, |i| i + 1).max(start);
    for line in LinesWithEndings::from(&code[start..complete_end]) {
        out.push(highlight_one(&mut h, assets, line)?);
    }
    let (hs, ps) = h.state();
    let resume = Resume {
        lang: lang.to_string(),
        code: code[..complete_end].to_string(),
        lines: out.clone(),
        parse: ps.clone(),
        highlight: hs.clone(),
    };
    let mut h = HighlightLines::from_state(&assets.theme, hs, ps);
    for line in LinesWithEndings::from(&code[complete_end..]) {
        out.push(highlight_one(&mut h, assets, line)?);
    }
    RESUME.with(|c| *c.borrow_mut() = Some(resume));
    Some(out)
}

fn highlight_one(h: &mut HighlightLines<'_>, assets: &Assets, line: &str) -> Option<Line<'static>> {
    let regions = h.highlight_line(line, &assets.syntaxes).ok()?;
    let mut b = LineBuilder::default();
    for (style, text) in regions {
        b.push(text, convert_style(style));
    }
    Some(b.finish())
}

/// Unstyled lines (tabs drawn as the tab mark, control characters removed).
pub fn plain_lines(code: &str) -> Vec<Line<'static>> {
    code.lines()
        .map(|l| {
            let mut b = LineBuilder::default();
            b.push(l, Style::default());
            b.finish()
        })
        .collect()
}

/// Accumulates styled text into a line: merges runs of one style, draws a tab as the dim tab
/// mark padded to the next tab stop, drops control characters (including the line end).
#[derive(Default)]
struct LineBuilder {
    spans: Vec<Span<'static>>,
    buf: String,
    style: Style,
    col: usize,
}

impl LineBuilder {
    fn push(&mut self, text: &str, style: Style) {
        if style != self.style && !self.buf.is_empty() {
            self.flush();
        }
        self.style = style;
        for c in text.chars() {
            if c == '\t' {
                // Drawn as the dim mark the rest of the screen uses (`tabs::TAB_MARK`), so a tab
                // in code shows as a tab.
                let n = TAB_WIDTH - self.col % TAB_WIDTH;
                self.flush();
                self.spans.push(Span::styled(
                    super::tabs::TAB_MARK,
                    self.style.add_modifier(ratatui::style::Modifier::DIM),
                ));
                self.buf.extend(std::iter::repeat_n(' ', n - 1));
                self.col += n;
            } else if !c.is_control() {
                self.buf.push(c);
                self.col += c.width().unwrap_or(0);
            }
        }
    }

    fn flush(&mut self) {
        if !self.buf.is_empty() {
            self.spans
                .push(Span::styled(std::mem::take(&mut self.buf), self.style));
        }
    }

    fn finish(mut self) -> Line<'static> {
        self.flush();
        Line::from(self.spans)
    }
}

fn convert_style(s: sh::Style) -> Style {
    let mut out = Style::default();
    if let Some(fg) = convert_color(s.foreground) {
        out = out.fg(fg);
    }
    if s.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if s.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if s.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

/// bat's palette encoding: alpha 0 → palette index `r`; alpha 1 → terminal default.
fn convert_color(c: sh::Color) -> Option<Color> {
    match c.a {
        0x00 => Some(match c.r {
            0 => Color::Black,
            1 => Color::Red,
            2 => Color::Green,
            3 => Color::Yellow,
            4 => Color::Blue,
            5 => Color::Magenta,
            6 => Color::Cyan,
            7 => Color::Gray,
            8 => Color::DarkGray,
            9 => Color::LightRed,
            10 => Color::LightGreen,
            11 => Color::LightYellow,
            12 => Color::LightBlue,
            13 => Color::LightMagenta,
            14 => Color::LightCyan,
            15 => Color::White,
            n => Color::Indexed(n),
        }),
        0x01 => None,
        _ => Some(Color::Rgb(c.r, c.g, c.b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn ansi_theme_uses_palette_encoding() {
        let theme = &assets().theme;
        let mut alphas = std::collections::BTreeSet::new();
        for item in &theme.scopes {
            if let Some(c) = item.style.foreground {
                alphas.insert(c.a);
                if c.a == 0 {
                    assert!(c.g == 0 && c.b == 0, "palette colour with g/b set: {c:?}");
                }
            }
        }
        assert!(alphas.contains(&0), "the ansi theme names palette colours");
        assert!(
            alphas.iter().all(|a| *a <= 1),
            "unexpected alphas {alphas:?}"
        );
        let fg = theme.settings.foreground.expect("default foreground");
        assert_eq!(
            convert_color(fg),
            None,
            "default foreground is the terminal's"
        );
    }

    #[test]
    fn rust_keyword_is_coloured() {
        let lines = highlight_code("fn main() {\n    let x = 1;\n}\n", "rust");
        assert_eq!(text(&lines), ["fn main() {", "    let x = 1;", "}"]);
        let kw = lines[0]
            .spans
            .iter()
            .find(|s| s.content == "fn")
            .expect("fn span");
        assert!(kw.style.fg.is_some(), "{kw:?}");
        let let_ = lines[1]
            .spans
            .iter()
            .find(|s| s.content == "let")
            .expect("let span");
        assert!(let_.style.fg.is_some(), "{let_:?}");
        // Only named palette colours.
        for span in lines.iter().flat_map(|l| &l.spans) {
            assert!(!matches!(span.style.fg, Some(Color::Rgb(..))), "{span:?}");
        }
    }

    #[test]
    fn languages_by_token_extension_and_name() {
        for lang in [
            "rust",
            "rs",
            "py",
            "python",
            "js",
            "javascript",
            "ts",
            "typescript",
            "sh",
            "bash",
            "shell",
            "zsh",
            "toml",
            "json",
            "diff",
            "yaml",
            "yml",
            "go",
            "c",
            "cpp",
            "c++",
            "html",
            "css",
            "sql",
            "Rust",
            "md",
            "dockerfile",
        ] {
            assert!(is_known_language(lang), "{lang}");
        }
        for lang in ["", "nonsense-lang", "text"] {
            assert!(!is_known_language(lang), "{lang}");
        }
    }

    #[test]
    fn unknown_or_empty_language_is_plain() {
        for lang in ["", "nonsense-lang"] {
            let lines = highlight_code("a\tb\n\nc", lang);
            // The tab shows as the dim tab mark, padded to the next stop.
            assert_eq!(text(&lines), ["a→  b", "", "c"]);
            assert!(lines.iter().flat_map(|l| &l.spans).all(|s| {
                s.style == Style::default()
                    || (s.content == super::super::tabs::TAB_MARK
                        && s.style == Style::default().add_modifier(ratatui::style::Modifier::DIM))
            }));
        }
    }

    #[test]
    fn line_count_matches_source() {
        for (code, n) in [
            ("", 0),
            ("\n", 1),
            ("a", 1),
            ("a\n", 1),
            ("a\n\nb\n", 3),
            ("a\r\nb", 2),
        ] {
            assert_eq!(highlight_code(code, "rust").len(), n, "{code:?}");
            assert_eq!(highlight_code(code, "").len(), n, "{code:?}");
        }
        assert_eq!(text(&highlight_code("a\r\nb", "py")), ["a", "b"]);
    }

    #[test]
    fn streaming_resume_matches_full_highlight() {
        // Feed a code block a few bytes at a time, as a stream would; every result must equal
        // highlighting that text from scratch (a different language in between evicts the
        // cached state, forcing a fresh start).
        let code = "/* a\n multi-line comment */\nfn main() {\n    let s = \"str\\n\";\n}\n";
        let mut end = 0;
        while end < code.len() {
            end = (end + 5).min(code.len());
            while !code.is_char_boundary(end) {
                end += 1;
            }
            let streamed = highlight_code(&code[..end], "rust");
            let _ = highlight_code("x = 1\n", "python");
            let fresh = highlight_code(&code[..end], "rust");
            assert_eq!(streamed, fresh, "at {end}");
        }
        // Continuing from the cache: the comment state carries across calls.
        let a = highlight_code("/* open\n", "rust");
        let b = highlight_code("/* open\nstill comment */ fn\n", "rust");
        assert_eq!(a[0], b[0]);
        let _ = highlight_code("", "python");
        assert_eq!(b, highlight_code("/* open\nstill comment */ fn\n", "rust"));
    }

    #[test]
    fn diff_lines_are_coloured() {
        let lines = highlight_code("--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n", "diff");
        let add = &lines[4];
        assert!(add.spans.iter().any(|s| s.style.fg.is_some()), "{add:?}");
    }

    #[test]
    fn odd_input_does_not_panic() {
        let inputs = [
            "\u{0}\u{1b}[31m\u{7f}",
            "\"unterminated string",
            "/* unterminated comment",
            "r#\"raw",
            "é\u{301}漢字😀\t\t|",
            "\n\n\n",
        ];
        for code in inputs {
            for lang in ["rust", "py", "sh", "json", "diff", "html", "md"] {
                let lines = highlight_code(code, lang);
                for l in &lines {
                    assert!(!l.to_string().chars().any(char::is_control), "{l:?}");
                }
            }
        }
    }
}
