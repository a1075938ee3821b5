//! What a `response_format` schema may be before the engine sees it — its
//! size and nesting bounded — and a schema llguidance accepted but could not
//! follow, told apart from a model that failed: the first is the client's
//! error (400 on the schema), the second the server's (500).
//!
//! llguidance compiles a schema when the request is added (a schema it
//! cannot compile comes back as mistral.rs's `ValidationError`, "Invalid
//! grammar …"), but some schemas compile and then have no value at all:
//! `{"$ref": "#"}` (a schema that is only itself) stops its parser before
//! the first token (`NoExtensionBias`), and an object whose required
//! property refers back to the object grows until the parser gives up
//! (`Too many items`). mistral.rs 0.8.1 reports both from its sampler as a
//! model error (`pipeline/sampling.rs`, `compute_mask_or_eos` and
//! `consume_token` mapped through `candle_core::Error::msg`) whose text is
//! llguidance's error followed by its parser state in `<state>…</state>`.

/// The most bytes a `response_format` schema may take, written compactly.
/// The agent's own schemas are under 4 KiB; llguidance's work grows with
/// the grammar, and all of it happens while the one engine waits.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;

/// The deepest a schema may nest objects and arrays. The agent's schemas
/// nest 6 deep; serde_json stops a body at 128 anyway.
pub const MAX_SCHEMA_DEPTH: usize = 32;

/// Refuse a schema past [`MAX_SCHEMA_BYTES`] or [`MAX_SCHEMA_DEPTH`]: why,
/// for the caller's 400 on the schema's field.
pub fn check_bounds(schema: &serde_json::Value) -> Result<(), String> {
    let depth = depth(schema);
    if depth > MAX_SCHEMA_DEPTH {
        return Err(format!(
            "the schema nests {depth} levels of objects and arrays; at most {MAX_SCHEMA_DEPTH} are accepted"
        ));
    }
    let bytes = serde_json::to_vec(schema).map_or(usize::MAX, |b| b.len());
    if bytes > MAX_SCHEMA_BYTES {
        return Err(format!(
            "the schema is {bytes} bytes; at most {MAX_SCHEMA_BYTES} are accepted"
        ));
    }
    Ok(())
}

/// Levels of objects and arrays: a scalar is 0, `{}` 1, `{"a": []}` 2.
/// Iterative, so no schema can exhaust the stack here.
fn depth(value: &serde_json::Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, above)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &serde_json::Value>> = match v {
            serde_json::Value::Object(map) => Box::new(map.values()),
            serde_json::Value::Array(items) => Box::new(items.iter()),
            _ => continue,
        };
        let here = above + 1;
        deepest = deepest.max(here);
        stack.extend(children.map(|c| (c, here)));
    }
    deepest
}

/// The marker llguidance puts before its parser state in an error.
const LLGUIDANCE_STATE: &str = "\n<state>\n";

/// A model error on a constrained request that is llguidance giving up on
/// the schema: why, in llguidance's first line, without its parser state or
/// mistral.rs's backtrace, for the caller's 400 on the schema's field.
/// `None`: a real model error.
pub fn unfollowable(message: &str) -> Option<String> {
    let (first, _) = message.split_once(LLGUIDANCE_STATE)?;
    let why = first.lines().next().unwrap_or(first).trim();
    Some(format!(
        "no answer can follow the schema: the grammar engine stopped with {why:?}; a schema \
         whose every value nests without end (a $ref to itself, a required property that \
         refers back to its own object) has no value to write"
    ))
}

/// What a 500 says of a mistral.rs error: its first line. The rest (a
/// backtrace, a parser's state) goes to the log, not to the client.
pub fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> serde_json::Value {
        let mut schema = serde_json::json!({"type": "string"});
        for _ in 1..levels {
            schema = serde_json::json!({"items": schema});
        }
        schema
    }

    #[test]
    fn a_schema_at_the_depth_bound_is_taken_and_one_deeper_refused() {
        assert_eq!(depth(&nested(MAX_SCHEMA_DEPTH)), MAX_SCHEMA_DEPTH);
        assert_eq!(check_bounds(&nested(MAX_SCHEMA_DEPTH)), Ok(()));
        let e = check_bounds(&nested(MAX_SCHEMA_DEPTH + 1)).unwrap_err();
        assert!(e.contains("33 levels"), "{e}");
    }

    #[test]
    fn a_schema_at_the_size_bound_is_taken_and_one_byte_more_refused() {
        // {"description":"…"}: 18 bytes around the string.
        let at = serde_json::json!({"description": "x".repeat(MAX_SCHEMA_BYTES - 18)});
        assert_eq!(serde_json::to_vec(&at).unwrap().len(), MAX_SCHEMA_BYTES);
        assert_eq!(check_bounds(&at), Ok(()));
        let past = serde_json::json!({"description": "x".repeat(MAX_SCHEMA_BYTES - 17)});
        let e = check_bounds(&past).unwrap_err();
        assert!(e.contains("at most 65536"), "{e}");
    }

    /// `{"$ref": "#"}` answered 500 with llguidance's parser state and a
    /// backtrace: the schema's fault, reported as the server's.
    #[test]
    fn an_unfollowable_schema_is_a_400_without_the_parser_state() {
        let engine = "NoExtensionBias\n<state>\nTokens: ⟦⟧\nStop: NoExtensionBias\n</state><grammar>\n\n</grammar>\n   0: candle_core::error::Error::bt\n";
        let e = unfollowable(engine).unwrap();
        assert!(e.contains("\"NoExtensionBias\""), "{e}");
        assert!(!e.contains("<state>") && !e.contains("candle_core"));
        assert_eq!(unfollowable("out of memory"), None);
        assert_eq!(
            first_line("shape mismatch\n   0: candle_core::bt"),
            "shape mismatch"
        );
    }
}
