//! What every test binary of the device crate shares: `env`, the harness
//! each test runs `droidscore-device` through; `http`, a plain HTTP/1.1
//! client for the server it starts; `tiny_vlm`, a multimodal model written
//! on the spot. Each binary uses some of it, so what one leaves unused is
//! not dead code.
#![allow(dead_code)]

pub mod env;
pub mod http;
pub mod tiny_vlm;
