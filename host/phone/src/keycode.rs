//! Android's key codes, as `input keyevent` and AndroidWorld's `keycode`
//! action name them. The numbers are `KeyEvent.KEYCODE_*`
//! (frameworks/base `core/java/android/view/KeyEvent.java`); `input` accepts a
//! number, the full constant name (`KEYCODE_HOME`) or the name without its
//! prefix (`HOME`), as `KeyEvent.keyCodeFromString` does.

use crate::{DeviceAction, Key};

/// `KEYCODE_` names without the prefix, in code order (index = code for the
/// dense run 0..=95).
const DENSE: [&str; 96] = [
    "UNKNOWN",
    "SOFT_LEFT",
    "SOFT_RIGHT",
    "HOME",
    "BACK",
    "CALL",
    "ENDCALL",
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "STAR",
    "POUND",
    "DPAD_UP",
    "DPAD_DOWN",
    "DPAD_LEFT",
    "DPAD_RIGHT",
    "DPAD_CENTER",
    "VOLUME_UP",
    "VOLUME_DOWN",
    "POWER",
    "CAMERA",
    "CLEAR",
    "A",
    "B",
    "C",
    "D",
    "E",
    "F",
    "G",
    "H",
    "I",
    "J",
    "K",
    "L",
    "M",
    "N",
    "O",
    "P",
    "Q",
    "R",
    "S",
    "T",
    "U",
    "V",
    "W",
    "X",
    "Y",
    "Z",
    "COMMA",
    "PERIOD",
    "ALT_LEFT",
    "ALT_RIGHT",
    "SHIFT_LEFT",
    "SHIFT_RIGHT",
    "TAB",
    "SPACE",
    "SYM",
    "EXPLORER",
    "ENVELOPE",
    "ENTER",
    "DEL",
    "GRAVE",
    "MINUS",
    "EQUALS",
    "LEFT_BRACKET",
    "RIGHT_BRACKET",
    "BACKSLASH",
    "SEMICOLON",
    "APOSTROPHE",
    "SLASH",
    "AT",
    "NUM",
    "HEADSETHOOK",
    "FOCUS",
    "PLUS",
    "MENU",
    "NOTIFICATION",
    "SEARCH",
    "MEDIA_PLAY_PAUSE",
    "MEDIA_STOP",
    "MEDIA_NEXT",
    "MEDIA_PREVIOUS",
    "MEDIA_REWIND",
    "MEDIA_FAST_FORWARD",
    "MUTE",
    "PAGE_UP",
    "PAGE_DOWN",
    "PICTSYMBOLS",
    "SWITCH_CHARSET",
];

/// The key codes agents and adb clients use past the dense run.
const SPARSE: &[(&str, u32)] = &[
    ("ESCAPE", 111),
    ("FORWARD_DEL", 112),
    ("CTRL_LEFT", 113),
    ("CTRL_RIGHT", 114),
    ("MOVE_HOME", 122),
    ("MOVE_END", 123),
    ("VOLUME_MUTE", 164),
    ("APP_SWITCH", 187),
    ("SLEEP", 223),
    ("WAKEUP", 224),
];

pub const HOME: u32 = 3;
pub const BACK: u32 = 4;
pub const ENTER: u32 = 66;
pub const DEL: u32 = 67;
pub const MENU: u32 = 82;
/// Overview (recent apps).
pub const APP_SWITCH: u32 = 187;
pub(crate) const MOVE_END: u32 = 123;
pub(crate) const MOVE_HOME: u32 = 122;
pub const FORWARD_DEL: u32 = 112;
pub(crate) const DPAD_LEFT: u32 = 21;
pub(crate) const DPAD_RIGHT: u32 = 22;
pub const TAB: u32 = 61;
pub const SPACE: u32 = 62;
pub(crate) const CTRL_LEFT: u32 = 113;
pub(crate) const CTRL_RIGHT: u32 = 114;
pub const A: u32 = 29;

