//! A program answering sayso's control protocol over real pipes: it reads `sayso -p --json`'s
//! stdout line by line and writes a script's answers to its stdin, as an editor plugin or a CI
//! wrapper would.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use super::sayso;

/// What the controller does on each line sayso prints: answer lines to write (possibly none).
pub type Script = Box<dyn FnMut(&Value) -> Vec<String> + Send>;

/// What a driven run printed and how it ended.
pub struct Run {
    pub events: Vec<Value>,
    pub stderr: String,
    pub code: i32,
}

/// A `control_response` line for request `id` (`behavior` with the `extra` fields).
pub fn response(id: &str, behavior: &str, extra: Value) -> String {
    let mut r = json!({"behavior": behavior});
    if let (Some(o), Some(e)) = (r.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    json!({"type": "control_response", "response": {"subtype": "tool_approval", "request_id": id, "response": r}}).to_string()
}

/// Runs `sayso -p --json ARGS go` in `home`, feeding `script`'s answers on stdin (closed at
/// once when `close_stdin`); sayso must end within a minute.
pub async fn drive(home: &Path, args: &[&str], mut script: Script, close_stdin: bool) -> Run {
    let mut cmd = sayso(home);
    cmd.args(["-p", "--json"])
        .args(args)
        .arg("go")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("sayso starts");
    let mut stdin = child.stdin.take();
    if close_stdin {
        stdin = None;
    }
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stderr = child.stderr.take().unwrap();
    let mut events = Vec::new();
    let read = async {
        while let Some(line) = stdout.next_line().await.unwrap() {
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            for answer in script(&v) {
                if let Some(s) = stdin.as_mut() {
                    s.write_all(format!("{answer}\n").as_bytes()).await.unwrap();
                    s.flush().await.unwrap();
                }
            }
            events.push(v);
        }
    };
    tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("sayso never hangs");
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("exits")
        .unwrap();
    let mut err = String::new();
    stderr.read_to_string(&mut err).await.unwrap();
    Run {
        events,
        stderr: err,
        code: status.code().unwrap_or(-1),
    }
}
