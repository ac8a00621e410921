//! server-everything over stdio: its tool list (schema, hints, the change it announces after
//! initialize), plain text, an image, and the environment it gets (secrets removed, `env` added).

use super::*;

#[tokio::test]
async fn everything_lists_echo_with_its_schema_and_hints() {
    let script = require_mcp!(
        EVERYTHING,
        "everything_lists_echo_with_its_schema_and_hints"
    );
    within(async {
        let conn = connect(&stdio_spec("everything", &script, &["stdio"])).await;
        let tools = conn.list_tools().await.expect("tools/list");
        let echo = tools
            .iter()
            .find(|t| t.name == "echo")
            .unwrap_or_else(|| panic!("no echo among {:?}", names(&tools)));
        assert_eq!(echo.description, "Echoes back the input string");
        assert_eq!(echo.input_schema["type"], "object", "{}", echo.input_schema);
        assert_eq!(
            echo.input_schema["properties"]["message"]["type"], "string",
            "{}",
            echo.input_schema
        );
        assert_eq!(echo.input_schema["required"], json!(["message"]));
        assert_eq!(
            (echo.read_only, echo.destructive, echo.open_world),
            (Some(true), Some(false), Some(false))
        );
        conn.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn everything_announces_tools_registered_after_initialize() {
    let script = require_mcp!(
        EVERYTHING,
        "everything_announces_tools_registered_after_initialize"
    );
    within(async {
        let conn = connect(&stdio_spec("everything", &script, &["stdio"])).await;
        // It registers its capability-dependent tools once initialized, and says so.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !conn.tools_changed() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(conn.tools_changed(), "no notifications/tools/list_changed");
        conn.list_tools().await.expect("tools/list");
        assert!(!conn.tools_changed());
        conn.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn everything_echo_returns_the_text() {
    let script = require_mcp!(EVERYTHING, "everything_echo_returns_the_text");
    within(async {
        let conn = connect(&stdio_spec("everything", &script, &["stdio"])).await;
        let text = echo(&conn, "hello from sayso").await.expect("echo");
        assert_eq!(text, "Echo: hello from sayso");
        conn.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn everything_image_becomes_a_placeholder() {
    let script = require_mcp!(EVERYTHING, "everything_image_becomes_a_placeholder");
    within(async {
        let conn = connect(&stdio_spec("everything", &script, &["stdio"])).await;
        let out = conn
            .call_tool(
                "get-tiny-image",
                Map::new(),
                CALL_TIMEOUT,
                &CancellationToken::new(),
            )
            .await
            .expect("get-tiny-image");
        let placeholder = out
            .content
            .lines()
            .find(|l| l.starts_with("[image: image/png, "))
            .unwrap_or_else(|| panic!("no image placeholder in {:?}", out.content));
        assert!(placeholder.ends_with(" bytes of base64]"), "{placeholder}");
        assert!(out.content.starts_with("Here's the image you requested:"));
        assert!(
            !out.content.contains("iVBOR"),
            "the base64 leaked into content"
        );
        conn.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn secrets_are_kept_from_the_server_and_env_is_added() {
    let script = require_mcp!(
        EVERYTHING,
        "secrets_are_kept_from_the_server_and_env_is_added"
    );
    within(async {
        let mut spec = stdio_spec("everything", &script, &["stdio"]);
        // HOME stands in for a provider key: present here, and must not reach the server.
        assert!(
            std::env::var_os("HOME").is_some(),
            "the test needs HOME set"
        );
        spec.secret_env = vec!["HOME".to_owned()];
        if let Transport::Stdio { env, .. } = &mut spec.transport {
            env.insert("SAYSO_MCP_TEST_VALUE".to_owned(), "added".to_owned());
        }
        let conn = connect(&spec).await;
        let out = conn
            .call_tool(
                "get-env",
                Map::new(),
                CALL_TIMEOUT,
                &CancellationToken::new(),
            )
            .await
            .expect("get-env");
        let env: Value = serde_json::from_str(&out.content).expect("get-env returns JSON");
        assert_eq!(env["SAYSO_MCP_TEST_VALUE"], "added");
        assert!(env.get("HOME").is_none(), "HOME leaked: {}", env["HOME"]);
        conn.shutdown().await;
    })
    .await;
}
