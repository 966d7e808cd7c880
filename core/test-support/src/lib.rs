//! Test fixtures for dcl: a scripted fake Anthropic Messages server on 127.0.0.1 (axum
//! with streamed bodies, so a test can stall or cut a stream)
//! ([`anthropic`]) and builders for its SSE bodies ([`sse`]); a scripted fake OpenAI
//! Chat Completions server with its chunk builders ([`openai`]).
//!
//! This crate depends on no dcl crate, so any crate's tests can use it without a cycle.

pub mod anthropic;
pub mod dbs;
pub mod openai;
mod server;
pub mod sse;

pub use anthropic::{
    FakeAnthropicServer, FakeResponse, RecordedRequest, check_request, request_tokens,
};
pub use openai::{ChatStream, FakeOpenAiServer, check_chat_request, openai_error};
pub use sse::{SseMessage, sse_error, sse_event, sse_text, sse_thinking, sse_tool_use};
