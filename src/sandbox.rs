//! The operating-system sandbox every command sayso runs goes through (README "Sandbox"):
//! what a command may write, whether it may reach the network, and what it may read of
//! sayso's own. An approval, a rule or auto mode decides *whether* a command runs; the
//! sandbox bounds *what it can do* whatever its text says.
//!
//! What it owns:
//! - [`Settings`]: `[sandbox]` as resolved (`mode`, `network`, `allow_loopback`,
//!   `writable_roots`, `backend`);
//! - [`Sandbox`]: the settings with the places they protect ([`Places`]) and the backend
//!   found on this machine ([`Backend`]); [`Sandbox::wrap`] turns a program into the argv that
//!   runs it confined;
//! - [`Confinement`]: what one run may do beyond the settings, decided per call by the engine
//!   (the safe list in auto runs read-only; an allow rule may lift the sandbox or allow the
//!   network; a rerun the user approved runs unconfined);
//! - [`Denial`]: a failure sayso can attribute to its sandbox (a path or a connection it
//!   denied), so the engine can offer a rerun outside ([`denial::attribute`]).
//!
//! The parts: [`policy`] (one run's effective policy and the helper's encoding), [`detect`]
//! (the backend this machine has and what it cannot enforce), [`bwrap`] (bubblewrap's argv),
//! [`bwrap_cache`] (a successful bubblewrap probe remembered between runs),
//! [`landlock_plan`] ("everything but" as Landlock rules), [`exec`] (`sayso __sandbox-exec`,
//! which applies Landlock and the seccomp filter in a child that becomes the command),
//! [`supervise`] (the helper staying as the command's parent, ending what it leaves running
//! when it exits), [`loopback`] (`allow_loopback`: bubblewrap's mirrored ports and relay,
//! Landlock's helper-made connections), [`seatbelt`] (the macOS profile, as text),
//! [`mod@denial`] (attributing a failure to the sandbox).

use std::path::{Path, PathBuf};

#[cfg(target_os = "linux")]
pub mod bwrap;
#[cfg(target_os = "linux")]
pub mod bwrap_cache;
pub mod denial;
pub mod detect;
pub mod exec;
#[cfg(target_os = "linux")]
pub mod landlock;
pub mod landlock_plan;
pub mod loopback;
pub mod policy;
pub mod seatbelt;
#[cfg(target_os = "linux")]
pub mod seccomp;
#[cfg(target_os = "linux")]
pub mod supervise;

pub use denial::{Attribution, Denial, DenialKind};
use policy::{HelperPolicy, RunPolicy, utf8};

use serde::{Deserialize, Serialize};

/// `[sandbox] mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Read everything but sayso's own; write the project (minus its protected paths), the
    /// temp directory and `writable_roots`; no network unless `network = true`.
    #[default]
    WorkspaceWrite,
    /// Read as above; write nothing.
    ReadOnly,
    /// No sandbox.
    Off,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::WorkspaceWrite => "workspace-write",
            Mode::ReadOnly => "read-only",
            Mode::Off => "off",
        }
    }

    /// Stricter first: `read-only` < `workspace-write` < `off`.
    pub fn strictness(self) -> u8 {
        match self {
            Mode::ReadOnly => 2,
            Mode::WorkspaceWrite => 1,
            Mode::Off => 0,
        }
    }
}

/// `[sandbox] backend`: which mechanism (`auto` picks the best this machine has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackendChoice {
    #[default]
    Auto,
    Bubblewrap,
    Landlock,
    Seatbelt,
}

/// `[sandbox]` as resolved (a project file may only tighten it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pub mode: Mode,
    /// Commands may reach the network.
    pub network: bool,
    /// Without the network, commands may still reach this machine's loopback (`[sandbox]
    /// allow_loopback`, user config only): [`loopback`] says how each backend does it.
    pub allow_loopback: bool,
    /// Directories besides the project and the temp directory that commands may write.
    pub writable_roots: Vec<PathBuf>,
    pub backend: BackendChoice,
}

/// What one run may do, beyond [`Settings`], as the engine decided for the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Confinement {
    /// As the settings say.
    #[default]
    Policy,
    /// Write nothing (the safe list in auto, the git sayso runs itself).
    ReadOnly,
    /// As the settings say, with the network (an allow rule's `network = true`).
    WithNetwork,
    /// No sandbox (an allow rule's `sandbox = false`, a rerun the user approved).
    Unconfined,
}

