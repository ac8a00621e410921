//! The effective policy of one confined run: the settings and the places of the chat, with the
//! run's [`Confinement`] applied, as the paths each backend binds or allows; and its compact
//! encoding for `sayso __sandbox-exec` (one JSON argument).
//!
//! Pure apart from looking at which paths exist (and resolving them): nothing here confines
//! anything. Paths that are not UTF-8 are refused (the argv the engine spawns is `String`s),
//! never passed on altered.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Confinement, Mode, Sandbox};

/// Names protected (kept read-only) in the project and in the directories between it and the
/// command's working directory (a nested repository is a project of its own to git).
pub const PROTECTED_NAMES: [&str; 4] = [".git", ".sayso", ".gitattributes", ".gitmodules"];

/// What one confined run may do, as paths.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunPolicy {
    /// Existing directories (resolved) the run may write: the project, the temp directory and
    /// the writable roots; empty when it writes nothing.
    pub writable: Vec<PathBuf>,
    /// Existing protected paths (resolved) inside the writable ones: re-bound read-only.
    pub protected: Vec<PathBuf>,
    /// The directories (resolved) whose [`PROTECTED_NAMES`] are protected, existing or not
    /// (the project, and those between it and the working directory): for backends that
    /// match paths by name (Seatbelt).
    pub protected_dirs: Vec<PathBuf>,
    /// Existing hidden paths (resolved): unreadable and unwritable.
    pub hidden: Vec<PathBuf>,
    /// The run may reach the network.
    pub network: bool,
    /// Without the network, the run may reach this machine's loopback (`allow_loopback`, on a
    /// backend that can: [`super::Sandbox::loopback_mechanism`]).
    pub loopback: bool,
    /// bubblewrap with [`RunPolicy::loopback`]: the loopback listeners to mirror into the
    /// command's network namespace (read from `/proc/net` as the run starts).
    pub forwarded: Vec<std::net::SocketAddr>,
    /// sayso's process id, whose `/proc` entry is hidden (0: none).
    pub own_pid: u32,
}

impl RunPolicy {
    /// The policy for a run in `cwd` as `confine` says, `None` when it runs unconfined.
    pub fn for_run(sandbox: &Sandbox, cwd: &Path, confine: Confinement) -> Option<Self> {
        let s = &sandbox.settings;
        if sandbox.mode() == Mode::Off || confine == Confinement::Unconfined {
            return None;
        }
        let read_only = s.mode == Mode::ReadOnly || confine == Confinement::ReadOnly;
        let network = s.network || confine == Confinement::WithNetwork;
        let loopback = !network && sandbox.loopback_mechanism().is_some();
        let forwarded = if loopback && matches!(sandbox.backend, super::Backend::Bubblewrap(_)) {
            super::loopback::ports::listening()
        } else {
            Vec::new()
        };
        let p = &sandbox.places;
        let mut writable = Vec::new();
        if !read_only {
            let roots = [&p.project, &p.temp].into_iter().chain(&s.writable_roots);
            for root in roots {
                if let Some(r) = resolved(root)
                    && r.is_dir()
                    && !writable.contains(&r)
                {
                    writable.push(r);
                }
            }
        }
        let mut protected = Vec::new();
        let mut protected_dirs = Vec::new();
        if let Some(project) = resolved(&p.project) {
            let cwd = resolved(cwd).unwrap_or_else(|| project.clone());
            let mut dirs: Vec<&Path> = vec![&project];
            if cwd.starts_with(&project) {
                dirs = cwd
                    .ancestors()
                    .take_while(|d| d.starts_with(&project))
                    .collect();
                dirs.reverse();
            }
            for d in dirs {
                if writable.iter().any(|w| d.starts_with(w)) {
                    protected_dirs.push(d.to_path_buf());
                }
                for name in PROTECTED_NAMES {
                    let path = d.join(name);
                    if path.symlink_metadata().is_ok()
                        && writable.iter().any(|w| path.starts_with(w))
                    {
                        protected.push(path);
                    }
                }
            }
        }
        let mut hidden: Vec<PathBuf> = Vec::new();
        for h in &p.hidden {
            if let Some(r) = resolved(h)
                && !hidden.contains(&r)
            {
                hidden.push(r);
            }
        }
        // A hidden path inside another is hidden with it (and bubblewrap could not mount on
        // it inside the read-only tmpfs).
        let all = hidden.clone();
        hidden.retain(|h| !all.iter().any(|o| o != h && h.starts_with(o)));
        Some(Self {
            writable,
            protected,
            protected_dirs,
            hidden,
            network,
            loopback,
            forwarded,
            own_pid: p.own_pid,
        })
    }

