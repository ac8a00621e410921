//! Issue 22, the sandbox core: real commands run through `Sandbox::wrap` with each Linux
//! backend forced (bubblewrap, Landlock), in a private tree: a project with a `.git`, a
//! directory outside it, sayso's hidden config directory and file, and a private temp
//! directory (the system one is not given, so "outside" is really outside).
//!
//! A backend missing on this machine is a failure, not a skip (CI installs bubblewrap; the
//! kernel has Landlock). Every test that expects a denial also checks that the same command
//! succeeds unconfined, so it cannot pass because the command was broken to begin with.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use sayso::sandbox::denial::{attribute_run, setup_claimed};
use sayso::sandbox::{
    Attribution, Backend, BackendChoice, Confinement, Denial, DenialKind, Mode, Places, Sandbox,
    Settings,
};

/// The private tree of one test.
struct World {
    _dir: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    hidden_dir: PathBuf,
    hidden_file: PathBuf,
    /// The project's own sayso config file, also hidden (inside the writable project).
    project_config: PathBuf,
    temp: PathBuf,
}

impl World {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        let outside = root.join("outside");
        let hidden_dir = root.join("home/.config/sayso");
        let hidden_file = root.join("home/sayso.toml");
        let temp = root.join("tmp");
        for d in [&project.join(".git/hooks"), &outside, &hidden_dir, &temp] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(project.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(hidden_dir.join("config.toml"), "api_key = \"sk-dir\"\n").unwrap();
        std::fs::write(&hidden_file, "api_key = \"sk-file\"\n").unwrap();
        let project_config = project.join(".sayso/config.toml");
        std::fs::create_dir_all(project.join(".sayso")).unwrap();
        std::fs::write(&project_config, "api_key = \"sk-project\"\n").unwrap();
        Self {
            _dir: dir,
            project,
            outside,
            hidden_dir,
            hidden_file,
            project_config,
            temp,
        }
    }

    fn places(&self) -> Places {
        Places {
            project: self.project.clone(),
            hidden: vec![
                self.hidden_dir.clone(),
                self.hidden_dir.join("config.toml"),
                self.hidden_file.clone(),
                self.project_config.clone(),
            ],
            temp: self.temp.clone(),
            own_pid: std::process::id(),
            helper: env!("CARGO_BIN_EXE_sayso").into(),
        }
    }

    /// The sandbox `settings` ask for, with `backend` forced; a backend this machine lacks
    /// fails the test.
    fn sandbox(&self, backend: BackendChoice, settings: Settings) -> Sandbox {
        let sb = Sandbox::new(
            Settings {
                backend,
                ..settings
            },
            self.places(),
        );
        match (&sb.backend, backend) {
            (Backend::Bubblewrap(_), BackendChoice::Bubblewrap)
            | (Backend::Landlock(_), BackendChoice::Landlock) => sb,
            (other, _) => panic!(
                "the {backend:?} sandbox is missing on this machine ({other:?}): install \
                 bubblewrap (.ci/run does) and use a kernel with Landlock"
            ),
        }
    }
}

/// What a command did.
#[derive(Debug)]
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn ok(&self) -> bool {
        self.code == Some(0)
    }
}

/// What sayso attributes to the sandbox of a failed run of `script` (confined as the policy
/// says, in `cwd`): a denial it would offer to rerun outside.
fn denied(sb: &Sandbox, cwd: &Path, script: &str, ran: &Ran) -> Option<Denial> {
    let output = format!("{}\n{}", ran.stderr, ran.stdout);
    match attribute_run(sb, cwd, Confinement::Policy, script, &output) {
        Some(Attribution::Denied(d)) => Some(d),
        _ => None,
    }
}

