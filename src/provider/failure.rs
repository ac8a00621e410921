//! Failures no retry can fix, told apart from those that may pass: a connection refused by
//! this machine (nothing listens there: after one quick retry, for a server that is just
//! starting, waiting will not start it), a host name that does not resolve, and a refused API key (401/403, or an authentication error a proxy such as
//! LiteLLM wraps in a 5xx). Each gets a hint a user can act on: the server's address to check,
//! or the variable the key came from.
//!
//! Pure: it reads an error chain, a status and a body, and the client's settings. Whether to
//! retry is [`super::ProviderError::is_retryable`]; this only says what happened.

use serde_json::Value;

use super::base_url::BaseUrlFrom;
use super::client::ProviderSettings;

/// The wait before retrying a connection this machine refused (the policy's first delay when
/// that is shorter).
pub const QUICK_RETRY: std::time::Duration = std::time::Duration::from_millis(250);

/// Why a connection could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectCause {
    /// The host refused the connection: nothing listens on that port. `local`: the host is
    /// this machine (a loopback address, `localhost`), so it will not change by itself.
    Refused { local: bool },
    /// The host name did not resolve. `temporary`: the resolver said to try again
    /// (`EAI_AGAIN`); otherwise the name does not exist.
    Dns { temporary: bool },
    /// Anything else: a timeout while connecting, a reset, a TLS failure…
    Other,
}

impl ConnectCause {
    /// The cause of a failed connection, from the error's chain: the io error's kind when it
    /// has one, else what the resolver said (`dns error: failed to lookup address information:
    /// Name or service not known`).
    pub fn of(url: &str, chain: &[&(dyn std::error::Error + 'static)]) -> Self {
        let refused = chain.iter().any(|e| {
            e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        });
        if refused {
            return Self::Refused {
                local: is_loopback(url),
            };
        }
        let text: Vec<String> = chain.iter().map(|e| e.to_string().to_lowercase()).collect();
        Self::from_messages(&text)
    }

    /// [`Self::of`] for an error whose chain is only text (lowercase).
    fn from_messages(text: &[String]) -> Self {
        let any = |words: &[&str]| text.iter().any(|t| words.iter().any(|w| t.contains(w)));
        if any(&[
            "dns error",
            "failed to lookup address",
            "error resolving dns",
        ]) {
            return Self::Dns {
                temporary: any(&["temporary failure", "try again"]),
            };
        }
        Self::Other
    }

    /// Whether a retry may succeed: not after a name that did not resolve (also the resolver's
    /// "try again", which is what an offline machine answers: two more lookups a second
    /// apart do not bring the network back).
    pub fn may_pass(&self) -> bool {
        !matches!(self, Self::Dns { .. })
    }

    /// Retries worth making at most: a server on this machine that is starting may listen a
    /// moment later (one quick retry, then nothing will change by waiting); a refused remote
    /// host may be back in a moment, but not after many tries.
    pub fn retry_cap(&self) -> Option<u32> {
        match self {
            Self::Refused { local: true } => Some(1),
            Self::Refused { local: false } => Some(2),
            Self::Dns { .. } => Some(0),
            Self::Other => None,
        }
    }

    /// The short wait before that one retry of a refused connection on this machine.
    pub fn quick_retry(&self) -> Option<std::time::Duration> {
        matches!(self, Self::Refused { local: true }).then_some(QUICK_RETRY)
    }

    /// What to check, after the error itself (empty when there is nothing to add).
    /// `from`: where the base URL came from. The built-in default resolves wherever there is
    /// a network, so a failure there is the network's, not the URL's.
    pub fn advice(&self, url: &str, from: &BaseUrlFrom) -> String {
        match self {
            Self::Refused { local: true } => {
                format!(" — is the server running at {}?", origin(url))
            }
            Self::Dns { temporary: false } if *from == BaseUrlFrom::Default => {
                " — the host name does not resolve: no network or DNS?".to_owned()
            }
            Self::Dns { temporary: false } => {
                format!(" — the host name does not resolve: check {}", from.place())
            }
            _ => String::new(),
        }
    }
}

/// `scheme://host:port` of `url`, or `url` itself when it does not parse.
fn origin(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => super::http::origin(&u),
        Err(_) => url.to_owned(),
    }
}

/// Whether `url`'s host is this machine: a loopback or unspecified address, `localhost`.
pub fn is_loopback(url: &str) -> bool {
    let Ok(u) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = u.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return ip.is_loopback() || ip.is_unspecified();
    }
    let d = host.trim_end_matches('.').to_ascii_lowercase();
    d == "localhost" || d.ends_with(".localhost")
}

