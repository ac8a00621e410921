//! Compatibility tests of sayso's real client against real OpenAI-compatible servers written by
//! others (see `../shared/servers/README.md`):
//!
//! - llama.cpp's `llama-server` with a tiny generated model (`SAYSO_TEST_LLAMA_URL`, e.g.
//!   `http://127.0.0.1:8080/v1`): real streamed text, real grammar-constrained tool calls, real
//!   error bodies;
//! - the same llama-server started with `--no-jinja` (`SAYSO_TEST_LLAMA_NOJINJA_URL`): it
//!   refuses `tools`, so sayso describes them in the system message (`no_jinja`);
//! - LLMock (`SAYSO_TEST_LLMOCK_URL`, e.g. `http://127.0.0.1:8010/v1`): scripted faults (429,
//!   5xx, disconnects, truncated and malformed streams, stalls) and a verdict grading how the
//!   client coped.
//!
//! The context window llama-server reports (`/props`) and finding it as a local server are
//! checked against the same llama-server (`window`).
//!
//! A test whose variable is unset prints why it is skipped and passes, so `cargo test` works
//! anywhere — except under `CI`, where a missing server fails the test (`harness::skip`). To
//! run them:
//!
//! ```sh
//! ../shared/servers/realservers.sh start all
//! SAYSO_TEST_LLAMA_URL=http://127.0.0.1:8080/v1 SAYSO_TEST_LLMOCK_URL=http://127.0.0.1:8010/v1 \
//!     cargo test --test real_servers
//! ../shared/servers/realservers.sh stop all
//! ```

#[macro_use]
mod harness;
mod agent_loop;
mod footprint;
mod litellm;
mod llama;
mod llmock;
mod llmock_control;
mod llmock_probing;
mod long_session;
mod mcp;
mod no_jinja;
mod window;
