use std::path::Path;

use super::*;

fn place(cwd: &Path) -> Place {
    Place {
        cwd: cwd.to_path_buf(),
        ..Place::default()
    }
}

#[test]
fn a_range_attaches_exactly_its_lines_after_the_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    let a = attach("look at @a.txt:2-3 please", &place(dir.path()));
    assert_eq!(
        a.text,
        "look at @a.txt:2-3 please\n\nAttached @a.txt (lines 2-3 of 4):\n````\ntwo\nthree\n````"
    );
    assert_eq!(a.chips, ["[@a.txt:2-3]"]);
    assert!(a.notes.is_empty() && a.images.is_empty());
}

#[test]
fn a_mention_of_nothing_stays_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    let a = attach("ask @someone and @{git}", &place(dir.path()));
    assert_eq!(a.text, "ask @someone and @{git}");
    assert!(a.chips.is_empty() && a.notes.is_empty());
}

#[test]
fn system_and_own_paths_are_refused_and_nothing_of_them_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let own = tempfile::tempdir().unwrap();
    std::fs::write(own.path().join("config.toml"), "api_key = 'sk-secret'").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(own.path().join("config.toml"), dir.path().join("cfg")).unwrap();
    let mut p = place(dir.path());
    p.own = vec![own.path().to_path_buf()];
    let cfg = own.path().join("config.toml");
    for mention in [
        "/proc/self/environ".to_owned(),
        "/proc/1/cmdline".to_owned(),
        "/sys/kernel".to_owned(),
        "/dev/null".to_owned(),
        cfg.display().to_string(),
        "cfg".to_owned(),
    ] {
        let a = attach(&format!("see @{mention}"), &p);
        assert_eq!(a.text, format!("see @{mention}"), "{mention}");
        assert!(a.chips.is_empty(), "{mention}");
        assert_eq!(a.notes.len(), 1, "{mention}: {:?}", a.notes);
        assert!(a.notes[0].contains("was not attached"), "{:?}", a.notes);
    }
}

#[test]
fn a_directory_attaches_its_gitignore_aware_listing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("src/deep")).unwrap();
    std::fs::create_dir(d.join(".git")).unwrap();
    std::fs::write(d.join(".gitignore"), "secret.log\n").unwrap();
    std::fs::write(d.join("src/a.rs"), "").unwrap();
    std::fs::write(d.join("src/secret.log"), "").unwrap();
    let a = attach("@src", &place(d));
    assert!(
        a.text
            .contains("Attached directory @src (2 entries):\n````\na.rs\ndeep/\n````"),
        "{}",
        a.text
    );
    assert_eq!(a.chips, ["[@src]"]);
}

#[test]
fn an_image_attaches_as_an_image_part() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shot.PNG"), [0x89, b'P', b'N', b'G']).unwrap();
    let a = attach("what is @shot.PNG", &place(dir.path()));
    assert_eq!(a.text, "what is @shot.PNG");
    assert_eq!(
        a.images,
        [Image {
            mime: "image/png".into(),
            base64: "iVBORw==".into()
        }]
    );
    assert_eq!(a.chips, ["[@shot.PNG]"]);
}

#[test]
fn a_deny_rule_of_read_file_refuses_the_attachment() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keys.env"), "K=v").unwrap();
    use crate::config::approvals::{RuleDecision, RuleSpec, RuleTarget};
    let rules = crate::tools::policy::rules::Rules::new(&[RuleSpec {
        tool: "read_file".into(),
        target: RuleTarget::Path("*.env".into()),
        decision: RuleDecision::Deny,
        source: "test".into(),
        project: false,
        unsandboxed: false,
        network: false,
    }]);
    let mut p = place(dir.path());
    p.denials = rules.path_denials("read_file");
    let a = attach("@keys.env", &p);
    assert!(a.chips.is_empty());
    assert!(a.notes[0].contains("deny rule"), "{:?}", a.notes);
}

#[test]
fn mentions_past_the_cap_are_said_and_not_attached() {
    let dir = tempfile::tempdir().unwrap();
    let mut msg = String::new();
    for i in 0..MAX_ATTACHMENTS + 2 {
        std::fs::write(dir.path().join(format!("f{i}")), "x").unwrap();
        msg.push_str(&format!("@f{i} "));
    }
    let a = attach(&msg, &place(dir.path()));
    assert_eq!(a.chips.len(), MAX_ATTACHMENTS);
    assert_eq!(a.notes.len(), 2, "{:?}", a.notes);
}
