//! Commands sayso runs for a tool have no controlling terminal: in the TUI, a command that
//! opens `/dev/tty` — to draw over sayso's screen, or to read the keys the user types into
//! it (the next approval among them) — finds none. They start in a session of their own
//! (`process_group::own_group`), sandboxed or not.

use serde_json::json;

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::result_of;
use crate::support::tui::Tui;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_cannot_open_the_terminal_sayso_draws_on() {
    // `\120` is "P": the command's text never shows the word its write would paint.
    // Reading opens it the same way (and would wait for a key).
    let cmd = "printf '\\120AINTED-OVER' > /dev/tty && echo painted";
    for sandbox in ["workspace-write", "off"] {
        let fx = Fixture::start().await;
        fx.push(calls(&[("c1", "run_command", json!({ "cmd": cmd }))]));
        fx.push(Reply::Stream(sse::text_reply(&["All done."])));
        let tui = Tui::start(
            &fx.base_url(),
            &["--approval-mode", "trust", "--sandbox", sandbox],
        );
        tui.ready().await;
        tui.send("touch the terminal").await;
        let screen = tui.wait_for("All done.").await;
        let result = result_of(&fx, "c1");
        assert!(
            result.contains("No such device or address"),
            "{sandbox}: /dev/tty opened: {result}"
        );
        assert!(
            !result.lines().any(|l| l == "painted"),
            "{sandbox}: {result}"
        );
        assert!(
            !screen.contains("PAINTED-OVER"),
            "{sandbox}: drawn over the screen:\n{screen}"
        );
    }
}