/// Error `type`s of authentication failures: OpenAI `authentication_error`/`invalid_api_key`,
/// LiteLLM's proxy `auth_error` and `token_not_found_in_db`.
const AUTH_TYPES: [&str; 4] = [
    "auth_error",
    "authentication_error",
    "invalid_api_key",
    "token_not_found_in_db",
];

/// Words of an authentication failure inside a server error (LiteLLM answers a missing key
/// with "Authentication Error, No api key passed in." and wraps an upstream's refusal in a
/// 500: "litellm.AuthenticationError: … The api_key client option must be set …").
const AUTH_WORDS: [&str; 8] = [
    "authentication error",
    "authenticationerror",
    "no api key",
    "invalid api key",
    "incorrect api key",
    "api key not valid",
    "missing api key",
    "api_key client option must be set",
];

/// Whether an error answer says the key was missing or refused: every 401 and 403, and a 5xx
/// whose body is an authentication error (its `type`, a `code` of 401, or its words).
pub fn is_auth_failure(status: u16, body: &str) -> bool {
    if status == 401 || status == 403 {
        return true;
    }
    if status < 500 {
        return false;
    }
    let v: Option<Value> = serde_json::from_str(body).ok();
    let inner = v.as_ref().map(|v| v.get("error").unwrap_or(v));
    let field = |k: &str| inner.and_then(|i| i.get(k));
    let typed = field("type")
        .and_then(Value::as_str)
        .is_some_and(|t| AUTH_TYPES.contains(&t));
    let code = field("code").is_some_and(|c| {
        c.as_u64() == Some(401) || c.as_str().is_some_and(|s| s == "401" || s == "403")
    });
    let text = inner
        .and_then(|i| i.get("message").and_then(Value::as_str).or(i.as_str()))
        .unwrap_or(body)
        .to_lowercase();
    typed || code || AUTH_WORDS.iter().any(|w| text.contains(w))
}

