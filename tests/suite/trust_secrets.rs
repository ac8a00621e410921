//! Secrets out of reach of every tool (issue 18, root 1), through the real binary and the
//! fixture model over loopback TCP: real symlinks, a real git repository, real child processes
//! (`sh`, server-everything over stdio), the real `/proc`. Checked: the request bodies the model
//! gets, the tool messages, stdout's JSON events, the session file, and sayso's own
//! `/proc/<pid>/environ` read by the test itself.
//!
//! The attack list (numbered as in issue 18):
//!
//! 2. An `AGENTS.md` that is a symlink to `/proc/self/environ` (in the working directory and at
//!    the git root) put the API key and the whole environment into the system prompt; one that
//!    is a symlink to a file outside the project pulled that file in.
//! 5. / 6. (the secret half) The key sat in sayso's own environment block, so any way of
//!    reading `/proc/<sayso pid>/environ` (a symlink into `/proc`, an allow rule for `cat *`)
//!    returned it: now the block holds no secret at all, even for root (read by the test, by
//!    `cat /proc/$PPID/environ` in trust mode, and through a `cat *` allow rule and a
//!    `procfs -> /proc` symlink).
//! 12. An MCP `headers_env` token was inherited by every tool command and every stdio MCP
//!     server.
//! 13. `read_file` of the user's config (read-only, so unasked) returned the `[provider]
//!     headers` values to the model, the screen and the session file.
//!
//! Also: an MCP `env` value marked `secret_env` is scrubbed from tool output, and a
//! `secret_env` naming no key of `env` is a config error.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::result_of;
use crate::support::sessions::session_files;
use crate::support::{home_with, mcp_dir, run, sayso};

const KEY: &str = "sk-live-0123456789abcdef";
const MCP_TOKEN: &str = "Bearer mcp-token-5566778899";
const HEADER_VALUE: &str = "hdr-team-secret-31415926";
/// A variable no one treats as secret: seeing it proves the environment really was read.
const CANARY: &str = "SAYSO_TEST_CANARY=plain-value-visible";

fn system_message(body: &Value) -> String {
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn git_init(dir: &Path) {
    let out = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git init: {out:?}");
}

/// (2) Symlinks to `/proc/self/environ` at the git root and in the working directory, and one
/// to a file outside the project in between: none is read, each gets a note.
#[tokio::test]
async fn agents_files_linking_to_process_data_or_out_of_the_project_never_reach_the_model() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["hello"])));
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("notes.md"), "OUTSIDE-THE-PROJECT text").unwrap();
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    git_init(root);
    let mid = root.join("mid");
    let cwd = mid.join("sub");
    std::fs::create_dir_all(&cwd).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", root.join("AGENTS.md")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("notes.md"), mid.join("AGENTS.md")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", cwd.join("AGENTS.md")).unwrap();
    let h = home_with(&fx.base_url(), "");
    let (name, value) = CANARY.split_once('=').unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi", "-C"])
        .arg(&cwd)
        .env("OPENAI_API_KEY", KEY)
        .env(name, value);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let body = &fx.requests()[0].body;
    let system = system_message(body);
    assert!(system.contains("Environment:"), "{system}");
    for leak in [
        KEY,
        value,
        "PATH=",
        "OUTSIDE-THE-PROJECT",
        "XDG_CONFIG_HOME",
    ] {
        assert!(!system.contains(leak), "{leak} reached the model: {system}");
        assert!(!body.to_string().contains(leak), "{leak} in the request");
    }
    let notes: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("AGENTS.md was not read"))
        .collect();
    assert_eq!(notes.len(), 3, "{}", out.stderr);
    assert!(
        notes[0].contains("under /proc") && notes[2].contains("under /proc"),
        "{notes:?}"
    );
    assert!(notes[1].contains("outside"), "{notes:?}");
    assert!(!out.stderr.contains(value), "{}", out.stderr);
}

