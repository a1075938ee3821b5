//! The error for input that is not a uiautomator dump, shared by the
//! document parser (`parse`) and the attribute parser (`attrs`).

/// Input that is not a uiautomator dump. `message` is a lowercase fragment that
/// already names the byte offset; `offset` is the same position for callers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
}

impl ParseError {
    pub(super) fn new(offset: usize, message: impl Into<String>) -> Self {
        Self {
            offset,
            message: message.into(),
        }
    }
}
