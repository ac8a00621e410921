//! The sandbox of a chat as the user is told of it, as data: the [`SandboxReport`] that
//! `/sandbox` answers with (`Answer::Sandbox`), that the status bar's sandbox part and the
//! start notice are made from, and that `sayso config check` prints.
//!
//! Made from a [`Sandbox`] by [`SandboxReport::of`], nothing else: what the backend found and
//! could not enforce is the sandbox's own word (`Sandbox::limits`). Not worded here (the
//! front-ends word it: `tui::answers`, `launch::subcommands`), and nothing here decides what a
//! command may do.

use std::path::PathBuf;

use crate::sandbox::policy::PROTECTED_NAMES;
use crate::sandbox::{Backend, Mode, Sandbox};

/// The sandbox in force, for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxReport {
    /// The mode the config (or `--sandbox`) asks for.
    pub configured: Mode,
    /// The mode in force: `off` when no backend works here.
    pub in_force: Mode,
    /// The mechanism (`bubblewrap (/usr/bin/bwrap)`, `Landlock ABI 7`, `Seatbelt`), or why
    /// there is none.
    pub backend: Result<String, String>,
    pub network: bool,
    /// Without the network, how commands reach this machine's loopback
    /// (`Sandbox::loopback_mechanism`); `None`: they do not.
    pub loopback: Option<String>,
    /// What commands may write (none in `read-only`; everything when off).
    pub writable: Vec<PathBuf>,
    /// Inside the writable places, what stays read-only: the project's protected names
    /// (`sandbox::policy::PROTECTED_NAMES`; those of a nested repository too, per run).
    pub protected: Vec<PathBuf>,
    /// sayso's own directories and files: neither read nor written inside.
    pub hidden: Vec<PathBuf>,
    /// What this backend cannot enforce of the settings.
    pub limits: Vec<String>,
}

impl SandboxReport {
    pub fn of(s: &Sandbox) -> Self {
        let in_force = s.mode();
        let backend = match &s.backend {
            Backend::Bubblewrap(path) => Ok(format!("bubblewrap ({})", path.display())),
            Backend::Landlock(abi) => Ok(format!("Landlock ABI {abi}")),
            Backend::Seatbelt => Ok("Seatbelt (sandbox-exec)".to_owned()),
            Backend::Unavailable(why) => Err(why.clone()),
        };
        let p = &s.places;
        let writable = match in_force {
            Mode::WorkspaceWrite => [p.project.clone(), p.temp.clone()]
                .into_iter()
                .chain(s.settings.writable_roots.iter().cloned())
                .collect(),
            Mode::ReadOnly | Mode::Off => Vec::new(),
        };
        let protected = match in_force {
            Mode::WorkspaceWrite => PROTECTED_NAMES.iter().map(|n| p.project.join(n)).collect(),
            Mode::ReadOnly | Mode::Off => Vec::new(),
        };
        let hidden = match in_force {
            Mode::Off => Vec::new(),
            Mode::WorkspaceWrite | Mode::ReadOnly => p.hidden.clone(),
        };
        Self {
            configured: s.settings.mode,
            in_force,
            backend,
            network: in_force == Mode::Off || s.settings.network,
            loopback: s.loopback_mechanism().map(str::to_owned),
            writable,
            protected,
            hidden,
            limits: if in_force == Mode::Off {
                Vec::new()
            } else {
                s.limits.clone()
            },
        }
    }

    /// The config asks for a sandbox and none works here: commands run unconfined.
    pub fn fell_back(&self) -> bool {
        self.configured != Mode::Off && self.in_force == Mode::Off
    }

    /// The mode as the status bar and `config check` say it: `workspace-write`, `off (no
    /// backend)` when it fell back.
    pub fn mode_words(&self) -> String {
        if self.fell_back() {
            "off (no backend)".to_owned()
        } else {
            self.in_force.as_str().to_owned()
        }
    }

