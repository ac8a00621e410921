//! Stripping ANSI escape sequences from captured command output (SPEC §4.2).
//!
//! Owns one job: turn what a program wrote for a terminal into plain text for the model and the
//! chat pane. It removes
//!
//! - CSI sequences: `ESC [` (or the 8-bit C1 form U+009B), parameter bytes `0x30–0x3F`,
//!   intermediate bytes `0x20–0x2F`, then one final byte `0x40–0x7E` (colours, cursor movement,
//!   erase, modes);
//! - string sequences: OSC `ESC ]` (terminated by BEL, `ESC \` or U+009C), and DCS `ESC P`,
//!   SOS `ESC X`, PM `ESC ^`, APC `ESC _` (terminated by `ESC \` or U+009C). CAN/SUB abort a
//!   string and are dropped with it; any other `ESC` ends the string and starts a new sequence;
//! - the other escapes: `ESC` + intermediates `0x20–0x2F` + a final `0x30–0x7E` (charset
//!   selection such as `ESC ( B`, `ESC # 8`) and `ESC` + one byte `0x30–0x7E` (`ESC 7`, `ESC M`,
//!   `ESC c`, `ESC =`);
//! - a `\r` directly before a `\n` (CRLF → LF), also when an escape sequence stood between them.
//!
//! Invariants: text outside escape sequences is kept byte for byte (Unicode included; other
//! `\r` and control characters stay); a sequence cut off by the end of the input is dropped;
//! a malformed CSI ends at the first byte that cannot belong to it and that byte is kept; a lone
//! `ESC` followed by something that cannot start a sequence is dropped alone.
//!
//! It does not interpret anything: no cursor emulation (`\r` progress bars, backspaces and
//! `ESC [ K` are not replayed), no C1 controls other than U+009B (CSI) and U+009C (ST).

const ESC: u8 = 0x1b;
/// First byte of the UTF-8 encoding of U+0080–U+00BF (so of U+009B and U+009C).
const C2: u8 = 0xc2;
/// Second byte of U+009B, the 8-bit CSI.
const C1_CSI: u8 = 0x9b;
/// Second byte of U+009C, the 8-bit string terminator.
const C1_ST: u8 = 0x9c;

/// Returns `s` without ANSI escape sequences and with CRLF turned into LF.
///
/// When `s` holds no `ESC`, no U+009B and no `\r`, this is a plain copy.
pub fn strip_ansi(s: &str) -> String {
    if needs_work(s) {
        strip_slow(s)
    } else {
        s.to_owned()
    }
}

/// Like [`strip_ansi`] for an owned string: returns `s` itself (no copy) when there is nothing
/// to strip.
pub fn strip_ansi_owned(s: String) -> String {
    if needs_work(&s) { strip_slow(&s) } else { s }
}

/// Whether `s` may contain something to remove. `0xC2` is the lead byte of U+009B (and of other
/// characters, which merely send us down the slow path).
fn needs_work(s: &str) -> bool {
    memchr::memchr3(ESC, C2, b'\r', s.as_bytes()).is_some()
}

fn strip_slow(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    // Start of the pending run of plain text, and the scan position. Both always sit on char
    // boundaries when text is copied: sequences only start at ASCII bytes or at a whole U+009B,
    // and end at ASCII bytes, after a whole U+009C, or at the end of the input.
    let mut text_start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            ESC => {
                push_text(&mut out, &s[text_start..i]);
                i = skip_escape(b, i);
                text_start = i;
            }
            C2 if b.get(i + 1) == Some(&C1_CSI) => {
                push_text(&mut out, &s[text_start..i]);
                i = skip_csi_body(b, i + 2);
                text_start = i;
            }
            b'\r' if b.get(i + 1) == Some(&b'\n') => {
                push_text(&mut out, &s[text_start..i]);
                out.push('\n');
                i += 2;
                text_start = i;
            }
            _ => i += 1,
        }
    }
    push_text(&mut out, &s[text_start..]);
    out
}

/// Appends a run of plain text, dropping a `\r` left at the end of `out` when the run starts a
/// new line (a CR and an LF that an escape sequence separated).
fn push_text(out: &mut String, text: &str) {
    if text.starts_with('\n') && out.ends_with('\r') {
        out.pop();
    }
    out.push_str(text);
}

