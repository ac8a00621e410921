//! The OpenAI-compatible client: request building, SSE framing, lenient chunk decoding, delta
//! assembly, retries, the models list, each model's context window ([`window`]), finding
//! servers on this machine when none is configured ([`discover`]), tool calls a model writes as
//! text instead of sending them structured ([`text_calls`]), and the reasoning sent back with a
//! request ([`reasoning`]).
//!
//! Flow: [`ChatRequest`] → [`Client::stream_chat`] → bytes → [`sse`] events → [`chunk`] types →
//! [`assembly`] → [`StreamEvent`]s. The decoding half ([`decode::ReplyDecoder`]) is pure and
//! synchronous, so it is property-tested and benchmarked without a network.

pub mod assembly;
pub mod base_url;
pub mod chunk;
pub mod client;
pub mod decode;
pub mod discover;
pub mod error;
pub mod failure;
pub mod http;
pub mod model;
pub mod models;
pub mod overflow;
pub mod pacing;
pub mod reasoning;
pub mod request;
pub mod retry;
pub mod sse;
pub mod stream_limits;
pub mod text_calls;
pub mod think;
pub mod window;

pub use assembly::{AssistantMessage, StreamDelta, ToolCall};
pub use base_url::BaseUrlFrom;
pub use chunk::Usage;
pub use client::{Client, ProviderSettings, StreamEvent};
pub use error::ProviderError;
pub use model::SharedModel;
pub use models::ModelInfo;
pub use reasoning::{Reasoning, ReasoningField, ReasoningSettings, SendReasoning};
pub use request::{ChatMessage, ChatRequest, Image, ToolSpec};
pub use retry::{Retry, RetryPolicy};
pub use window::{Confidence, ContextWindow, WindowCaps, WindowSource};
