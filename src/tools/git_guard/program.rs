//! Which git sayso runs and how old it is: the first `git` on `PATH` in an absolute directory,
//! its version read once, and the refusal for a git too old to turn lazy fetching off.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The oldest git that honours `GIT_NO_LAZY_FETCH`.
pub const MIN_VERSION: (u32, u32) = (2, 45);

/// The git program: the first `git` on `PATH` in an absolute directory (a relative entry such
/// as `.` would pick a `git` from the project itself).
pub fn git_program() -> Option<&'static Path> {
    static GIT: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    GIT.get_or_init(|| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .filter(|d| d.is_absolute())
            .map(|d| d.join("git"))
            .find(|p| is_executable(p))
    })
    .as_deref()
}

pub(super) fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// The installed git's version, read once. This git reads no config at all (no system, user
/// or repository file, no inherited `GIT_*` variable) and runs in `/`: it runs outside the
/// sandbox (it is read once, before any chat's sandbox exists), so nothing may make it run a
/// program or write a file (`trace2.normalTarget` in the user's config would, for any git).
pub fn version() -> Option<(u32, u32)> {
    static VERSION: OnceLock<Option<(u32, u32)>> = OnceLock::new();
    *VERSION.get_or_init(|| {
        let mut cmd = Command::new(git_program()?);
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("GIT_") {
                cmd.env_remove(k);
            }
        }
        let out = cmd
            .arg("--version")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .current_dir("/")
            .stdin(Stdio::null())
            .output()
            .ok()?;
        parse_version(&String::from_utf8_lossy(&out.stdout))
    })
}

/// `git version 2.47.3` → (2, 47).
pub fn parse_version(text: &str) -> Option<(u32, u32)> {
    let v = text.split_whitespace().nth(2)?;
    let mut parts = v.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()?;
    Some((major, minor))
}

/// Why no git may run unasked with this git, if that is so.
pub fn version_refusal() -> Option<String> {
    match version() {
        Some(v) if v >= MIN_VERSION => None,
        Some((a, b)) => Some(format!(
            "git {a}.{b} is older than {}.{}, which cannot turn off fetching from a partial clone's remote",
            MIN_VERSION.0, MIN_VERSION.1
        )),
        None => Some("git was not found or did not report its version".into()),
    }
}
