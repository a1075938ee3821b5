//! The bearer token a deployed server requires. On a phone every app can
//! reach the server's loopback port, so `droidscore device deploy` and
//! `run --on-device` generate a token per deployment, write it to a file
//! only the shell user can read, and start `serve --token-file FILE`; the
//! host's client sends `Authorization: Bearer TOKEN`, as OpenAI clients
//! send their API key. Every route, `/health` included (it names the
//! model's path and the server's memory), then answers 401 without it.
//! `DROIDSCORE_TOKEN` in the environment does the same as the file; with
//! neither the server is open, as it is when `droidscore run` starts it on
//! this machine's loopback for one run.

use std::path::Path;

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::api::ApiError;

/// The environment variable a token may come in instead of a file.
pub const TOKEN_ENV: &str = "DROIDSCORE_TOKEN";

/// The fewest characters a token may have: the host's are 64 hex digits.
pub const MIN_TOKEN_CHARS: usize = 16;

/// A token the server requires; its `Debug` does not print it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

/// Why no token could be had.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("--token-file {path}: {why}")]
    File { path: String, why: String },
    #[error("{TOKEN_ENV}: {0}")]
    Env(String),
}

impl Token {
    /// `text` without surrounding whitespace, if it is a usable token:
    /// at least [`MIN_TOKEN_CHARS`] visible ASCII characters.
    pub fn new(text: &str) -> Result<Token, String> {
        let text = text.trim();
        if text.len() < MIN_TOKEN_CHARS {
            return Err(format!(
                "a token needs at least {MIN_TOKEN_CHARS} characters, this has {}",
                text.len()
            ));
        }
        if !text.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("a token is visible ASCII characters only".into());
        }
        Ok(Token(text.to_string()))
    }

    /// The token from `--token-file`, else from [`TOKEN_ENV`], else none.
    pub fn from_file_or_env(file: Option<&Path>) -> Result<Option<Token>, TokenError> {
        if let Some(path) = file {
            let file_error = |why: String| TokenError::File {
                path: path.display().to_string(),
                why,
            };
            let text = std::fs::read_to_string(path).map_err(|e| file_error(e.to_string()))?;
            return Token::new(&text).map(Some).map_err(file_error);
        }
        match std::env::var(TOKEN_ENV) {
            Ok(text) => Token::new(&text).map(Some).map_err(TokenError::Env),
            Err(_) => Ok(None),
        }
    }

    /// Whether an `Authorization` header's value carries this token. The
    /// comparison takes the same time wherever the first difference is.
    pub fn admits(&self, authorization: &[u8]) -> bool {
        let Some(given) = authorization.strip_prefix(b"Bearer ") else {
            return false;
        };
        let want = self.0.as_bytes();
        if given.len() != want.len() {
            return false;
        }
        let differ = given
            .iter()
            .zip(want)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        std::hint::black_box(differ) == 0
    }
}

/// The 401 for a request without the token (OpenAI's shape and code).
pub fn unauthorized() -> ApiError {
    ApiError {
        code: Some("invalid_api_key"),
        ..ApiError::refused(
            401,
            "this server requires `Authorization: Bearer TOKEN` with the token it was started with",
        )
    }
}

/// Middleware: with a token, every request must carry it.
pub async fn require(State(token): State<Option<Token>>, request: Request, next: Next) -> Response {
    let Some(token) = token else {
        return next.run(request).await;
    };
    let admitted = request
        .headers()
        .get(AUTHORIZATION)
        .is_some_and(|v| token.admits(v.as_bytes()));
    if admitted {
        next.run(request).await
    } else {
        unauthorized().into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_is_admitted() {
        let token = Token::new("0123456789abcdef0123\n").unwrap();
        assert!(token.admits(b"Bearer 0123456789abcdef0123"));
        assert!(!token.admits(b"Bearer 0123456789abcdef0124"));
        assert!(!token.admits(b"Bearer 0123456789abcdef012"));
        assert!(!token.admits(b"bearer 0123456789abcdef0123"));
        assert!(!token.admits(b"0123456789abcdef0123"));
        assert!(!token.admits(b""));
        assert_eq!(format!("{token:?}"), "Token(…)");
    }

    #[test]
    fn a_short_or_invisible_token_is_refused() {
        assert!(Token::new(&"a".repeat(MIN_TOKEN_CHARS)).is_ok());
        assert!(Token::new(&"a".repeat(MIN_TOKEN_CHARS - 1)).is_err());
        assert!(Token::new("0123456789abcdef 0123").is_err());
        let e = unauthorized();
        assert_eq!(e.status, 401);
        assert_eq!(e.body()["error"]["code"], "invalid_api_key");
    }
}
