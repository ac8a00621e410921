//! The message of a headless run (`-p`): the prompt argument, stdin, or both.
//!
//! - `sayso -p` or `sayso -p -`: stdin is the prompt, read to its end.
//! - `sayso -p PROMPT` with stdin a terminal: the prompt alone.
//! - `sayso -p PROMPT < file` or `cmd | sayso -p PROMPT`: the prompt, then the input as a fenced
//!   block. Input that is over [`INPUT_CAP`] keeps its start and (longer) end, with a line in
//!   between saying what was cut. So that an open pipe that sends nothing (a script's or a CI
//!   runner's stdin) never hangs the run, stdin is read only when its first byte (or its end)
//!   comes within [`FIRST_BYTE_WAIT`]; otherwise the prompt goes alone, with a note on stderr.
//!   `--stdin` waits for the input however long it takes.
//! - `--approvals stdio`: stdin carries control lines, never prompt input.

use std::collections::VecDeque;
use std::io::{IsTerminal, Read};
use std::time::Duration;

use crate::agent::context::Budget;
use crate::session::catalog::human_size;

/// How long piped stdin may stay silent before the prompt goes without it.
pub const FIRST_BYTE_WAIT: Duration = Duration::from_secs(3);
/// At most this many bytes of piped input are sent: a quarter from its start, the rest from
/// its end (where a log's errors are).
pub const INPUT_CAP: usize = 128 * 1024;

/// What the command line says about the message.
pub struct Ask<'a> {
    /// The prompt argument (`-` or absent: stdin is the prompt).
    pub arg: Option<&'a str>,
    /// `--stdin`: wait for piped input to end.
    pub wait: bool,
    /// `--approvals stdio`: stdin is the control channel.
    pub control: bool,
}

/// What was asked for: the prompt, and the piped input to send after it.
pub struct Message {
    pub prompt: String,
    input: Option<Input>,
}

impl Message {
    /// The text to send to a model whose context window is `window` tokens: the input, if
    /// any, in a fence after the prompt, cut to what the window can take ([`cap_for`]); and
    /// a note for stderr when it was cut.
    pub fn text(&self, window: u64) -> (String, Option<String>) {
        let Some(input) = &self.input else {
            return (self.prompt.clone(), None);
        };
        let sent = input.excerpt(cap_for(window));
        let note = (sent.cut_bytes > 0).then(|| {
            format!(
                "the input on stdin is {}: only its first {} and its last {} are sent (the model's window is {window} tokens)",
                human_size(input.total),
                human_size(sent.head.len() as u64),
                human_size(sent.tail.len() as u64),
            )
        });
        (with_input(&self.prompt, input.total, &sent), note)
    }
}

/// The bytes of piped input sent to a model whose window is `window` tokens: a third of what
/// a request may use (see [`Budget`]), at 3 bytes a token, and at most [`INPUT_CAP`].
pub fn cap_for(window: u64) -> usize {
    let tokens = Budget { window }.input() / 3;
    usize::try_from(tokens.saturating_mul(3))
        .unwrap_or(INPUT_CAP)
        .min(INPUT_CAP)
}

/// The message asked for, and notes for stderr; `Err` is a usage error.
pub fn read(ask: &Ask<'_>) -> Result<(Message, Vec<String>), String> {
    let stdin = std::io::stdin();
    let prompt = match ask.arg {
        Some(p) if p != "-" => p.to_owned(),
        _ => {
            if stdin.is_terminal() {
                eprintln!("sayso: reading the prompt from stdin (end it with Ctrl+D)");
            }
            let mut s = String::new();
            stdin
                .lock()
                .read_to_string(&mut s)
                .map_err(|e| format!("cannot read the prompt from stdin: {e}"))?;
            return check(s).map(|prompt| {
                (
                    Message {
                        prompt,
                        input: None,
                    },
                    Vec::new(),
                )
            });
        }
    };
    let prompt = check(prompt)?;
    let alone = |prompt, notes| {
        Ok((
            Message {
                prompt,
                input: None,
            },
            notes,
        ))
    };
    if ask.control || (stdin.is_terminal() && !ask.wait) {
        return alone(prompt, Vec::new());
    }
    if stdin.is_terminal() {
        eprintln!("sayso: reading the input from stdin (end it with Ctrl+D)");
    } else if !ask.wait {
        match first_byte(FIRST_BYTE_WAIT) {
            Ready::Yes => {}
            Ready::Closed => return alone(prompt, Vec::new()),
            Ready::Silent => {
                let note = format!(
                    "stdin sent nothing within {} s: the prompt goes without it (--stdin waits for it; `< /dev/null` skips the wait)",
                    FIRST_BYTE_WAIT.as_secs()
                );
                return alone(prompt, vec![note]);
            }
        }
    }
    let input = read_capped(stdin.lock(), INPUT_CAP)
        .map_err(|e| format!("cannot read the input on stdin: {e}"))?;
    let input = (input.total > 0).then_some(input);
    Ok((Message { prompt, input }, Vec::new()))
}