/// (5/6, the secret half) While sayso runs, its own environment block holds no secret: the
/// test reads `/proc/<sayso pid>/environ` itself, and so does a command run in trust mode. The
/// block still holds the other variables, and the command's output has no marker either: the
/// secret is gone from the block, not scrubbed from the output. Run as another user than root,
/// the block cannot be read at all (sayso is non-dumpable): that is checked instead.
#[tokio::test]
async fn the_environment_block_of_sayso_holds_no_secret_while_it_runs() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[
        (
            "c1",
            "run_command",
            json!({"cmd": "cat /proc/$PPID/environ | tr '\\0' '\\n'", "flag": null}),
        ),
        ("c2", "run_command", json!({"cmd": "sleep 2", "flag": null})),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let project = tempfile::tempdir().unwrap();
    let h = home_with(
        &fx.base_url(),
        "[mcp_servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders_env = { Authorization = \"REMOTE_MCP_AUTH\" }\nstartup_timeout = 2\n",
    );
    let (name, value) = CANARY.split_once('=').unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "go", "--approval-mode", "trust", "-C"])
        .arg(project.path())
        .env("OPENAI_API_KEY", KEY)
        .env("REMOTE_MCP_AUTH", MCP_TOKEN)
        .env(name, value)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().expect("start sayso");
    let pid = child.id().expect("pid");
    // Read the block while the tools run (the first request has been answered).
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while fx.requests().is_empty() {
        assert!(std::time::Instant::now() < deadline, "no request came");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let read = std::fs::read(format!("/proc/{pid}/environ"));
    if root {
        let block = read.expect("root reads sayso's environ");
        let block = String::from_utf8_lossy(&block);
        assert!(block.contains(CANARY), "the block was read: {block:?}");
        for secret in [KEY, MCP_TOKEN, "OPENAI_API_KEY=", "REMOTE_MCP_AUTH="] {
            assert!(!block.contains(secret), "{secret} in sayso's environ");
        }
    } else {
        // Not root: sayso is non-dumpable, so even its own user cannot read the block.
        let err = read.expect_err("a non-dumpable process's environ is closed to its user");
        assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied, "{err}");
    }
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let c1 = result_of(&fx, "c1");
    if root {
        assert!(
            c1.contains(CANARY),
            "the command read sayso's environ: {c1}"
        );
    }
    for leak in [
        KEY,
        MCP_TOKEN,
        "OPENAI_API_KEY",
        "REMOTE_MCP_AUTH",
        "[secret",
    ] {
        assert!(!c1.contains(leak), "{leak} in the tool message: {c1}");
    }
}