/// The character a key types into a focused text field with no modifier
/// held (the virtual keyboard's character map: letters lower case), for the
/// keys `input keyevent` agents press to type: letters, digits, space and
/// the punctuation keys.
pub(crate) fn typed_char(code: u32) -> Option<char> {
    Some(match code {
        7..=16 => char::from(b'0' + (code - 7) as u8),
        29..=54 => char::from(b'a' + (code - 29) as u8),
        17 => '*',
        18 => '#',
        55 => ',',
        56 => '.',
        SPACE => ' ',
        68 => '`',
        69 => '-',
        70 => '=',
        71 => '[',
        72 => ']',
        73 => '\\',
        74 => ';',
        75 => '\'',
        76 => '/',
        77 => '@',
        81 => '+',
        _ => return None,
    })
}

/// The code `input keyevent` would send for `word`: a number, `KEYCODE_X` or
/// `X`. `None` for a name Android does not know.
pub fn parse(word: &str) -> Option<u32> {
    if let Ok(code) = word.parse::<u32>() {
        return Some(code);
    }
    let name = word.strip_prefix("KEYCODE_").unwrap_or(word);
    if let Some(code) = DENSE.iter().position(|n| *n == name) {
        return Some(code as u32);
    }
    SPARSE.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

/// `KEYCODE_…` for a code this table names.
pub fn name(code: u32) -> Option<String> {
    let bare = DENSE
        .get(code as usize)
        .copied()
        .or_else(|| SPARSE.iter().find(|(_, c)| *c == code).map(|(n, _)| *n))?;
    Some(format!("KEYCODE_{bare}"))
}

/// Every `KEYCODE_…` name this table knows, in code order.
pub fn names() -> impl Iterator<Item = String> {
    DENSE
        .iter()
        .copied()
        .chain(SPARSE.iter().map(|(n, _)| *n))
        .map(|n| format!("KEYCODE_{n}"))
}

/// The device action for pressing `code`: the three keys the phone boundary
/// names ([`Key`]) as themselves, any other code as [`DeviceAction::Keycode`].
pub fn action(code: u32) -> DeviceAction {
    match code {
        HOME => DeviceAction::Key { key: Key::Home },
        BACK => DeviceAction::Key { key: Key::Back },
        ENTER => DeviceAction::Key { key: Key::Enter },
        code => DeviceAction::Keycode { code },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_full_names_and_bare_names_all_parse() {
        for word in ["3", "KEYCODE_HOME", "HOME"] {
            assert_eq!(parse(word), Some(3), "{word}");
        }
        assert_eq!(parse("KEYCODE_DEL"), Some(67));
        assert_eq!(parse("KEYCODE_A"), Some(29));
        assert_eq!(parse("KEYCODE_9"), Some(16));
        assert_eq!(parse("KEYCODE_MOVE_END"), Some(123));
        assert_eq!(parse("KEYCODE_APP_SWITCH"), Some(187));
        assert_eq!(parse("KEYCODE_NOPE"), None);
        assert_eq!(
            parse("home"),
            None,
            "names are case-sensitive, as in KeyEvent"
        );
    }

    #[test]
    fn names_round_trip_and_the_three_named_keys_stay_keys() {
        for code in [0, 3, 4, 24, 29, 66, 67, 82, 95, 111, 123, 187, 224] {
            let name = name(code).unwrap();
            assert_eq!(parse(&name), Some(code), "{name}");
        }
        assert_eq!(name(96), None);
        assert_eq!(action(4), DeviceAction::Key { key: Key::Back });
        assert_eq!(action(67), DeviceAction::Keycode { code: 67 });
    }

    #[test]
    fn typing_keys_type_their_character() {
        let typed: String = [
            "KEYCODE_H",
            "KEYCODE_I",
            "KEYCODE_SPACE",
            "KEYCODE_7",
            "KEYCODE_AT",
        ]
        .iter()
        .map(|n| typed_char(parse(n).unwrap()).unwrap())
        .collect();
        assert_eq!(typed, "hi 7@");
        assert_eq!(typed_char(DEL), None);
        assert_eq!(typed_char(parse("KEYCODE_Z").unwrap()), Some('z'));
    }
}