fn check(prompt: String) -> Result<String, String> {
    if prompt.trim().is_empty() {
        return Err("no prompt given: pass it as an argument or on stdin".into());
    }
    Ok(prompt)
}

enum Ready {
    /// A byte (or the end) can be read now.
    Yes,
    /// stdin is not open.
    Closed,
    /// Nothing came within the wait.
    Silent,
}

/// Waits up to `wait` for stdin to have something to read (a byte, or its end).
fn first_byte(wait: Duration) -> Ready {
    let mut fd = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = libc::c_int::try_from(wait.as_millis()).unwrap_or(libc::c_int::MAX);
    loop {
        // SAFETY: `fd` is one valid pollfd, and the count says so.
        let n = unsafe { libc::poll(&mut fd, 1, ms) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return match n {
            0 => Ready::Silent,
            n if n < 0 || fd.revents & libc::POLLNVAL != 0 => Ready::Closed,
            _ => Ready::Yes,
        };
    }
}

/// Piped input as read: all of it, or (past the cap it was read with) its start and its end.
#[derive(Debug, Default)]
struct Input {
    /// The start, then the end.
    bytes: Vec<u8>,
    /// Where in `bytes` the part left out was (`None`: nothing was).
    gap_at: Option<usize>,
    /// Newlines of the part left out.
    gap_lines: u64,
    total: u64,
}

/// What of the input is sent.
struct Excerpt<'a> {
    head: &'a [u8],
    tail: &'a [u8],
    cut_bytes: u64,
    cut_lines: u64,
}

fn newlines(b: &[u8]) -> u64 {
    b.iter().filter(|c| **c == b'\n').count() as u64
}

/// Reads `r` to its end, keeping a quarter of `cap` from the start and the rest from the end.
/// Memory stays within `cap` whatever the input's size.
fn read_capped(mut r: impl Read, cap: usize) -> std::io::Result<Input> {
    let head_cap = cap / 4;
    let tail_cap = cap - head_cap;
    let mut head = Vec::new();
    let mut tail: VecDeque<u8> = VecDeque::new();
    let (mut total, mut gap_lines, mut cut) = (0u64, 0u64, false);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        let to_head = (head_cap - head.len()).min(n);
        head.extend_from_slice(&buf[..to_head]);
        tail.extend(&buf[to_head..n]);
        if tail.len() > tail_cap {
            let excess = tail.len() - tail_cap;
            gap_lines += tail.range(..excess).filter(|b| **b == b'\n').count() as u64;
            tail.drain(..excess);
            cut = true;
        }
    }
    let gap_at = cut.then_some(head.len());
    head.extend(tail);
    Ok(Input {
        bytes: head,
        gap_at,
        gap_lines,
        total,
    })
}

impl Input {
    /// At most `cap` bytes of the input: a quarter from its start, the rest from its end, cut
    /// at line ends where one is near (no half line, or half character, on either side).
    fn excerpt(&self, cap: usize) -> Excerpt<'_> {
        let len = self.bytes.len();
        if self.gap_at.is_none() && len <= cap {
            return Excerpt {
                head: &self.bytes,
                tail: &[],
                cut_bytes: 0,
                cut_lines: 0,
            };
        }
        let head_cap = cap / 4;
        let tail_cap = cap - head_cap;
        let mut head_end = head_cap.min(self.gap_at.unwrap_or(len));
        let mut tail_from = self
            .gap_at
            .unwrap_or(0)
            .max(len.saturating_sub(tail_cap))
            .max(head_end);
        if let Some(nl) = self.bytes[..head_end].iter().rposition(|b| *b == b'\n')
            && nl + 1 >= head_end / 2
        {
            head_end = nl + 1;
        }
        let tail = &self.bytes[tail_from..];
        if let Some(nl) = tail.iter().position(|b| *b == b'\n')
            && nl < tail.len() / 2
        {
            tail_from += nl + 1;
        }
        let (head, tail) = (&self.bytes[..head_end], &self.bytes[tail_from..]);
        Excerpt {
            head,
            tail,
            cut_bytes: self.total - (head.len() + tail.len()) as u64,
            cut_lines: self.gap_lines + newlines(&self.bytes[head_end..tail_from]),
        }
    }
}

