//! Device conditions: how a phone is set up beyond what a task asks for —
//! dark theme, a larger or smaller font, another screen size or density,
//! landscape. Each is applied to every task without editing it, the way a
//! person changes them on a phone (B-MoCA varies these and finds they move
//! agents' scores):
//!
//! | condition   | on a phone (adb shell)                         | restored by                 |
//! |-------------|------------------------------------------------|-----------------------------|
//! | `dark`      | `cmd uimode night yes`                         | `cmd uimode night no`       |
//! | `font0.85`, `font1.15`, `font1.3` | `settings put system font_scale 1.3` | `settings put system font_scale 1.0` |
//! | `small`     | `wm size 720x1600`, `wm density 320`           | `wm size reset`, `wm density reset` |
//! | `large`     | `wm size 1344x2992`, `wm density 480`          | `wm size reset`, `wm density reset` |
//! | `landscape` | `settings put system user_rotation 1` (with `accelerometer_rotation 0`) | `… user_rotation 0` |
//!
//! `base` is the phone as it comes. The simulator starts in the condition;
//! over adb the commands set it before the run and restore it after.

use std::fmt;
use std::str::FromStr;

use crate::sim::Display;

/// One device condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Condition {
    /// The phone as it comes: light theme, font scale 1.0, 1080×2400 at 420 dpi.
    #[default]
    Base,
    /// Dark theme (`secure/ui_night_mode` = 2).
    Dark,
    /// Font scale in thousandths (`system/font_scale`): 850, 1150 or 1300.
    Font(u32),
    /// A small phone: 720×1600 at 320 dpi.
    Small,
    /// A large phone: 1344×2992 at 480 dpi (Pixel 8 Pro class).
    Large,
    /// The default phone turned on its side: 2400×1080. Settings draws its
    /// header collapsed (as Android 14 does once the list moves), and a
    /// task's step budget grows by the scrolls its reference needs here
    /// (`droidscore`'s `check::budget_in`).
    Landscape,
}

/// The font scales a condition may name: Android's own steps around 1.0.
#[cfg(test)]
const FONT_SCALES: [u32; 3] = [850, 1150, 1300];

impl Condition {
    /// Every condition a run may name, in the order runs and reports list
    /// them: each proven by `tasks check` on every task.
    pub const ALL: [Condition; 8] = [
        Condition::Base,
        Condition::Dark,
        Condition::Font(850),
        Condition::Font(1150),
        Condition::Font(1300),
        Condition::Small,
        Condition::Large,
        Condition::Landscape,
    ];

    /// The settings this condition writes, as `namespace/key` and value.
    pub fn settings(self) -> Vec<(&'static str, String)> {
        match self {
            Condition::Dark => vec![("secure/ui_night_mode", "2".into())],
            Condition::Font(milli) => vec![("system/font_scale", scale_text(milli))],
            Condition::Landscape => vec![
                ("system/accelerometer_rotation", "0".into()),
                ("system/user_rotation", "1".into()),
            ],
            Condition::Base | Condition::Small | Condition::Large => vec![],
        }
    }

    /// The display this condition lays screens out on, from the phone's own.
    pub fn display(self, base: Display) -> Display {
        match self {
            Condition::Font(milli) => Display {
                font_scale_milli: milli,
                ..base
            },
            Condition::Small => Display {
                width: 720,
                height: 1600,
                dpi: 320,
                ..base
            },
            Condition::Large => Display {
                width: 1344,
                height: 2992,
                dpi: 480,
                ..base
            },
            Condition::Landscape => Display {
                width: base.height,
                height: base.width,
                ..base
            },
            Condition::Base | Condition::Dark => base,
        }
    }

