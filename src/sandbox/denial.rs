//! Telling whether the sandbox caused a confined command's failure ([`attribute`]): a pure
//! function of the failure's output, what sayso knows of the run (its [`RunPolicy`], the
//! backend, the working directory, the command) and what it can look up outside the sandbox
//! ([`Host`]: a path resolved, whether a write there would be allowed).
//!
//! A printed phrase is never enough. A failure is the sandbox's ([`Attribution::Denied`], and
//! the engine offers a rerun outside) only when sayso can name what its sandbox denied:
//! - a **write** to a path the failure names (`cannot create /x: Read-only file system`,
//!   `Permission denied: '/x'`…) that this run's policy does not let it write (outside the
//!   writable places, a protected path, a read-only run) and that the user could write outside
//!   ([`paths`]);
//! - a **network** connection or name lookup (curl's `Failed to connect to H port P`, a
//!   socket refused with `EPERM`/`EACCES`, `Could not resolve host`…) in a run without the
//!   network: its namespace is empty (bubblewrap) and the seccomp filter refuses every socket
//!   but `AF_UNIX` (both backends), so nothing it names is reachable — a loopback address
//!   included ([`network`]);
//! - the **sandbox setup** itself: claimed by a `sayso sandbox:` or `bwrap:` line, and
//!   confirmed only by the runner, which sets the same sandbox up again for `true`
//!   ([`setup_claimed`]).
//!
//! A write to sayso's own files (hidden inside the sandbox) is said ([`Attribution::OwnFiles`])
//! but never offered for a rerun: that is the line the sandbox exists to hold. A failure that
//! shows a denial's phrase sayso cannot tie to any of the above (`Read-only file system`
//! printed with no path it can check) is [`Attribution::Unsure`]: the result says the sandbox
//! may have caused it, and nothing is offered. Anything else is an ordinary failure (`None`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::policy::RunPolicy;
use super::{Backend, Confinement, Sandbox};

mod host;
mod network;
mod paths;

pub use host::RealHost;

/// How long a quoted setup line may be, in characters.
const QUOTE_MAX: usize = 160;

/// What the sandbox denied, as sayso attributed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DenialKind {
    /// A write to a path the run may not write.
    #[default]
    Write,
    /// A connection or name lookup in a run without the network.
    Network,
    /// The sandbox could not be set up: the command did not run.
    Setup,
}

/// A failure the sandbox caused, as sayso attributed it: what the rerun offer names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Denial {
    /// What was denied, for the user and the model: "a write to /home/u/x (outside the places
    /// this command may write)", "a connection to 127.0.0.1:8000 (the sandbox has no network)".
    pub what: String,
    #[serde(default)]
    pub kind: DenialKind,
    /// The path whose write was denied (resolved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The address the command could not reach (`host:port`, or a host), when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
}

impl Denial {
    /// The address is this machine's loopback (`127.0.0.1`, `::1`, `localhost`…).
    pub fn loopback(&self) -> bool {
        self.kind == DenialKind::Network && self.address.as_deref().is_some_and(network::loopback)
    }

    /// What the model should know beyond [`Denial::what`]: for a loopback address, that the
    /// failure says nothing about the server, and how to keep it reachable.
    pub fn explanation(&self) -> Option<String> {
        let address = self.address.as_deref().filter(|_| self.loopback())?;
        Some(format!(
            "The sandbox has no network: {address} is not reachable from inside, so this failure does not mean nothing is listening there. To keep servers on this machine's loopback reachable from sandboxed commands, set `[sandbox] allow_loopback = true` in your config."
        ))
    }
}

/// What sayso knows of the confined run that failed.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    pub policy: &'a RunPolicy,
    /// The backend keeps protected and hidden paths inside a writable place from the command
    /// (bubblewrap, Seatbelt); Landlock cannot, so there only the writable places count.
    pub inner_paths: bool,
    /// Where the command started (relative paths in its output are read from here).
    pub cwd: &'a Path,
    /// The command as it ran (an address it names, when its output names none).
    pub command: &'a str,
}

/// What sayso looks up outside the sandbox (IO; a fake in the unit table).
pub trait Host {
    /// `path` (absolute) with the symlinks of its existing part resolved and `..` applied.
    fn resolve(&self, path: &Path) -> PathBuf;
    /// A write to `path` (absolute, resolved) would be allowed outside the sandbox: the file
    /// is writable, or its nearest existing directory lets a file be created.
    fn writable(&self, path: &Path) -> bool;
}

/// The sandbox's part in a confined command's failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attribution {
    /// The sandbox denied it, and a run outside would not be denied that: a rerun is offered.
    Denied(Denial),
    /// It touched sayso's own files, which the sandbox hides: said (this line), never offered.
    OwnFiles(String),
    /// The output shows a denial sayso cannot tie to its sandbox: this line says it may be.
    Unsure(String),
}

