//! What a Settings row does on the simulator, resolved from its fields: a
//! navigation row, a switch, a slider with its scale, a radio, a button.

use super::cmd::Scale;
use crate::apps::RowDef;

/// What a row does, resolved from its fields.
#[derive(Debug, Clone, PartialEq)]
pub enum RowKind {
    Nav(Option<String>),
    Switch {
        key: String,
        on: String,
        off: String,
    },
    MainSwitch {
        key: String,
        on: String,
        off: String,
    },
    Slider {
        key: String,
        scale: Scale,
    },
    Radio {
        key: String,
        value: String,
    },
    ToggleButton {
        key: String,
        on: String,
        off: String,
        text_on: String,
        text_off: String,
    },
    Info,
}

/// What `row` does on the simulator.
pub fn kind(row: &RowDef) -> RowKind {
    let on = || row.on.clone().unwrap_or_else(|| "1".into());
    let off = || row.off.clone().unwrap_or_else(|| "0".into());
    if let Some(key) = &row.switch {
        RowKind::Switch {
            key: key.clone(),
            on: on(),
            off: off(),
        }
    } else if let Some(key) = &row.main_switch {
        RowKind::MainSwitch {
            key: key.clone(),
            on: on(),
            off: off(),
        }
    } else if let Some(key) = &row.slider {
        let scale = match row.curve.as_deref() {
            Some("android_brightness") => Scale::AndroidBrightness,
            _ => Scale::Linear {
                min: row.min.unwrap_or(0),
                max: row.max.unwrap_or(255),
            },
        };
        RowKind::Slider {
            key: key.clone(),
            scale,
        }
    } else if let Some(key) = &row.radio {
        RowKind::Radio {
            key: key.clone(),
            value: row.value.clone().unwrap_or_default(),
        }
    } else if let Some(key) = &row.toggle_button {
        RowKind::ToggleButton {
            key: key.clone(),
            on: on(),
            off: off(),
            text_on: row.text_on.clone().unwrap_or_else(|| "Turn off".into()),
            text_off: row.text_off.clone().unwrap_or_else(|| "Turn on".into()),
        }
    } else if row.info {
        RowKind::Info
    } else {
        RowKind::Nav(row.to.clone())
    }
}
