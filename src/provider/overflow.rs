//! Recognising "the request does not fit the model's context window" in a server's error, so
//! the agent can make room and try once more instead of retrying the same request or dying.
//!
//! The rule (research: `../shared/reference/context-windows.md` §3): an overflow when the
//! error object says so structurally (`code: "context_length_exceeded"`, `type:
//! "exceed_context_size_error"`, or it carries `n_ctx`), else when a 400/413 (or an in-stream
//! error) says so in words: llama.cpp "exceeds the available context size", OpenAI "maximum
//! context length", vLLM "maximum context length is N tokens" / "the model's context length is
//! only", LiteLLM "ContextWindowExceededError", Ollama "longer than the context length", LM
//! Studio "trying to keep the first N tokens". Never for 429 or a "request too large" rate
//! limit. The window and the prompt size are read when the error states them.

use serde_json::Value;

/// What an overflow error says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overflow {
    /// The window the server enforces, when it says.
    pub window: Option<u64>,
    /// The prompt size it counted, when it says.
    pub prompt: Option<u64>,
}

const WORDS: [&str; 11] = [
    "context length",
    "context size",
    "context window",
    "maximum context",
    "contextwindowexceeded",
    "maximum input length",
    "too many tokens",
    "prompt is too long",
    "longer than the context",
    "trying to keep the first",
    "max_tokens must be at least 1",
];

/// The number right after `marker` in `text` (skipping spaces and punctuation like `(`).
fn number_after(text: &str, marker: &str) -> Option<u64> {
    let at = text.find(marker)? + marker.len();
    let digits: String = text[at..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Classifies an error: `status` (None for an in-stream error) and its body (JSON or text).
pub fn classify(status: Option<u16>, body: &str) -> Option<Overflow> {
    if matches!(status, Some(429)) {
        return None;
    }
    let v: Option<Value> = serde_json::from_str(body).ok();
    let inner = v.as_ref().map(|v| v.get("error").unwrap_or(v));
    let field = |k: &str| inner.and_then(|i| i.get(k));
    let structural = field("code").and_then(Value::as_str) == Some("context_length_exceeded")
        || field("type").and_then(Value::as_str) == Some("exceed_context_size_error")
        || field("n_ctx").is_some();
    let message = inner
        .and_then(|i| i.get("message").and_then(Value::as_str))
        .unwrap_or(body)
        .to_lowercase();
    let worded = matches!(status, None | Some(400) | Some(413))
        && WORDS.iter().any(|w| message.contains(w))
        && !message.contains("rate limit")
        && !message.contains("request too large");
    if !structural && !worded {
        return None;
    }
    let window = field("n_ctx")
        .and_then(Value::as_u64)
        .or_else(|| number_after(&message, "context length is"))
        .or_else(|| number_after(&message, "context size ("))
        .or_else(|| number_after(&message, "context length of only"))
        .or_else(|| number_after(&message, "context length is only"))
        .or_else(|| number_after(&message, "maximum context length is"));
    let prompt = field("n_prompt_tokens")
        .and_then(Value::as_u64)
        .or_else(|| number_after(&message, "request ("))
        .or_else(|| number_after(&message, "resulted in"))
        .or_else(|| number_after(&message, "you requested"))
        .or_else(|| number_after(&message, "you passed"));
    Some(Overflow { window, prompt })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (status, body, the window it states, the prompt size it states).
    type Case<'a> = (Option<u16>, &'a str, Option<u64>, Option<u64>);

    #[test]
    fn every_server_s_wording_is_recognised_with_its_numbers() {
        let cases: [Case; 7] = [
            (
                Some(400),
                r#"{"error":{"code":400,"message":"request (3555 tokens) exceeds the available context size (512 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":3555,"n_ctx":512}}"#,
                Some(512),
                Some(3555),
            ),
            (
                Some(400),
                r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
                Some(8192),
                Some(8227),
            ),
            (
                Some(400),
                r#"{"object":"error","message":"This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion).","type":"BadRequestError","param":null,"code":400}"#,
                Some(16384),
                Some(122946),
            ),
            (
                Some(400),
                r#"{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: OpenAIException - request (3555 tokens) exceeds the available context size (512 tokens), try increasing it","type":"invalid_request_error","param":null,"code":"400"}}"#,
                Some(512),
                Some(3555),
            ),
            (
                Some(400),
                r#"{"error":"the prompt is longer than the context length currently available to the model; shorten the prompt"}"#,
                None,
                None,
            ),
            (
                Some(400),
                "Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.",
                Some(4096),
                None,
            ),
            (
                None,
                r#"{"error":{"message":"request (9000 tokens) exceeds the available context size (8192 tokens)","type":"exceed_context_size_error","n_ctx":8192}}"#,
                Some(8192),
                Some(9000),
            ),
        ];
        for (status, body, window, prompt) in cases {
            let o = classify(status, body).unwrap_or_else(|| panic!("not recognised: {body}"));
            assert_eq!((o.window, o.prompt), (window, prompt), "{body}");
        }
    }

    #[test]
    fn other_errors_are_not_overflows() {
        for (status, body) in [
            (
                Some(429),
                r#"{"error":{"message":"Request too large for gpt-4 on tokens per min"}}"#,
            ),
            (
                Some(400),
                r#"{"error":{"message":"Request too large: rate limit"}}"#,
            ),
            (Some(401), r#"{"error":{"message":"bad key"}}"#),
            (
                Some(500),
                r#"{"error":{"message":"context length unknown"}}"#,
            ),
            (Some(400), r#"{"error":{"message":"invalid tool schema"}}"#),
        ] {
            assert_eq!(classify(status, body), None, "{body}");
        }
    }
}
