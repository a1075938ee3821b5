//! The display a screen is laid out for and drawn on: its size in pixels, its
//! density and the user's font scale, as `wm size`, `wm density` and
//! `settings put system font_scale` set them on a phone, and the theme the
//! settings select. The default is a Pixel-class phone: 1080×2400 at 420 dpi,
//! font scale 1.0.

use super::state::State;

/// Android's baseline density: 1 dp is 1 px at 160 dpi.
const BASELINE_DPI: u32 = 160;

/// The display geometry and text size a frame is laid out and drawn with.
///
/// The font scale is kept in thousandths so that two equal displays compare
/// and hash equal and a frame's pixels never depend on float formatting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Display {
    /// Width in pixels.
    pub width: i32,
    /// Height in pixels.
    pub height: i32,
    /// Density in dots per inch (`wm density`).
    pub dpi: u32,
    /// Font scale in thousandths (`settings system font_scale` × 1000).
    pub font_scale_milli: u32,
}

impl Default for Display {
    fn default() -> Display {
        Display {
            width: 1080,
            height: 2400,
            dpi: 420,
            font_scale_milli: 1000,
        }
    }
}

impl Display {
    /// `dp` density-independent pixels in pixels on this display.
    pub fn dp(&self, dp: f32) -> f32 {
        dp * self.dpi as f32 / BASELINE_DPI as f32
    }

    /// `sp` scale-independent pixels (text) in pixels: density × font scale.
    pub fn sp(&self, sp: f32) -> f32 {
        self.dp(sp) * self.font_scale_milli as f32 / 1000.0
    }
}

/// Light or dark: what the renderer's colours are drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Theme {
    #[default]
    Light,
    Dark,
}

impl Theme {
    /// The theme the settings select: dark when `secure/ui_night_mode` is 2
    /// (`cmd uimode night yes` writes it), light otherwise — 0 (auto) and 3
    /// (custom schedule) are drawn light, as the simulated clock is daytime.
    pub fn of(state: &State) -> Theme {
        match state.get("secure/ui_night_mode") {
            Some("2") => Theme::Dark,
            _ => Theme::Light,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pixel_has_2_625_pixels_a_dp_and_sp_follows_the_font_scale() {
        let d = Display::default();
        assert_eq!(d.dp(24.0), 63.0);
        assert_eq!(d.sp(16.0), 42.0);
        let big = Display {
            font_scale_milli: 1300,
            ..d
        };
        assert!((big.sp(16.0) - 54.6).abs() < 1e-4);
        assert_eq!(big.dp(24.0), 63.0, "the font scale leaves dp alone");
    }
}
