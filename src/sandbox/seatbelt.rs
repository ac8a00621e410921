//! The macOS backend: a Seatbelt profile (SBPL, for `/usr/bin/sandbox-exec -p`) for a
//! [`RunPolicy`], generated as text so it is unit-tested on every platform; [`argv`] is used
//! only on macOS, where [`super::detect`] finds `sandbox-exec`.
//!
//! The profile denies by default; allows process creation, signals within the sandbox and
//! the system services a command needs (Mach lookups, sysctl reads, POSIX shared memory);
//! reads everything except the hidden paths; writes the writable directories except the
//! protected names in the project (matched by path, so a `.gitattributes` that does not exist
//! yet cannot be created either) and the hidden paths, plus the terminal and `/dev/null`-like
//! devices; the network only if allowed (UNIX sockets always). Paths with control characters
//! are refused rather than escaped in ways the profile reader may not share.

use std::path::PathBuf;

use super::detect::SANDBOX_EXEC;
use super::policy::{PROTECTED_NAMES, RunPolicy, utf8};

/// `sandbox-exec`'s argv for `argv` under `policy`.
pub fn argv(policy: &RunPolicy, argv: &[String]) -> Result<Vec<String>, String> {
    let mut out = vec![SANDBOX_EXEC.to_owned(), "-p".to_owned(), profile(policy)?];
    out.push("--".to_owned());
    out.extend(argv.iter().cloned());
    Ok(out)
}

/// `path` as an SBPL string literal.
fn quoted(path: &std::path::Path) -> Result<String, String> {
    let text = utf8(path)?;
    if text.chars().any(char::is_control) {
        return Err(format!(
            "the sandbox cannot name the path {text:?} (it has control characters)"
        ));
    }
    Ok(format!(
        "\"{}\"",
        text.replace('\\', "\\\\").replace('"', "\\\"")
    ))
}

fn subpaths(paths: &[PathBuf]) -> Result<Vec<String>, String> {
    paths
        .iter()
        .map(|p| quoted(p).map(|q| format!("(subpath {q})")))
        .collect()
}

/// The SBPL profile of `policy`.
pub fn profile(policy: &RunPolicy) -> Result<String, String> {
    let mut p = String::from(
        "(version 1)\n(deny default)\n(allow process-exec)\n(allow process-fork)\n\
         (allow signal (target same-sandbox))\n(allow sysctl-read)\n(allow mach-lookup)\n\
         (allow ipc-posix-shm)\n(allow pseudo-tty)\n(allow file-ioctl)\n",
    );
    let hidden = subpaths(&policy.hidden)?;
    if hidden.is_empty() {
        p.push_str("(allow file-read*)\n");
    } else {
        p.push_str(&format!(
            "(allow file-read* (require-not (require-any {})))\n",
            hidden.join(" ")
        ));
    }
    let mut kept = hidden;
    for dir in &policy.protected_dirs {
        for name in PROTECTED_NAMES {
            kept.push(format!("(subpath {})", quoted(&dir.join(name))?));
        }
    }
    for root in subpaths(&policy.writable)? {
        if kept.is_empty() {
            p.push_str(&format!("(allow file-write* {root})\n"));
        } else {
            p.push_str(&format!(
                "(allow file-write* (require-all {root} (require-not (require-any {}))))\n",
                kept.join(" ")
            ));
        }
    }
    p.push_str(
        "(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\") \
         (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\"))\n",
    );
    if policy.network {
        p.push_str("(allow network*)\n");
    } else {
        p.push_str("(allow network* (remote unix-socket))\n");
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RunPolicy {
        RunPolicy {
            writable: vec!["/Users/u/p".into(), "/private/tmp".into()],
            protected: vec![],
            protected_dirs: vec!["/Users/u/p".into()],
            hidden: vec!["/Users/u/.config/sayso".into()],
            network: false,
            own_pid: 1,
            ..RunPolicy::default()
        }
    }

    #[test]
    fn workspace_write_reads_all_but_hidden_and_writes_roots_minus_protected() {
        let text = profile(&policy()).unwrap();
        assert!(text.starts_with("(version 1)\n(deny default)\n"), "{text}");
        assert!(text.contains(
            "(allow file-read* (require-not (require-any (subpath \"/Users/u/.config/sayso\"))))"
        ));
        assert!(text.contains(
            "(allow file-write* (require-all (subpath \"/Users/u/p\") (require-not (require-any \
             (subpath \"/Users/u/.config/sayso\") (subpath \"/Users/u/p/.git\") \
             (subpath \"/Users/u/p/.sayso\") (subpath \"/Users/u/p/.gitattributes\") \
             (subpath \"/Users/u/p/.gitmodules\")))))"
        ), "{text}");
        assert!(
            text.contains("(allow network* (remote unix-socket))"),
            "{text}"
        );
        assert!(!text.contains("(allow network*)\n"), "{text}");
    }

    #[test]
    fn read_only_writes_only_devices_and_network_is_allowed_when_asked() {
        let p = RunPolicy {
            writable: vec![],
            network: true,
            ..policy()
        };
        let text = profile(&p).unwrap();
        assert!(!text.contains("(allow file-write* "), "{text}");
        assert!(
            text.contains("(allow file-write-data (literal \"/dev/null\")"),
            "{text}"
        );
        assert!(text.contains("(allow network*)\n"), "{text}");
        let argv = argv(&p, &["true".to_owned()]).unwrap();
        assert_eq!(argv[0], "/usr/bin/sandbox-exec");
        assert_eq!(argv[1], "-p");
        assert_eq!(&argv[3..], ["--", "true"]);
    }

    #[test]
    fn quotes_are_escaped_and_control_characters_refused() {
        let p = RunPolicy {
            hidden: vec!["/a \"b\"\\c".into()],
            ..policy()
        };
        assert!(profile(&p).unwrap().contains(r#"(subpath "/a \"b\"\\c")"#));
        let p = RunPolicy {
            hidden: vec!["/a\nb".into()],
            ..policy()
        };
        assert!(profile(&p).unwrap_err().contains("control characters"));
    }
}
