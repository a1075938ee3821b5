//! Android's brightness slider curve. The slider moves in a perceptual
//! ("gamma") space and Settings converts its position to the linear
//! `system screen_brightness` value with a hybrid log-gamma curve: quadratic up
//! to the slider's midpoint, exponential above it. Half-way on the slider is
//! about 1/12 of the brightness range, not half of it.
//!
//! The curve and its constants are AOSP's
//! `frameworks/base/packages/SettingsLib/src/com/android/settingslib/display/BrightnessUtils.java`
//! (`convertGammaToLinear` / `convertLinearToGamma`; R = 0.5, A = 0.17883277,
//! B = 0.28466892, C = 0.55991073), written here over a slider fraction 0..=1
//! instead of its integer gamma space, which changes nothing but the scale.

const R: f64 = 0.5;
const A: f64 = 0.178_832_77;
const B: f64 = 0.284_668_92;
const C: f64 = 0.559_910_73;

/// The smallest `screen_brightness` the simulated Settings writes
/// (`config_screenBrightnessSettingMinimum`; devices differ, 1 is common).
pub const MIN: i64 = 1;
/// The largest `screen_brightness`.
pub const MAX: i64 = 255;

/// Slider position (0..=1) → `screen_brightness`.
pub(crate) fn slider_to_setting(fraction: f64) -> i64 {
    let f = fraction.clamp(0.0, 1.0);
    let ret = if f <= R {
        (f / R).powi(2)
    } else {
        ((f - C) / A).exp() + B
    };
    let value = MIN as f64 + (MAX - MIN) as f64 * (ret / 12.0).clamp(0.0, 1.0);
    value.round() as i64
}

/// `screen_brightness` → slider position (0..=1), the inverse of [`slider_to_setting`].
pub(crate) fn setting_to_slider(value: i64) -> f64 {
    let norm = (value.clamp(MIN, MAX) - MIN) as f64 / (MAX - MIN) as f64 * 12.0;
    let ret = if norm <= 1.0 {
        norm.sqrt() * R
    } else {
        A * (norm - B).ln() + C
    };
    ret.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_way_on_the_slider_is_a_twelfth_of_the_range() {
        assert_eq!(slider_to_setting(0.0), MIN);
        assert_eq!(slider_to_setting(0.5), 22, "1 + 254/12");
        assert_eq!(slider_to_setting(1.0), MAX);
    }

    #[test]
    fn the_two_directions_are_inverses_within_rounding() {
        for value in MIN..=MAX {
            let back = slider_to_setting(setting_to_slider(value));
            assert!((back - value).abs() <= 1, "{value} → {back}");
        }
    }

    #[test]
    fn the_curve_rises_monotonically() {
        let values: Vec<i64> = (0..=100)
            .map(|p| slider_to_setting(f64::from(p) / 100.0))
            .collect();
        assert!(values.windows(2).all(|w| w[0] <= w[1]), "{values:?}");
    }
}
