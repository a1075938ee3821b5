//! Each rule pinned on the cases where the rules disagree: one answer, one
//! reference step, and what every matcher says of it. The table is the one
//! docs/offline.md shows.

use super::rule::{Matcher, Verdict};
use super::{aitw, all, by_names};
use crate::offline::step::{Act, Kind, Reference};
use droidscore_phone::uiautomator::Bounds;

const SCREEN: (i32, i32) = (1080, 2400);

fn act(kind: Kind) -> Act {
    Act {
        kind,
        point: None,
        end: None,
        text: None,
        direction: None,
        app: None,
    }
}

fn tap_at(kind: Kind, x: i32, y: i32) -> Act {
    Act {
        point: Some((x, y)),
        ..act(kind)
    }
}

fn typed(text: &str) -> Act {
    Act {
        text: Some(text.into()),
        ..act(Kind::Type)
    }
}

fn scroll(direction: &str, from: (i32, i32), to: (i32, i32)) -> Act {
    Act {
        point: Some(from),
        end: Some(to),
        direction: Some(direction.into()),
        ..act(Kind::Scroll)
    }
}

fn open(package: &str) -> Act {
    Act {
        app: Some(package.into()),
        ..act(Kind::OpenApp)
    }
}

/// A row at y 700..900 across the screen, and another element's box
/// (300..2100) around it.
const ROW: Bounds = Bounds::new(0, 700, 1080, 900);
const LIST: Bounds = Bounds::new(0, 300, 1080, 2100);
/// A switch inside the row, at its right end.
const SWITCH: Bounds = Bounds::new(900, 750, 1060, 850);

fn reference(act: Act) -> Reference {
    let pointing = act.points();
    Reference {
        act,
        screen: SCREEN,
        target: pointing.then_some(ROW),
        matches: if pointing { vec![ROW] } else { Vec::new() },
        boxes: vec![LIST, ROW],
        // The row is clickable, and so is the switch at its right end.
        clickables: vec![ROW, SWITCH],
        solution_step: 0,
        search: false,
    }
}

/// One case: what it shows, the answer, the reference, and the verdicts
/// in [`all`]'s order: droidscore, aitw, androidcontrol, qwen-box, gui-odyssey.
pub(crate) struct Case {
    pub what: &'static str,
    pub answer: Act,
    pub reference: Reference,
    pub want: [bool; 5],
}

pub(crate) fn cases() -> Vec<Case> {
    let mut equivalent = reference(tap_at(Kind::Tap, 540, 800));
    // The selector names a second node far below (the same label twice).
    let other = Bounds::new(0, 1900, 1080, 2000);
    equivalent.matches.push(other);
    equivalent.clickables.push(other);
    vec![
        Case {
            what: "tap 150 px below the target row (outside it, 0.0625 of the screen away)",
            answer: tap_at(Kind::Tap, 540, 950),
            reference: reference(tap_at(Kind::Tap, 540, 800)),
            want: [false, true, true, false, true],
        },
        Case {
            what: "tap at the row's left end (inside it, 0.48 of the width away)",
            answer: tap_at(Kind::Tap, 20, 800),
            reference: reference(tap_at(Kind::Tap, 540, 800)),
            want: [true, true, false, true, true],
        },
        Case {
            what: "tap 0.46 away, both inside one other element's box",
            answer: tap_at(Kind::Tap, 540, 1900),
            reference: reference(tap_at(Kind::Tap, 540, 800)),
            want: [false, true, false, false, false],
        },
        Case {
            what: "tap the other node the selector names (1.2k px away)",
            answer: tap_at(Kind::Tap, 540, 1950),
            reference: equivalent,
            want: [true, true, false, false, false],
        },
        Case {
            what: "tap the switch inside the target row (inside the row, on another view)",
            answer: tap_at(Kind::Tap, 980, 800),
            reference: reference(tap_at(Kind::Tap, 540, 800)),
            want: [false, true, false, true, true],
        },
        Case {
            what: "long press where the reference taps",
            answer: tap_at(Kind::LongPress, 540, 800),
            reference: reference(tap_at(Kind::Tap, 540, 800)),
            want: [false, true, false, false, false],
        },
        Case {
            what: "type \"buy bread\" for \"buy milk\"",
            answer: typed("buy bread"),
            reference: reference(typed("buy milk")),
            want: [false, true, true, false, false],
        },
        Case {
            what: "type \"station road\" for \"Station\"",
            answer: typed("station road"),
            reference: reference(typed("Station")),
            want: [false, true, true, true, true],
        },
        Case {
            what: "type \"ok\" for \"OK.\"",
            answer: typed("ok"),
            reference: reference(typed("OK.")),
            want: [true, true, false, true, false],
        },
        Case {
            what: "scroll up where the reference scrolls down",
            answer: scroll("up", (540, 600), (540, 1800)),
            reference: reference(scroll("down", (540, 1800), (540, 600))),
            want: [false, true, false, false, false],
        },
        Case {
            what: "open Contacts where the reference opens Calendar",
            answer: open("com.google.android.contacts"),
            reference: reference(open("com.google.android.calendar")),
            want: [false, true, false, false, true],
        },
    ]
}

