//! `@` files (issue 23, item 2): what `@path`, `@path:N-M` and `@image.png` attach to the
//! message the model receives (the request bodies the fixture records), what is refused
//! (`/proc`, sayso's own config), and the TUI's `@` picker on a generated tree with a
//! `.gitignore`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, run, sayso};

/// The last user message's content in the first request.
fn user_content(fx: &Fixture) -> Value {
    let reqs = fx.requests();
    reqs[0].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .clone()
}

async fn ask(
    prompt: &str,
    setup: impl FnOnce(&std::path::Path),
) -> (Fixture, crate::support::Output) {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), "");
    setup(home.path());
    let mut cmd = sayso(home.path());
    cmd.args(["-p", prompt, "--no-session"]);
    let out = run(cmd).await;
    (fx, out)
}

#[tokio::test]
async fn a_line_range_attaches_exactly_those_lines() {
    let (fx, out) = ask("explain @notes.txt:2-3", |home| {
        std::fs::write(home.join("notes.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    })
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        user_content(&fx),
        json!(
            "explain @notes.txt:2-3\n\nAttached @notes.txt (lines 2-3 of 4):\n````\ntwo\nthree\n````"
        )
    );
    assert!(
        out.stderr.contains("attached [@notes.txt:2-3]"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn an_image_is_sent_as_an_image_url_part_with_a_data_url() {
    let png = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let (fx, out) = ask("what is in @shot.png", |home| {
        std::fs::write(home.join("shot.png"), png).unwrap();
    })
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        user_content(&fx),
        json!([
            {"type": "text", "text": "what is in @shot.png"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
        ])
    );
}

#[tokio::test]
async fn proc_environ_and_sayso_config_are_refused_and_not_sent() {
    let (fx, out) = ask(
        "show @/proc/self/environ and @config/sayso/config.toml",
        |_| {},
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        user_content(&fx),
        json!("show @/proc/self/environ and @config/sayso/config.toml")
    );
    assert!(
        out.stderr.contains("@/proc/self/environ was not attached"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("@config/sayso/config.toml was not attached"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn a_text_only_message_is_sent_as_a_plain_string() {
    let (fx, out) = ask("hello @nobody", |_| {}).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(user_content(&fx), json!("hello @nobody"));
}

/// A tree of `n` files under `src/` (100 directories), one `target.rs` to find, and the same name
/// under an ignored directory and an ignored extension.
fn generate_tree(root: &std::path::Path, n: usize) {
    std::fs::write(root.join(".gitignore"), "build/\n*.log\n").unwrap();
    for d in 0..100 {
        let dir = root.join(format!("src/mod{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..n / 100 {
            std::fs::write(dir.join(format!("file{f:03}.rs")), "").unwrap();
        }
    }
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/needle_target.rs"), "").unwrap();
    std::fs::write(root.join("needle_target.log"), "").unwrap();
    std::fs::write(
        root.join("src/needle_target.rs"),
        "fn one() {}\nfn two() {}\n",
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_picker_offers_only_files_git_does_not_ignore_and_tab_completes_one() {
    use crate::support::tui::Tui;
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Two functions."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    generate_tree(&tui.work(), 100_000);
    tui.ready().await;
    tui.type_text("what is in @needle");
    let screen = tui.wait_for("@src/needle_target.rs").await;
    assert!(screen.contains(" Files "), "{screen}");
    assert!(!screen.contains("build/needle"), "{screen}");
    assert!(!screen.contains("needle_target.log"), "{screen}");
    tui.keys(&["Tab"]);
    tui.wait_for("what is in @src/needle_target.rs").await;
    tui.type_text("now");
    tui.wait_for("needle_target.rs now").await;
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Two functions.").await;
    assert!(
        screen.contains("attached [@src/needle_target.rs]"),
        "{screen}"
    );
    assert_eq!(
        user_content(&fx),
        json!(
            "what is in @src/needle_target.rs now\n\nAttached @src/needle_target.rs (2 lines):\n````\nfn one() {}\nfn two() {}\n````"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_group_mention_still_completes_with_tab() {
    use crate::support::tui::Tui;
    let fx = Fixture::start().await;
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.type_text("use @{memo");
    tui.wait_for("use @{memo").await;
    tui.keys(&["Tab"]);
    let screen = tui.wait_for("use @{memory}").await;
    assert!(!screen.contains(" Files "), "{screen}");
}

#[tokio::test]
async fn a_server_that_refuses_images_gets_the_message_again_without_them_and_a_note() {
    let fx = Fixture::start().await;
    fx.push(Reply::Status {
        status: 400,
        headers: Vec::new(),
        body: json!({"error": {"message": "image input is not supported by this model"}})
            .to_string(),
    });
    fx.push(Reply::Stream(sse::text_reply(&["Text only."])));
    let home = home_with(&fx.base_url(), "");
    std::fs::write(home.path().join("shot.png"), [0x89, b'P']).unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "what is @shot.png", "--no-session"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "Text only.\n");
    assert!(
        out.stderr.contains("the server refused the attached image"),
        "{}",
        out.stderr
    );
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 2);
    let last = reqs[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["content"],
        json!("what is @shot.png\n\n(1 attached image(s) not sent: the server refused images)")
    );
}