/// Where the sandbox draws its lines for one chat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Places {
    /// The project: the git root, else the working directory.
    pub project: PathBuf,
    /// sayso's config, data and state directories and the config files it read: unreadable
    /// and unwritable inside.
    pub hidden: Vec<PathBuf>,
    /// The system temp directory (writable in workspace-write).
    pub temp: PathBuf,
    /// sayso's own process id: its `/proc` entry is unreachable inside.
    pub own_pid: u32,
    /// The `sayso` binary, which sets up Landlock and the seccomp filter inside before it
    /// runs the command (`sayso __sandbox-exec`); the running executable by default.
    pub helper: PathBuf,
}

impl Places {
    /// The places of a chat in `cwd`: the project is its git root (else `cwd`), `hidden` are
    /// sayso's own directories and files, the temp directory is the system's, and the helper
    /// is the running executable.
    pub fn for_chat(cwd: &Path, hidden: Vec<PathBuf>) -> Self {
        let project = cwd
            .ancestors()
            .find(|d| d.join(".git").exists())
            .unwrap_or(cwd)
            .to_path_buf();
        Self {
            project,
            hidden,
            temp: std::env::temp_dir(),
            own_pid: std::process::id(),
            helper: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("sayso")),
        }
    }
}

/// The mechanism in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// bubblewrap at this path (namespaces), with sayso's seccomp filter inside.
    Bubblewrap(PathBuf),
    /// Landlock at this ABI, with sayso's seccomp filter.
    Landlock(u32),
    /// macOS `sandbox-exec` with a generated profile.
    Seatbelt,
    /// Nothing usable: commands run unconfined, and why.
    Unavailable(String),
}

/// The sandbox of one chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    pub settings: Settings,
    pub places: Places,
    pub backend: Backend,
    /// What this backend cannot enforce of the settings (shown by `/sandbox`, the start
    /// notice and `sayso config check`).
    pub limits: Vec<String>,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::off()
    }
}

impl Sandbox {
    /// The sandbox `settings` ask for around `places`, with the best backend this machine
    /// has (what it cannot enforce in [`Sandbox::limits`]).
    pub fn new(settings: Settings, places: Places) -> Self {
        let backend = if settings.mode == Mode::Off {
            Backend::Unavailable("the sandbox is off".into())
        } else {
            detect::backend(settings.backend)
        };
        let limits = detect::limits(&backend, &settings, &places);
        Self {
            settings,
            places,
            backend,
            limits,
        }
    }

    /// No sandbox (tests of other parts, `mode = "off"`).
    pub fn off() -> Self {
        Self {
            settings: Settings {
                mode: Mode::Off,
                ..Settings::default()
            },
            places: Places::default(),
            backend: Backend::Unavailable("the sandbox is off".into()),
            limits: Vec::new(),
        }
    }

