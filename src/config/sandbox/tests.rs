//! `[sandbox]` through [`Config::load`]: each key, each error with file:line, what a project
//! file may tighten and what it may not loosen, and `--sandbox` over the files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::config::{Config, ConfigError, Overrides};
use crate::sandbox::{BackendChoice, Mode, Settings};

/// A home with a user file and (when given) a project file in `home/proj`.
struct Setup {
    home: tempfile::TempDir,
}

impl Setup {
    fn new(user: &str, project: Option<&str>) -> Self {
        let home = tempfile::tempdir().expect("a temp dir");
        let write = |p: PathBuf, text: &str| {
            std::fs::create_dir_all(p.parent().expect("a parent")).expect("dirs");
            std::fs::write(p, text).expect("written");
        };
        write(home.path().join("cfg/sayso/config.toml"), user);
        std::fs::create_dir_all(home.path().join("proj")).expect("the project");
        if let Some(p) = project {
            write(home.path().join("proj/.sayso/config.toml"), p);
        }
        Self { home }
    }

    fn path(&self) -> &Path {
        self.home.path()
    }

    fn load(&self, cli: Option<&str>) -> Result<Config, ConfigError> {
        let env: HashMap<String, String> = [
            ("HOME", self.path().display().to_string()),
            (
                "XDG_CONFIG_HOME",
                self.path().join("cfg").display().to_string(),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let o = Overrides {
            cwd: self.path().join("proj"),
            sandbox: cli.map(str::to_owned),
            ..Overrides::default()
        };
        Config::load(&o, &env)
    }

    fn user_file(&self) -> String {
        self.path()
            .join("cfg/sayso/config.toml")
            .display()
            .to_string()
    }

    fn project_file(&self) -> String {
        self.path()
            .join("proj/.sayso/config.toml")
            .display()
            .to_string()
    }
}

fn settings(mode: Mode, network: bool, roots: Vec<PathBuf>, backend: BackendChoice) -> Settings {
    Settings {
        mode,
        network,
        allow_loopback: false,
        writable_roots: roots,
        backend,
    }
}

#[test]
fn each_key_is_read_with_its_default() {
    let s = Setup::new("", None);
    std::fs::create_dir_all(s.path().join("cache/pip")).expect("a root");
    std::fs::create_dir_all(s.path().join("scratch")).expect("a root");
    let scratch = s.path().join("scratch");
    let rows: Vec<(String, Settings)> = vec![
        (
            String::new(),
            settings(Mode::WorkspaceWrite, false, vec![], BackendChoice::Auto),
        ),
        (
            "[sandbox]\nmode = \"read-only\"\n".into(),
            settings(Mode::ReadOnly, false, vec![], BackendChoice::Auto),
        ),
        (
            "[sandbox]\nmode = \"off\"\n".into(),
            settings(Mode::Off, false, vec![], BackendChoice::Auto),
        ),
        (
            "[sandbox]\nnetwork = true\n".into(),
            settings(Mode::WorkspaceWrite, true, vec![], BackendChoice::Auto),
        ),
        (
            format!(
                "[sandbox]\nwritable_roots = [\"~/cache/pip\", \"{}\", \"~/cache/../scratch\"]\n",
                scratch.display()
            ),
            settings(
                Mode::WorkspaceWrite,
                false,
                vec![s.path().join("cache/pip"), scratch.clone(), scratch.clone()],
                BackendChoice::Auto,
            ),
        ),
        (
            "[sandbox]\nbackend = \"landlock\"\n".into(),
            settings(Mode::WorkspaceWrite, false, vec![], BackendChoice::Landlock),
        ),
        (
            "[sandbox]\nallow_loopback = true\n".into(),
            Settings {
                allow_loopback: true,
                ..settings(Mode::WorkspaceWrite, false, vec![], BackendChoice::Auto)
            },
        ),
        (
            "[sandbox]\nbackend = \"bubblewrap\"\n".into(),
            settings(
                Mode::WorkspaceWrite,
                false,
                vec![],
                BackendChoice::Bubblewrap,
            ),
        ),
        (
            "[sandbox]\nbackend = \"seatbelt\"\n".into(),
            settings(Mode::WorkspaceWrite, false, vec![], BackendChoice::Seatbelt),
        ),
    ];
    for (text, want) in rows {
        std::fs::write(s.user_file(), &text).expect("written");
        let c = s.load(None).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(c.sandbox, want, "{text}");
        assert!(c.warnings.is_empty(), "{text}: {:?}", c.warnings);
    }
}

#[test]
fn bad_keys_and_values_name_the_file_line_and_key() {
    let s = Setup::new("", None);
    let rows = [
        (
            "model = \"m\"\n[sandbox]\nmdoe = \"off\"\n",
            ":3:1: key `sandbox.mdoe`: unknown field `mdoe`",
        ),
        (
            "[sandbox]\nmode = \"full\"\n",
            ":2:8: key `sandbox.mode`: unknown variant `full`",
        ),
        (
            "[sandbox]\nnetwork = \"yes\"\n",
            ":2:11: key `sandbox.network`: invalid type: string \"yes\", expected a boolean",
        ),
        (
            "[sandbox]\nbackend = \"docker\"\n",
            ":2:11: key `sandbox.backend`: unknown variant `docker`",
        ),
        (
            "[sandbox]\nwritable_roots = \"/tmp\"\n",
            ":2:18: key `sandbox.writable_roots`: invalid type: string \"/tmp\", expected a sequence",
        ),
        (
            "[sandbox]\nmode = \"off\"\n\nwritable_roots = [\"build/out\"]\n",
            ":4: key `sandbox.writable_roots`: `build/out` is relative: write an absolute path, or one starting with ~/",
        ),
        (
            "[sandbox]\nwritable_roots = [\"~other/x\"]\n",
            ":2: key `sandbox.writable_roots`: `~other/x` is relative",
        ),
    ];
    for (text, want) in rows {
        std::fs::write(s.user_file(), text).expect("written");
        let e = s.load(None).expect_err(text).to_string();
        let want = format!("{}{want}", s.user_file());
        assert!(e.starts_with(&want), "{text}\n{e}\nwanted {want}");
    }
}

#[test]
fn a_root_that_does_not_exist_is_a_warning_and_left_out() {
    let s = Setup::new(
        "[sandbox]\n\nwritable_roots = [\"~/nowhere\", \"/\"]\n",
        None,
    );
    let c = s.load(None).expect("loads");
    assert_eq!(c.sandbox.writable_roots, [PathBuf::from("/")]);
    let nowhere = s.path().join("nowhere");
    assert_eq!(
        c.warnings,
        [format!(
            "{}:3: `sandbox.writable_roots`: {} is not a directory (yet): left out",
            s.user_file(),
            nowhere.display()
        )]
    );
}

#[test]
fn a_project_file_may_tighten_the_mode_and_the_network() {
    // (the user's [sandbox], the project's, the settings in force)
    let rows = [
        ("", "mode = \"read-only\"", Mode::ReadOnly, false),
        (
            "",
            "mode = \"workspace-write\"",
            Mode::WorkspaceWrite,
            false,
        ),
        (
            "mode = \"off\"",
            "mode = \"read-only\"",
            Mode::ReadOnly,
            false,
        ),
        (
            "mode = \"off\"",
            "mode = \"workspace-write\"",
            Mode::WorkspaceWrite,
            false,
        ),
        (
            "network = true",
            "network = false",
            Mode::WorkspaceWrite,
            false,
        ),
        (
            "network = true",
            "network = true",
            Mode::WorkspaceWrite,
            true,
        ),
        ("mode = \"read-only\"", "", Mode::ReadOnly, false),
    ];
    // A project may turn the user's loopback off, and may say it stays off.
    for (user, project, want) in [
        ("allow_loopback = true", "allow_loopback = false", false),
        ("allow_loopback = true", "allow_loopback = true", true),
        ("", "allow_loopback = false", false),
    ] {
        let s = Setup::new(
            &format!("[sandbox]\n{user}\n"),
            Some(&format!("[sandbox]\n{project}\n")),
        );
        let c = s.load(None).expect("loads");
        assert_eq!(c.sandbox.allow_loopback, want, "{user} / {project}");
        assert!(
            c.warnings.is_empty(),
            "{user} / {project}: {:?}",
            c.warnings
        );
    }
    for (user, project, mode, network) in rows {
        let s = Setup::new(
            &format!("[sandbox]\n{user}\n"),
            Some(&format!("[sandbox]\n{project}\n")),
        );
        let c = s.load(None).expect("loads");
        assert_eq!(
            (c.sandbox.mode, c.sandbox.network),
            (mode, network),
            "{user} / {project}"
        );
        assert!(
            c.warnings.is_empty(),
            "{user} / {project}: {:?}",
            c.warnings
        );
    }
}

#[test]
fn a_project_file_that_would_loosen_the_sandbox_is_ignored_with_its_line() {
    // (the user's [sandbox], the project's, the warning after `FILE:LINE: `)
    let rows = [
        (
            "",
            "mode = \"off\"",
            "ignoring `sandbox.mode = \"off\"`: it would turn the sandbox off; a project config may tighten the sandbox, never loosen it (set it in your user config, or --sandbox)",
        ),
        (
            "mode = \"read-only\"",
            "mode = \"workspace-write\"",
            "ignoring `sandbox.mode = \"workspace-write\"`: it is looser than `read-only`, your config's mode",
        ),
        (
            "",
            "network = true",
            "ignoring `sandbox.network = true`: it would let commands reach the network",
        ),
        (
            "",
            "allow_loopback = true",
            "ignoring `sandbox.allow_loopback = true`: it would let commands reach the servers on this machine's loopback; a project config may tighten the sandbox, never loosen it",
        ),
        (
            "",
            "writable_roots = [\"/\"]",
            "ignoring `sandbox.writable_roots = [\"/\"]`: it would let commands write outside the project",
        ),
        (
            "",
            "backend = \"landlock\"",
            "ignoring `sandbox.backend = \"landlock\"`: the mechanism is your choice",
        ),
    ];
    for (user, project, want) in rows {
        let s = Setup::new(
            &format!("[sandbox]\n{user}\n"),
            Some(&format!("model = \"m\"\n[sandbox]\n{project}\n")),
        );
        let c = s.load(None).expect("loads");
        let user_only = Setup::new(&format!("[sandbox]\n{user}\n"), None)
            .load(None)
            .expect("loads");
        assert_eq!(c.sandbox, user_only.sandbox, "{project}: the user's stay");
        assert_eq!(c.warnings.len(), 1, "{project}: {:?}", c.warnings);
        let prefix = format!("{}:3: {want}", s.project_file());
        assert!(
            c.warnings[0].starts_with(&prefix),
            "{}\nwanted {prefix}",
            c.warnings[0]
        );
    }
}

#[test]
fn a_project_file_with_a_bad_sandbox_value_is_an_error_with_its_line() {
    let s = Setup::new("", Some("[sandbox]\nmode = \"none\"\n"));
    let e = s.load(None).expect_err("a bad mode").to_string();
    assert!(
        e.starts_with(&format!("{}:2:8: key `sandbox.mode`", s.project_file())),
        "{e}"
    );
}

#[test]
fn the_command_line_beats_every_file() {
    // (the user's mode, the project's, --sandbox, the mode in force)
    let rows = [
        ("", "", "read-only", Mode::ReadOnly),
        ("mode = \"read-only\"", "", "off", Mode::Off),
        (
            "",
            "mode = \"read-only\"",
            "workspace-write",
            Mode::WorkspaceWrite,
        ),
        (
            "mode = \"off\"",
            "",
            "workspace-write",
            Mode::WorkspaceWrite,
        ),
    ];
    for (user, project, cli, want) in rows {
        let s = Setup::new(
            &format!("[sandbox]\n{user}\n"),
            Some(&format!("[sandbox]\n{project}\n")),
        );
        assert_eq!(
            s.load(Some(cli)).expect("loads").sandbox.mode,
            want,
            "{cli}"
        );
    }
    let e = Setup::new("", None)
        .load(Some("loose"))
        .expect_err("not a mode")
        .to_string();
    assert_eq!(
        e,
        "--sandbox: key `sandbox.mode`: `loose` is not a mode: workspace-write, read-only, off"
    );
}

#[test]
fn names_parse_to_modes() {
    for m in [Mode::WorkspaceWrite, Mode::ReadOnly, Mode::Off] {
        assert_eq!(super::parse_mode(m.as_str()), Some(m));
    }
    assert_eq!(super::parse_mode("Off"), None);
}
