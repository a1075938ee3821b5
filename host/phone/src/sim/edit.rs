//! Editing the focused text field with keys, as Android's `TextView` and its
//! `ArrowKeyMovementMethod` do: a caret (the field's end unless moved), a
//! select-all selection (Ctrl+A, a double tap on the field), and what
//! `DEL`, `FORWARD_DEL`, `MOVE_HOME`, `MOVE_END` and `DPAD_LEFT`/`RIGHT` do
//! to them. The simulator has no glyph positions, so a tap leaves the caret
//! at the end (Android puts it under the finger) and a double tap selects
//! the whole text (Android selects the word under the finger).
//!
//! Pure functions over a field's text and a [`Caret`]: `SimPhone` finds the
//! focused field and keeps the caret.

use crate::keycode;

/// Where typing goes in the focused field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Caret {
    /// Characters before the caret; `None` is the end of the text.
    pub at: Option<usize>,
    /// The whole text is selected: typing replaces it, a delete empties it.
    pub all: bool,
}

/// A key that edits the field or moves its caret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKey {
    /// `KEYCODE_DEL` (Backspace): the character before the caret.
    DeleteBack,
    /// `KEYCODE_FORWARD_DEL`: the character after it.
    DeleteForward,
    Home,
    End,
    Left,
    Right,
}

impl EditKey {
    pub(crate) fn from_code(code: u32) -> Option<EditKey> {
        Some(match code {
            keycode::DEL => EditKey::DeleteBack,
            keycode::FORWARD_DEL => EditKey::DeleteForward,
            keycode::MOVE_HOME => EditKey::Home,
            keycode::MOVE_END => EditKey::End,
            keycode::DPAD_LEFT => EditKey::Left,
            keycode::DPAD_RIGHT => EditKey::Right,
            _ => return None,
        })
    }
}

fn byte_at(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| i)
}

/// Apply `key` to `text` with `caret`; the caret moves as Android's does.
pub fn apply(text: &mut String, caret: &mut Caret, key: EditKey) {
    let len = text.chars().count();
    let at = caret.at.unwrap_or(len).min(len);
    if caret.all {
        caret.all = false;
        match key {
            // A delete removes the selection; Left/Home collapse it to its
            // start, Right/End to its end.
            EditKey::DeleteBack | EditKey::DeleteForward => {
                text.clear();
                caret.at = None;
            }
            EditKey::Home | EditKey::Left => caret.at = Some(0),
            EditKey::End | EditKey::Right => caret.at = None,
        }
        return;
    }
    let new_at = match key {
        EditKey::DeleteBack if at > 0 => {
            text.remove(byte_at(text, at - 1));
            at - 1
        }
        EditKey::DeleteForward if at < len => {
            text.remove(byte_at(text, at));
            at
        }
        EditKey::DeleteBack | EditKey::DeleteForward => at,
        EditKey::Home => 0,
        EditKey::End => len,
        EditKey::Left => at.saturating_sub(1),
        EditKey::Right => (at + 1).min(len),
    };
    let len = text.chars().count();
    caret.at = (new_at < len).then_some(new_at);
}

/// Before typing: a selection is emptied, and the text after the caret is
/// taken off (to go back after what is typed, see [`after_typing`]).
pub(crate) fn before_typing(text: &mut String, caret: &Caret) -> String {
    if caret.all {
        text.clear();
        return String::new();
    }
    match caret.at {
        Some(at) => text.split_off(byte_at(text, at)),
        None => String::new(),
    }
}

/// After typing: the tail goes back and the caret stays before it.
pub(crate) fn after_typing(text: &mut String, tail: &str) -> Caret {
    if tail.is_empty() {
        return Caret::default();
    }
    let at = text.chars().count();
    text.push_str(tail);
    Caret {
        at: Some(at),
        all: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, keys: &[EditKey]) -> (String, Caret) {
        let mut text = text.to_string();
        let mut caret = Caret::default();
        for key in keys {
            apply(&mut text, &mut caret, *key);
        }
        (text, caret)
    }

    #[test]
    fn delete_takes_the_character_before_the_caret() {
        assert_eq!(run("Alice", &[EditKey::DeleteBack]).0, "Alic");
        assert_eq!(
            run("Alice", &[EditKey::Home, EditKey::DeleteBack]).0,
            "Alice"
        );
        assert_eq!(
            run(
                "Alice",
                &[EditKey::Home, EditKey::Right, EditKey::DeleteBack]
            )
            .0,
            "lice"
        );
        assert_eq!(
            run("Alice", &[EditKey::Home, EditKey::DeleteForward]).0,
            "lice"
        );
        assert_eq!(run("Alice", &[EditKey::DeleteForward]).0, "Alice");
        assert_eq!(run("", &[EditKey::DeleteBack, EditKey::Left]).0, "");
        assert_eq!(
            run("né", &[EditKey::DeleteBack]).0,
            "n",
            "characters, not bytes"
        );
    }

    #[test]
    fn a_selection_is_replaced_by_typing_and_emptied_by_a_delete() {
        let mut text = "Alice".to_string();
        let all = Caret {
            at: None,
            all: true,
        };
        let tail = before_typing(&mut text, &all);
        text.push_str("Bob");
        assert_eq!(after_typing(&mut text, &tail), Caret::default());
        assert_eq!(text, "Bob");
        let mut caret = all;
        apply(&mut text, &mut caret, EditKey::DeleteBack);
        assert_eq!(text, "");
        let mut text = "Alice".to_string();
        let mut caret = all;
        apply(&mut text, &mut caret, EditKey::Left);
        assert_eq!((text.as_str(), caret.at), ("Alice", Some(0)));
    }

    #[test]
    fn typing_goes_in_at_the_caret() {
        let mut text = "Alice".to_string();
        let mut caret = Caret::default();
        apply(&mut text, &mut caret, EditKey::Home);
        let tail = before_typing(&mut text, &caret);
        text.push_str("Dr ");
        let caret = after_typing(&mut text, &tail);
        assert_eq!((text.as_str(), caret.at), ("Dr Alice", Some(3)));
    }
}
