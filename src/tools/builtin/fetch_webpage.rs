//! `fetch_webpage`: GET a URL and return readable text. HTTP(S) only, with a timeout, a size
//! cap, and a content-type check: HTML is turned into text; plain text, Markdown, JSON and XML
//! are returned as they are; anything else (images, PDFs, archives) is refused.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::json;

use super::html_text::html_to_text;
use crate::config::opts::Opts;
use crate::provider::ToolSpec;
use crate::tools::tool::{
    CmdResult, Command, Invocation, Kind, Tool, ToolOutput, display_and_content, pack_display,
};

pub struct FetchWebpage;

/// Bytes read at most.
pub const MAX_BYTES: usize = 5 * 1024 * 1024;
const TIMEOUT: Duration = Duration::from_secs(30);

/// The one HTTP client of every fetch, built on first use: a 10 s connect timeout, [`TIMEOUT`]
/// for the whole request, reqwest's default redirect policy (up to 10), sayso's user agent.
/// No connection is kept between fetches (as with a client per fetch): a connection's task
/// lives on the runtime that opened it, and a later fetch may run on another one.
fn http_client() -> Result<&'static reqwest::Client, &'static str> {
    static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            crate::provider::http::client_builder()
                .connect_timeout(Duration::from_secs(10))
                .timeout(TIMEOUT)
                .user_agent(concat!("sayso/", env!("CARGO_PKG_VERSION")))
                .pool_max_idle_per_host(0)
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(String::as_str)
}

pub async fn fetch(url: &str) -> Result<(String, String), String> {
    let parsed = reqwest::Url::parse(url).map_err(|_| format!("Invalid URL: `{url}`"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "Invalid URL: `{url}` (only http and https are fetched)"
        ));
    }
    let client = http_client().map_err(|e| format!("Error fetching `{url}`: {e}"))?;
    let resp = client
        .get(parsed)
        .send()
        .await
        .map_err(|e| format!("Error fetching `{url}`: {e}"))?;
    let status = resp.status();
    if !status.is_success() {
        return Err(format!(
            "Error fetching `{url}`: the server answered {status}"
        ));
    }
    let ctype = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let is_html = ctype.contains("html");
    let is_text = ctype.is_empty()
        || ctype.starts_with("text/")
        || ctype.contains("json")
        || ctype.contains("xml")
        || ctype.contains("markdown")
        || ctype.contains("javascript");
    if !is_html && !is_text {
        return Err(format!(
            "`{url}` is {ctype}, not a web page or text; sayso only fetches text"
        ));
    }
    let mut body = Vec::new();
    let mut truncated = false;
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| format!("Error fetching `{url}`: {e}"))?;
        let room = MAX_BYTES - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    let raw = String::from_utf8_lossy(&body);
    let mut text = if is_html {
        html_to_text(&raw)
    } else {
        raw.into_owned()
    };
    if truncated {
        text.push_str(&format!(
            "\n\n[… the page is larger than {} MB; the rest was not read]",
            MAX_BYTES / 1024 / 1024
        ));
    }
    Ok((
        format!("<attachment url=\"{url}\">\n{text}\n</attachment>"),
        format!("Fetched {url} ({} KB)", body.len() / 1024),
    ))
}

impl Tool for FetchWebpage {
    fn name(&self) -> &str {
        "fetch_webpage"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "fetch_webpage".into(),
            description: "Fetch a web page (http or https) and return its readable text.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"url": {"type": "string"}},
                "required": ["url"],
                "additionalProperties": false
            }),
            strict: Some(true),
        }
    }

    fn kind(&self) -> Kind {
        Kind::Network
    }

    fn default_opts(&self) -> Opts {
        Opts {
            require_approval_before: Some(toml::Value::Boolean(true)),
            ..Opts::default()
        }
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        format!("fetch_webpage {}", inv.arg_str("url"))
    }

    fn prompt(&self, inv: &Invocation) -> Option<String> {
        Some(format!("Fetch `{}`?", inv.arg_str("url")))
    }

    fn judge_context(&self, inv: &Invocation) -> Option<String> {
        Some(format!("Fetch the web page {}", inv.arg_str("url")))
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                Some(match fetch(inv.arg_str("url")).await {
                    Ok((content, display)) => CmdResult::Success(pack_display(&display, &content)),
                    Err(e) => CmdResult::Error(e),
                })
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: Option<&[String]>) {
        let (display, content) = display_and_content(data);
        out.add(content, Some(display));
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[String]) {
        out.add(errors.join("\n"), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fetch_gets_the_same_client() {
        let first = http_client().expect("the client builds");
        let second = http_client().expect("the client builds");
        assert!(std::ptr::eq(first, second));
    }
}
