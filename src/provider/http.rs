//! Every reqwest client sayso builds starts here: reqwest's rustls comes without a crypto
//! provider (`rustls-no-provider`; its default, aws-lc-rs, is a long C build and megabytes of
//! binary), so this installs rustls's `ring` provider as the process default first.

/// Makes `ring` the process's rustls crypto provider (once; a provider installed earlier is
/// kept). `main` calls it first thing, so that no client built anywhere can lack one.
pub fn install_crypto_provider() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        // Err only when a default is already installed, which is then used as it is.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// `reqwest::Client::builder()`, after [`install_crypto_provider`].
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
}

#[cfg(test)]
mod tests {
    use super::client_builder;

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
}