/// `script` run by `sh -c` in `cwd`, through `sandbox` as `confine` says (`None`: unconfined).
fn run(sandbox: Option<(&Sandbox, Confinement)>, cwd: &Path, script: &str) -> Ran {
    let argv: Vec<String> = ["sh", "-c", script].map(str::to_owned).to_vec();
    let argv = match sandbox {
        Some((sb, confine)) => sb
            .wrap(&argv, cwd, confine)
            .expect("the sandbox sets up")
            .expect("the command runs confined"),
        None => argv,
    };
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn write_outside_fails_and_leaves_nothing(backend: BackendChoice) {
    let w = World::new();
    let sb = w.sandbox(backend, Settings::default());
    let target = w.outside.join("marker");
    let script = format!("echo x > '{}'", target.display());
    let ran = run(Some((&sb, Confinement::Policy)), &w.project, &script);
    assert!(!ran.ok(), "{ran:?}");
    assert!(
        !target.exists(),
        "the write outside left {}",
        target.display()
    );
    let seen = denied(&sb, &w.project, &script, &ran);
    assert!(
        seen.as_ref()
            .is_some_and(|d| d.kind == DenialKind::Write && d.path.as_deref() == target.to_str()),
        "not attributed to the sandbox: {seen:?} from {ran:?}"
    );
    assert!(
        run(None, &w.project, &script).ok(),
        "the same write works unconfined"
    );
}

fn git_config_and_hooks_stay_read_only(backend: BackendChoice) {
    let w = World::new();
    let sb = w.sandbox(backend, Settings::default());
    if backend == BackendChoice::Landlock {
        let said = sb.limits.join("\n");
        assert!(
            said.contains(".git") && said.contains("stay writable"),
            "{said}"
        );
        return;
    }
    for script in [
        "echo '[core] fsmonitor = touch /tmp/pwned' >> .git/config",
        "printf '#!/bin/sh\\necho hi\\n' > .git/hooks/pre-commit",
    ] {
        let ran = run(Some((&sb, Confinement::Policy)), &w.project, script);
        assert!(!ran.ok(), "{script}: {ran:?}");
    }
    assert_eq!(
        std::fs::read_to_string(w.project.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!w.project.join(".git/hooks/pre-commit").exists());
}

fn hidden_config_is_unwritable_and_unreadable(backend: BackendChoice) {
    let w = World::new();
    let sb = w.sandbox(backend, Settings::default());
    let planted = w.hidden_dir.join("planted.toml");
    let write = format!("echo 'x = 1' > '{}'", planted.display());
    let read_dir_file = format!("cat '{}'", w.hidden_dir.join("config.toml").display());
    let read_file = format!("cat '{}'", w.hidden_file.display());
    let ran = run(Some((&sb, Confinement::Policy)), &w.project, &write);
    assert!(!ran.ok() && !planted.exists(), "{ran:?}");
    for script in [&read_dir_file, &read_file] {
        let ran = run(Some((&sb, Confinement::Policy)), &w.project, script);
        assert!(!ran.ok(), "{script}: {ran:?}");
        assert!(
            !ran.stdout.contains("sk-"),
            "{script} read a secret: {ran:?}"
        );
        assert!(run(None, &w.project, script).stdout.contains("sk-"));
    }
    // The project's own config file: hidden under bubblewrap; Landlock cannot hide a path
    // inside the writable project and says so.
    let read_project = format!("cat '{}'", w.project_config.display());
    if backend == BackendChoice::Landlock {
        let said = sb.limits.join("\n");
        let name = w.project_config.display().to_string();
        assert!(
            said.contains(&format!("{name} is inside the writable")),
            "{said}"
        );
    } else {
        let ran = run(Some((&sb, Confinement::Policy)), &w.project, &read_project);
        assert!(!ran.ok() && !ran.stdout.contains("sk-"), "{ran:?}");
        let ran = run(
            Some((&sb, Confinement::Policy)),
            &w.project,
            "touch .sayso/new",
        );
        assert!(
            !ran.ok() && !w.project.join(".sayso/new").exists(),
            "{ran:?}"
        );
    }
}

fn loopback_connect_needs_the_network(backend: BackendChoice) {
    let w = World::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' && echo connected");
    let sb = w.sandbox(backend, Settings::default());
    let ran = run(Some((&sb, Confinement::Policy)), &w.project, &script);
    assert!(!ran.ok() && !ran.stdout.contains("connected"), "{ran:?}");
    let seen = denied(&sb, &w.project, &script, &ran);
    let address = format!("127.0.0.1:{port}");
    assert!(
        seen.as_ref().is_some_and(|d| d.kind == DenialKind::Network
            && d.address.as_deref() == Some(address.as_str())
            && d.loopback()),
        "{seen:?} from {ran:?}"
    );
    let ran = run(Some((&sb, Confinement::WithNetwork)), &w.project, &script);
    assert!(
        ran.ok() && ran.stdout.contains("connected"),
        "WithNetwork: {ran:?}"
    );
    let open = w.sandbox(
        backend,
        Settings {
            network: true,
            ..Settings::default()
        },
    );
    let ran = run(Some((&open, Confinement::Policy)), &w.project, &script);
    assert!(ran.ok(), "network = true: {ran:?}");
    drop(listener);
}

fn sayso_proc_environ_is_unreachable(backend: BackendChoice) {
    let w = World::new();
    let sb = w.sandbox(backend, Settings::default());
    let script = format!("cat /proc/{}/environ", std::process::id());
    let ran = run(Some((&sb, Confinement::Policy)), &w.project, &script);
    assert!(!ran.ok() && ran.stdout.is_empty(), "{ran:?}");
    assert!(run(None, &w.project, &script).ok(), "readable unconfined");
}

fn writes_in_the_project_work_unless_read_only(backend: BackendChoice) {
    let w = World::new();
    let sb = w.sandbox(backend, Settings::default());
    let made = w.project.join("src/new.txt");
    let script = "mkdir -p src && echo hello > src/new.txt && cat src/new.txt";
    let ran = run(Some((&sb, Confinement::Policy)), &w.project, script);
    assert!(ran.ok() && ran.stdout == "hello\n", "{ran:?}");
    assert_eq!(std::fs::read_to_string(&made).unwrap(), "hello\n");
    let in_temp = format!("echo t > '{}'", w.temp.join("t").display());
    assert!(run(Some((&sb, Confinement::Policy)), &w.project, &in_temp).ok());
    std::fs::remove_dir_all(w.project.join("src")).unwrap();

    let read_only = w.sandbox(
        backend,
        Settings {
            mode: Mode::ReadOnly,
            ..Settings::default()
        },
    );
    for (sb, confine) in [
        (&read_only, Confinement::Policy),
        (&sb, Confinement::ReadOnly),
    ] {
        let ran = run(Some((sb, confine)), &w.project, script);
        assert!(!ran.ok() && !made.exists(), "{confine:?}: {ran:?}");
        // Reads still work, and so does /dev/null.
        let ran = run(
            Some((sb, confine)),
            &w.project,
            "cat .git/config && echo x > /dev/null",
        );
        assert!(ran.ok(), "{confine:?}: {ran:?}");
    }
}

fn unconfined_and_off_run_as_is(backend: BackendChoice) {
    let w = World::new();
    let sb = w.sandbox(backend, Settings::default());
    let argv = ["true".to_owned()];
    assert_eq!(
        sb.wrap(&argv, &w.project, Confinement::Unconfined),
        Ok(None)
    );
    let off = Sandbox::new(
        Settings {
            mode: Mode::Off,
            backend,
            ..Settings::default()
        },
        w.places(),
    );
    assert_eq!(off.mode(), Mode::Off);
    assert_eq!(off.wrap(&argv, &w.project, Confinement::Policy), Ok(None));
    assert!(matches!(
        sb.wrap(&argv, &w.project, Confinement::Policy),
        Ok(Some(_))
    ));
}

macro_rules! each_backend {
    ($($name:ident),* $(,)?) => {
        mod bubblewrap {
            $(#[test] fn $name() { super::$name(super::BackendChoice::Bubblewrap) })*
        }
        mod landlock {
            $(#[test] fn $name() { super::$name(super::BackendChoice::Landlock) })*
        }
    };
}

each_backend!(
    write_outside_fails_and_leaves_nothing,
    git_config_and_hooks_stay_read_only,
    hidden_config_is_unwritable_and_unreadable,
    loopback_connect_needs_the_network,
    sayso_proc_environ_is_unreachable,
    writes_in_the_project_work_unless_read_only,
    unconfined_and_off_run_as_is,
);

#[test]
fn a_setup_failure_never_runs_the_command() {
    let w = World::new();
    let marker = w.project.join("ran");
    let out = Command::new(env!("CARGO_BIN_EXE_sayso"))
        .args(["__sandbox-exec", "{not json", "--", "sh", "-c"])
        .arg(format!("touch '{}'", marker.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("sayso sandbox: "), "{stderr}");
    assert!(!marker.exists());
    // The line is a claim the runner confirms by setting the sandbox up again (a command can
    // print it too).
    assert!(setup_claimed(&stderr).is_some(), "{stderr}");
}

#[test]
fn the_seccomp_filter_denies_inet_sockets_ptrace_and_tiocsti() {
    // Under both backends the helper installs the filter; check it directly through the
    // helper with nothing else confined, so the filter alone is what is tested.
    let helper = env!("CARGO_BIN_EXE_sayso");
    let probe = |policy: &str, script: &str| {
        Command::new(helper)
            .args(["__sandbox-exec", policy, "--", "sh", "-c", script])
            .output()
            .unwrap()
    };
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}'");
    assert!(!probe(r#"{"n":false}"#, &connect).status.success());
    assert!(probe(r#"{"n":true}"#, &connect).status.success());
    // ptrace(PTRACE_TRACEME) and TIOCSTI on a pseudo-terminal: EPERM (1) inside, 0 outside.
    let calls = "python3 -c 'import ctypes, os, pty, fcntl, termios\n\
        libc = ctypes.CDLL(None, use_errno=True)\n\
        r = libc.ptrace(0, 0, 0, 0)\n\
        print(\"ptrace\", 0 if r == 0 else ctypes.get_errno())\n\
        m, s = pty.openpty()\n\
        try:\n    fcntl.ioctl(s, termios.TIOCSTI, b\"x\"); print(\"tiocsti 0\")\n\
        except OSError as e:\n    print(\"tiocsti\", e.errno)\n'";
    let inside = probe(r#"{"n":false}"#, calls);
    let said = String::from_utf8_lossy(&inside.stdout);
    assert_eq!(said, "ptrace 1\ntiocsti 1\n", "{inside:?}");
    let outside = Command::new("sh").args(["-c", calls]).output().unwrap();
    assert!(String::from_utf8_lossy(&outside.stdout).starts_with("ptrace 0\n"));
}
