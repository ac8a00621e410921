//! Every reqwest client sayso builds starts here: reqwest's rustls comes without a crypto
//! provider (`rustls-no-provider`; its default, aws-lc-rs, is a long C build and megabytes of
//! binary), so this installs rustls's `ring` provider as the process default first.
//!
//! It also sets the redirect policy every client starts with: a redirect is followed only to
//! the origin (scheme, host, port) the request was sent to, at most [`MAX_REDIRECTS`] times.
//! A redirect to another origin is an error ([`CrossOriginRedirect`], naming both), never
//! followed: the request would carry the provider's headers and the whole conversation there
//! (reqwest only strips `Authorization` and cookies). Clients that must not follow any redirect
//! (MCP over HTTP, `fetch_webpage`, which follows hops itself) override it.

use reqwest::Url;
use reqwest::redirect::Policy;

/// Same-origin redirects followed at most.
pub const MAX_REDIRECTS: usize = 10;

/// Makes `ring` the process's rustls crypto provider (once; a provider installed earlier is
/// kept). `main` calls it first thing, so that no client built anywhere can lack one.
pub fn install_crypto_provider() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        // Err only when a default is already installed, which is then used as it is.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// `reqwest::Client::builder()`, after [`install_crypto_provider`], with
/// [`same_origin_redirects`].
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder().redirect(same_origin_redirects())
}

/// A redirect the client refused to follow because it leads to another origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error(
    "the server at {from} redirected the request to {to}, another origin; sayso does not follow redirects to another origin (the request would carry your headers and the conversation there)"
)]
pub struct CrossOriginRedirect {
    /// The origin the request was sent to, e.g. `http://127.0.0.1:8080`.
    pub from: String,
    /// Where the redirect pointed (the whole URL).
    pub to: String,
}

/// `scheme://host[:port]` of `url` (the port only when it is not the scheme's default).
pub fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// Whether `a` and `b` have the same scheme, host and port.
pub fn same_origin(a: &Url, b: &Url) -> bool {
    a.origin() == b.origin()
}

/// What a client does with a redirect from `first` (the URL first requested) to `next`, after
/// `hops` redirects so far: follow it, or the error that stops the request.
pub fn check_redirect(first: &Url, next: &Url, hops: usize) -> Result<(), RedirectRefused> {
    if !same_origin(first, next) {
        return Err(RedirectRefused::CrossOrigin(CrossOriginRedirect {
            from: origin(first),
            to: next.to_string(),
        }));
    }
    if hops >= MAX_REDIRECTS {
        return Err(RedirectRefused::TooMany(MAX_REDIRECTS));
    }
    Ok(())
}

/// Why a redirect was not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedirectRefused {
    #[error(transparent)]
    CrossOrigin(CrossOriginRedirect),
    #[error("more than {0} redirects")]
    TooMany(usize),
}

/// The redirect policy of [`client_builder`]: [`check_redirect`] against the first URL.
pub fn same_origin_redirects() -> Policy {
    Policy::custom(|attempt| {
        let Some(first) = attempt.previous().first().cloned() else {
            return attempt.stop();
        };
        // `previous` holds the first URL and every redirect followed so far.
        let hops = attempt.previous().len() - 1;
        match check_redirect(&first, attempt.url(), hops) {
            Ok(()) => attempt.follow(),
            Err(RedirectRefused::CrossOrigin(e)) => attempt.error(e),
            Err(e) => attempt.error(e),
        }
    })
}

/// The refused cross-origin redirect behind a reqwest error, if that is what stopped it.
pub fn cross_origin_redirect(e: &reqwest::Error) -> Option<CrossOriginRedirect> {
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        if let Some(r) = s.downcast_ref::<CrossOriginRedirect>() {
            return Some(r.clone());
        }
        src = s.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    /// An https request with the ring provider fails to connect; it does not panic for want
    /// of a crypto provider.
    #[tokio::test]
    async fn https_client_builds_and_fails_to_connect() {
        let client = client_builder()
            .no_proxy()
            .build()
            .expect("a client with the ring provider");
        let err = client
            .get("https://127.0.0.1:1/")
            .send()
            .await
            .expect_err("nothing listens on port 1");
        assert!(err.is_connect(), "{err:?}");
    }

    #[test]
    fn a_redirect_is_followed_only_to_the_same_scheme_host_and_port() {
        let first = url("http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(
            check_redirect(&first, &url("http://127.0.0.1:8080/v2/chat"), 0),
            Ok(())
        );
        // The default port is the same port.
        assert_eq!(
            check_redirect(&url("http://h/v1"), &url("http://h:80/v2"), 3),
            Ok(())
        );
        for other in [
            "http://127.0.0.1:8081/v1/chat/completions",
            "https://127.0.0.1:8080/v1/chat/completions",
            "http://localhost:8080/v1/chat/completions",
            "http://127.0.0.2:8080/v1/chat/completions",
        ] {
            assert_eq!(
                check_redirect(&first, &url(other), 0),
                Err(RedirectRefused::CrossOrigin(CrossOriginRedirect {
                    from: "http://127.0.0.1:8080".into(),
                    to: other.into(),
                })),
                "{other}"
            );
        }
    }

    #[test]
    fn same_origin_redirects_are_bounded() {
        let first = url("http://h:1/a");
        assert_eq!(check_redirect(&first, &first, MAX_REDIRECTS - 1), Ok(()));
        assert_eq!(
            check_redirect(&first, &first, MAX_REDIRECTS),
            Err(RedirectRefused::TooMany(MAX_REDIRECTS))
        );
    }

    #[test]
    fn the_refusal_names_both_origins() {
        let e = CrossOriginRedirect {
            from: "http://127.0.0.1:1".into(),
            to: "http://127.0.0.1:2/x".into(),
        };
        let text = e.to_string();
        assert!(text.contains("http://127.0.0.1:1 "), "{text}");
        assert!(text.contains("http://127.0.0.1:2/x"), "{text}");
    }
}
