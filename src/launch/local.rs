//! No endpoint is configured: before giving up, look for model servers on this machine
//! (`provider::discover`) and offer them — never send a prompt somewhere the user did not pick.
//!
//! - Headless (`-p`), or no terminal: exit 2 as always, but the message names, for each server
//!   found, the exact `--base-url`/`-m` to run with, before the usual hint.
//! - The TUI: a picker of server and model (`tui::server_picker`). A choice starts the chat
//!   against it for this run only ([`Choice`]); on exit, [`Choice::keep_hint`] says how to make
//!   it permanent. Esc/q exits 2 with the message `-p` would print.
//!
//! `SAYSO_PROBE_PORTS` (`llamacpp:PORT,ollama:PORT,lmstudio:PORT,vllm:PORT`, or `none`) replaces
//! the usual ports: a testing aid that can only change which loopback ports are looked at.

use std::path::Path;

use crate::config::error::{no_endpoint_headline, no_endpoint_hint};
use crate::exit;
use crate::provider::discover::{self, LocalServer, PROBE_BUDGET, USUAL_PORTS};
use crate::tui::theme::Theme;

/// A server and model the user picked for this run.
#[derive(Debug, Clone)]
pub struct Choice {
    pub server: LocalServer,
    pub model: String,
}

/// What to do without an endpoint.
pub enum Offer {
    Use(Choice),
    Exit(u8),
}

/// How the chat was asked for.
pub struct Ask<'a> {
    /// `-p`: print the suggestions and exit.
    pub headless: bool,
    /// stdin and stdout are a terminal (the picker needs one).
    pub terminal: bool,
    /// `-m`, when given: suggested first where a server lists it.
    pub model: Option<&'a str>,
    /// The variable the key would be read from, for the usual message.
    pub key_env: &'a str,
    /// The user's config file, when there is one (for the usual message).
    pub config_file: Option<&'a std::path::Path>,
    pub theme: &'a Theme,
}

/// Looks for local servers and offers them (see the module docs).
pub async fn offer(ask: Ask<'_>) -> Offer {
    let servers = discover::probe_ports(&ports(), PROBE_BUDGET).await;
    tracing::info!(
        found = servers.len(),
        "no endpoint configured; local servers probed"
    );
    if ask.headless || !ask.terminal || servers.is_empty() {
        let text = message(&servers, &ask);
        eprintln!("{text}");
        super::json_error(text.strip_prefix("sayso: error: ").unwrap_or(&text));
        return Offer::Exit(exit::USAGE);
    }
    match crate::tui::server_picker::pick(&servers, ask.theme).await {
        Ok(Some((i, model))) => match servers.get(i) {
            Some(server) => Offer::Use(Choice {
                server: server.clone(),
                model,
            }),
            None => Offer::Exit(exit::USAGE),
        },
        Ok(None) => {
            eprintln!("{}", message(&servers, &ask));
            Offer::Exit(exit::USAGE)
        }
        Err(e) => {
            eprintln!("sayso: error: cannot show the server picker: {e}");
            eprintln!("{}", message(&servers, &ask));
            Offer::Exit(exit::USAGE)
        }
    }
}

/// The ports to look at: the usual ones, or `SAYSO_PROBE_PORTS`.
fn ports() -> Vec<(discover::ServerKind, u16)> {
    match std::env::var("SAYSO_PROBE_PORTS") {
        Err(_) => USUAL_PORTS.to_vec(),
        Ok(spec) => discover::ports_from_spec(&spec).unwrap_or_else(|e| {
            eprintln!("sayso: warning: SAYSO_PROBE_PORTS: {e}; not looking for local servers");
            Vec::new()
        }),
    }
}

/// The model to suggest on `s`: the one asked for if it is there, else the first.
fn suggested<'a>(s: &'a LocalServer, wanted: Option<&str>) -> Option<&'a str> {
    wanted
        .and_then(|w| s.models.iter().find(|m| *m == w))
        .or(s.models.first())
        .map(String::as_str)
}

/// The usual error, with one line per server found before the hint.
fn message(servers: &[LocalServer], ask: &Ask<'_>) -> String {
    let mut lines = vec![format!(
        "sayso: error: {}",
        no_endpoint_headline(ask.key_env)
    )];
    for s in servers {
        lines.push(found_line(s, ask));
    }
    lines.push(no_endpoint_hint(ask.key_env, ask.config_file));
    lines.join("\n")
}