    /// The run may write somewhere.
    pub fn writes(&self) -> bool {
        !self.writable.is_empty()
    }
}

/// `path` made absolute with its symlinks resolved, if it exists.
pub fn resolved(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// `path` as UTF-8, or why the sandbox refuses it.
pub fn utf8(path: &Path) -> Result<&str, String> {
    path.to_str().ok_or_else(|| {
        format!(
            "the sandbox cannot name the path {} (it is not UTF-8)",
            path.display()
        )
    })
}

/// What the helper (`sayso __sandbox-exec`) is told: one JSON argument.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HelperPolicy {
    /// Apply Landlock (else only the seccomp filter: bubblewrap did the filesystem).
    #[serde(rename = "l", default)]
    pub landlock: bool,
    /// The network is allowed.
    #[serde(rename = "n", default)]
    pub network: bool,
    /// Landlock: the directories writable.
    #[serde(rename = "w", default, skip_serializing_if = "Vec::is_empty")]
    pub writable: Vec<String>,
    /// Landlock: the paths unreadable.
    #[serde(rename = "h", default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
    /// Landlock: the process whose `/proc` entry is hidden (bubblewrap's PID namespace hides
    /// it already).
    #[serde(rename = "p", default, skip_serializing_if = "Option::is_none")]
    pub own_pid: Option<u32>,
    /// The helper's part in loopback access, if the run has it.
    #[serde(rename = "lo", default, skip_serializing_if = "Option::is_none")]
    pub loopback: Option<super::loopback::Loopback>,
}

