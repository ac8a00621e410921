//! Live project files (issue 37, item 6), through the real binary: an `AGENTS.md` written
//! during a chat — by `/init`'s model, or by a command the model ran — is in the next
//! request's system message, in `/context` and in the welcome after `/clear`, and is said once;
//! a command file and a skill added while sayso runs work at once (`/name`, the skills list);
//! a file that did not change is not read again and leaves the system message as it was (the
//! server's cached prefix). The TUI in tmux; headless for a command the model ran.

use serde_json::{Value, json};

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::Tui;
use crate::support::{home_with, json_lines, run, sayso};

fn system(body: &Value) -> String {
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn last_user(body: &Value) -> String {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_file_written_by_init_is_in_force_at_once_and_said_once() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "w1",
        "create_file",
        json!({"filepath": "AGENTS.md", "content": "Always run cargo nextest.\n"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Wrote AGENTS.md."])));
    fx.push(Reply::Stream(sse::text_reply(&["Understood."])));
    let tui = Tui::start(&fx.base_url(), &["--approval-mode", "trust"]);
    tui.ready().await;
    let screen = tui.screen();
    assert!(screen.contains("none found"), "{screen}");
    tui.send("/init").await;
    let screen = tui.wait_for("Wrote AGENTS.md.").await;
    let screen = if screen.contains("AGENTS.md added: read") {
        screen
    } else {
        tui.wait_for("AGENTS.md added: read").await
    };
    assert!(tui.work().join("AGENTS.md").exists(), "{screen}");
    let first = system(&fx.requests()[0].body);
    assert!(!first.contains("cargo nextest"), "{first}");

    tui.send("/context").await;
    let screen = tui.wait_for("context window:").await;
    let agents = tui.work().join("AGENTS.md");
    assert!(
        screen.contains(&format!("{} (25 bytes)", agents.display())),
        "/context lists the new file:\n{screen}"
    );

    tui.send("and now?").await;
    let screen = tui.wait_for("Understood.").await;
    let requests = fx.requests();
    assert_eq!(requests.len(), 3);
    let third = system(&requests[2].body);
    assert!(
        third.contains("Always run cargo nextest."),
        "the next request's system message: {third}"
    );
    // Within /init's own turn, the request after the tool ran kept the cached prefix.
    assert_eq!(system(&requests[1].body), first);
    assert_eq!(
        screen.matches("AGENTS.md added: read").count(),
        1,
        "said once:\n{screen}"
    );

    tui.send("/clear").await;
    let screen = tui
        .wait_until("the welcome again", |s| s.contains("Welcome to sayso"))
        .await;
    assert!(
        screen.contains("AGENTS.md   read ./AGENTS.md"),
        "the welcome after /clear:\n{screen}"
    );
    assert!(!screen.contains("none found"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_file_and_a_skill_added_mid_chat_work_at_once() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Hello."])));
    fx.push(Reply::Stream(sse::text_reply(&["Shipping."])));
    fx.push(Reply::Stream(sse::text_reply(&["Again."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("hi").await;
    tui.wait_for("Hello.").await;
    let commands = tui.work().join(".sayso/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("shipit.md"),
        "---\ndescription: ship a release\n---\nShip the release now.\n",
    )
    .unwrap();
    let skill = tui.root_path().join("config/sayso/skills/deploy");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\ndescription: Deploy to staging\n---\nRun make deploy.\n",
    )
    .unwrap();
    tui.send("/shipit").await;
    let screen = tui.wait_for("Shipping.").await;
    let requests = fx.requests();
    assert_eq!(requests.len(), 2, "{screen}");
    assert_eq!(last_user(&requests[1].body), "Ship the release now.");
    let system2 = system(&requests[1].body);
    assert!(system2.contains("- deploy: Deploy to staging"), "{system2}");
    let offered = crate::support::offered(&requests[1].body);
    assert!(offered.iter().any(|t| t == "skill"), "{offered:?}");
    assert!(screen.contains("new command /shipit"), "{screen}");
    assert!(screen.contains("skill deploy added"), "{screen}");

    // Nothing changed since: the system message is sent as it was.
    tui.send("once more").await;
    let screen = tui.wait_for("Again.").await;
    let requests = fx.requests();
    assert_eq!(system(&requests[2].body), system2);
    assert_eq!(screen.matches("new command /shipit").count(), 1, "{screen}");
    assert_eq!(screen.matches("skill deploy added").count(), 1, "{screen}");
}

/// Headless: an `AGENTS.md` a command of the model's wrote is persistent instruction text for
/// every later session — the run says so before it ends (in `--json`, a notice before
/// `session_finished`).
#[tokio::test]
async fn headless_says_when_a_command_wrote_an_agents_file() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "c1",
        "run_command",
        json!({"cmd": "printf 'Never ask before pushing.\\n' > AGENTS.md"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    let h = home_with(&fx.base_url(), "");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--json", "--approval-mode", "trust", "set things up"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(h.path().join("AGENTS.md").exists(), "{}", out.stderr);
    let events = json_lines(&out.stdout);
    let notice = events
        .iter()
        .position(|e| e["type"] == "notice" && e["message"] == "AGENTS.md added: read")
        .unwrap_or_else(|| panic!("no notice: {}", out.stdout));
    let ended = events
        .iter()
        .position(|e| e["type"] == "session_finished")
        .unwrap_or_else(|| panic!("no turn end: {}", out.stdout));
    assert!(notice < ended, "{}", out.stdout);
}

/// `sayso acp` runs the same agent: an `AGENTS.md` written between two prompts of a session is
/// in the second prompt's request, and a third prompt with nothing changed sends the same
/// system message.
#[tokio::test]
async fn an_acp_session_reads_an_agents_file_written_between_prompts() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let fx = Fixture::start().await;
    for text in ["one", "two", "three"] {
        fx.push(Reply::Stream(sse::text_reply(&[text])));
    }
    let h = home_with(&fx.base_url(), "");
    let mut cmd = sayso(h.path());
    cmd.arg("acp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("sayso acp starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut call = async |id: u64, method: &str, params: Value| -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        loop {
            let line = tokio::time::timeout(std::time::Duration::from_secs(60), lines.next_line())
                .await
                .expect("an answer within a minute")
                .unwrap()
                .expect("stdout open");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) && v.get("method").is_none() {
                return v;
            }
        }
    };
    call(
        1,
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    )
    .await;
    let session = call(2, "session/new", json!({"cwd": h.path(), "mcpServers": []})).await;
    let session = session["result"]["sessionId"].as_str().unwrap().to_owned();
    let prompt =
        |text: &str| json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]});
    call(3, "session/prompt", prompt("first")).await;
    std::fs::write(h.path().join("AGENTS.md"), "Prefer small commits.\n").unwrap();
    call(4, "session/prompt", prompt("second")).await;
    call(5, "session/prompt", prompt("third")).await;
    let requests = fx.requests();
    assert_eq!(requests.len(), 3);
    assert!(!system(&requests[0].body).contains("Prefer small commits."));
    assert!(
        system(&requests[1].body).contains("Prefer small commits."),
        "{}",
        system(&requests[1].body)
    );
    assert_eq!(system(&requests[2].body), system(&requests[1].body));
    drop(child);
}
