//! The last resort before a request is refused as too large: the tool outputs of the last
//! round (the ones pruning always keeps) cut to their heads, the largest first, each with a
//! note telling the model to ask for a smaller part. In the request only (pure: the history
//! keeps them whole), and only when stand-ins for older outputs and a compaction were not
//! enough. It never removes a message: every call keeps its result.

use super::context::{message_chars, round_start};
use crate::provider::ChatMessage;

/// `messages` with the tool outputs of the last round cut (the largest first, each keeping its
/// head and a note) until the messages take at most `limit` characters; `None` when cutting
/// them all to their notes is not enough. The request only: the history keeps them whole.
pub fn cut_last_outputs(messages: &[ChatMessage], limit: usize) -> Option<Vec<ChatMessage>> {
    let total: usize = messages.iter().map(message_chars).sum();
    let mut excess = total.checked_sub(limit)?;
    if excess == 0 {
        return None;
    }
    let from = round_start(messages, 1);
    let mut order: Vec<usize> = (from..messages.len())
        .filter(|i| matches!(messages[*i], ChatMessage::Tool { .. }))
        .collect();
    order.sort_by_key(|i| std::cmp::Reverse(message_chars(&messages[*i])));
    let mut out = messages.to_vec();
    for i in order {
        let ChatMessage::Tool { content, .. } = &mut out[i] else {
            continue;
        };
        let note = |cut: usize| {
            format!(
                "\n[… {cut} more characters cut: the output did not fit the model's context window; ask for a smaller part]"
            )
        };
        // What the note itself takes (its number at most as long as the content's length).
        let room = note(content.len()).len();
        if content.len() <= room {
            continue;
        }
        let keep = content.len().saturating_sub(excess + room);
        let head = crate::text_cut::head(content, keep).to_owned();
        let cut = content.len() - head.len();
        let replaced = format!("{head}{}", note(cut));
        excess = excess.saturating_sub(content.len().saturating_sub(replaced.len()));
        *content = replaced;
        if excess == 0 {
            return Some(out);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ToolCall;

    fn turn(i: usize, output: &str) -> Vec<ChatMessage> {
        vec![
            ChatMessage::User {
                content: format!("question {i}"),
                images: Vec::new(),
            },
            ChatMessage::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: format!("c{i}"),
                    name: "read_file".into(),
                    arguments: "{}".into(),
                }],
                reasoning: None,
            },
            ChatMessage::Tool {
                tool_call_id: format!("c{i}"),
                content: output.into(),
            },
            ChatMessage::Assistant {
                content: format!("answer {i}"),
                tool_calls: vec![],
                reasoning: None,
            },
        ]
    }

    #[test]
    fn the_last_round_s_outputs_are_cut_to_fit_the_largest_first() {
        let mut messages = turn(0, &"a".repeat(9_000));
        messages.extend(turn(1, &"b".repeat(30_000)));
        messages.pop();
        let total: usize = messages.iter().map(message_chars).sum();
        let cut = cut_last_outputs(&messages, total - 20_000).expect("cut");
        assert!(cut.iter().map(message_chars).sum::<usize>() <= total - 20_000);
        assert_eq!(cut.len(), messages.len());
        assert_eq!(cut[2], messages[2], "an older round is not the last one");
        let ChatMessage::Tool { content, .. } = &cut[6] else {
            panic!("{:?}", cut[6]);
        };
        assert!(content.starts_with("bbbb"));
        assert!(
            content.ends_with("more characters cut: the output did not fit the model's context window; ask for a smaller part]"),
            "{content}"
        );
        // Not even the notes alone fit; and nothing to cut when it fits already.
        assert_eq!(cut_last_outputs(&messages, 100), None);
        assert_eq!(cut_last_outputs(&messages, total), None);
    }
}
