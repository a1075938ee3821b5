//! The renderer's colours: a Material 3 light theme with a blue accent, and how a
//! disabled view is greyed.

use super::canvas::Rgb;

/// Behind everything, where no view draws.
pub(super) const BACKDROP: Rgb = [0x00, 0x00, 0x00];
pub(super) const SURFACE: Rgb = [0xf6, 0xf8, 0xfc];
pub(super) const PANEL: Rgb = [0xff, 0xff, 0xff];
pub(super) const ON_SURFACE: Rgb = [0x1b, 0x1b, 0x1f];
pub(super) const ON_SURFACE_VARIANT: Rgb = [0x44, 0x47, 0x4e];
pub(super) const OUTLINE: Rgb = [0x74, 0x77, 0x7f];
pub(super) const DIVIDER: Rgb = [0xdc, 0xdf, 0xe6];
pub(super) const ACCENT: Rgb = [0x0b, 0x57, 0xd0];
pub(super) const ON_ACCENT: Rgb = [0xff, 0xff, 0xff];
pub(super) const ACCENT_CONTAINER: Rgb = [0xd3, 0xe3, 0xfd];
pub(super) const ON_ACCENT_CONTAINER: Rgb = [0x04, 0x1e, 0x49];
pub(super) const TRACK_OFF: Rgb = [0xe1, 0xe2, 0xec];
pub(super) const BAR: Rgb = [0x12, 0x12, 0x14];
pub(super) const ON_BAR: Rgb = [0xf2, 0xf2, 0xf4];

/// The scrim behind a dialog leaves this much (of 256) of the screen's light.
pub(super) const SCRIM_KEEP: u16 = 174;

/// Colours for one view: as given when enabled, washed out towards light grey
/// when disabled (Material draws disabled content at 38% opacity).
#[derive(Debug, Clone, Copy)]
pub(super) struct Ink {
    pub enabled: bool,
}

impl Ink {
    pub fn of(&self, c: Rgb) -> Rgb {
        if self.enabled {
            return c;
        }
        let grey = (u32::from(c[0]) * 30 + u32::from(c[1]) * 59 + u32::from(c[2]) * 11) / 100;
        let washed = (grey * 38 + 0xe8 * 62) / 100;
        let v = washed.min(255) as u8;
        [v, v, v]
    }
}
