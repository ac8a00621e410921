//! `fetch_webpage`: GET a URL and return readable text. HTTP(S) only, with a timeout, a size
//! cap, and a content-type check: HTML is turned into text; plain text, Markdown, JSON and XML
//! are returned as they are; anything else (images, PDFs, archives) is refused.
//!
//! What the user approved is one URL, so every redirect hop is checked as a new URL: a hop to
//! the approved URL's origin (scheme, host, port) is followed, at most
//! [`MAX_REDIRECTS`](crate::provider::http::MAX_REDIRECTS) times; a hop to another origin is
//! not, and the result tells the model where it pointed, so that a new call (which passes
//! approval again) can fetch it. Every connection, the first and each hop, goes only to
//! addresses that pass [`address`] (no loopback, link-local or private ones, checked after DNS
//! resolution on the addresses actually used) unless the user's config sets
//! `[tools.fetch_webpage.opts] allow_private_addresses = true`. No proxy is used, so the
//! address checked is the one connected to.

mod address;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::Url;
use serde_json::json;

use super::html_text::html_to_text;
use crate::config::opts::Opts;
use crate::provider::ToolSpec;
use crate::provider::http::{RedirectRefused, check_redirect};
use crate::tools::tool::report;
use crate::tools::tool::{
    ApprovalBefore, CmdResult, Command, Invocation, Kind, Output, Policy, Tool, ToolOutput,
};

pub use address::{AddressRefused, refused_class};

pub struct FetchWebpage;

/// Bytes read at most.
pub const MAX_BYTES: usize = 5 * 1024 * 1024;
const TIMEOUT: Duration = Duration::from_secs(30);

/// Which addresses a fetch may reach.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FetchPolicy {
    /// Loopback, link-local and private addresses too (the `allow_private_addresses` opt).
    pub allow_private_addresses: bool,
}

impl FetchPolicy {
    pub fn from_opts(opts: &Opts) -> Self {
        Self {
            allow_private_addresses: opts.allow_private_addresses(),
        }
    }
}

/// The HTTP client of every fetch under `policy`, built on first use: a 10 s connect timeout,
/// [`TIMEOUT`] for the whole request, no redirects followed by reqwest (the hops are
/// [`fetch`]'s), no proxy, sayso's user agent, and unless private addresses are allowed the
/// [`address::GuardedResolver`]. No connection is kept between fetches (as with a client per
/// fetch): a connection's task lives on the runtime that opened it, and a later fetch may run
/// on another one.
fn http_client(policy: FetchPolicy) -> Result<&'static reqwest::Client, &'static str> {
    static GUARDED: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    static OPEN: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    let cell = if policy.allow_private_addresses {
        &OPEN
    } else {
        &GUARDED
    };
    cell.get_or_init(|| {
        let builder = crate::provider::http::client_builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(Duration::from_secs(10))
            .timeout(TIMEOUT)
            .user_agent(concat!("sayso/", env!("CARGO_PKG_VERSION")))
            .pool_max_idle_per_host(0);
        let builder = if policy.allow_private_addresses {
            builder
        } else {
            builder.dns_resolver(Arc::new(address::GuardedResolver))
        };
        builder.build().map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(String::as_str)
}

/// What stopped a fetch, as the sentence the model gets.
fn refused(url: &str, e: &AddressRefused) -> String {
    format!("Refused to fetch `{url}`: {e}")
}

/// Fetches `url` under `policy`: the page's text for the model and a line for the user.
pub async fn fetch(url: &str, policy: FetchPolicy) -> Result<(String, String), String> {
    let first = Url::parse(url).map_err(|_| format!("Invalid URL: `{url}`"))?;
    if !matches!(first.scheme(), "http" | "https") {
        return Err(format!(
            "Invalid URL: `{url}` (only http and https are fetched)"
        ));
    }
    let client = http_client(policy).map_err(|e| format!("Error fetching `{url}`: {e}"))?;
    let mut current = first.clone();
    let mut hops = 0;
    let resp = loop {
        if !policy.allow_private_addresses {
            address::check_literal(&current).map_err(|e| refused(url, &e))?;
        }
        let resp =
            client
                .get(current.clone())
                .send()
                .await
                .map_err(|e| match address::refusal(&e) {
                    Some(r) => refused(url, &r),
                    None => format!("Error fetching `{url}`: {e}"),
                })?;
        let Some(next) = redirect_target(&resp, &current) else {
            break resp;
        };
        match check_redirect(&first, &next, hops) {
            Ok(()) => {}
            Err(RedirectRefused::CrossOrigin(_)) => {
                return Err(format!(
                    "`{url}` redirects to `{next}`, on another origin than the URL that was approved; it was not fetched. To read it, call fetch_webpage with that URL (the call needs approval again)."
                ));
            }
            Err(e) => return Err(format!("Error fetching `{url}`: {e}")),
        }
        hops += 1;
        current = next;
    };
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

/// Where a redirect response points (resolved against `current`), or `None` when `resp` is not
/// a redirect to follow (a 304, or a 3xx without a usable `Location`, is the answer itself).
fn redirect_target(resp: &reqwest::Response, current: &Url) -> Option<Url> {
    if !matches!(resp.status().as_u16(), 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = resp
        .headers()
        .get(reqwest::header::LOCATION)?
        .to_str()
        .ok()?;
    current.join(location).ok()
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

    /// Nothing in the project changes (undo's checkpoints skip it).
    fn touches(&self, _inv: &Invocation) -> Option<Vec<std::path::PathBuf>> {
        Some(Vec::new())
    }

    fn kind(&self) -> Kind {
        Kind::Network
    }

    fn default_opts(&self) -> Opts {
        Opts {
            require_approval_before: Some(ApprovalBefore::Always),
            ..Opts::default()
        }
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        format!("fetch_webpage {}", inv.arg_str("url"))
    }

    fn prompt(&self, inv: &Invocation) -> Option<String> {
        Some(format!("Fetch `{}`?", inv.arg_str("url")))
    }

    fn policy(&self, inv: &Invocation) -> Policy {
        Policy {
            judge_context: Some(format!("Fetch the web page {}", inv.arg_str("url"))),
            ..Policy::default()
        }
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                let policy = FetchPolicy::from_opts(&inv.opts);
                Some(match fetch(inv.arg_str("url"), policy).await {
                    Ok((content, display)) => CmdResult::ok(Output::shown(content, display)),
                    Err(e) => CmdResult::err(e),
                })
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        report::last_output(data, out);
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        report::errors(errors, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fetch_under_one_policy_gets_the_same_client() {
        for allow_private_addresses in [false, true] {
            let policy = FetchPolicy {
                allow_private_addresses,
            };
            let first = http_client(policy).expect("the client builds");
            let second = http_client(policy).expect("the client builds");
            assert!(std::ptr::eq(first, second));
        }
        let guarded = http_client(FetchPolicy::default()).unwrap();
        let open = http_client(FetchPolicy {
            allow_private_addresses: true,
        })
        .unwrap();
        assert!(!std::ptr::eq(guarded, open));
    }
}
