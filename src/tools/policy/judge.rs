//! The LLM judge (SPEC §5.5): a separate, non-streaming request that vets one call in auto mode.
//!
//! It sees only the tool's name and its policy's `judge_context` text — never tool output or the
//! conversation — so text planted in files cannot argue with it. It asks for structured output
//! (`json_schema`); a server that rejects that with a 4xx is asked again in JSON mode, then with
//! no response format, and the answer is parsed leniently. It fails closed: a timeout, an HTTP
//! error or an answer without a boolean `safe` is an unsafe verdict with a fixed reason.

use std::time::Duration;

use serde_json::json;

use crate::provider::request::{ResponseFormat, ResponseFormatJsonSchema};
use crate::provider::{ChatMessage, ChatRequest, Client, ProviderError, SharedModel};
use crate::tools::policy::approval::Verdict;

const PROMPT: &str = include_str!("../../../assets/judge_prompt.md");
pub const UNREADABLE: &str = "The judge returned an unreadable response";
pub const FAILED: &str = "The judge request failed";

pub struct Judge {
    client: Client,
    /// `[judge] model`, or the chat's model handle (the judge follows `/model`).
    model: SharedModel,
    timeout: Duration,
}

impl Judge {
    pub fn new(client: Client, model: SharedModel, timeout: Duration) -> Self {
        Self {
            client,
            model,
            timeout,
        }
    }

    /// The model the judge asks now.
    pub fn model(&self) -> String {
        self.model.get()
    }

    /// The verdict on `tool` performing the action `context` describes.
    pub async fn verdict(&self, tool: &str, context: &str) -> Verdict {
        match tokio::time::timeout(self.timeout, self.ask(tool, context)).await {
            Ok(v) => v,
            Err(_) => {
                tracing::warn!(tool, "the judge timed out");
                unsafe_because(FAILED)
            }
        }
    }

    async fn ask(&self, tool: &str, context: &str) -> Verdict {
        let mut request = ChatRequest::new(
            self.model.get(),
            vec![
                ChatMessage::System {
                    content: PROMPT.trim().to_owned(),
                },
                ChatMessage::User {
                    content: format!(
                        "The `{tool}` tool wants to perform this action:\n\n{context}"
                    ),
                    images: Vec::new(),
                },
            ],
        );
        let formats = [
            Some(schema_format()),
            Some(ResponseFormat::JsonObject),
            None,
        ];
        for format in formats {
            request.response_format = format;
            match self.client.complete(&request).await {
                Ok(message) => return parse_verdict(&message.content),
                // The server does not support this response format: try a plainer one.
                Err(ProviderError::Status { status, .. })
                    if (400..500).contains(&status)
                        && status != 401
                        && status != 403
                        && status != 429 =>
                {
                    continue;
                }
                // Say where it was sent: the user should know their server redirects.
                Err(e @ ProviderError::Redirect(_)) => {
                    tracing::warn!(error = %e, "the judge request failed");
                    return unsafe_because(&format!("{FAILED}: {e}"));
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the judge request failed");
                    return unsafe_because(FAILED);
                }
            }
        }
        unsafe_because(FAILED)
    }
}

fn unsafe_because(reason: &str) -> Verdict {
    Verdict {
        safe: false,
        reason: reason.to_owned(),
    }
}

fn schema_format() -> ResponseFormat {
    ResponseFormat::JsonSchema {
        json_schema: ResponseFormatJsonSchema {
            description: None,
            name: "safety".into(),
            schema: json!({
                "type": "object",
                "properties": {"safe": {"type": "boolean"}, "reason": {"type": "string"}},
                "required": ["safe", "reason"],
                "additionalProperties": false
            }),
            strict: Some(true),
        },
    }
}

/// Reads `{"safe": bool, "reason": string}` from the judge's answer: bare, in a code fence, or
/// embedded in text. Anything else is unsafe.
pub fn parse_verdict(content: &str) -> Verdict {
    let trimmed = content.trim();
    let candidates = [
        Some(trimmed),
        trimmed
            .strip_prefix("```json")
            .or_else(|| trimmed.strip_prefix("```"))
            .and_then(|s| s.strip_suffix("```")),
        trimmed
            .find('{')
            .zip(trimmed.rfind('}'))
            .filter(|(a, b)| a < b)
            .map(|(a, b)| &trimmed[a..=b]),
    ];
    /// A duplicated `safe` or `reason` is an error here (serde rejects duplicate fields of a
    /// struct), so `{"safe": false, "safe": true}` cannot pass as safe.
    #[derive(serde::Deserialize)]
    struct Answer {
        safe: bool,
        #[serde(default)]
        reason: Option<String>,
    }
    for c in candidates.into_iter().flatten() {
        match serde_json::from_str::<Answer>(c.trim()) {
            Ok(a) => {
                return Verdict {
                    safe: a.safe,
                    reason: a.reason.unwrap_or_default(),
                };
            }
            // Readable JSON that is not a clean answer (a duplicate key, a wrong type) fails
            // closed at once: a later, looser reading must not find a `safe: true` in it.
            Err(e) if !e.is_syntax() && !e.is_eof() => return unsafe_because(UNREADABLE),
            Err(_) => {}
        }
    }
    unsafe_because(UNREADABLE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_read_leniently_and_fail_closed() {
        let v = |s: &str| parse_verdict(s);
        assert_eq!(
            v(r#"{"safe":true,"reason":"read only"}"#),
            Verdict {
                safe: true,
                reason: "read only".into()
            }
        );
        assert!(
            !v("```json
{\"safe\": false, \"reason\": \"deletes\"}
```")
            .safe
        );
        assert!(v("Sure! {\"safe\": true} done").safe);
        assert_eq!(v(r#"{"safe":"yes"}"#), unsafe_because(UNREADABLE));
        assert_eq!(
            v(r#"{"safe":false,"safe":true}"#),
            unsafe_because(UNREADABLE),
            "a duplicate key fails closed"
        );
        assert_eq!(
            v(r#"{"safe":true,"reason":"a","reason":"b"}"#),
            unsafe_because(UNREADABLE)
        );
        assert_eq!(
            v("```json\n{\"safe\":false,\"safe\":true}\n```"),
            unsafe_because(UNREADABLE)
        );
        assert_eq!(v("I think it is fine"), unsafe_because(UNREADABLE));
        assert_eq!(v(""), unsafe_because(UNREADABLE));
    }
}
