//! `parse(render(a)) == a` for every vision format, on every action a
//! reference solution takes (and the verdicts): the answer the history
//! recalls reads back as the action that was performed. Points come back
//! exactly on a resized image at least the screen's size, within half a
//! cell of the format's grid on a relative one; a scroll comes back as a
//! scroll the same way (its length is the format's own).

use super::render::{render, said};
use super::{AgentFormat, Geometry, Session};
use crate::agent::Decision;
use crate::offline::step::{Act, Kind};
use droidscore_phone::{DeviceAction, Key};

const SCREEN: (i32, i32) = (1080, 2400);

fn decisions() -> Vec<Decision> {
    let act = Decision::Act;
    vec![
        act(DeviceAction::Tap { x: 540, y: 812 }),
        act(DeviceAction::Tap { x: 1079, y: 2399 }),
        act(DeviceAction::LongPress { x: 17, y: 333 }),
        act(DeviceAction::Text {
            text: "it's \"fine\"\\ ok".into(),
        }),
        act(DeviceAction::Key { key: Key::Back }),
        act(DeviceAction::Key { key: Key::Home }),
        act(DeviceAction::Key { key: Key::Enter }),
        act(DeviceAction::Swipe {
            x1: 540,
            y1: 1800,
            x2: 540,
            y2: 600,
            duration_ms: 300,
        }),
        act(DeviceAction::Swipe {
            x1: 540,
            y1: 600,
            x2: 540,
            y2: 1800,
            duration_ms: 300,
        }),
        act(DeviceAction::Launch {
            package: "com.android.settings".into(),
        }),
        Decision::Answer("42".into()),
        Decision::Complete,
        Decision::Infeasible("no".into()),
        Decision::Idle,
    ]
}

fn same(format: AgentFormat, want: &Act, got: &Act, space: Geometry) {
    assert_eq!(
        got.kind, want.kind,
        "{format}: {want:?} came back as {got:?}"
    );
    assert_eq!(got.text, want.text, "{format}");
    assert_eq!(got.direction, want.direction, "{format}");
    assert_eq!(got.app, want.app, "{format}");
    if want.kind == Kind::Scroll {
        return;
    }
    if let (Some(w), Some(g)) = (want.point, got.point) {
        // Half a model cell in screen pixels, rounded up.
        let cell = |s: i32, m: u32| (f64::from(s) / f64::from(m) / 2.0).ceil() as i32;
        let (cx, cy) = (cell(SCREEN.0, space.model.0), cell(SCREEN.1, space.model.1));
        assert!(
            (w.0 - g.0).abs() <= cx && (w.1 - g.1).abs() <= cy,
            "{format}: {w:?} came back as {g:?}"
        );
    }
}

#[test]
fn every_vision_format_reads_back_what_it_writes() {
    for format in AgentFormat::ALL.into_iter().filter(|f| f.is_vision()) {
        let session = Session::new(format).unwrap();
        let g = Geometry::new(format.space().unwrap(), SCREEN);
        let mut written = 0;
        for d in decisions() {
            let Some(text) = render(format, &d, g, Some("Wi-Fi")) else {
                continue;
            };
            written += 1;
            let parsed = session
                .parse(&text, SCREEN)
                .unwrap_or_else(|e| panic!("{format}: {text:?} does not parse: {e}"));
            let (want, got) = (
                Act::of(&d, false).unwrap(),
                Act::of(&parsed.decision, false).unwrap(),
            );
            same(format, &want, &got, g);
        }
        // Every format says all but at most two of them (AgentCPM-GUI has
        // neither open_app nor answer).
        assert!(written >= decisions().len() - 2, "{format}: {written}");
    }
}

#[test]
fn a_resized_space_at_least_the_screen_gives_points_back_exactly() {
    for format in [AgentFormat::UiTars, AgentFormat::QwenMobileUse] {
        let session = Session::new(format).unwrap();
        let g = Geometry::new(format.space().unwrap(), SCREEN);
        for (x, y) in [(0, 0), (1, 1), (539, 1201), (1079, 2399), (333, 777)] {
            let d = Decision::Act(DeviceAction::Tap { x, y });
            let text = render(format, &d, g, None).unwrap();
            assert_eq!(
                session.parse(&text, SCREEN).unwrap().tap,
                Some((x, y)),
                "{format}"
            );
        }
    }
}

#[test]
fn what_a_format_cannot_say_is_said_in_words_and_not_read_as_an_action() {
    let launch = Decision::Act(DeviceAction::Launch {
        package: "com.android.settings".into(),
    });
    let g = Geometry::new(AgentFormat::AgentCpmGui.space().unwrap(), SCREEN);
    assert_eq!(render(AgentFormat::AgentCpmGui, &launch, g, None), None);
    let text = said(AgentFormat::AgentCpmGui, &launch, None);
    assert_eq!(text, r#"{"thought":"Open Settings."}"#);
    let session = Session::new(AgentFormat::AgentCpmGui).unwrap();
    assert!(session.parse(&text, SCREEN).is_err());
}

#[test]
fn following_replaces_the_answer_in_the_history() {
    let mut session = Session::new(AgentFormat::UiTars).unwrap();
    let _ = session.messages("goal", SCREEN, b"png0");
    session.answered("Thought: x\nAction: press_home()");
    session.follow(
        &Decision::Act(DeviceAction::Key { key: Key::Back }),
        SCREEN,
        None,
    );
    assert_eq!(session.turns().len(), 1);
    assert_eq!(
        session.turns()[0].answer,
        "Thought: Go back.\nAction: press_back()"
    );
    assert_eq!(session.turns()[0].screenshot, b"png0");
    // A request that got no answer (the endpoint failed) gets its turn.
    let _ = session.messages("goal", SCREEN, b"png1");
    session.follow(&Decision::Complete, SCREEN, None);
    assert_eq!(session.turns().len(), 2);
    assert_eq!(session.turns()[1].screenshot, b"png1");
}