    /// What the user should hear of at the start: the sandbox fell back to off, or there is
    /// something it cannot enforce. `None`: it works as configured (or is off by choice).
    pub fn start_notice(&self) -> Option<crate::events::Notice> {
        if self.fell_back() {
            return Some(crate::events::Notice::SandboxOff {
                configured: self.configured,
                why: self.backend.clone().err().unwrap_or_default(),
            });
        }
        (!self.limits.is_empty()).then(|| crate::events::Notice::SandboxLimits {
            mode: self.in_force,
            limits: self.limits.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::events::Notice;
    use crate::sandbox::{Places, Settings};

    fn sandbox(mode: Mode, backend: Backend, limits: &[&str]) -> Sandbox {
        Sandbox {
            settings: Settings {
                mode,
                network: false,
                writable_roots: vec![PathBuf::from("/srv/cache")],
                ..Settings::default()
            },
            places: Places {
                project: PathBuf::from("/p"),
                hidden: vec![PathBuf::from("/home/u/.config/sayso")],
                temp: PathBuf::from("/tmp"),
                own_pid: 7,
                helper: PathBuf::from("/bin/sayso"),
            },
            backend,
            limits: limits.iter().map(|l| l.to_string()).collect(),
        }
    }

    #[test]
    fn the_report_says_what_is_in_force() {
        let bwrap = Backend::Bubblewrap(PathBuf::from("/usr/bin/bwrap"));
        let r = SandboxReport::of(&sandbox(Mode::WorkspaceWrite, bwrap.clone(), &[]));
        assert_eq!(r.backend.as_deref(), Ok("bubblewrap (/usr/bin/bwrap)"));
        assert_eq!(
            r.writable,
            [Path::new("/p"), Path::new("/tmp"), Path::new("/srv/cache")]
        );
        assert_eq!(r.protected[0], Path::new("/p/.git"));
        assert_eq!(r.protected.len(), 4);
        assert_eq!(r.hidden, [Path::new("/home/u/.config/sayso")]);
        assert!(!r.network && !r.fell_back());
        assert_eq!(
            (r.mode_words().as_str(), r.start_notice()),
            ("workspace-write", None)
        );

        let ro = SandboxReport::of(&sandbox(Mode::ReadOnly, Backend::Landlock(7), &["x"]));
        assert!(ro.writable.is_empty() && ro.protected.is_empty());
        assert_eq!(ro.hidden.len(), 1);
        assert_eq!(ro.backend.as_deref(), Ok("Landlock ABI 7"));
        assert_eq!(
            ro.start_notice(),
            Some(Notice::SandboxLimits {
                mode: Mode::ReadOnly,
                limits: vec!["x".into()]
            })
        );

        let off = SandboxReport::of(&sandbox(Mode::Off, bwrap, &["x"]));
        assert!(off.network && off.hidden.is_empty() && off.limits.is_empty());
        assert_eq!(
            (off.mode_words().as_str(), off.start_notice()),
            ("off", None)
        );
    }

    #[test]
    fn the_report_says_how_the_loopback_is_reached_where_it_is() {
        let with = |backend: Backend, network: bool| {
            let mut sb = sandbox(Mode::WorkspaceWrite, backend, &[]);
            sb.settings.allow_loopback = true;
            sb.settings.network = network;
            SandboxReport::of(&sb).loopback
        };
        let bwrap = Backend::Bubblewrap(PathBuf::from("/usr/bin/bwrap"));
        let relayed = with(bwrap.clone(), false).unwrap_or_default();
        assert!(
            relayed.contains("relayed into its network namespace"),
            "{relayed}"
        );
        let supervised = with(Backend::Landlock(7), false).unwrap_or_default();
        assert!(
            supervised.contains("127.0.0.0/8 and ::1 only"),
            "{supervised}"
        );
        assert_eq!(with(Backend::Landlock(3), false), None, "ABI 3 cannot");
        assert_eq!(with(bwrap.clone(), true), None, "the network is on anyway");
        let not_asked = SandboxReport::of(&sandbox(Mode::WorkspaceWrite, bwrap, &[]));
        assert_eq!(not_asked.loopback, None);
    }

    #[test]
    fn without_a_backend_the_sandbox_falls_back_to_off_and_says_why() {
        let none = Backend::Unavailable("bwrap is not installed".into());
        let r = SandboxReport::of(&sandbox(Mode::WorkspaceWrite, none, &[]));
        assert!(r.fell_back());
        assert_eq!(r.in_force, Mode::Off);
        assert_eq!(r.mode_words(), "off (no backend)");
        assert_eq!(r.backend, Err("bwrap is not installed".into()));
        assert_eq!(
            r.start_notice(),
            Some(Notice::SandboxOff {
                configured: Mode::WorkspaceWrite,
                why: "bwrap is not installed".into()
            })
        );
    }
}