/// `b[i]` is `ESC`; returns the index just after the sequence it starts.
fn skip_escape(b: &[u8], i: usize) -> usize {
    let Some(&next) = b.get(i + 1) else {
        return b.len(); // a lone ESC at the very end
    };
    match next {
        b'[' => skip_csi_body(b, i + 2),
        b']' => skip_string_body(b, i + 2, true),
        b'P' | b'X' | b'^' | b'_' => skip_string_body(b, i + 2, false),
        0x20..=0x2f => {
            // nF escape: intermediates, then one final byte.
            let mut j = i + 1;
            while j < b.len() && (0x20..=0x2f).contains(&b[j]) {
                j += 1;
            }
            if j < b.len() && (0x30..=0x7e).contains(&b[j]) {
                j + 1
            } else {
                j
            }
        }
        0x30..=0x7e => i + 2,
        // ESC before a control, DEL, another ESC or non-ASCII text: drop the ESC alone.
        _ => i + 1,
    }
}

/// `j` is just after a CSI introducer; returns the index after the final byte, or the index of
/// the first byte that cannot belong to a CSI (kept as text), or the end of the input.
fn skip_csi_body(b: &[u8], mut j: usize) -> usize {
    while j < b.len() && (0x20..=0x3f).contains(&b[j]) {
        j += 1;
    }
    if j < b.len() && (0x40..=0x7e).contains(&b[j]) {
        j + 1
    } else {
        j
    }
}

