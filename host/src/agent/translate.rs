//! A built-in agent's decision in AndroidWorld's action schema: what a
//! model would have had to answer to do the same. The reference solver taps
//! an element's centre (`click` by index), a point inside one (a slider's
//! end: `click` by `x`, `y`), types (`input_text` into the focused field),
//! scrolls a list (`scroll` with the list's index) and launches by package
//! (`open_app` with the launcher's label).
//!
//! Used to replay the suite's reference solutions as model answers: to dump
//! the prompts a model would see step by step (`droidscore agent prompts`),
//! and to check that every reference action is valid under its step's
//! schema (`schema`).

use super::action::{Action, Direction, Target};
use super::Decision;
use droidscore_phone::apps::APPS;
use droidscore_phone::uiautomator::Element;
use droidscore_phone::{keycode, DeviceAction, Key};

/// The element whose centre is the point, as the model would name it.
fn target(x: i32, y: i32, elements: &[Element]) -> Target {
    elements
        .iter()
        .find(|e| e.center == (x, y))
        .map_or(Target::Point { x, y }, |e| Target::Index(e.index))
}

/// The scroll a finger moving by `(dx, dy)` makes, in AndroidWorld's
/// sense: the finger moves against the direction that comes into view (up
/// shows what is below: `down`). The main axis decides.
pub(crate) fn scroll_direction(dx: i32, dy: i32) -> Direction {
    if dy.abs() >= dx.abs() {
        if dy < 0 {
            Direction::Down
        } else {
            Direction::Up
        }
    } else if dx < 0 {
        Direction::Right
    } else {
        Direction::Left
    }
}

/// `decision` as one AndroidWorld action, when it is one (`None` for a
/// privileged intent, several device actions, a key code Android does not
/// name, or a bare clear of a field, which AndroidWorld does only inside
/// `input_text`). A double tap, a drag (as MobileWorld's `drag`) and a key
/// code (`press_keyboard`) are their own actions.
pub(crate) fn as_action(decision: &Decision, elements: &[Element]) -> Option<Action> {
    Some(match decision {
        Decision::Act(action) => match action {
            DeviceAction::Tap { x, y } => Action::Click(target(*x, *y, elements)),
            DeviceAction::LongPress { x, y } => Action::LongPress(target(*x, *y, elements)),
            DeviceAction::Text { text } => Action::InputText {
                text: text.clone(),
                target: None,
                clear: false,
            },
            DeviceAction::DoubleTap { x, y } => Action::DoubleTap(target(*x, *y, elements)),
            DeviceAction::Drag { x1, y1, x2, y2, .. } => Action::Drag {
                start: (*x1, *y1),
                end: (*x2, *y2),
            },
            // Only a key Android names is a `press_keyboard` a model could send.
            DeviceAction::Keycode { code } => {
                keycode::name(*code)?;
                Action::PressKeyboard(*code)
            }
            // AndroidWorld clears a field only as part of `input_text`.
            DeviceAction::ClearText => return None,
            DeviceAction::Key { key } => match key {
                Key::Back => Action::NavigateBack,
                Key::Home => Action::NavigateHome,
                Key::Enter => Action::KeyboardEnter,
            },
            DeviceAction::Launch { package } => {
                let label = APPS.iter().find(|(_, p)| p == package)?.0;
                Action::OpenApp(label.to_owned())
            }
            DeviceAction::Swipe { x1, y1, x2, y2, .. } => {
                let direction = scroll_direction(x2 - x1, y2 - y1);
                let index = elements
                    .iter()
                    .rfind(|e| e.scrollable && e.bounds.contains(*x1, *y1))
                    .map(|e| e.index);
                Action::Scroll { direction, index }
            }
        },
        Decision::Complete | Decision::Finish(_) => Action::Status { complete: true },
        Decision::Infeasible(_) => Action::Status { complete: false },
        Decision::Refuse(_) => Action::Refuse,
        Decision::AskConsent(_) => Action::AskConsent,
        Decision::Idle => Action::Wait,
        Decision::Answer(text) => Action::Answer(text.clone()),
        Decision::ActAll(_) | Decision::Open(_) | Decision::Infra(_) | Decision::Fatal(_) => {
            return None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_device_actions_are_their_own_actions() {
        let act = |a: DeviceAction| as_action(&Decision::Act(a), &[]);
        assert_eq!(
            act(DeviceAction::DoubleTap { x: 5, y: 6 }),
            Some(Action::DoubleTap(Target::Point { x: 5, y: 6 }))
        );
        assert_eq!(
            act(DeviceAction::Drag {
                x1: 1,
                y1: 2,
                x2: 3,
                y2: 4,
                duration_ms: 1500
            }),
            Some(Action::Drag {
                start: (1, 2),
                end: (3, 4)
            })
        );
        assert_eq!(
            act(DeviceAction::Keycode { code: 67 }),
            Some(Action::PressKeyboard(67))
        );
        assert_eq!(act(DeviceAction::Keycode { code: 9999 }), None);
        assert_eq!(act(DeviceAction::ClearText), None);
        // And back: the action resolves to the device action it came from.
        let elements = [];
        let a = act(DeviceAction::Keycode { code: 123 }).unwrap();
        let r = super::super::action::resolve(&a, &elements, (1080, 2400)).unwrap();
        assert_eq!(
            r.decision,
            Decision::Act(DeviceAction::Keycode { code: 123 })
        );
    }
}
