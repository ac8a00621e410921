//! Commands from files end to end (issue 23, item 3): the real binary in tmux against the
//! fixture server. `NAME.md` in the user's `commands/` and the project's `.sayso/commands/`
//! is `/NAME args`: the request carries the file's text with the arguments substituted; a
//! project's file that tries to set tools or approvals is refused with `file:line` and still
//! sends only text; `/help` and the `/` popup name each command's source; `/init` sends the
//! prompt of `assets/init_prompt.md` and asks before revising an existing `AGENTS.md`.

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::Tui;

/// The last user message of a request.
fn user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn write(path: std::path::PathBuf, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A sayso in tmux whose home holds `files` (paths relative to the home: `config/sayso/…`
/// for the user's, `work/.sayso/…` for the project's), written before it starts.
fn start_with(fx: &Fixture, files: &[(&str, &str)]) -> Tui {
    let tui = Tui::start(&fx.base_url(), &[]);
    for (path, text) in files {
        write(tui.root_path().join(path), text);
    }
    tui.restart(&[])
}

const REVIEW: &str = "---\ndescription: Review a file\nargument-hint: FILE [FOCUS]\n---\nReview $1 with a focus on $2.\nAll of it: $ARGUMENTS\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_file_with_arguments_sends_the_substituted_text() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Reviewed."])));
    let tui = start_with(&fx, &[("config/sayso/commands/review.md", REVIEW)]);
    tui.ready().await;
    tui.send("/review src/main.rs \"error handling\"").await;
    tui.wait_for("Reviewed.").await;
    let requests = fx.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        user_text(&requests[0].body),
        "Review src/main.rs with a focus on error handling.\nAll of it: src/main.rs \"error handling\""
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_command_that_tries_to_add_a_tool_or_change_approvals_is_refused_and_sends_only_text()
 {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Deployed."])));
    fx.push(Reply::Stream(sse::text_reply(&["Plain."])));
    let deploy = "---\ndescription: Deploy it\nallowed-tools: run_command\napproval_mode: trust\n---\nDeploy the site.\n";
    let tui = start_with(&fx, &[("work/.sayso/commands/deploy.md", deploy)]);
    tui.ready().await;
    let screen = tui.wait_for("approval_mode").await;
    let file = tui.work().join(".sayso/commands/deploy.md");
    let joined: String = screen
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("");
    assert!(
        joined.contains(&format!("{}:3: `allowed-tools` refused", file.display())),
        "{screen}"
    );
    assert!(
        joined.contains(&format!("{}:4: `approval_mode` refused", file.display())),
        "{screen}"
    );
    tui.send("/deploy").await;
    tui.wait_for("Deployed.").await;
    tui.send("a plain message").await;
    tui.wait_for("Plain.").await;
    let requests = fx.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(user_text(&requests[0].body), "Deploy the site.");
    // Nothing but text: the same tools as for a typed message, and the mode unchanged.
    assert_eq!(tool_names(&requests[0].body), tool_names(&requests[1].body));
    assert!(!tui.screen().contains("trust"), "{}", tui.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_and_the_popup_list_commands_from_files_with_their_source() {
    let fx = Fixture::start().await;
    let tui = start_with(
        &fx,
        &[
            ("config/sayso/commands/review.md", REVIEW),
            (
                "work/.sayso/commands/deploy.md",
                "---\ndescription: Deploy the site\n---\nDeploy.\n",
            ),
            ("work/.sayso/commands/help.md", "Not the built-in.\n"),
        ],
    );
    tui.ready().await;
    tui.wait_for("/help is a built-in command, which wins")
        .await;
    tui.type_text("/rev");
    let popup = tui.wait_for("Review a file (user)").await;
    assert!(popup.contains("/review FILE [FOCUS]"), "{popup}");
    // Ctrl+U empties the input (Esc then Ctrl+U at once would read as Alt+U).
    tui.keys(&["C-u"]);
    tui.wait_until("the popup to close", |s| {
        !s.contains("Review a file (user)")
    })
    .await;
    tui.type_text("/dep");
    tui.wait_for("Deploy the site (project)").await;
    tui.keys(&["C-u"]);
    tui.wait_until("the popup to close", |s| {
        !s.contains("Deploy the site (project)")
    })
    .await;
    tui.send("/help").await;
    let screen = tui.wait_for("Deploy the site (project)").await;
    let review = screen
        .lines()
        .find(|l| l.contains("/review FILE [FOCUS]"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(review.contains("Review a file (user)"), "{screen}");
    // (The welcome above names them too: `commands    /deploy, /review`.)
    let deploy = screen
        .lines()
        .rev()
        .find(|l| l.contains("/deploy"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(deploy.contains("Deploy the site (project)"), "{screen}");
    assert!(fx.requests().is_empty(), "nothing was sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_sends_the_init_prompt_and_asks_before_revising_an_existing_agents_file() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Wrote it."])));
    let tui = start_with(&fx, &[("work/AGENTS.md", "Use make.\n")]);
    tui.ready().await;
    tui.send("/init").await;
    tui.wait_for("Type /init again").await;
    assert!(fx.requests().is_empty(), "asked first");
    tui.send("/init").await;
    tui.wait_for("Wrote it.").await;
    let requests = fx.requests();
    assert_eq!(requests.len(), 1);
    let text = user_text(&requests[0].body);
    assert!(
        text.starts_with("Write an `AGENTS.md` file at the root of this project"),
        "{text}"
    );
    assert!(text.contains("An AGENTS.md exists already"), "{text}");
    assert_eq!(
        std::fs::read_to_string(tui.work().join("AGENTS.md")).unwrap(),
        "Use make.\n"
    );
}

/// A project command's `@path` mentions attach only what is inside the project: one that
/// climbs out (`..`, an absolute path, a symlink) is sent as plain text, while the user's own
/// command attaches what it names wherever it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_command_attaches_nothing_from_outside_the_project() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Peeked."])));
    fx.push(Reply::Stream(sse::text_reply(&["Mine."])));
    let peek = "Look at @notes.txt and @../outside.txt and @link.txt\n";
    let tui = start_with(
        &fx,
        &[
            ("work/.sayso/commands/peek.md", peek),
            ("work/notes.txt", "the inside word is quince\n"),
            ("outside.txt", "the outside word is damson\n"),
            ("config/sayso/commands/mine.md", "Look at @../outside.txt\n"),
        ],
    );
    std::os::unix::fs::symlink(
        tui.root_path().join("outside.txt"),
        tui.work().join("link.txt"),
    )
    .unwrap();
    tui.ready().await;
    tui.send("/peek").await;
    tui.wait_for("Peeked.").await;
    tui.send("/mine").await;
    tui.wait_for("Mine.").await;
    let requests = fx.requests();
    assert_eq!(requests.len(), 2);
    let project = user_text(&requests[0].body);
    assert!(project.contains("quince"), "{project}");
    assert!(
        !project.contains("damson"),
        "an outside file was attached: {project}"
    );
    assert!(
        project.starts_with("Look at @notes.txt and ../outside.txt and link.txt"),
        "{project}"
    );
    let mine = user_text(&requests[1].body);
    assert!(
        mine.contains("damson"),
        "the user's own command attaches: {mine}"
    );
}
