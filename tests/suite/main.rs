//! End-to-end tests: the real client and the real binary against a scripted server over TCP.

mod support;

mod agent_e2e;
mod agent_task;
mod approval_policy;
mod builtin_tools;
mod config_errors;
mod context_window;
mod control_protocol;
mod demo;
mod edit_tools;
mod engine;
mod engine_support;
mod footprint;
mod headless;
mod headless_tools;
mod hostile;
mod judge;
mod local_servers;
mod long_sessions;
mod mcp_e2e;
mod requests;
mod retries;
mod search_tools;
mod sessions_e2e;
mod sse_property;
mod stream_quirks;
mod trust_approvals;
mod trust_git;
mod trust_modal;
mod trust_network;
mod trust_review;
mod trust_rules;
mod trust_secrets;
mod tui_e2e;
mod tui_footprint;
