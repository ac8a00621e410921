//! End-to-end tests: the real client and the real binary against a scripted server over TCP.

mod support;

mod config_errors;
mod demo;
mod engine;
mod engine_support;
mod headless;
mod judge;
mod requests;
mod retries;
mod sse_property;
mod stream_quirks;