#[test]
fn the_rules_disagree_where_their_sources_say() {
    let matchers = all();
    let names: Vec<&str> = matchers.iter().map(|m| m.name()).collect();
    assert_eq!(
        names,
        [
            "droidscore@1",
            "aitw@1",
            "androidcontrol@1",
            "qwen-box@1",
            "gui-odyssey@1"
        ]
    );
    for case in cases() {
        let got: Vec<bool> = matchers
            .iter()
            .map(|m| m.judge(&case.answer, &case.reference).correct)
            .collect();
        assert_eq!(got, case.want, "{}", case.what);
        // Every case is a disagreement: some rule says yes, another no.
        assert!(got.contains(&true) && got.contains(&false), "{}", case.what);
    }
}

#[test]
fn the_same_action_matches_under_every_rule() {
    let refs = [
        reference(tap_at(Kind::Tap, 540, 800)),
        reference(typed("Hello")),
        reference(scroll("down", (540, 1800), (540, 600))),
        reference(open("com.android.settings")),
        reference(act(Kind::Back)),
        reference(act(Kind::Complete)),
    ];
    for m in all() {
        for r in &refs {
            let v = m.judge(&r.act, r);
            assert!(v.correct && v.type_match, "{} on {:?}", m.name(), r.act);
            assert_eq!(v.grounded.is_some(), r.act.points(), "{}", m.name());
        }
    }
}

#[test]
fn a_wrong_type_is_wrong_and_ungrounded_under_every_rule() {
    let r = reference(tap_at(Kind::Tap, 540, 800));
    for m in all() {
        for answer in [act(Kind::Back), act(Kind::Invalid), act(Kind::Complete)] {
            assert_eq!(m.judge(&answer, &r), Verdict::WRONG_TYPE, "{}", m.name());
        }
    }
}

#[test]
fn aitw_tells_a_tap_from_a_swipe_by_its_length() {
    let r = reference(tap_at(Kind::Tap, 540, 800));
    let swipe = scroll("down", (540, 1800), (540, 600));
    assert_eq!(aitw::Aitw.judge(&swipe, &r), Verdict::WRONG_TYPE);
}

#[test]
fn matchers_are_named_with_or_without_their_version() {
    let names =
        |s: &str| -> Vec<&'static str> { by_names(s).unwrap().iter().map(|m| m.name()).collect() };
    assert_eq!(names("aitw,gui-odyssey@1"), ["aitw@1", "gui-odyssey@1"]);
    assert_eq!(names("all").len(), 5);
    let err = by_names("aitw@2").unwrap_err();
    assert!(err.contains("unknown matcher \"aitw@2\""), "{err}");
}

/// The table docs/offline.md shows, as markdown.
pub(crate) fn table() -> String {
    let matchers = all();
    let mut out = String::from("| case | answer | reference |");
    for m in &matchers {
        out += &format!(" {} |", m.name());
    }
    out += "\n|---|---|---|";
    out += &"---|".repeat(matchers.len());
    out += "\n";
    for case in cases() {
        out += &format!(
            "| {} | {} | {} |",
            case.what,
            case.answer.describe(),
            case.reference.act.describe()
        );
        for m in &matchers {
            let v = m.judge(&case.answer, &case.reference);
            out += if v.correct { " yes |" } else { " no |" };
        }
        out += "\n";
    }
    out
}

#[test]
fn the_disagreement_table_is_the_one_in_the_docs() {
    let docs = include_str!("../../../../docs/offline.md");
    let table = table();
    assert!(
        docs.contains(&table),
        "docs/offline.md lacks the current disagreement table:\n{table}"
    );
}