/// `found llama.cpp at URL (model M): sayso --base-url URL -m M -p …`.
fn found_line(s: &LocalServer, ask: &Ask<'_>) -> String {
    let name = s.kind.name();
    let Some(model) = suggested(s, ask.model) else {
        return format!(
            "found {name} at {}, but it lists no models (load or pull one first)",
            s.base_url
        );
    };
    let models = match s.models.as_slice() {
        [one] => format!("model {one}"),
        many if many.len() <= 5 => format!("models {}", many.join(", ")),
        many => format!("models {}, … ({} in all)", many[..5].join(", "), many.len()),
    };
    let print = if ask.headless { " -p …" } else { "" };
    format!(
        "found {name} at {url} ({models}): sayso --base-url {url} -m {}{print}",
        shell_words::quote(model),
        url = s.base_url,
    )
}

impl Choice {
    /// Printed when the chat ends: what was used, and how to keep it (`config_file` is the
    /// user config path).
    pub fn keep_hint(&self, config_file: &Path) -> String {
        let url = &self.server.base_url;
        let model_toml = toml_string(&self.model);
        let url_toml = toml_string(url);
        format!(
            "sayso: this chat used {name} at {url} with model {model}, found on this machine (your config is unchanged).\n\
             To use it every time, add these lines at the top of {file} (`sayso config init` writes a commented one to start from):\n  \
             model = {model_toml}\n  \
             [provider]\n  \
             base_url = {url_toml}\n\
             or run: sayso --base-url {url} -m {quoted}",
            name = self.server.kind.name(),
            model = self.model,
            file = config_file.display(),
            quoted = shell_words::quote(&self.model),
        )
    }
}

/// `s` as a TOML basic string.
fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::provider::discover::ServerKind;

    fn server(kind: ServerKind, port: u16, models: &[&str]) -> LocalServer {
        LocalServer {
            kind,
            base_url: format!("http://127.0.0.1:{port}/v1"),
            models: models.iter().map(|m| (*m).to_owned()).collect(),
        }
    }

    fn line(s: &LocalServer, headless: bool, model: Option<&str>) -> String {
        let theme = Theme::named("dark", None);
        found_line(
            s,
            &Ask {
                headless,
                terminal: false,
                model,
                key_env: "OPENAI_API_KEY",
                config_file: None,
                theme: &theme,
            },
        )
    }

    #[test]
    fn each_server_found_gets_its_exact_command() {
        assert_eq!(
            line(
                &server(ServerKind::LlamaCpp, 8080, &["qwen2.5-0.5b"]),
                true,
                None
            ),
            "found llama.cpp at http://127.0.0.1:8080/v1 (model qwen2.5-0.5b): sayso --base-url http://127.0.0.1:8080/v1 -m qwen2.5-0.5b -p …"
        );
        let ollama = server(ServerKind::Ollama, 11434, &["qwen3:8b", "llama3.2"]);
        assert_eq!(
            line(&ollama, true, Some("llama3.2")),
            "found Ollama at http://127.0.0.1:11434/v1 (models qwen3:8b, llama3.2): sayso --base-url http://127.0.0.1:11434/v1 -m llama3.2 -p …"
        );
        assert_eq!(
            line(&ollama, false, Some("absent")),
            "found Ollama at http://127.0.0.1:11434/v1 (models qwen3:8b, llama3.2): sayso --base-url http://127.0.0.1:11434/v1 -m qwen3:8b"
        );
        assert_eq!(
            line(&server(ServerKind::LmStudio, 1234, &[]), true, None),
            "found LM Studio at http://127.0.0.1:1234/v1, but it lists no models (load or pull one first)"
        );
        let many = server(ServerKind::Vllm, 8000, &["a", "b", "c", "d", "e", "f b"]);
        assert!(line(&many, true, Some("f b")).ends_with(
            "(models a, b, c, d, e, … (6 in all)): sayso --base-url http://127.0.0.1:8000/v1 -m 'f b' -p …"
        ));
    }

    #[test]
    fn the_keep_hint_gives_the_exact_config_lines() {
        let c = Choice {
            server: server(ServerKind::LlamaCpp, 8080, &["tiny"]),
            model: "tiny".into(),
        };
        let hint = c.keep_hint(Path::new("/home/u/.config/sayso/config.toml"));
        assert!(hint.contains("top of /home/u/.config/sayso/config.toml (`sayso config init`"));
        assert!(hint.contains(
            "\n  model = \"tiny\"\n  [provider]\n  base_url = \"http://127.0.0.1:8080/v1\"\n"
        ));
        assert!(hint.ends_with("or run: sayso --base-url http://127.0.0.1:8080/v1 -m tiny"));
    }
}
