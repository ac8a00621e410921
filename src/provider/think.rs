//! Splits a leading `<think>…</think>` block out of streamed content into reasoning.
//!
//! Models served without a reasoning parser (DeepSeek-R1, Qwen3 on some servers) put their
//! chain of thought inside `<think>` tags at the start of `content`. The tags can arrive split
//! across chunks at any byte, so the splitter holds back just the bytes that could still be the
//! start of a tag. Only a block that opens the reply counts: a `<think>` later in the text (in a
//! code sample, say) is ordinary text.

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing but whitespace seen yet.
    #[default]
    Start,
    Inside,
    /// Just after `</think>`: leading whitespace of the answer is dropped.
    AfterClose,
    Outside,
}

/// Output of one [`ThinkSplitter::push`]: the parts that became text and reasoning.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Split {
    pub text: String,
    pub reasoning: String,
}

#[derive(Debug, Default)]
pub struct ThinkSplitter {
    state: State,
    held: String,
}

impl ThinkSplitter {
    pub fn push(&mut self, piece: &str) -> Split {
        let mut out = Split::default();
        if self.state == State::Outside {
            out.text.push_str(piece);
            return out;
        }
        self.held.push_str(piece);
        self.drain(&mut out, false);
        out
    }

    /// End of content: whatever was held back is what it looked like.
    pub fn finish(&mut self) -> Split {
        let mut out = Split::default();
        self.drain(&mut out, true);
        out
    }

    fn drain(&mut self, out: &mut Split, at_end: bool) {
        loop {
            match self.state {
                State::Outside => {
                    out.text.push_str(&self.held);
                    self.held.clear();
                    return;
                }
                State::Start => {
                    let trimmed = self.held.trim_start();
                    if let Some(rest) = trimmed.strip_prefix(OPEN) {
                        self.held = rest.to_owned();
                        self.state = State::Inside;
                    } else if !at_end && OPEN.starts_with(trimmed) {
                        return;
                    } else {
                        self.state = State::Outside;
                    }
                }
                State::Inside => {
                    if let Some(i) = self.held.find(CLOSE) {
                        out.reasoning.push_str(&self.held[..i]);
                        self.held.drain(..i + CLOSE.len());
                        self.state = State::AfterClose;
                    } else {
                        let keep = if at_end {
                            0
                        } else {
                            partial_suffix(&self.held, CLOSE)
                        };
                        let cut = self.held.len() - keep;
                        out.reasoning.push_str(&self.held[..cut]);
                        self.held.drain(..cut);
                        return;
                    }
                }
                State::AfterClose => {
                    let trimmed = self.held.trim_start();
                    if trimmed.is_empty() && !at_end {
                        self.held.clear();
                        return;
                    }
                    self.held = trimmed.to_owned();
                    self.state = State::Outside;
                }
            }
        }
    }
}

/// Length of the longest suffix of `s` that is a proper prefix of `tag`.
fn partial_suffix(s: &str, tag: &str) -> usize {
    (1..tag.len().min(s.len() + 1))
        .rev()
        .find(|&n| s.is_char_boundary(s.len() - n) && tag.starts_with(&s[s.len() - n..]))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pieces: &[&str]) -> Split {
        let mut s = ThinkSplitter::default();
        let mut all = Split::default();
        for p in pieces.iter().copied() {
            let o = s.push(p);
            all.text += &o.text;
            all.reasoning += &o.reasoning;
        }
        let o = s.finish();
        all.text += &o.text;
        all.reasoning += &o.reasoning;
        all
    }

    #[test]
    fn leading_block_becomes_reasoning_at_any_split() {
        let whole = "<think>plan it</think>\n\nThe answer.";
        for i in 0..whole.len() {
            for j in i..whole.len() {
                let got = run(&[&whole[..i], &whole[i..j], &whole[j..]]);
                assert_eq!(got.reasoning, "plan it", "split {i},{j}");
                assert_eq!(got.text, "The answer.", "split {i},{j}");
            }
        }
    }

    #[test]
    fn later_think_tag_is_plain_text() {
        let got = run(&["Use ", "<think> tags"]);
        assert_eq!(got.text, "Use <think> tags");
        assert_eq!(got.reasoning, "");
    }

    #[test]
    fn unclosed_block_is_all_reasoning() {
        let got = run(&["<think>still thinking </thi"]);
        assert_eq!(got.reasoning, "still thinking </thi");
    }

    #[test]
    fn text_that_only_looks_like_a_tag_start_is_released() {
        let got = run(&["<th", "ese>"]);
        assert_eq!(got.text, "<these>");
    }
}
