//! Git in a hostile working tree (SPEC §8.3): the settings that make git run a program, how each
//! is neutralised when sayso runs git itself (`get_changed_files`) or auto-approves a git
//! command from the safe list, and the inspection that decides when that is not enough.
//!
//! A `.git/config` that arrives with an extracted archive, a copied tree or a parent directory
//! can name programs that plain read-only commands run: `git status` runs `core.fsmonitor`,
//! `git diff` runs `diff.external` and `diff.<driver>.textconv`, a stale index runs the
//! `post-index-change` hook, and so on (research: `../shared/reference/git-hardening.md`).
//!
//! # What runs a program, and how it is handled
//!
//! | setting (repository config unless noted) | handling |
//! |---|---|
//! | `core.fsmonitor` | `core.fsmonitor=false` (every guarded git) |
//! | hooks (`.git/hooks`, `core.hooksPath`) | `core.hooksPath=/dev/null` |
//! | `core.pager`, `pager.<cmd>`, `GIT_PAGER`, `PAGER` | `GIT_PAGER=cat`, `PAGER=cat`, `core.pager=cat`; output is a pipe |
//! | `GIT_EXTERNAL_DIFF` | removed from the environment |
//! | `diff.external`, `diff.<driver>.command` | `--no-ext-diff` where sayso builds the command; a safe-list command is **not** auto-approved (an empty `diff.external=` does not turn it off: git then fails to run "") |
//! | `diff.<driver>.textconv` | `--no-textconv` where sayso builds the command; a safe-list command is **not** auto-approved |
//! | `filter.<driver>.clean/smudge/process` | every driver the repository defines is blanked by name (`filter.<driver>.process=` …, environment form, so names with `=` work) |
//! | `gpg.program`, `gpg.openpgp.program`, `gpg.ssh.program`, `gpg.x509.program`, `gpg.ssh.defaultKeyCommand` (run by `--show-signature`, `%G` placeholders, `log.showSignature`, a `format.pretty` or `pretty.<name>` that uses `%G`, `verify-commit`…) | each set to `/dev/null` (git cannot execute it: the signature shows as unverified), and `log.showSignature=false`; a command that asks for a signature is also off the safe list (`command_safety/signatures.rs`) |
//! | lazy fetch from a promisor remote (`core.sshCommand`, `core.gitProxy`, `credential.*`, `core.askPass`, `remote.<r>.uploadpack`, `protocol.*`) | `GIT_NO_LAZY_FETCH=1` (git ≥ 2.45), `protocol.allow=never`, `protocol.ext.allow=never`, `protocol.file.allow=never`, `credential.helper=`, `core.askPass=`, `core.sshCommand=false`, `core.gitProxy=`, `GIT_TERMINAL_PROMPT=0` |
//! | submodules (their own config, hooks and filters) | `diff.ignoreSubmodules=all`, `diff.submodule=short`, `status.submoduleSummary=false`; `--ignore-submodules=all` where sayso builds the command. A per-submodule `submodule.<name>.ignore` beats the config default, so a repository with submodules is **not** auto-approved |
//! | `core.worktree` (reads files outside the tree, no program) | **not** neutralisable: safe-list commands are not auto-approved and `get_changed_files` asks |
//! | an embedded bare repository | `safe.bareRepository=explicit` (git refuses); the inspection reports the refusal, so a command whose git would use one asks; creating one is a protected write |
//! | another repository than the working directory's (`cd sub &&`, `-C`, `--git-dir`, `GIT_DIR`…) | the inspection runs on each repository git will use ([`targets`]); where that cannot be told, the command asks |
//! | `core.untrackedCache` (makes status write the index, which runs the hook) | `core.untrackedCache=false` |
//! | inherited `GIT_*` variables, `PAGER`, `EDITOR`, `VISUAL`, `SSH_ASKPASS`, `GIT_SSH*`, `GIT_EXTERNAL_DIFF`… | removed from the child's environment |
//! | `core.editor`, `sequence.editor`, `merge.<driver>.driver`, `alias.*` | not run by read-only commands (built-ins cannot be aliased) |
//!
//! The overrides are passed as `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_n` / `GIT_CONFIG_VALUE_n`:
//! command-line scope, read after every file (so they beat `.git/config` and its includes), and
//! inherited by every git a shell script starts (so they cover `git status && git diff`).
//!
//! # The inspection
//!
//! Before a git command runs unasked, the inspection ([`Inspection::run_target`]) looks at the
//! repository each git of the command will really use ([`targets`]: after `cd DIR`, `-C DIR`,
//! `--git-dir`, `--work-tree`, `GIT_DIR`/`GIT_WORK_TREE`, `env`, `export`, `sh -c`), found the
//! way that git finds it (parent directories, `.git` files): it locates the git directory
//! (`git rev-parse --absolute-git-dir --git-common-dir`; a repository git refuses with the guarded settings,
//! such as an embedded bare one, is an error), lists the effective config (`git config --list
//! --show-origin --show-scope -z`, which follows includes and runs nothing) and the hooks
//! directory. A git whose target cannot be told (a `cd` to a variable, git behind `sudo` or
//! `xargs`, a substitution…) is not run unasked either. Only keys from the repository's own
//! scopes (`local`, `worktree`, and files they include) count; the user's own (`global`,
//! `system`) config is trusted. Then, in auto mode (and in trust mode for the second rule):
//!
//! - a command on the safe list runs with the guarded environment, unless the repository sets a
//!   key the table marks "not auto-approved" or has submodules
//!   ([`Inspection::auto_run_refusal`]);
//! - any other command that runs git (which would go to the judge, and runs as written, hooks
//!   included) is not judged if the repository's config names any program, or it has hooks or
//!   submodules ([`Inspection::unattended_refusal`]).
//!
//! Either refusal asks the user (the judge sees only the command text, never the repository),
//! with the keys, their origin and the directory git runs in, in the modal. Git older than
//! 2.45 cannot turn lazy fetching off, so with it no git command is auto-approved and
//! `get_changed_files` asks.
//!
//! Every git sayso starts itself (`get_changed_files`, the inspection) runs with the guarded
//! environment, so with `safe.bareRepository=explicit`; the instructions' branch is read from
//! `HEAD` without starting git. Laying out a repository where no `.git` is (`HEAD`, then
//! `config`, `objects/`, `refs/`…) is a protected write (`builtin/protected`).
//!
//! Every git sayso starts itself also runs inside the chat's sandbox, read-only
//! ([`confined`]): a second wall should a setting escape the table above.
//!
//! What this module does not do: it does not sandbox the git of a command (the runner does); it
//! does not look inside scripts or programs that run git themselves (`make`, `./build.sh`), nor
//! foresee what the same command writes before its git runs (`tar x && git status`); and it does not vet a git command the
//! user approved by hand or remembered with "Always accept" (those run as the user asked).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::sandbox::Sandbox;
use crate::tools::exec::shell::ChildEnv;