    /// How commands without the network reach this machine's loopback, as a sentence; `None`
    /// when they do not (`allow_loopback` is off, the network is on anyway, the sandbox is off,
    /// or this backend cannot: [`Sandbox::limits`] says so).
    pub fn loopback_mechanism(&self) -> Option<&'static str> {
        if !self.settings.allow_loopback || self.settings.network || self.mode() == Mode::Off {
            return None;
        }
        match self.backend {
            #[cfg(target_os = "linux")]
            Backend::Bubblewrap(_) => Some(
                "the TCP ports listening on this machine's loopback when a command starts, \
                 relayed into its network namespace",
            ),
            #[cfg(target_os = "linux")]
            Backend::Landlock(abi) if abi >= 4 && loopback::notify::SUPPORTED => {
                Some("TCP to 127.0.0.0/8 and ::1 only, connected by sayso's helper for the command")
            }
            _ => None,
        }
    }

    /// The mode in force: `off` when the settings say so or no backend works here.
    pub fn mode(&self) -> Mode {
        match self.backend {
            Backend::Unavailable(_) => Mode::Off,
            _ => self.settings.mode,
        }
    }

    /// `argv` (a script is `["sh", "-c", script]`) as the argv that runs it confined as
    /// `confine` says, in `cwd`; `None` when it runs as it is (the sandbox is off, or
    /// `confine` lifts it). `Err` when the sandbox cannot be set up for it (the command must
    /// not run then).
    pub fn wrap(
        &self,
        argv: &[String],
        cwd: &Path,
        confine: Confinement,
    ) -> Result<Option<Vec<String>>, String> {
        let Some(policy) = RunPolicy::for_run(self, cwd, confine) else {
            return Ok(None);
        };
        if argv.is_empty() {
            return Err("the sandbox got no command to run".into());
        }
        let helper =
            &policy::resolved(&self.places.helper).unwrap_or_else(|| self.places.helper.clone());
        if !matches!(self.backend, Backend::Seatbelt) && !helper.is_file() {
            return Err(format!(
                "the sandbox helper {} is missing (the sayso binary)",
                helper.display()
            ));
        }
        match &self.backend {
            #[cfg(target_os = "linux")]
            Backend::Bubblewrap(bwrap) => {
                let cwd = policy::resolved(cwd).unwrap_or_else(|| cwd.to_path_buf());
                let inner = bwrap::argv(bwrap, helper, &policy, &cwd, argv, Path::is_dir)?;
                if policy.forwarded.is_empty() {
                    return Ok(Some(inner));
                }
                // The relay outside bubblewrap, for the loopback listeners mirrored inside.
                let relay = HelperPolicy {
                    loopback: Some(loopback::Loopback::Relay),
                    ..HelperPolicy::default()
                };
                let mut out = vec![utf8(helper)?.to_owned(), exec::ARG.to_owned()];
                out.extend([relay.encode(), "--".to_owned()]);
                out.extend(inner);
                Ok(Some(out))
            }
            Backend::Landlock(_) => {
                let encoded = HelperPolicy::of(&policy, true)?.encode();
                let mut out = vec![utf8(helper)?.to_owned(), exec::ARG.to_owned(), encoded];
                out.push("--".to_owned());
                out.extend(argv.iter().cloned());
                Ok(Some(out))
            }
            Backend::Seatbelt => seatbelt::argv(&policy, argv).map(Some),
            Backend::Unavailable(_) => Ok(None),
            #[allow(unreachable_patterns)]
            other => Err(format!(
                "the {other:?} sandbox does not run on this platform"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox(backend: Backend, helper: PathBuf) -> (tempfile::TempDir, Sandbox) {
        let dir = tempfile::tempdir().unwrap();
        let places = Places {
            project: dir.path().to_path_buf(),
            temp: dir.path().to_path_buf(),
            own_pid: 9,
            helper,
            ..Places::default()
        };
        let sb = Sandbox {
            settings: Settings::default(),
            places,
            backend,
            limits: vec![],
        };
        (dir, sb)
    }

    #[test]
    fn landlock_wraps_in_the_helper_with_its_policy() {
        let exe = std::env::current_exe().unwrap();
        let (dir, sb) = sandbox(Backend::Landlock(7), exe.clone());
        let argv = ["sh".to_owned(), "-c".to_owned(), "true".to_owned()];
        let out = sb
            .wrap(&argv, dir.path(), Confinement::Policy)
            .unwrap()
            .unwrap();
        assert_eq!(out[0], exe.to_str().unwrap());
        assert_eq!(out[1], exec::ARG);
        let policy = HelperPolicy::decode(&out[2]).unwrap();
        assert!(policy.landlock && !policy.network && policy.own_pid == Some(9));
        assert_eq!(&out[3..], ["--", "sh", "-c", "true"]);
        let ro = sb
            .wrap(&argv, dir.path(), Confinement::ReadOnly)
            .unwrap()
            .unwrap();
        assert!(HelperPolicy::decode(&ro[2]).unwrap().writable.is_empty());
        assert_eq!(
            sb.wrap(&argv, dir.path(), Confinement::Unconfined),
            Ok(None)
        );
        assert!(sb.wrap(&[], dir.path(), Confinement::Policy).is_err());
    }

    #[test]
    fn a_missing_helper_or_backend_is_said() {
        let (dir, sb) = sandbox(Backend::Landlock(7), "/nonexistent/sayso".into());
        let argv = ["true".to_owned()];
        let err = sb.wrap(&argv, dir.path(), Confinement::Policy).unwrap_err();
        assert!(err.contains("helper"), "{err}");
        let (dir, sb) = sandbox(Backend::Unavailable("none here".into()), "/x".into());
        assert_eq!(sb.mode(), Mode::Off);
        assert_eq!(sb.wrap(&argv, dir.path(), Confinement::Policy), Ok(None));
        let off = Sandbox::new(
            Settings {
                mode: Mode::Off,
                ..Settings::default()
            },
            Places::default(),
        );
        assert_eq!(
            off.backend,
            Backend::Unavailable("the sandbox is off".into())
        );
    }
}
