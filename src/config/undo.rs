//! The `[undo]` table: whether tool calls are checkpointed for undo, the largest file whose
//! content is kept (larger ones by hash only), and how much new content one session may add to
//! the checkpoint store. Not settable by a project file (a cloned repository must not turn
//! undo off, nor fill your disk).

use serde::Deserialize;

use super::error::ConfigError;
use super::file::FileConfig;
use super::layers::Origins;

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoFile {
    pub enabled: Option<bool>,
    /// Bytes (`2097152`) or a size (`"2MiB"`, `"512KiB"`, `"1GiB"`).
    pub max_file_size: Option<toml::Value>,
    pub session_cap: Option<toml::Value>,
}

impl UndoFile {
    pub fn merge(self, high: UndoFile) -> UndoFile {
        UndoFile {
            enabled: high.enabled.or(self.enabled),
            max_file_size: high.max_file_size.or(self.max_file_size),
            session_cap: high.session_cap.or(self.session_cap),
        }
    }
}

pub const DEFAULT_MAX_FILE_SIZE: u64 = 2 << 20;
pub const DEFAULT_SESSION_CAP: u64 = 512 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UndoSettings {
    pub enabled: bool,
    pub max_file_size: u64,
    pub session_cap: u64,
}

impl Default for UndoSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            session_cap: DEFAULT_SESSION_CAP,
        }
    }
}

/// `123`, `"64KiB"`, `"2MiB"`, `"1GiB"` (also `KB`/`MB`/`GB`, read as powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(digits);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a size (2097152, \"512KiB\", \"2MiB\")"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err(format!("`{s}`: the unit is KiB, MiB or GiB")),
    };
    n.checked_shl(shift)
        .filter(|v| v >> shift == n)
        .ok_or_else(|| format!("`{s}` is too large"))
}

fn size(v: &toml::Value) -> Result<u64, String> {
    match v {
        toml::Value::Integer(n) if *n >= 0 => Ok(*n as u64),
        toml::Value::String(s) => parse_size(s),
        other => Err(format!("`{other}` is not a size")),
    }
}

pub(super) fn settings(
    merged: &FileConfig,
    origins: Origins<'_>,
) -> Result<UndoSettings, ConfigError> {
    let file = merged.undo.clone().unwrap_or_default();
    let d = UndoSettings::default();
    let read = |v: &Option<toml::Value>, key: &str, default: u64| match v {
        None => Ok(default),
        Some(v) => size(v).map_err(|m| origins.invalid("undo", key, m)),
    };
    Ok(UndoSettings {
        enabled: file.enabled.unwrap_or(d.enabled),
        max_file_size: read(&file.max_file_size, "max_file_size", d.max_file_size)?,
        session_cap: read(&file.session_cap, "session_cap", d.session_cap)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_bytes() {
        for (s, want) in [
            ("123", Ok(123)),
            ("64KiB", Ok(64 << 10)),
            ("2MiB", Ok(2 << 20)),
            ("2 mb", Ok(2 << 20)),
            ("1GiB", Ok(1 << 30)),
        ] {
            assert_eq!(parse_size(s), want, "{s}");
        }
        for bad in ["", "lots", "2TiB", "-1", "99999999999999999999GiB"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
