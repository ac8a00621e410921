//! Request building: our conversation model turned into a Chat Completions request body.
//!
//! The body is built with async-openai's request types (the OpenAI schema, maintained upstream),
//! so what we send is what the API documents. Streaming requests always ask for
//! `stream_options.include_usage`; non-streaming requests may carry a `response_format` (the
//! judge uses a json_schema).

use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestAssistantMessageContent,
    ChatCompletionRequestMessage, ChatCompletionRequestMessageContentPartImage,
    ChatCompletionRequestMessageContentPartText, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestSystemMessageContent, ChatCompletionRequestToolMessage,
    ChatCompletionRequestToolMessageContent, ChatCompletionRequestUserMessage,
    ChatCompletionRequestUserMessageContent, ChatCompletionRequestUserMessageContentPart,
    ChatCompletionStreamOptions, ChatCompletionTool, ChatCompletionTools,
    CreateChatCompletionRequest, FunctionCall, FunctionObject, ImageUrl,
};
pub use async_openai::types::chat::{ResponseFormat, ResponseFormatJsonSchema};
use serde::{Deserialize, Serialize};

use super::assembly::ToolCall;
use super::reasoning::{self, Reasoning, ReasoningSettings};

/// One message of the conversation, as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    System {
        content: String,
    },
    User {
        content: String,
        /// Images attached to the message (`@picture.png`), sent as `image_url` parts after
        /// the text; a text-only message is sent as a plain string, as before.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<Image>,
    },
    Assistant {
        content: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// The reply's reasoning and the field it came in; sent back as `send_reasoning` says.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning: Option<Reasoning>,
    },
    Tool {
        tool_call_id: String,
        content: String,
    },
}

/// An image a user message carries: its MIME type and bytes, base64 encoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    pub mime: String,
    pub base64: String,
}

impl Image {
    /// The `data:` URL the `image_url` part carries.
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime, self.base64)
    }
}

impl ChatMessage {
    /// A user message of text only.
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage::User {
            content: content.into(),
            images: Vec::new(),
        }
    }
}

/// A function the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolSpec>,
    /// Only for non-streaming requests (structured output).
    pub response_format: Option<ResponseFormat>,
    /// The longest reply to generate (`max_tokens`), when the request must stay in a budget.
    pub max_tokens: Option<u32>,
}

impl ChatRequest {
    pub fn new(model: impl Into<String>, messages: Vec<ChatMessage>) -> Self {
        Self {
            model: model.into(),
            messages,
            ..Self::default()
        }
    }

    /// The JSON body for `POST /chat/completions`.
    pub fn body(&self, stream: bool) -> CreateChatCompletionRequest {
        CreateChatCompletionRequest {
            model: self.model.clone(),
            messages: self.messages.iter().map(to_wire).collect(),
            stream: stream.then_some(true),
            stream_options: stream.then_some(ChatCompletionStreamOptions {
                include_usage: Some(true),
                include_obfuscation: None,
            }),
            tools: (!self.tools.is_empty()).then(|| {
                self.tools
                    .iter()
                    .map(|t| {
                        ChatCompletionTools::Function(ChatCompletionTool {
                            function: FunctionObject {
                                name: t.name.clone(),
                                description: Some(t.description.clone()),
                                parameters: Some(t.parameters.clone()),
                                strict: t.strict,
                            },
                        })
                    })
                    .collect()
            }),
            response_format: if stream {
                None
            } else {
                self.response_format.clone()
            },
            #[allow(deprecated)]
            max_tokens: self.max_tokens,
            ..CreateChatCompletionRequest::default()
        }
    }

    /// The body as sent: [`ChatRequest::body`] with the reasoning sent back and the
    /// `reasoning_effort` that `reasoning` asks for (`reasoning.rs`).
    pub fn body_value(&self, stream: bool, reasoning: &ReasoningSettings) -> serde_json::Value {
        // Serialising plain data types cannot fail.
        let mut body = serde_json::to_value(self.body(stream)).unwrap_or_default();
        reasoning::apply(&mut body, &self.messages, reasoning);
        body
    }

    pub fn body_bytes(&self, stream: bool, reasoning: &ReasoningSettings) -> Vec<u8> {
        serde_json::to_vec(&self.body_value(stream, reasoning)).unwrap_or_default()
    }
}