pub mod confined;
use confined::{command_of, confined_git};
pub mod targets;
pub use targets::{GitTarget, Target};

mod program;
use program::is_executable;
pub use program::{MIN_VERSION, git_program, parse_version, version, version_refusal};

/// Config set on every guarded git (command-line scope, through the environment).
pub const NEUTRAL_CONFIG: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.untrackedCache", "false"),
    ("core.pager", "cat"),
    ("core.askPass", ""),
    ("core.sshCommand", "false"),
    ("core.gitProxy", ""),
    ("credential.helper", ""),
    ("diff.submodule", "short"),
    ("diff.ignoreSubmodules", "all"),
    ("status.submoduleSummary", "false"),
    ("log.showSignature", "false"),
    // Every program signature verification can run (`--show-signature`, `%G?`, a
    // `format.pretty` or `pretty.<name>` that uses `%G`): `/dev/null` cannot be executed, so
    // git reports "cannot exec" on stderr, shows the signature as unverified, and goes on.
    ("gpg.program", "/dev/null"),
    ("gpg.openpgp.program", "/dev/null"),
    ("gpg.ssh.program", "/dev/null"),
    ("gpg.x509.program", "/dev/null"),
    ("gpg.ssh.defaultKeyCommand", "/dev/null"),
    ("protocol.allow", "never"),
    ("protocol.ext.allow", "never"),
    ("protocol.file.allow", "never"),
    ("safe.bareRepository", "explicit"),
];

