//! A request body read into a chat request, or refused: the bytes must be
//! one JSON value and nothing after it (serde_json's `end`), shaped as
//! [`ChatRequest`], and pass every check that needs no model — messages,
//! sampling, `max_tokens`, logprobs, `response_format` and its bounds.
//! Whatever the bytes, the answer is a request or an [`ApiError`] naming
//! the field; the fuzz test below holds it to that.

use crate::api::{ApiError, ChatRequest, Turn};

/// The most bytes a request body may have. A phone screenshot as a PNG
/// `data:` URL is 1–3 MB in base64; anything much larger is no request this
/// server can serve on a phone's memory.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Read `body` into a chat request, or the error that names what is wrong.
pub fn parse(body: &[u8]) -> Result<ChatRequest, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(too_large(body.len()));
    }
    let de = &mut serde_json::Deserializer::from_slice(body);
    let request: ChatRequest = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        ApiError::invalid(
            if path == "." {
                "body".to_string()
            } else {
                path
            },
            format!(
                "the request body is not a chat completion request: {}",
                e.inner()
            ),
        )
    })?;
    de.end().map_err(|e| {
        ApiError::invalid(
            "body",
            format!("the request body has more after its JSON value: {e}"),
        )
    })?;
    Ok(request)
}

/// A request that passed [`check`]: its messages flattened, and what it
/// asks of the engine.
#[derive(Debug)]
pub struct Checked {
    pub turns: Vec<Turn>,
    /// `Some(top_logprobs)` when log probabilities were asked for.
    pub top_logprobs: Option<usize>,
    /// The schema the answer must follow, if any.
    pub schema: Option<serde_json::Value>,
}

/// Every check of `request` that needs no model (the engine checks the
/// rest: images for a text-only model).
pub fn check(request: &ChatRequest) -> Result<Checked, ApiError> {
    let turns = request.turns()?;
    let top_logprobs = request.logprobs()?;
    let schema = request.json_schema()?;
    if top_logprobs.is_some() && schema.is_some() {
        // A grammar makes mistral.rs run a step's logits processors
        // twice when it rejects the first pick; the recorder would
        // count a step too many.
        return Err(ApiError::invalid(
            "logprobs",
            "logprobs are not reported with a response_format constraint",
        ));
    }
    Ok(Checked {
        turns,
        top_logprobs,
        schema,
    })
}

/// The 413 for a body of `bytes` bytes.
pub fn too_large(bytes: usize) -> ApiError {
    ApiError::refused(
        413,
        format!("the request body is {bytes} bytes; at most {MAX_BODY_BYTES} are accepted"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const HI: &str = r#"{"messages":[{"role":"user","content":"hi"}]}"#;

    /// Trailing bytes after the JSON value were read as if absent: the body
    /// `{…} trailing garbage` was answered 200.
    #[test]
    fn bytes_after_the_json_value_are_refused() {
        assert!(parse(HI.as_bytes()).is_ok());
        assert!(parse(format!("{HI}\n  \t").as_bytes()).is_ok());
        let e = parse(format!("{HI} trailing garbage").as_bytes()).unwrap_err();
        assert_eq!((e.status, e.param.as_deref()), (400, Some("body")));
        assert!(
            e.message.contains("more after its JSON value"),
            "{}",
            e.message
        );
        assert!(parse(format!("{HI}{HI}").as_bytes()).is_err());
    }

    /// `max_tokens: 0` was answered with one token; OpenAI refuses it.
    #[test]
    fn max_tokens_is_between_one_and_the_bound() {
        let with = |n: u64| {
            let body =
                format!(r#"{{"messages":[{{"role":"user","content":"hi"}}],"max_tokens":{n}}}"#);
            check(&parse(body.as_bytes()).unwrap()).map(drop)
        };
        let e = with(0).unwrap_err();
        assert_eq!((e.status, e.param.as_deref()), (400, Some("max_tokens")));
        assert_eq!(with(1), Ok(()));
        assert_eq!(with(crate::api::MAX_TOKENS as u64), Ok(()));
        assert!(with(crate::api::MAX_TOKENS as u64 + 1).is_err());
    }

    #[test]
    fn a_body_at_the_size_bound_is_read_and_one_byte_more_refused() {
        let mut at = HI.as_bytes().to_vec();
        at.resize(MAX_BODY_BYTES, b' ');
        assert!(parse(&at).is_ok());
        at.push(b' ');
        let e = parse(&at).unwrap_err();
        assert_eq!(e.status, 413);
        assert_eq!(e.body()["error"]["type"], "invalid_request_error");
    }

    /// Bytes that are, or are close to, a chat request: pieces of the
    /// wire format shuffled and cut.
    fn near_request() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"",
            "null",
            "true",
            "0",
            "-1",
            "1e999",
            "2.5",
            "\"messages\"",
            "\"role\"",
            "\"user\"",
            "\"system\"",
            "\"content\"",
            "\"hi\"",
            "\"type\"",
            "\"text\"",
            "\"image_url\"",
            "\"url\"",
            "\"data:image/png;base64,iVBOR\"",
            "\"max_tokens\"",
            "\"temperature\"",
            "\"top_p\"",
            "\"logprobs\"",
            "\"top_logprobs\"",
            "\"response_format\"",
            "\"json_schema\"",
            "\"schema\"",
            "\"name\"",
            "\"$ref\"",
            "\"#\"",
            "\"n\"",
            "\"stream\"",
            "\"seed\"",
            "18446744073709551616",
            " ",
            "\\u0000",
        ]);
        prop::collection::vec(piece, 0..60).prop_map(|p| p.concat().into_bytes())
    }

    fn valid_request() -> impl Strategy<Value = Vec<u8>> {
        (
            prop::option::of(0usize..70_000),
            prop::option::of(-1.0f64..3.0),
            prop::option::of(0usize..30),
            any::<bool>(),
            prop::collection::vec(any::<u8>(), 0..8),
        )
            .prop_map(|(max_tokens, temperature, top, logprobs, tail)| {
                let mut body = serde_json::json!({
                    "messages": [{"role": "user", "content": "hi"}],
                    "max_tokens": max_tokens,
                    "temperature": temperature,
                    "top_logprobs": top,
                    "logprobs": logprobs,
                    "response_format": {"type": "json_schema",
                        "json_schema": {"name": "s", "schema": {"$ref": "#"}}},
                })
                .to_string()
                .into_bytes();
                body.extend(tail);
                body
            })
    }

    proptest! {
        // ~3-4 s in a debug build; PROPTEST_CASES raises it for a long run.
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(30_000)
        ))]

        /// Any bytes: a request that passes every check, or a JSON error body
        /// with a 4xx status and a message; never a panic.
        #[test]
        fn any_body_is_a_checked_request_or_a_json_error(
            body in prop_oneof![
                prop::collection::vec(any::<u8>(), 0..256),
                near_request(),
                valid_request(),
            ]
        ) {
            match parse(&body).and_then(|r| check(&r).map(|_| r)) {
                Ok(request) => {
                    prop_assert!(!request.messages.is_empty());
                    prop_assert!(request.max_tokens.is_none_or(|n| (1..=crate::api::MAX_TOKENS).contains(&n)));
                }
                Err(e) => {
                    prop_assert!((400..500).contains(&e.status), "{e:?}");
                    prop_assert!(!e.message.is_empty());
                    let json = serde_json::to_string(&e.body()).unwrap();
                    let back: serde_json::Value = serde_json::from_str(&json).unwrap();
                    prop_assert!(back["error"]["message"].is_string());
                    prop_assert!(back["error"]["type"].is_string());
                }
            }
        }
    }
}
