//! Each rule pinned on the cases where the rules disagree: one answer, one
//! reference step, and what every matcher says of it. The tables are the
//! ones docs/offline.md shows (this one, and `peers_tests`' quirks).

use super::rule::{Matcher, Verdict};
use super::{aitw, all, by_names, every_version, peers_tests};
use crate::offline::step::{Act, Kind, Reference};
use droidscore_phone::uiautomator::Bounds;

const SCREEN: (i32, i32) = (1080, 2400);

fn act(kind: Kind) -> Act {
    Act::kind(kind)
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
/// of the current versions in [`all`]'s order: droidscore, aitw,
/// androidcontrol, qwen-box, gui-odyssey.
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
            want: [false, true, false, true, true],
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
            "aitw@2",
            "androidcontrol@2",
            "qwen-box@1",
            "gui-odyssey@2"
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
    for m in every_version() {
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
    for m in every_version() {
        for answer in [act(Kind::Back), act(Kind::Invalid), act(Kind::Complete)] {
            assert_eq!(m.judge(&answer, &r), Verdict::WRONG_TYPE, "{}", m.name());
        }
    }
}

#[test]
fn aitw_tells_a_tap_from_a_swipe_by_its_length() {
    let r = reference(tap_at(Kind::Tap, 540, 800));
    let swipe = scroll("down", (540, 1800), (540, 600));
    assert_eq!(aitw::Aitw1.judge(&swipe, &r), Verdict::WRONG_TYPE);
    assert_eq!(aitw::Aitw2.judge(&swipe, &r), Verdict::WRONG_TYPE);
}

#[test]
fn matchers_are_named_with_or_without_their_version() {
    let names =
        |s: &str| -> Vec<&'static str> { by_names(s).unwrap().iter().map(|m| m.name()).collect() };
    // A bare name is the current version; an earlier one by its full name.
    assert_eq!(names("aitw,gui-odyssey@1"), ["aitw@2", "gui-odyssey@1"]);
    assert_eq!(
        names("androidcontrol@1, androidcontrol@2"),
        ["androidcontrol@1", "androidcontrol@2"]
    );
    assert_eq!(names("all").len(), 5);
    let err = by_names("aitw@9").unwrap_err();
    assert!(err.contains("unknown matcher \"aitw@9\""), "{err}");
    assert!(err.contains("aitw@1, androidcontrol@1"), "{err}");
}

/// Every version, each rule's versions side by side, in [`all`]'s order.
fn columns() -> Vec<Box<dyn Matcher>> {
    let mut matchers = every_version();
    let rule = |m: &dyn Matcher| m.name().split('@').next().map(str::to_owned);
    let order: Vec<_> = all().iter().map(|m| rule(m.as_ref())).collect();
    matchers.sort_by_key(|m| {
        let place = order.iter().position(|r| *r == rule(m.as_ref()));
        (place, m.name())
    });
    matchers
}

/// The table docs/offline.md shows, as markdown: every version's verdict.
pub(crate) fn table() -> String {
    let matchers = columns();
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

/// An act for the quirks table: a swipe with its points.
fn shown(act: &Act) -> String {
    match (act.kind, act.point, act.end) {
        (Kind::Scroll, Some((x1, y1)), Some((x2, y2))) => {
            format!("swipe ({x1}, {y1}) → ({x2}, {y2})")
        }
        _ => act.describe(),
    }
}

/// The peers' quirks as docs/offline.md shows them: each case, the
/// peer's verdict, and each version's.
pub(crate) fn quirks_table() -> String {
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut out = String::from("| peer | case | answer | reference | peer's code | @1 | @2 |\n");
    out += "|---|---|---|---|---|---|---|\n";
    for case in peers_tests::cases() {
        let verdict = |v: u8| {
            let m = super::by_name(&format!("{}@{v}", case.peer)).expect("a version");
            yes(m.judge(&case.answer, &case.reference).correct)
        };
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            case.peer,
            case.what,
            shown(&case.answer),
            shown(&case.reference.act),
            yes(case.verdict),
            verdict(1),
            verdict(2),
        );
    }
    out
}

#[test]
fn the_disagreement_tables_are_the_ones_in_the_docs() {
    let docs = include_str!("../../../../docs/offline.md");
    for table in [table(), quirks_table()] {
        assert!(
            docs.contains(&table),
            "docs/offline.md lacks the current table:\n{table}"
        );
    }
}