/// Environment variables set on every guarded git.
pub const NEUTRAL_VARS: &[(&str, &str)] = &[
    ("GIT_NO_LAZY_FETCH", "1"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
];

/// Inherited variables (besides every `GIT_*`) that can make git run a program.
const REMOVED_VARS: &[&str] = &["EDITOR", "VISUAL", "SSH_ASKPASS", "PAGER"];

/// The guarded environment, with the repository's filter drivers blanked by name.
pub fn guard_env(filters: &[String]) -> ChildEnv {
    let mut config: Vec<(String, String)> = NEUTRAL_CONFIG
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    for name in filters {
        for part in ["process", "clean", "smudge"] {
            config.push((format!("filter.{name}.{part}"), String::new()));
        }
        config.push((format!("filter.{name}.required"), "false".to_owned()));
    }
    let mut set: Vec<(String, String)> = NEUTRAL_VARS
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    set.push(("GIT_CONFIG_COUNT".into(), config.len().to_string()));
    for (i, (k, v)) in config.into_iter().enumerate() {
        set.push((format!("GIT_CONFIG_KEY_{i}"), k));
        set.push((format!("GIT_CONFIG_VALUE_{i}"), v));
    }
    let mut remove: Vec<String> = std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| k.starts_with("GIT_") && !set.iter().any(|(s, _)| s == k))
        .collect();
    remove.extend(
        REMOVED_VARS
            .iter()
            .filter(|v| !set.iter().any(|(s, _)| s == *v))
            .map(|v| (*v).to_owned()),
    );
    remove.extend(crate::secrets::withheld_env());
    ChildEnv { set, remove }
}

/// How sayso treats a config key found in the repository's own config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// Runs nothing a read-only command would reach, or the guarded environment neutralises it.
    Neutralised,
    /// A filter driver: blanked by name in the guarded environment.
    Filter,
    /// Only flags on the command line neutralise it: a safe-list command is not auto-approved.
    NeedsFlags,
    /// Nothing neutralises it.
    Never,
}

/// The handling of one config key (case-insensitive, as git compares section and key names).
pub fn classify(key: &str) -> Handling {
    let key = key.to_ascii_lowercase();
    let (section, rest) = key.split_once('.').unwrap_or((&key, ""));
    let last = rest.rsplit('.').next().unwrap_or_default();
    match section {
        "filter" => Handling::Filter,
        "diff"
            if rest == "external"
                || (rest.contains('.') && (last == "textconv" || last == "command")) =>
        {
            Handling::NeedsFlags
        }
        "submodule" => Handling::NeedsFlags,
        "core" if rest == "worktree" => Handling::Never,
        _ => Handling::Neutralised,
    }
}

/// Whether a key names a program git may run, or points git at other files: the denylist of
/// the research notes. A command that is not on the safe list (and so runs without the
/// guarded environment) is not run unasked in a repository whose own config sets one.
pub fn names_program(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let (section, rest) = key.split_once('.').unwrap_or((&key, ""));
    let last = rest.rsplit('.').next().unwrap_or_default();
    match section {
        "core" => matches!(
            rest,
            "fsmonitor"
                | "hookspath"
                | "pager"
                | "editor"
                | "sshcommand"
                | "gitproxy"
                | "askpass"
                | "worktree"
        ),
        "sequence" => rest == "editor",
        "diff" => rest == "external" || last == "command" || last == "textconv",
        "merge" => last == "driver",
        "log" => rest == "showsignature",
        "remote" => matches!(last, "uploadpack" | "receivepack" | "vcs" | "promisor"),
        "extensions" => rest == "partialclone",
        "pager" | "credential" | "filter" | "gpg" | "protocol" | "include" | "includeif"
        | "alias" | "safe" | "submodule" => true,
        _ => false,
    }
}

