//! server-filesystem over stdio: listing a directory under the root it is allowed, and refusing
//! one outside it.

use super::*;

#[tokio::test]
async fn filesystem_lists_a_directory_under_its_allowed_root() {
    let script = require_mcp!(
        FILESYSTEM,
        "filesystem_lists_a_directory_under_its_allowed_root"
    );
    within(async {
        let root = tempfile::tempdir().expect("temp dir");
        std::fs::write(root.path().join("hello.txt"), "hi").expect("write");
        std::fs::create_dir(root.path().join("sub")).expect("mkdir");
        // The server resolves symlinks (macOS /var → /private/var): give it the real path.
        let root_path = std::fs::canonicalize(root.path()).expect("canonical");
        let root_str = root_path.display().to_string();
        let conn = connect(&stdio_spec("fs", &script, &[&root_str])).await;
        let tools = conn.list_tools().await.expect("tools/list");
        assert!(
            tools.iter().any(|t| t.name == "list_directory"),
            "{:?}",
            names(&tools)
        );
        let out = conn
            .call_tool(
                "list_directory",
                args(json!({ "path": root_str })),
                CALL_TIMEOUT,
                &CancellationToken::new(),
            )
            .await
            .expect("list_directory");
        assert!(!out.is_error, "{out:?}");
        let mut lines: Vec<&str> = out.content.lines().collect();
        lines.sort_unstable();
        assert_eq!(lines, ["[DIR] sub", "[FILE] hello.txt"]);
        // Outside the root it refuses, as a tool error.
        let out = conn
            .call_tool(
                "list_directory",
                args(json!({ "path": "/" })),
                CALL_TIMEOUT,
                &CancellationToken::new(),
            )
            .await
            .expect("an answer");
        assert!(out.is_error, "{out:?}");
        conn.shutdown().await;
    })
    .await;
}
