//! What every view is drawn against: the display's density and font scale,
//! which turn the Material 3 specs' dp and sp into pixels, and the theme's
//! colours.

use super::palette::Palette;
use super::text::{Face, Weight};
use crate::sim::Display;

/// What every view is drawn against: the display's density and the colours.
pub(super) struct Env<'a> {
    pub display: &'a Display,
    pub pal: &'static Palette,
}

impl Env<'_> {
    pub fn dp(&self, dp: f32) -> f32 {
        self.display.dp(dp)
    }

    /// `sp` in whole pixels.
    pub fn sp_px(&self, sp: f32) -> i64 {
        self.display.sp(sp).round() as i64
    }

    /// A text face `sp` scale-independent pixels high.
    pub fn face(&self, weight: Weight, sp: f32) -> Face {
        Face::new(weight, self.display.sp(sp))
    }
}