/// One key of the effective config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigKey {
    pub scope: String,
    /// Where git read it (`file:.git/config`).
    pub origin: String,
    pub key: String,
}

impl ConfigKey {
    /// Set by the repository itself (or a file its config includes), not by the user.
    pub fn from_repository(&self) -> bool {
        matches!(self.scope.as_str(), "local" | "worktree")
    }
}

/// What the effective config of the working directory says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inspection {
    /// Keys the repository sets itself.
    pub repo_keys: Vec<ConfigKey>,
    /// Filter drivers the repository defines.
    pub filters: Vec<String>,
    /// The working tree has submodules (`.gitmodules` or `.git/modules`).
    pub submodules: bool,
    /// Hooks that git may run: executable files in the repository's hooks directory.
    pub hooks: Vec<String>,
}

impl Inspection {
    /// Lists the config as git sees it from `cwd` (nothing is executed by this listing).
    /// Outside a repository only the user's own config is listed: no repository keys.
    pub fn run(cwd: &Path, sandbox: &Sandbox) -> Result<Self, String> {
        Self::run_target(&Target::at(cwd), sandbox)
    }

    /// The same for the repository one git invocation will really use ([`targets`]): git is
    /// started in its directory, with its explicit git directory and work tree, and finds the
    /// repository the way that git will (parent directories, `.git` files). A repository git
    /// refuses with the guarded settings (an embedded bare repository, dubious ownership) or
    /// a directory that does not exist is an error: sayso cannot see what git would read.
    /// Git runs inside `sandbox`, read-only ([`confined`]); a sandbox that cannot be set up is
    /// an error too.
    pub fn run_target(target: &Target, sandbox: &Sandbox) -> Result<Self, String> {
        let git = git_program().ok_or("git was not found")?;
        let env = guard_env(&[]);
        let git_cmd = |args: &[&str]| -> Result<Command, String> {
            let mut argv = vec![git.display().to_string()];
            if let Some(d) = &target.git_dir {
                argv.extend(["--git-dir".to_owned(), d.display().to_string()]);
            }
            if let Some(w) = &target.work_tree {
                argv.extend(["--work-tree".to_owned(), w.display().to_string()]);
            }
            argv.extend(args.iter().map(|a| (*a).to_owned()));
            let argv = confined_git(sandbox, argv, &target.dir)?;
            let mut cmd = command_of(&argv).ok_or("cannot run git: no program")?;
            cmd.current_dir(&target.dir)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            env.apply_to(&mut cmd);
            Ok(cmd)
        };
        if !target.dir.is_dir() {
            return Err(format!(
                "git would run in `{}`, which is not a directory (yet): sayso cannot inspect its repository",
                target.dir.display()
            ));
        }
        let located = git_cmd(&["rev-parse", "--absolute-git-dir", "--git-common-dir"])?
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        // The git directory, and the common one (a linked worktree's hooks live there).
        let git_dir = if located.status.success() {
            let text = String::from_utf8_lossy(&located.stdout);
            let mut lines = text.lines().map(PathBuf::from);
            let own = lines.next().unwrap_or_default();
            let common = lines.next().map(|c| target.dir.join(c));
            Some((own, common))
        } else {
            let err = String::from_utf8_lossy(&located.stderr);
            if !err.to_ascii_lowercase().contains("not a git repository") {
                return Err(format!(
                    "git refuses the repository at `{}`: {}",
                    target.dir.display(),
                    err.trim()
                ));
            }
            None
        };
        let out = git_cmd(&["config", "--list", "--show-origin", "--show-scope", "-z"])?
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git cannot read this repository's config: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let mut inspection = Self::parse(&out.stdout);
        inspection.submodules = match (&target.git_dir, &git_dir) {
            (Some(_), Some((d, _))) => {
                d.join("modules").exists()
                    || target
                        .work_tree
                        .as_ref()
                        .is_some_and(|w| w.join(".gitmodules").exists())
            }
            _ => has_submodules(&target.dir),
        };
        inspection.hooks = git_dir
            .map(|(own, common)| hooks(common.as_deref().unwrap_or(&own)))
            .unwrap_or_default();
        Ok(inspection)
    }

