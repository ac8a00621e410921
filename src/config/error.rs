//! Config errors that name the file, line and key, and the helpers that find them.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file is not valid TOML, has an unknown key, or a value of the wrong type.
    #[error("{}:{line}:{column}: {}{message}", path.display(), key_prefix(key))]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        key: Option<String>,
        message: String,
    },
    /// A value parsed but makes no sense (a URL that is not one, a zero timeout…).
    #[error("{}{}: {}{message}", origin.display(), line.map(|l| format!(":{l}")).unwrap_or_default(), key_prefix(&Some(key.clone())))]
    Invalid {
        origin: PathBuf,
        line: Option<usize>,
        key: String,
        message: String,
    },
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Nothing says where to send a chat (see `Config::require_endpoint`).
    #[error("{}\n{}", no_endpoint_headline(key_env), no_endpoint_hint(key_env, config_file.as_deref()))]
    NoEndpoint {
        key_env: String,
        /// The user's config file, when there is one (the hint then says to set the endpoint
        /// there, not to create it).
        config_file: Option<PathBuf>,
    },
}

/// The first line of [`ConfigError::NoEndpoint`]: what is missing.
pub fn no_endpoint_headline(key_env: &str) -> String {
    format!("no model endpoint is configured and ${key_env} is not set.")
}

/// The rest of [`ConfigError::NoEndpoint`]: the ways to set one up. With the user's
/// `config_file` existing, the last way is to set `base_url` there.
pub fn no_endpoint_hint(key_env: &str, config_file: Option<&std::path::Path>) -> String {
    let config = match config_file {
        Some(f) => format!("or set `base_url` (and `model`) in {}", f.display()),
        None => "or write a config file: `sayso config init`".to_owned(),
    };
    format!(
        "Try `sayso --demo` for a built-in demo, or point sayso at a server:\n  \
         sayso --base-url http://127.0.0.1:8080/v1 -m MODEL …   (llama.cpp, vLLM, Ollama, LM Studio…)\n  \
         export {key_env}=…                                    (OpenAI)\n\
         {config}"
    )
}

fn key_prefix(key: &Option<String>) -> String {
    key.as_ref()
        .map(|k| format!("key `{k}`: "))
        .unwrap_or_default()
}

/// 1-based line and column of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..source.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The dotted key written at the line containing `offset`: the table header in force there
/// plus the key before `=` on that line (when there is one).
pub fn key_at(source: &str, offset: usize) -> Option<String> {
    let (line_no, _) = line_col(source, offset);
    let mut table = String::new();
    for (i, line) in source.lines().enumerate() {
        let t = line.trim();
        if i + 1 == line_no {
            if let Some(h) = header(t) {
                return Some(h);
            }
            let key = t.split_once('=').map(|(k, _)| unquote_key(k))?;
            return Some(if table.is_empty() {
                key
            } else {
                format!("{table}.{key}")
            });
        }
        if let Some(h) = header(t) {
            table = h;
        }
    }
    None
}

/// The 1-based line where `table.key` is set in `source`, if it can be found.
pub fn find_key_line(source: &str, table: &str, key: &str) -> Option<usize> {
    let mut current = String::new();
    let dotted = if table.is_empty() {
        key.to_owned()
    } else {
        format!("{table}.{key}")
    };
    for (i, line) in source.lines().enumerate() {
        let t = line.trim();
        if let Some(h) = header(t) {
            if h == dotted {
                return Some(i + 1);
            }
            current = h;
            continue;
        }
        let Some((k, _)) = t.split_once('=') else {
            continue;
        };
        let k = unquote_key(k);
        let full = if current.is_empty() {
            k.clone()
        } else {
            format!("{current}.{k}")
        };
        if full == dotted || (current == table && k == key) {
            return Some(i + 1);
        }
    }
    None
}

fn header(t: &str) -> Option<String> {
    let inner = t.strip_prefix('[')?;
    let inner = inner.strip_prefix('[').unwrap_or(inner);
    let end = inner.find(']')?;
    Some(unquote_key(&inner[..end]))
}

fn unquote_key(k: &str) -> String {
    k.split('.')
        .map(|p| p.trim().trim_matches('"').trim_matches('\''))
        .collect::<Vec<_>>()
        .join(".")
}

/// Builds the error for a TOML deserialisation failure of `path`.
pub fn syntax_error(path: &Path, source: &str, e: &toml::de::Error) -> ConfigError {
    let offset = e.span().map_or(0, |s| s.start);
    let (line, column) = line_col(source, offset);
    ConfigError::Syntax {
        path: path.to_owned(),
        line,
        column,
        key: key_at(source, offset),
        message: e.message().trim().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str =
        "model = \"m\"\n[provider]\nbase_url = \"x\"\n[providers.local]\n\"max_retries\" = 3\n";

    #[test]
    fn finds_keys_in_tables() {
        assert_eq!(find_key_line(SRC, "", "model"), Some(1));
        assert_eq!(find_key_line(SRC, "provider", "base_url"), Some(3));
        assert_eq!(
            find_key_line(SRC, "providers.local", "max_retries"),
            Some(5)
        );
        assert_eq!(find_key_line(SRC, "provider", "nope"), None);
    }

    #[test]
    fn names_the_key_at_an_offset() {
        let off = SRC.find("3").unwrap();
        assert_eq!(
            key_at(SRC, off).as_deref(),
            Some("providers.local.max_retries")
        );
        assert_eq!(line_col(SRC, off), (5, 17));
    }
}
