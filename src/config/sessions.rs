//! The `[sessions]` table: whether chats are saved, and how many (or how old) saved sessions
//! are kept. Not settable by a project file (it could delete your saved sessions).

use std::time::Duration;

use serde::Deserialize;

use super::error::ConfigError;
use super::file::FileConfig;
use super::layers::Origins;

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionsFile {
    /// Save chats (`--no-session` turns it off for one run).
    pub save: Option<bool>,
    /// Prune at start: a count (`200`) or an age (`"90d"`, `"12h"`, `"30m"`, `"4w"`).
    pub keep: Option<toml::Value>,
}

impl SessionsFile {
    pub fn merge(self, high: SessionsFile) -> SessionsFile {
        SessionsFile {
            save: high.save.or(self.save),
            keep: high.keep.or(self.keep),
        }
    }
}

/// How many sessions to keep, or for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    Count(usize),
    Age(Duration),
}

/// `30d`, `12h`, `90m`, `4w`, or a plain count (`200`, at least 1).
pub fn parse_keep(s: &str) -> Result<Keep, String> {
    let s = s.trim();
    let bad = || format!("`{s}` is neither a count (200) nor an age (30d, 12h, 90m, 4w)");
    if let Ok(n) = s.parse::<usize>() {
        return if n == 0 {
            Err("must keep at least 1 session".into())
        } else {
            Ok(Keep::Count(n))
        };
    }
    let (num, unit) = s.split_at(s.len().saturating_sub(1));
    let n: u64 = num.parse().map_err(|_| bad())?;
    if n == 0 {
        return Err(bad());
    }
    let secs = match unit {
        "d" => n * 86_400,
        "h" => n * 3_600,
        "m" => n * 60,
        "w" => n * 7 * 86_400,
        _ => return Err(bad()),
    };
    Ok(Keep::Age(Duration::from_secs(secs)))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSettings {
    pub save: bool,
    pub keep: Option<Keep>,
}

pub(super) fn settings(
    merged: &FileConfig,
    origins: Origins<'_>,
) -> Result<SessionSettings, ConfigError> {
    let file = merged.sessions.clone().unwrap_or_default();
    let keep = match &file.keep {
        None => None,
        Some(toml::Value::Integer(n)) => Some(parse_keep(&n.to_string())),
        Some(toml::Value::String(s)) => Some(parse_keep(s)),
        Some(other) => Some(Err(format!(
            "`{other}` is neither a count (200) nor an age (\"30d\")"
        ))),
    }
    .transpose()
    .map_err(|m| origins.invalid("sessions", "keep", m))?;
    Ok(SessionSettings {
        save: file.save.unwrap_or(true),
        keep,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_reads_counts_and_ages() {
        assert_eq!(parse_keep("200"), Ok(Keep::Count(200)));
        assert_eq!(
            parse_keep("30d"),
            Ok(Keep::Age(Duration::from_secs(30 * 86_400)))
        );
        assert_eq!(
            parse_keep("12h"),
            Ok(Keep::Age(Duration::from_secs(43_200)))
        );
        assert!(parse_keep("0").is_err());
        assert!(parse_keep("soon").is_err());
        assert!(parse_keep("0d").is_err());
    }
}