impl HelperPolicy {
    /// The helper's part of `policy` (`landlock`: the helper confines the filesystem too).
    pub fn of(policy: &RunPolicy, landlock: bool) -> Result<Self, String> {
        let names = |paths: &[PathBuf]| -> Result<Vec<String>, String> {
            paths.iter().map(|p| utf8(p).map(str::to_owned)).collect()
        };
        Ok(Self {
            landlock,
            network: policy.network,
            writable: if landlock {
                names(&policy.writable)?
            } else {
                Vec::new()
            },
            hidden: if landlock {
                names(&policy.hidden)?
            } else {
                Vec::new()
            },
            own_pid: (landlock && policy.own_pid != 0).then_some(policy.own_pid),
            loopback: policy.loopback.then(|| {
                if landlock {
                    super::loopback::Loopback::Supervise
                } else {
                    super::loopback::Loopback::Listen(policy.forwarded.clone())
                }
            }),
        })
    }

    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn decode(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| format!("a bad policy argument ({e})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helper_policy_round_trips_and_stays_short_for_bubblewrap() {
        let run = RunPolicy {
            writable: vec!["/p".into(), "/tmp".into()],
            protected: vec!["/p/.git".into()],
            protected_dirs: vec!["/p".into()],
            hidden: vec!["/home/u/.config/sayso".into()],
            network: false,
            own_pid: 42,
            ..RunPolicy::default()
        };
        let bw = HelperPolicy::of(&run, false).unwrap();
        assert_eq!(bw.encode(), r#"{"l":false,"n":false}"#);
        let ll = HelperPolicy::of(&run, true).unwrap();
        assert_eq!(HelperPolicy::decode(&ll.encode()).unwrap(), ll);
        assert_eq!(ll.writable, ["/p", "/tmp"]);
        assert_eq!(ll.own_pid, Some(42));
        assert!(HelperPolicy::decode("{not json").is_err());
    }

    /// A sandbox around a real tree (the backend is never run here).
    fn sandbox_in(root: &Path, mode: Mode) -> Sandbox {
        let places = super::super::Places {
            project: root.join("p"),
            hidden: vec![
                root.join("h"),
                root.join("h/config.toml"),
                root.join("gone"),
            ],
            temp: root.join("t"),
            own_pid: 7,
            helper: "/bin/sayso".into(),
        };
        Sandbox {
            settings: super::super::Settings {
                mode,
                writable_roots: vec![root.join("w"), root.join("missing")],
                ..Default::default()
            },
            places,
            backend: super::super::Backend::Landlock(7),
            limits: vec![],
        }
    }

    #[test]
    fn the_run_policy_of_each_confinement() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for d in ["p/.git", "p/sub/.git", "p/sub/deep", "h", "t", "w"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("h/config.toml"), "").unwrap();
        std::fs::write(root.join("p/.gitmodules"), "").unwrap();
        let sb = sandbox_in(&root, Mode::WorkspaceWrite);
        let cwd = root.join("p/sub/deep");
        let run = RunPolicy::for_run(&sb, &cwd, Confinement::Policy).unwrap();
        let rel = |v: &[PathBuf]| -> Vec<String> {
            v.iter()
                .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(rel(&run.writable), ["p", "t", "w"]);
        assert_eq!(
            rel(&run.protected),
            ["p/.git", "p/.gitmodules", "p/sub/.git"]
        );
        assert_eq!(rel(&run.protected_dirs), ["p", "p/sub", "p/sub/deep"]);
        assert_eq!(
            rel(&run.hidden),
            ["h"],
            "inside another, or missing: left out"
        );
        assert!(!run.network && run.own_pid == 7);

        let net = RunPolicy::for_run(&sb, &cwd, Confinement::WithNetwork).unwrap();
        assert!(net.network && net.writes());
        let ro = RunPolicy::for_run(&sb, &cwd, Confinement::ReadOnly).unwrap();
        assert!(!ro.writes() && ro.protected.is_empty() && !ro.network);
        assert_eq!(RunPolicy::for_run(&sb, &cwd, Confinement::Unconfined), None);
        let ro_mode = sandbox_in(&root, Mode::ReadOnly);
        let ro = RunPolicy::for_run(&ro_mode, &cwd, Confinement::Policy).unwrap();
        assert!(!ro.writes());
        let off = Sandbox {
            backend: super::super::Backend::Unavailable("none".into()),
            ..sb
        };
        assert_eq!(RunPolicy::for_run(&off, &cwd, Confinement::Policy), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_is_refused() {
        use std::os::unix::ffi::OsStrExt;
        let bad = Path::new(std::ffi::OsStr::from_bytes(b"/p/\xff"));
        let run = RunPolicy {
            writable: vec![bad.to_path_buf()],
            ..RunPolicy::default()
        };
        let err = HelperPolicy::of(&run, true).unwrap_err();
        assert!(err.contains("not UTF-8"), "{err}");
    }

    #[test]
    fn a_hidden_file_inside_a_hidden_directory_is_covered_by_it() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("config/sayso");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.toml"), "").unwrap();
        std::fs::write(home.path().join("other.toml"), "").unwrap();
        let sandbox = Sandbox {
            settings: Default::default(),
            places: super::super::Places {
                project: home.path().join("config"),
                hidden: vec![
                    dir.join("config.toml"),
                    dir.clone(),
                    home.path().join("other.toml"),
                ],
                ..Default::default()
            },
            backend: super::super::Backend::Landlock(1),
            limits: Vec::new(),
        };
        let run = RunPolicy::for_run(&sandbox, home.path(), Confinement::Policy).unwrap();
        let want: Vec<PathBuf> = [dir, home.path().join("other.toml")]
            .iter()
            .map(|p| resolved(p).unwrap())
            .collect();
        assert_eq!(run.hidden, want);
    }
}
