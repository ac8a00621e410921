//! Which backend this machine has for a [`BackendChoice`], and what that backend cannot
//! enforce of the settings ([`super::Sandbox::limits`]). Probes run once per process.
//!
//! Not here: building argv (the backends' modules) or deciding per run (`policy`).

use std::path::{Path, PathBuf};

use super::{Backend, BackendChoice, Mode, Places, Settings};

/// The macOS sandbox front-end.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The backend `choice` names, or the best one here for `auto`; `Unavailable` with the reason
/// when there is none (or the forced one does not work here).
pub fn backend(choice: BackendChoice) -> Backend {
    match choice {
        BackendChoice::Auto => {
            let mut why = Vec::new();
            for choice in [
                BackendChoice::Bubblewrap,
                BackendChoice::Landlock,
                BackendChoice::Seatbelt,
            ] {
                match backend(choice) {
                    Backend::Unavailable(w) => why.push(w),
                    found => return found,
                }
            }
            Backend::Unavailable(format!("no sandbox works here: {}", why.join("; ")))
        }
        BackendChoice::Bubblewrap => bubblewrap(),
        BackendChoice::Landlock => landlock(),
        BackendChoice::Seatbelt => seatbelt(),
    }
}

#[cfg(target_os = "linux")]
fn bubblewrap() -> Backend {
    if let Err(why) = super::seccomp::program(&super::seccomp::Filter::default()) {
        return Backend::Unavailable(why);
    }
    match super::bwrap::available() {
        Ok(path) => Backend::Bubblewrap(path),
        Err(why) => Backend::Unavailable(why),
    }
}

#[cfg(not(target_os = "linux"))]
fn bubblewrap() -> Backend {
    Backend::Unavailable("bubblewrap is for Linux".into())
}

#[cfg(target_os = "linux")]
fn landlock() -> Backend {
    if let Err(why) = super::seccomp::program(&super::seccomp::Filter::default()) {
        return Backend::Unavailable(why);
    }
    match super::landlock::kernel_abi() {
        0 => Backend::Unavailable("Landlock is not enabled in this kernel".into()),
        abi => Backend::Landlock(abi),
    }
}

#[cfg(not(target_os = "linux"))]
fn landlock() -> Backend {
    Backend::Unavailable("Landlock is for Linux".into())
}

fn seatbelt() -> Backend {
    if cfg!(target_os = "macos") && Path::new(SANDBOX_EXEC).exists() {
        Backend::Seatbelt
    } else if cfg!(target_os = "macos") {
        Backend::Unavailable(format!("{SANDBOX_EXEC} is missing"))
    } else {
        Backend::Unavailable("Seatbelt is for macOS".into())
    }
}

/// What `backend` cannot enforce of `settings` around `places`, as sentences.
pub fn limits(backend: &Backend, settings: &Settings, places: &Places) -> Vec<String> {
    let mut out = loopback_limits(backend, settings);
    let Backend::Landlock(abi) = backend else {
        return out;
    };
    if settings.mode == Mode::WorkspaceWrite {
        out.push(
            "the project's .git, .sayso, .gitattributes and .gitmodules stay writable: \
             Landlock cannot deny a path inside a directory it allows"
                .to_owned(),
        );
        let roots: Vec<PathBuf> = [&places.project, &places.temp]
            .into_iter()
            .chain(&settings.writable_roots)
            .map(|p| canonical(p))
            .collect();
        for h in &places.hidden {
            let h = canonical(h);
            if let Some(root) = roots.iter().find(|r| h.starts_with(r)) {
                out.push(format!(
                    "{} is inside the writable {}: it stays readable and writable",
                    h.display(),
                    root.display()
                ));
            }
        }
    }
    if !places.hidden.is_empty() {
        out.push(
            "the names of the files in sayso's own directories can be listed, not read".to_owned(),
        );
    }
    out.push(
        "in /proc only the command's own entry can be opened, not those of the processes \
         it starts (Landlock rules name what exists when it starts)"
            .to_owned(),
    );
    #[cfg(target_os = "linux")]
    out.extend(super::landlock::abi_limits(*abi, !settings.network));
    #[cfg(not(target_os = "linux"))]
    let _ = abi;
    out
}

/// What `backend` cannot do of `allow_loopback` (asked for, with the network off).
fn loopback_limits(backend: &Backend, settings: &Settings) -> Vec<String> {
    if !settings.allow_loopback || settings.network || settings.mode == Mode::Off {
        return Vec::new();
    }
    // bubblewrap does what it says: the ports listening when a command starts (the report
    // says so, `Sandbox::loopback_mechanism`).
    let line = match backend {
        Backend::Landlock(abi) if *abi < 4 => {
            "allow_loopback needs Landlock ABI 4 (Linux 6.7): this machine's loopback stays \
             unreachable"
        }
        #[cfg(target_os = "linux")]
        Backend::Landlock(_) if !super::loopback::notify::SUPPORTED => {
            "allow_loopback: Landlock's loopback supervisor is for x86_64 and aarch64: this \
             machine's loopback stays unreachable"
        }
        Backend::Seatbelt => {
            "allow_loopback is not supported with Seatbelt: this machine's loopback stays \
             unreachable"
        }
        _ => return Vec::new(),
    };
    vec![line.to_owned()]
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn landlock_in_workspace_write_names_what_it_cannot_deny() {
        let settings = Settings::default();
        let places = Places {
            project: "/p".into(),
            temp: "/t".into(),
            hidden: vec!["/p/.sayso/config.toml".into(), "/h/sayso".into()],
            ..Places::default()
        };
        let text = limits(&Backend::Landlock(7), &settings, &places).join("\n");
        assert!(text.contains(".git, .sayso"), "{text}");
        assert!(
            text.contains("/p/.sayso/config.toml is inside the writable /p"),
            "{text}"
        );
        assert!(!text.contains("/h/sayso"), "{text}");
        let ro = Settings {
            mode: Mode::ReadOnly,
            ..Settings::default()
        };
        let text = limits(&Backend::Landlock(7), &ro, &places).join("\n");
        assert!(!text.contains(".git"), "{text}");
        assert!(limits(&Backend::Bubblewrap("/b".into()), &settings, &places).is_empty());
    }

    #[test]
    fn loopback_limits_say_what_each_backend_cannot_do() {
        let asked = Settings {
            allow_loopback: true,
            ..Settings::default()
        };
        let places = Places::default();
        let said = |b: &Backend, s: &Settings| limits(b, s, &places).join("\n");
        let bwrap = Backend::Bubblewrap("/b".into());
        assert!(said(&bwrap, &asked).is_empty());
        assert!(said(&Backend::Landlock(3), &asked).contains("needs Landlock ABI 4"));
        assert!(!said(&Backend::Landlock(7), &asked).contains("allow_loopback"));
        assert!(said(&Backend::Seatbelt, &asked).contains("not supported with Seatbelt"));
        let with_network = Settings {
            network: true,
            ..asked.clone()
        };
        assert!(!said(&Backend::Landlock(3), &with_network).contains("allow_loopback"));
        assert!(!said(&Backend::Landlock(3), &Settings::default()).contains("allow_loopback"));
    }

    #[cfg(not(target_os = "macos"))]
    #[test]
    fn a_forced_backend_that_is_missing_is_unavailable_with_why() {
        let Backend::Unavailable(why) = backend(BackendChoice::Seatbelt) else {
            panic!("Seatbelt outside macOS");
        };
        assert!(why.contains("macOS"), "{why}");
    }
}