#[allow(deprecated)] // `function_call` is a deprecated field we must name to leave it empty.
fn to_wire(m: &ChatMessage) -> ChatCompletionRequestMessage {
    match m {
        ChatMessage::System { content } => {
            ChatCompletionRequestMessage::System(ChatCompletionRequestSystemMessage {
                content: ChatCompletionRequestSystemMessageContent::Text(content.clone()),
                name: None,
            })
        }
        ChatMessage::User { content, images } => {
            ChatCompletionRequestMessage::User(ChatCompletionRequestUserMessage {
                content: user_content(content, images),
                name: None,
            })
        }
        ChatMessage::Assistant {
            content,
            tool_calls,
            ..
        } => ChatCompletionRequestMessage::Assistant(ChatCompletionRequestAssistantMessage {
            content: (!content.is_empty() || tool_calls.is_empty())
                .then(|| ChatCompletionRequestAssistantMessageContent::Text(content.clone())),
            tool_calls: (!tool_calls.is_empty()).then(|| {
                tool_calls
                    .iter()
                    .map(|c| {
                        ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
                            id: c.id.clone(),
                            function: FunctionCall {
                                name: c.name.clone(),
                                arguments: c.arguments.clone(),
                            },
                        })
                    })
                    .collect()
            }),
            refusal: None,
            name: None,
            audio: None,
            function_call: None,
        }),
        ChatMessage::Tool {
            tool_call_id,
            content,
        } => ChatCompletionRequestMessage::Tool(ChatCompletionRequestToolMessage {
            content: ChatCompletionRequestToolMessageContent::Text(content.clone()),
            tool_call_id: tool_call_id.clone(),
        }),
    }
}

/// A text-only message as a string; with images, a text part and one `image_url` part each.
fn user_content(content: &str, images: &[Image]) -> ChatCompletionRequestUserMessageContent {
    if images.is_empty() {
        return ChatCompletionRequestUserMessageContent::Text(content.to_owned());
    }
    let text = ChatCompletionRequestUserMessageContentPart::Text(
        ChatCompletionRequestMessageContentPartText {
            text: content.to_owned(),
            prompt_cache_breakpoint: None,
        },
    );
    let parts = std::iter::once(text).chain(images.iter().map(|i| {
        ChatCompletionRequestUserMessageContentPart::ImageUrl(
            ChatCompletionRequestMessageContentPartImage {
                image_url: ImageUrl {
                    url: i.data_url(),
                    detail: None,
                },
                prompt_cache_breakpoint: None,
            },
        )
    }));
    ChatCompletionRequestUserMessageContent::Array(parts.collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn streaming_body_has_usage_option_tools_and_tool_history() {
        let mut req = ChatRequest::new(
            "m",
            vec![
                ChatMessage::System {
                    content: "sys".into(),
                },
                ChatMessage::user("hi"),
                ChatMessage::Assistant {
                    content: String::new(),
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "f".into(),
                        arguments: "{}".into(),
                    }],
                    reasoning: None,
                },
                ChatMessage::Tool {
                    tool_call_id: "c1".into(),
                    content: "out".into(),
                },
            ],
        );
        req.tools.push(ToolSpec {
            name: "f".into(),
            description: "does f".into(),
            parameters: json!({"type":"object","properties":{}}),
            strict: None,
        });
        let body = serde_json::to_value(req.body(true)).unwrap();
        assert_eq!(
            body,
            json!({
                "model": "m",
                "stream": true,
                "stream_options": {"include_usage": true},
                "messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "tool_calls": [
                        {"type": "function", "id": "c1", "function": {"name": "f", "arguments": "{}"}}
                    ]},
                    {"role": "tool", "tool_call_id": "c1", "content": "out"}
                ],
                "tools": [{"type": "function", "function": {
                    "name": "f", "description": "does f",
                    "parameters": {"type":"object","properties":{}}
                }}]
            })
        );
    }

    #[test]
    fn a_message_with_images_is_sent_as_parts() {
        let m = ChatMessage::User {
            content: "see".into(),
            images: vec![Image {
                mime: "image/png".into(),
                base64: "iVBO".into(),
            }],
        };
        let body = serde_json::to_value(ChatRequest::new("m", vec![m]).body(false)).unwrap();
        assert_eq!(
            body["messages"][0]["content"],
            json!([
                {"type": "text", "text": "see"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}}
            ])
        );
    }
}