/// `j` is just after an OSC/DCS/SOS/PM/APC introducer; returns the index after its terminator.
/// An unterminated string runs to the end of the input.
fn skip_string_body(b: &[u8], mut j: usize, bel_ends: bool) -> usize {
    while j < b.len() {
        match b[j] {
            0x07 if bel_ends => return j + 1,
            ESC => {
                return if b.get(j + 1) == Some(&b'\\') {
                    j + 2
                } else {
                    j // this ESC starts the next sequence
                };
            }
            0x18 | 0x1a => return j + 1, // CAN / SUB abort the string
            C2 if b.get(j + 1) == Some(&C1_ST) => return j + 2,
            _ => j += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_copied() {
        assert_eq!(strip_ansi("hello world\n"), "hello world\n");
        assert_eq!(strip_ansi(""), "");
        let owned = String::from("no escapes here");
        let ptr = owned.as_ptr();
        let back = strip_ansi_owned(owned);
        assert_eq!(back.as_ptr(), ptr, "the fast path must not reallocate");
    }

    #[test]
    fn colours_are_removed() {
        assert_eq!(strip_ansi("\x1b[31mred\x1b[0m"), "red");
        assert_eq!(
            strip_ansi("\x1b[1;38;5;208mbold orange\x1b[m plain"),
            "bold orange plain"
        );
        assert_eq!(
            strip_ansi("\x1b[38:2:255:0:0mtruecolor\x1b[39m"),
            "truecolor"
        );
        assert_eq!(
            strip_ansi("error\x1b[0m: \x1b[1mexpected `;`\x1b[0m\n"),
            "error: expected `;`\n"
        );
    }

    #[test]
    fn cursor_movement_and_erase_are_removed() {
        assert_eq!(
            strip_ansi("a\x1b[2Kb\x1b[1A\x1b[10;20Hc\x1b[?25l\x1b[?25hd"),
            "abcd"
        );
        assert_eq!(strip_ansi("\x1b[>4;2m\x1b[ qx"), "x"); // private params, intermediate byte
        assert_eq!(strip_ansi("\x1b7saved\x1b8\x1bMup\x1bc"), "savedup");
        assert_eq!(strip_ansi("\x1b=\x1b>keypad"), "keypad");
    }

    #[test]
    fn charset_selection_is_removed() {
        assert_eq!(strip_ansi("\x1b(Bline\x1b)0\x1b#8\x1b%G"), "line");
    }

    #[test]
    fn osc_8_hyperlinks_keep_their_text() {
        let link = "\x1b]8;;https://example.com/a?b=c\x1b\\the link\x1b]8;;\x1b\\ after";
        assert_eq!(strip_ansi(link), "the link after");
        let bel = "\x1b]8;id=1;https://例え.jp\x07text\x1b]8;;\x07";
        assert_eq!(strip_ansi(bel), "text");
        assert_eq!(strip_ansi("\x1b]0;window title\x07prompt$ "), "prompt$ ");
    }

    #[test]
    fn dcs_sos_pm_apc_strings_are_removed() {
        assert_eq!(strip_ansi("a\x1bP1$r0m\x1b\\b"), "ab");
        assert_eq!(
            strip_ansi("a\x1bXsos\x1b\\b\x1b^pm\x1b\\c\x1b_apc\x1b\\d"),
            "abcd"
        );
        // BEL does not end a DCS; only ST does.
        assert_eq!(strip_ansi("a\x1bPx\x07y\x1b\\b"), "ab");
        // CAN aborts a string.
        assert_eq!(strip_ansi("a\x1b]0;t\x18b"), "ab");
        // Any other ESC ends the string and starts a new sequence.
        assert_eq!(strip_ansi("a\x1b]0;t\x1b[31mb"), "ab");
        // The C1 string terminator.
        assert_eq!(strip_ansi("a\x1b]0;t\u{9c}b"), "ab");
    }

    #[test]
    fn eight_bit_csi_is_removed() {
        assert_eq!(strip_ansi("\u{9b}31mred\u{9b}0m"), "red");
        // Other characters whose UTF-8 starts with 0xC2 are text.
        assert_eq!(strip_ansi("£5 ©\u{a0}x\u{9b}"), "£5 ©\u{a0}x");
    }

    #[test]
    fn truncated_sequences_at_the_end_are_dropped() {
        assert_eq!(strip_ansi("text\x1b"), "text");
        assert_eq!(strip_ansi("text\x1b["), "text");
        assert_eq!(strip_ansi("text\x1b[38;5"), "text");
        assert_eq!(strip_ansi("text\x1b]8;;https://exa"), "text");
        assert_eq!(strip_ansi("text\x1b]8;;https://exa\x1b"), "text");
        assert_eq!(strip_ansi("text\x1b("), "text");
        assert_eq!(strip_ansi("text\u{9b}1"), "text");
    }

    #[test]
    fn malformed_sequences_keep_the_following_text() {
        // A CSI interrupted by a byte that cannot belong to it ends there.
        assert_eq!(strip_ansi("\x1b[31\nnext"), "\nnext");
        assert_eq!(strip_ansi("\x1b[1é"), "é");
        // A lone ESC before text that cannot start a sequence goes alone.
        assert_eq!(strip_ansi("a\x1b\x1b[0mb"), "ab");
        assert_eq!(strip_ansi("a\x1bé"), "aé");
        assert_eq!(strip_ansi("a\x1b\tb"), "a\tb");
    }

    #[test]
    fn crlf_becomes_lf_and_other_cr_stays() {
        assert_eq!(strip_ansi("a\r\nb\r\n"), "a\nb\n");
        assert_eq!(strip_ansi("10%\r50%\r100%\n"), "10%\r50%\r100%\n");
        assert_eq!(strip_ansi("a\r\x1b[K\nb"), "a\nb");
        assert_eq!(strip_ansi("a\r"), "a\r");
        assert_eq!(strip_ansi("\r\r\n"), "\r\n");
        assert_eq!(strip_ansi("x\r\x1b[K\r\ny"), "x\r\ny");
        assert_eq!(strip_ansi("a\r\n\x1b[0m\nb"), "a\n\nb");
    }

    #[test]
    fn unicode_text_is_untouched() {
        let s = "héllo wörld — 日本語 🦀 ½ ¢ \u{85}";
        assert_eq!(strip_ansi(s), s);
        assert_eq!(strip_ansi(&format!("\x1b[32m{s}\x1b[0m")), s);
        assert_eq!(strip_ansi("\x1b[1m🦀\x1b[0m🦀"), "🦀🦀");
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_leaves_an_introducer_and_never_panics(
            s in "(\\PC|[\\x1b\\x07\\x18\\r\\n\\[\\]\\\\;()PX^_0-9mK\u{9b}\u{9c}])*"
        ) {
            let out = strip_ansi(&s);
            prop_assert!(!out.contains('\x1b'), "ESC left in {:?}", out);
            prop_assert!(!out.contains('\u{9b}'), "CSI left in {:?}", out);
            prop_assert!(out.len() <= s.len());
        }

        #[test]
        fn text_without_escapes_or_cr_is_unchanged(s in "[^\\x1b\u{9b}\\r]*") {
            prop_assert_eq!(strip_ansi(&s), s);
        }
    }
}