/// Where the key of `settings` came from, and what to do about a refused one.
pub fn key_hint(settings: &ProviderSettings) -> String {
    let table = if settings.name == "default" {
        "[provider]".to_owned()
    } else {
        format!("[providers.{}]", settings.name)
    };
    let header = settings.headers.iter().find(|(k, _)| {
        ["authorization", "api-key", "x-api-key"].contains(&k.to_ascii_lowercase().as_str())
    });
    let sent = settings.api_key.as_deref().is_some_and(|k| !k.is_empty());
    match (&settings.api_key_env, sent, header) {
        (_, _, Some((name, _))) => {
            format!("the key was sent in the `{name}` header set in {table} headers: check it")
        }
        (Some(var), true, None) => format!(
            "the key came from ${var}: check it, or set api_key_env in {table} to the variable that holds this server's key"
        ),
        (Some(var), false, None) => format!(
            "no API key was sent: ${var} is not set (export {var}=…, or set api_key_env in {table} to the variable that holds the key)"
        ),
        (None, _, None) => format!(
            "no API key is configured: set api_key_env in {table} to the variable that holds the key"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://127.0.0.5:1/",
            "http://localhost:11434/v1",
            "http://LOCALHOST./v1",
            "http://app.localhost/",
            "http://[::1]:8080/v1",
            "http://0.0.0.0:4000",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in [
            "http://10.0.0.2:8080/v1",
            "https://api.openai.com/v1",
            "http://localhost.example.com/",
            "not a url",
        ] {
            assert!(!is_loopback(url), "{url}");
        }
    }

    #[test]
    fn resolver_messages() {
        let of = |m: &str| ConnectCause::from_messages(&[m.to_lowercase()]);
        assert_eq!(
            of("failed to lookup address information: Name or service not known"),
            ConnectCause::Dns { temporary: false }
        );
        assert_eq!(
            of(
                "failed to lookup address information: nodename nor servname provided, or not known"
            ),
            ConnectCause::Dns { temporary: false }
        );
        assert_eq!(
            of("failed to lookup address information: Temporary failure in name resolution"),
            ConnectCause::Dns { temporary: true }
        );
        assert_eq!(of("tcp connect error"), ConnectCause::Other);
        assert!(!ConnectCause::Dns { temporary: false }.may_pass());
        assert!(!ConnectCause::Dns { temporary: true }.may_pass());
        assert!(ConnectCause::Refused { local: true }.may_pass());
        assert_eq!(ConnectCause::Refused { local: true }.retry_cap(), Some(1));
        assert_eq!(ConnectCause::Refused { local: false }.retry_cap(), Some(2));
    }

    #[test]
    fn a_name_that_does_not_resolve_blames_the_network_unless_someone_set_the_url() {
        let dns = ConnectCause::Dns { temporary: false };
        let url = "https://api.openai.com/v1/chat/completions";
        assert_eq!(
            dns.advice(url, &BaseUrlFrom::Default),
            " — the host name does not resolve: no network or DNS?"
        );
        assert_eq!(
            dns.advice(url, &BaseUrlFrom::Env("OPENAI_BASE_URL".into())),
            " — the host name does not resolve: check $OPENAI_BASE_URL"
        );
        let file = BaseUrlFrom::File {
            table: "providers.lab".into(),
            path: "/home/u/.config/sayso/config.toml".into(),
        };
        assert_eq!(
            dns.advice(url, &file),
            " — the host name does not resolve: check base_url in [providers.lab] of /home/u/.config/sayso/config.toml"
        );
    }

    #[test]
    fn auth_failures_in_every_shape_and_only_those() {
        for (status, body) in [
            (401, r#"{"error":{"message":"Invalid API Key"}}"#),
            (403, "Forbidden"),
            (
                401,
                r#"{"error":{"message":"Authentication Error, No api key passed in.","type":"auth_error","param":"None","code":"401"}}"#,
            ),
            (
                500,
                r#"{"error":{"message":"Authentication Error, No api key passed in.","type":"auth_error","param":"None","code":"401"}}"#,
            ),
            (
                500,
                r#"{"error":"litellm.AuthenticationError: AuthenticationError: OpenAIException - The api_key client option must be set either by passing api_key to the client or by setting the OPENAI_API_KEY environment variable"}"#,
            ),
            (
                502,
                r#"{"error":{"message":"upstream refused","type":"token_not_found_in_db"}}"#,
            ),
        ] {
            assert!(is_auth_failure(status, body), "{status} {body}");
        }
        for (status, body) in [
            (500, r#"{"error":{"message":"Internal server error"}}"#),
            (503, "overloaded"),
            (429, r#"{"error":{"message":"Authentication Error"}}"#),
            (400, r#"{"error":{"message":"invalid api key format"}}"#),
        ] {
            assert!(!is_auth_failure(status, body), "{status} {body}");
        }
    }

    fn settings(key: Option<&str>, env: Option<&str>) -> ProviderSettings {
        ProviderSettings {
            name: "default".into(),
            base_url: "http://127.0.0.1:4000/v1".into(),
            base_url_from: BaseUrlFrom::Flag,
            api_key: key.map(str::to_owned),
            api_key_env: env.map(str::to_owned),
            headers: vec![],
            request_timeout: std::time::Duration::from_secs(1),
            idle_timeout: std::time::Duration::from_secs(1),
            first_token_timeout: std::time::Duration::from_secs(1),
            connect_timeout: std::time::Duration::from_secs(1),
            retry: Default::default(),
            context_window: None,
            model_windows: Default::default(),
            window_caps: Default::default(),
        }
    }

    #[test]
    fn the_hint_names_where_the_key_came_from() {
        let sent = key_hint(&settings(Some("sk-x"), Some("LITELLM_KEY")));
        assert!(sent.starts_with("the key came from $LITELLM_KEY"), "{sent}");
        assert!(!sent.contains("sk-x"), "never the key itself: {sent}");
        let unset = key_hint(&settings(None, Some("OPENAI_API_KEY")));
        assert!(
            unset.starts_with("no API key was sent: $OPENAI_API_KEY is not set"),
            "{unset}"
        );
        let mut named = settings(None, None);
        named.name = "proxy".into();
        assert_eq!(
            key_hint(&named),
            "no API key is configured: set api_key_env in [providers.proxy] to the variable that holds the key"
        );
        named.headers = vec![("X-Api-Key".into(), "secret".into())];
        let header = key_hint(&named);
        assert!(header.contains("`X-Api-Key` header"), "{header}");
        assert!(!header.contains("secret"), "{header}");
    }
}