    /// Parses `git config --list --show-origin --show-scope -z` output.
    pub fn parse(raw: &[u8]) -> Self {
        let text = String::from_utf8_lossy(raw);
        let mut fields = text.split('\0');
        let mut out = Self::default();
        while let (Some(scope), Some(origin), Some(entry)) =
            (fields.next(), fields.next(), fields.next())
        {
            if scope.is_empty() {
                break;
            }
            let key = entry.split('\n').next().unwrap_or_default().to_owned();
            let k = ConfigKey {
                scope: scope.to_owned(),
                origin: origin.to_owned(),
                key,
            };
            if !k.from_repository() {
                continue;
            }
            if classify(&k.key) == Handling::Filter
                && let Some(name) = filter_name(&k.key)
                && !out.filters.contains(&name)
            {
                out.filters.push(name);
            }
            out.repo_keys.push(k);
        }
        out
    }

    /// Why a git command from the safe list may not run unasked here, if it may not: the keys
    /// that only command-line flags (or nothing) neutralise, or submodules.
    pub fn auto_run_refusal(&self) -> Option<String> {
        let mut found: Vec<String> = self
            .repo_keys
            .iter()
            .filter(|k| matches!(classify(&k.key), Handling::NeedsFlags | Handling::Never))
            .map(|k| format!("`{}` ({})", k.key, k.origin))
            .collect();
        found.dedup();
        if found.is_empty() && !self.submodules {
            return None;
        }
        let mut why = String::from("this repository's git config ");
        if !found.is_empty() {
            why.push_str(&format!("sets {}", found.join(", ")));
            if self.submodules {
                why.push_str(" and it ");
            }
        }
        if self.submodules {
            why.push_str("has submodules (whose own config git reads)");
        }
        why.push_str(", which can make git run a program or read outside the project");
        Some(why)
    }

    /// Why a git command that is not on the safe list (and so runs as written, hooks and all)
    /// may not run unasked here, if it may not: the repository's own config names a program,
    /// or it has hooks or submodules. The judge sees only the command, never this.
    pub fn unattended_refusal(&self) -> Option<String> {
        let mut found: Vec<String> = self
            .repo_keys
            .iter()
            .filter(|k| names_program(&k.key))
            .map(|k| format!("`{}` ({})", k.key, k.origin))
            .collect();
        found.dedup();
        let mut parts = Vec::new();
        if !found.is_empty() {
            parts.push(format!("its git config sets {}", found.join(", ")));
        }
        if !self.hooks.is_empty() {
            parts.push(format!("it has git hooks ({})", self.hooks.join(", ")));
        }
        if self.submodules {
            parts.push("it has submodules".to_owned());
        }
        (!parts.is_empty()).then(|| {
            format!(
                "this repository may make git run its own programs: {}",
                parts.join("; ")
            )
        })
    }

    /// `core.worktree` set by the repository: git would read another directory.
    pub fn worktree_override(&self) -> Option<&ConfigKey> {
        self.repo_keys
            .iter()
            .find(|k| classify(&k.key) == Handling::Never)
    }
}

/// The driver name of a `filter.<name>.<key>` key, with its case kept.
fn filter_name(key: &str) -> Option<String> {
    let rest = key.get("filter.".len()..)?;
    let (name, _) = rest.rsplit_once('.')?;
    (!name.is_empty()).then(|| name.to_owned())
}

/// The executable hooks in the repository's default hooks directory (a `core.hooksPath` from
/// the repository's config is reported as a key instead).
fn hooks(git_dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(git_dir.join("hooks")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| is_executable(&e.path()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.ends_with(".sample"))
        .collect();
    names.sort();
    names
}

fn has_submodules(cwd: &Path) -> bool {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        if d.join(".gitmodules").exists() || d.join(".git").join("modules").exists() {
            return true;
        }
        if d.join(".git").exists() {
            return false;
        }
        dir = d.parent();
    }
    false
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod signature_tests;

#[cfg(test)]
mod target_inspection_tests;