/// The sandbox's part in the failure of a confined command that printed `output`, if any (see
/// the module doc). Pure: every lookup goes through `host`.
pub fn attribute(output: &str, run: &Run, host: &dyn Host) -> Option<Attribution> {
    let lines: Vec<&str> = output.lines().map(str::trim).collect();
    let sockets_named = network::sockets_named(output);
    let mut network_hit: Option<Denial> = None;
    let mut own: Option<PathBuf> = None;
    let mut unsure = false;
    for line in &lines {
        if !run.policy.network
            && network_hit.is_none()
            && let Some(d) = network::denial(line, sockets_named, output, run.command)
        {
            // With `allow_loopback`, loopback is reachable from inside: a failed connection to
            // it is the server's, not the sandbox's.
            if !reachable(run.policy, &d) {
                network_hit = Some(d);
            }
            continue;
        }
        if !paths::denial_phrase(line) {
            continue;
        }
        match paths::verdict(line, run, host) {
            paths::Verdict::Denied(d) => return Some(Attribution::Denied(d)),
            paths::Verdict::Own(p) => {
                own.get_or_insert(p);
            }
            paths::Verdict::NotSandbox => {}
            paths::Verdict::NoPath => {
                // A refused socket without a path, in a run without the network.
                if !run.policy.network && network::socket_refusal(line, sockets_named) {
                    if network_hit.is_none() {
                        network_hit = network::denial_without_phrase(output, run.command)
                            .filter(|d| !reachable(run.policy, d));
                    }
                } else {
                    unsure = true;
                }
            }
        }
    }
    if let Some(d) = network_hit {
        return Some(Attribution::Denied(d));
    }
    if let Some(p) = own {
        return Some(Attribution::OwnFiles(format!(
            "The sandbox hides sayso's own files from the commands it runs ({}); a rerun outside the sandbox is not offered for them.",
            p.display()
        )));
    }
    unsure.then(|| Attribution::Unsure(unsure_line(run.policy)))
}

/// The address `d` names is reachable from inside this run (`allow_loopback` and a loopback
/// address), so its failure is not the sandbox's doing.
fn reachable(policy: &RunPolicy, d: &Denial) -> bool {
    policy.loopback && d.address.as_deref().is_some_and(network::loopback)
}

/// [`attribute`] for a command that ran in `cwd` inside `sandbox` as `confine` says, looked up
/// on this machine (`None` as well when that run was not confined).
pub fn attribute_run(
    sandbox: &Sandbox,
    cwd: &Path,
    confine: Confinement,
    command: &str,
    output: &str,
) -> Option<Attribution> {
    let policy = RunPolicy::for_run(sandbox, cwd, confine)?;
    let run = Run {
        policy: &policy,
        inner_paths: !matches!(sandbox.backend, Backend::Landlock(_)),
        cwd,
        command,
    };
    attribute(output, &run, &RealHost)
}

/// The line for a failure the sandbox may have caused.
fn unsure_line(policy: &RunPolicy) -> String {
    let writes = if policy.writes() {
        "it may write only the project, the temp directory and the configured writable roots"
    } else {
        "it may write nothing"
    };
    let network = if policy.network {
        "with the network"
    } else {
        "without the network"
    };
    format!(
        "This command ran inside the sandbox ({writes}, {network}), which may have caused this failure; sayso cannot tell what it denied, so no rerun outside the sandbox is offered."
    )
}

/// The output claims the sandbox could not be set up (the helper's `sayso sandbox:` line or
/// bubblewrap's `bwrap:` line): the claim, cut, for the runner to confirm by setting the same
/// sandbox up again. A command can print such a line itself, so this alone decides nothing.
pub fn setup_claimed(output: &str) -> Option<String> {
    let prefix = super::exec::FAILURE_PREFIX.trim_end();
    output
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(prefix) || l.starts_with("bwrap: "))
        .map(quoted)
}

/// The denial of a run whose sandbox could not be set up, `line` saying why (the runner's own
/// second attempt, not the command's output).
pub fn setup_denial(line: &str) -> Denial {
    Denial {
        what: format!(
            "running the command at all (the sandbox could not be set up: {})",
            quoted(line)
        ),
        kind: DenialKind::Setup,
        path: None,
        address: None,
    }
}

/// `line`, cut to [`QUOTE_MAX`] characters.
fn quoted(line: &str) -> String {
    let kept = crate::text_cut::head_chars(line, QUOTE_MAX);
    crate::text_cut::ellipsized(line, kept)
}

#[cfg(test)]
mod tests;