/// (12) An MCP `headers_env` variable is not in the environment of `run_command`.
#[tokio::test]
async fn an_mcp_headers_env_token_is_not_in_the_environment_of_tool_commands() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "run_command",
        json!({"cmd": "env", "flag": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let project = tempfile::tempdir().unwrap();
    let h = home_with(
        &fx.base_url(),
        "[mcp_servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders_env = { Authorization = \"REMOTE_MCP_AUTH\" }\nstartup_timeout = 2\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "go", "--allowed-tools", "run_command", "-C"])
        .arg(project.path())
        .env("REMOTE_MCP_AUTH", MCP_TOKEN);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let c1 = result_of(&fx, "c1");
    assert!(c1.contains("PATH="), "the environment was listed: {c1}");
    for leak in ["REMOTE_MCP_AUTH", "mcp-token", "[secret"] {
        assert!(!c1.contains(leak), "{leak}: {c1}");
    }
}

/// (12) …nor of a stdio MCP server; and a stdio server's own `env` value marked `secret_env`
/// reaches that server but is scrubbed from what its tool returns.
#[tokio::test]
async fn a_stdio_mcp_server_never_inherits_a_token_and_its_secret_env_is_scrubbed() {
    let Some(dir) = mcp_dir("a_stdio_mcp_server_never_inherits_a_token") else {
        return;
    };
    let fx = Fixture::start().await;
    fx.push(call_reply(&[("c1", "everything__get-env", json!({}))]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let entry = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let config = format!(
        "[mcp_servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders_env = {{ Authorization = \"REMOTE_MCP_AUTH\" }}\nstartup_timeout = 2\n\
         [mcp_servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\nenv = {{ SERVER_TOKEN = \"srv-env-secret-2718281828\", LOG_LEVEL = \"warn\" }}\nsecret_env = [\"SERVER_TOKEN\"]\nstartup_timeout = 30\n",
        entry.display().to_string()
    );
    let h = home_with(&fx.base_url(), &config);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "go", "--approval-mode", "trust"])
        .env("REMOTE_MCP_AUTH", MCP_TOKEN)
        .env("OPENAI_API_KEY", KEY);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let c1 = result_of(&fx, "c1");
    assert!(c1.contains("PATH"), "the server listed its env: {c1}");
    assert!(c1.contains("LOG_LEVEL"), "{c1}");
    for leak in [
        MCP_TOKEN,
        "REMOTE_MCP_AUTH",
        KEY,
        "OPENAI_API_KEY",
        "srv-env-secret",
    ] {
        assert!(!c1.contains(leak), "{leak}: {c1}");
    }
    assert!(
        c1.contains("[secret mcp_servers.everything.env.SERVER_TOKEN removed]"),
        "the server got its secret, the model only the marker: {c1}"
    );
}

/// (13) `read_file` of the user's config: the header value is in no tool message, no JSON
/// event on stdout and nowhere in the session file; the request still carries the header.
#[tokio::test]
async fn read_file_of_the_config_never_shows_a_header_value() {
    let fx = Fixture::start().await;
    let h = home_with(
        &fx.base_url(),
        &format!("[provider.headers]\nX-Team-Token = \"{HEADER_VALUE}\"\n"),
    );
    let config = h.path().join("config/sayso/config.toml");
    fx.push(call_reply(&[(
        "c1",
        "read_file",
        json!({"filepath": config.display().to_string(), "start_line": null, "end_line": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let project = tempfile::tempdir().unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--json", "go", "-C"]).arg(project.path());
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        fx.requests()[0].header("x-team-token"),
        Some(HEADER_VALUE),
        "the header is real"
    );
    let c1 = result_of(&fx, "c1");
    assert!(c1.contains("X-Team-Token"), "the config was read: {c1}");
    assert!(c1.contains("[secret header X-Team-Token removed]"), "{c1}");
    for r in fx.requests() {
        assert!(!r.body.to_string().contains(HEADER_VALUE), "{}", r.body);
    }
    assert!(out.stdout.contains("tool"), "{}", out.stdout);
    assert!(!out.stdout.contains(HEADER_VALUE), "{}", out.stdout);
    assert!(!out.stderr.contains(HEADER_VALUE), "{}", out.stderr);
    let files = session_files(h.path());
    assert_eq!(files.len(), 1);
    let saved = std::fs::read_to_string(&files[0]).unwrap();
    assert!(
        saved.contains("X-Team-Token"),
        "the output was saved: {saved}"
    );
    assert!(!saved.contains(HEADER_VALUE), "{saved}");
}

/// A project `.sayso/config.toml` that is a symlink to `/proc/self/environ` is refused with the
/// reason; the environment is not shown in the error.
#[tokio::test]
async fn a_config_file_linking_to_process_data_is_refused_without_its_content() {
    let fx = Fixture::start().await;
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join(".sayso")).unwrap();
    std::os::unix::fs::symlink(
        "/proc/self/environ",
        project.path().join(".sayso/config.toml"),
    )
    .unwrap();
    let h = home_with(&fx.base_url(), "");
    let (name, value) = CANARY.split_once('=').unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi", "-C"])
        .arg(project.path())
        .env("OPENAI_API_KEY", KEY)
        .env(name, value);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("under /proc"), "{}", out.stderr);
    assert!(
        !out.stderr.contains(value) && !out.stderr.contains(KEY),
        "{}",
        out.stderr
    );
    assert!(fx.requests().is_empty());
}

/// `secret_env` names keys of `env`: anything else is a config error naming the key.
#[tokio::test]
async fn a_secret_env_naming_no_env_key_is_a_config_error() {
    let h = home_with(
        "http://127.0.0.1:9/v1",
        "[mcp_servers.s]\ncommand = \"true\"\nenv = { A = \"1\" }\nsecret_env = [\"TOKEN\"]\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("mcp_servers.s.secret_env") && out.stderr.contains("`TOKEN`"),
        "{}",
        out.stderr
    );
}

/// (5/6, the secret half) Whatever lets a command read sayso's environment — here an allow rule
/// for `cat *` (the modal proposes it for any `cat FILE`), directly and through a committed
/// `procfs -> /proc` symlink — it finds no secret there. (Whether such a rule still covers the
/// read is root 3's part: either way no key comes back.)
#[tokio::test]
async fn an_allowed_cat_of_the_environment_of_sayso_finds_no_key() {
    let fx = Fixture::start().await;
    // The first reply waits until the test knows sayso's pid and has scripted the second.
    let gate = std::sync::Arc::new(tokio::sync::Notify::new());
    let Reply::Stream(steps) = call_reply(&[(
        "c0",
        "run_command",
        json!({"cmd": "cat notes.txt", "flag": null}),
    )]) else {
        panic!("a streamed reply");
    };
    fx.push(Reply::Stream(
        std::iter::once(Step::Gate(gate.clone()))
            .chain(steps)
            .collect(),
    ));
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("notes.txt"), "notes\n").unwrap();
    std::os::unix::fs::symlink("/proc", project.path().join("procfs")).unwrap();
    let h = home_with(
        &fx.base_url(),
        "[judge]\nenabled = false\n[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"cat *\"\ndecision = \"allow\"\n",
    );
    let (name, value) = CANARY.split_once('=').unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "go", "-C"])
        .arg(project.path())
        .env("OPENAI_API_KEY", KEY)
        .env(name, value)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().expect("start sayso");
    let pid = child.id().expect("pid");
    fx.push(call_reply(&[
        (
            "c1",
            "run_command",
            json!({"cmd": format!("cat /proc/{pid}/environ"), "flag": null}),
        ),
        (
            "c2",
            "run_command",
            json!({"cmd": format!("cat procfs/{pid}/environ"), "flag": null}),
        ),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    gate.notify_one();
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        result_of(&fx, "c0").contains("notes"),
        "the rule allows cat: {}",
        result_of(&fx, "c0")
    );
    for id in ["c1", "c2"] {
        let content = result_of(&fx, id);
        for leak in [KEY, "OPENAI_API_KEY", "[secret"] {
            assert!(!content.contains(leak), "{id}: {leak}: {content}");
        }
    }
}