    /// The adb shell commands that put a real phone in this condition.
    pub fn apply_commands(self) -> Vec<String> {
        match self {
            Condition::Base => vec![],
            Condition::Dark => vec!["cmd uimode night yes".into()],
            Condition::Font(milli) => {
                vec![format!(
                    "settings put system font_scale {}",
                    scale_text(milli)
                )]
            }
            Condition::Small => vec!["wm size 720x1600".into(), "wm density 320".into()],
            Condition::Large => vec!["wm size 1344x2992".into(), "wm density 480".into()],
            Condition::Landscape => vec![
                "settings put system accelerometer_rotation 0".into(),
                "settings put system user_rotation 1".into(),
            ],
        }
    }

    /// The adb shell commands that undo [`Condition::apply_commands`].
    pub fn restore_commands(self) -> Vec<String> {
        match self {
            Condition::Base => vec![],
            Condition::Dark => vec!["cmd uimode night no".into()],
            Condition::Font(_) => vec!["settings put system font_scale 1.0".into()],
            Condition::Small | Condition::Large => {
                vec!["wm size reset".into(), "wm density reset".into()]
            }
            Condition::Landscape => vec!["settings put system user_rotation 0".into()],
        }
    }
}

/// `1300` as `1.3`, `850` as `0.85`: how `settings` prints a font scale.
fn scale_text(milli: u32) -> String {
    let text = format!("{}.{:03}", milli / 1000, milli % 1000);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Base => f.write_str("base"),
            Condition::Dark => f.write_str("dark"),
            Condition::Font(milli) => write!(f, "font{}", scale_text(*milli)),
            Condition::Small => f.write_str("small"),
            Condition::Large => f.write_str("large"),
            Condition::Landscape => f.write_str("landscape"),
        }
    }
}

/// A condition name that is not one of [`Condition::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCondition {
    pub name: String,
    pub known: String,
}

impl fmt::Display for UnknownCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown condition {:?}: expected one of {}",
            self.name, self.known
        )
    }
}

impl std::error::Error for UnknownCondition {}

impl FromStr for Condition {
    type Err = UnknownCondition;

    fn from_str(name: &str) -> Result<Condition, UnknownCondition> {
        Condition::ALL
            .into_iter()
            .find(|c| c.to_string() == name)
            .ok_or_else(|| UnknownCondition {
                name: name.to_string(),
                known: Condition::ALL.map(|c| c.to_string()).join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_condition_reads_back_from_its_own_name() {
        for c in Condition::ALL {
            assert_eq!(c.to_string().parse::<Condition>(), Ok(c));
        }
        let names: Vec<String> = Condition::ALL.map(|c| c.to_string()).to_vec();
        assert_eq!(
            names,
            [
                "base",
                "dark",
                "font0.85",
                "font1.15",
                "font1.3",
                "small",
                "large",
                "landscape"
            ]
        );
    }

    #[test]
    fn an_unknown_name_is_refused_with_the_known_ones() {
        let err = "font2".parse::<Condition>().unwrap_err();
        assert_eq!(err.name, "font2");
        assert!(
            err.to_string()
                .ends_with("font1.3, small, large, landscape"),
            "{err}"
        );
        assert!(FONT_SCALES
            .iter()
            .all(|m| Condition::ALL.contains(&Condition::Font(*m))));
    }

    #[test]
    fn each_condition_is_undone_by_its_restore_commands() {
        for c in Condition::ALL {
            assert_eq!(
                c.apply_commands().is_empty(),
                c.restore_commands().is_empty(),
                "{c}"
            );
        }
        assert_eq!(
            Condition::Font(1300).settings(),
            [("system/font_scale", "1.3".to_string())]
        );
        assert_eq!(scale_text(850), "0.85");
        assert_eq!(scale_text(1000), "1");
    }

    #[test]
    fn display_conditions_change_the_geometry_and_only_it() {
        let base = Display::default();
        let land = Condition::Landscape.display(base);
        assert_eq!((land.width, land.height, land.dpi), (2400, 1080, 420));
        assert_eq!(Condition::Dark.display(base), base);
        assert_eq!(Condition::Font(1150).display(base).font_scale_milli, 1150);
        assert_eq!(Condition::Small.display(base).font_scale_milli, 1000);
    }
}