/// The prompt, then the input as a fenced block (a fence longer than any run of backticks in
/// it), with a line saying what was cut in its place.
fn with_input(prompt: &str, total: u64, sent: &Excerpt<'_>) -> String {
    let mut body = String::from_utf8_lossy(sent.head).into_owned();
    if sent.cut_bytes > 0 {
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        body.push_str(&format!(
            "[… sayso cut {} bytes ({} lines) here: the input is {}, of which the first {} and the last {} are sent …]\n",
            sent.cut_bytes,
            sent.cut_lines,
            human_size(total),
            human_size(sent.head.len() as u64),
            human_size(sent.tail.len() as u64),
        ));
    }
    body.push_str(&String::from_utf8_lossy(sent.tail));
    let body = body.strip_suffix('\n').unwrap_or(&body);
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{}\n\n{fence}\n{body}\n{fence}", prompt.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The input read with a cap of `read_cap`, then sent with one of `cap`.
    fn sent(prompt: &str, input: &[u8], read_cap: usize, cap: usize) -> (String, u64, u64) {
        let input = read_capped(input, read_cap).unwrap();
        let e = input.excerpt(cap);
        (
            with_input(prompt, input.total, &e),
            e.cut_bytes,
            (e.head.len() + e.tail.len()) as u64,
        )
    }

    #[test]
    fn input_follows_the_prompt_in_a_fence() {
        let (text, cut, _) = sent(
            "Explain this error",
            b"error[E0308]: mismatched\n",
            100,
            100,
        );
        assert_eq!(
            text,
            "Explain this error\n\n```\nerror[E0308]: mismatched\n```"
        );
        assert_eq!(cut, 0);
    }

    #[test]
    fn the_fence_is_longer_than_any_backticks_inside() {
        let (out, _, _) = sent("p", b"```rust\nfn x() {}\n```\n", 100, 100);
        assert!(out.starts_with("p\n\n````\n```rust"), "{out}");
        assert!(out.ends_with("```\n````"), "{out}");
    }

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    /// The note's own count of lines cut is the number of lines not sent.
    fn check_counts(text: &str, out: &str, cut: u64, kept: u64) {
        assert!(out.starts_with("p\n\n```\nline 1\nline 2\n"), "{out}");
        assert!(out.ends_with("\nline 999\nline 1000\n```"), "{out}");
        assert_eq!(kept + cut, text.len() as u64);
        let shown = out.lines().filter(|l| l.starts_with("line ")).count();
        let note = out
            .lines()
            .find(|l| l.starts_with("[… sayso cut "))
            .unwrap();
        let words: Vec<&str> = note.split_whitespace().collect();
        assert_eq!(words[3], cut.to_string(), "{note}");
        assert_eq!(words[5], format!("({}", 1000 - shown), "{note}");
    }

    #[test]
    fn long_input_keeps_whole_lines_of_its_start_and_end_and_says_what_was_cut() {
        let text = numbered(1000);
        let (out, cut, kept) = sent("p", text.as_bytes(), INPUT_CAP, 400);
        assert!(kept <= 400, "{kept}");
        check_counts(&text, &out, cut, kept);
    }

    #[test]
    fn input_cut_while_read_is_cut_again_for_a_smaller_window() {
        let text = numbered(1000);
        let (out, cut, kept) = sent("p", text.as_bytes(), 2000, 400);
        assert!(kept <= 400, "{kept}");
        check_counts(&text, &out, cut, kept);
        let (out, cut, kept) = sent("p", text.as_bytes(), 2000, 2000);
        assert!(kept <= 2000, "{kept}");
        check_counts(&text, &out, cut, kept);
    }

    #[test]
    fn input_just_at_the_cap_is_sent_whole() {
        let text = "x".repeat(100);
        let (out, cut, _) = sent("p", text.as_bytes(), 100, 100);
        assert_eq!(out, format!("p\n\n```\n{text}\n```"));
        assert_eq!(cut, 0);
    }

    #[test]
    fn the_cap_follows_the_window() {
        assert_eq!(cap_for(8192), 6297);
        assert_eq!(cap_for(131_072), 110_754);
        assert_eq!(cap_for(1_000_000), INPUT_CAP);
        assert!(cap_for(256) > 0);
    }
}
