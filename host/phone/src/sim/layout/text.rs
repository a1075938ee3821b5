//! How much room text takes, for the layout: the sp size of each text style
//! and an estimate of a line's width, so rows grow when text wraps under a
//! larger font scale or on a narrower screen. The estimate lives in
//! [`advance`] alone, so the renderer's real font metrics can replace it
//! without touching the layout.

use crate::sim::view::TextSize;
use crate::sim::Display;

/// A text style's size in sp, as Material 3 sets it on a phone: list and
/// toolbar titles and body text 16 sp, summaries and secondary text 14 sp.
fn sp(size: TextSize) -> f32 {
    match size {
        TextSize::Title | TextSize::Body => 16.0,
        TextSize::Small => 14.0,
    }
}

/// A text style's size in pixels on `display` (density × font scale).
pub(super) fn size_px(size: TextSize, display: &Display) -> f32 {
    display.sp(sp(size))
}

/// The estimated advance of one character at `size_px` pixels: a space
/// is a quarter em and anything else 0.48 em, Roboto Regular's advances
/// averaged over English letter frequencies (a 0.54, e 0.52, i 0.24,
/// m 0.86, t 0.32 em, …).
fn advance(ch: char, size_px: f32) -> f32 {
    if ch == ' ' {
        size_px * 0.25
    } else {
        size_px * 0.48
    }
}

/// The estimated width of `text` at `size_px`, in pixels.
fn width(text: &str, size_px: f32) -> f32 {
    text.chars().map(|ch| advance(ch, size_px)).sum()
}

/// How many lines `text` takes at `size_px` in a box `box_width` pixels
/// wide, breaking between words as a TextView does (a word longer than a
/// line takes the lines it fills). Never less than one.
pub(super) fn lines(text: &str, size_px: f32, box_width: i32) -> i32 {
    let room = box_width.max(1) as f32;
    let space = advance(' ', size_px);
    let mut lines = 1;
    let mut used = 0.0_f32;
    for word in text.split_whitespace() {
        let w = width(word, size_px);
        if used > 0.0 && used + space + w <= room {
            used += space + w;
            continue;
        }
        if used > 0.0 {
            lines += 1;
        }
        // The word starts a line; one wider than a line wraps inside itself.
        let extra = ((w / room).ceil() as i32 - 1).max(0);
        lines += extra;
        used = w - extra as f32 * room;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_title_wraps_under_a_larger_font_and_a_short_one_does_not() {
        let base = Display::default();
        let big = Display {
            font_scale_milli: 1300,
            ..base
        };
        let title = "Digital Wellbeing & parental controls";
        // The room a Settings row with an icon gives its title: 189..1017.
        assert_eq!(lines(title, size_px(TextSize::Title, &base), 828), 1);
        assert_eq!(lines(title, size_px(TextSize::Title, &big), 828), 2);
        assert_eq!(lines("Wi-Fi", size_px(TextSize::Title, &big), 828), 1);
        assert_eq!(lines("", size_px(TextSize::Title, &big), 828), 1);
    }

    #[test]
    fn a_word_wider_than_the_line_takes_the_lines_it_fills() {
        // 40 characters at 0.48 × 50 = 24 px in 300 px: 960 px, 4 lines.
        assert_eq!(lines(&"x".repeat(40), 50.0, 300), 4);
        // Each word 96 px, a space 12.5 px: two words need 204.5 px.
        assert_eq!(lines("aaaa bbbb", 50.0, 200), 2);
        assert_eq!(lines("aaaa bbbb", 50.0, 205), 1);
    }
}
