//! `--demo`: a scripted OpenAI-compatible endpoint inside the sayso process.
//!
//! It listens on a loopback port and is reached through the normal HTTP client, so the demo
//! exercises the real request, SSE and assembly path. [`server`] speaks just enough HTTP/1.1;
//! [`script`] decides what the scripted model says ([`asks`]: what a message asks it to
//! show; [`reactions`]: its reply to tool results); [`workdir`] is the directory its tools
//! work in, kept between runs so a demo chat can be continued.

pub mod asks;
pub mod reactions;
pub mod script;
pub mod server;
pub mod workdir;

pub use server::DemoServer;

/// The model id the demo endpoint reports.
pub const DEMO_MODEL: &str = "sayso-demo";
