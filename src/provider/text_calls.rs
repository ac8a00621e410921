//! Tool calls written as text: a model that was offered tools but answers without structured
//! `tool_calls` often writes its call into the reply, in its family's own format (Hermes/Qwen
//! `<tool_call>`, Qwen3-Coder's XML, Mistral's `[TOOL_CALLS]`, Llama's `<|python_tag|>` or a
//! bare `{"name", "parameters"}` reply, gpt-oss harmony's `to=functions.NAME`, DeepSeek's
//! `<｜tool▁call▁begin｜>`, or any of these in a fenced block). [`recognise`] finds such calls
//! and returns them with the text that is left.
//!
//! The rule for "the reply's own action": the calls form the reply's *last block* — from the
//! first call's opener to the end of the reply there is nothing but calls, whitespace and the
//! format's end tokens (or the whole of a fenced block that ends the reply). A call followed
//! by prose is an example being quoted and is left alone, as is a call naming a tool that was
//! not offered. A call that opens with its format's marker but cannot be read (bad JSON, a
//! `<tool_call>` never closed) is still a call: it comes back [`TextCall::broken`], its raw
//! text as the arguments, so the engine answers the model with the JSON error instead of the
//! turn ending silently.
//!
//! Pure and synchronous; no IO. It does not run, validate or approve anything (the engine
//! does), and does not touch structured calls.

mod describe;
mod formats;
#[cfg(test)]
mod tests;

pub use describe::hermes_tools_prompt;

use super::request::ToolSpec;

/// One call read from the reply's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCall {
    pub name: String,
    /// The arguments as JSON text (an object), or, when `broken`, the text as written.
    pub arguments: String,
    /// The call opened with its format's marker but could not be read: why.
    pub broken: Option<String>,
}

/// What [`recognise`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recognised {
    pub calls: Vec<TextCall>,
    /// The reply's text without the calls (trailing whitespace removed).
    pub text: String,
}

/// The tool calls that end `text`, when there are any, naming only `tools`.
pub fn recognise(text: &str, tools: &[ToolSpec]) -> Option<Recognised> {
    if tools.is_empty() {
        return None;
    }
    let offered = formats::Offered(tools);
    if let Some((start, calls)) = formats::tail(text, &offered) {
        return Some(Recognised {
            calls,
            text: text[..start].trim_end().to_owned(),
        });
    }
    fenced(text, &offered)
}

/// The reply ends with a fenced block that holds nothing but calls.
fn fenced(text: &str, offered: &formats::Offered) -> Option<Recognised> {
    let body = text.trim_end().strip_suffix("```")?;
    let open = body.rfind("```")?;
    // The opener starts its line, and its info string (`json`, `xml`, `tool_call`…) is one word.
    if !text[..open].is_empty() && !text[..open].ends_with('\n') {
        return None;
    }
    let after = &body[open + 3..];
    let (info, inner) = after.split_once('\n')?;
    if info.trim().contains(char::is_whitespace) {
        return None;
    }
    let calls = formats::whole(inner, offered)?;
    Some(Recognised {
        calls,
        text: text[..open].trim_end().to_owned(),
    })
}
