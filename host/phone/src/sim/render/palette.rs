//! The renderer's colours: the Material 3 colour roles of a light and a dark
//! scheme (the tonal palette Material's theme builder makes from a blue seed,
//! close to a Pixel's default wallpaper colours), and how a disabled view is
//! faded.

use super::canvas::Rgb;
use crate::sim::Theme;

/// One scheme's colour roles, named as Material 3 names them.
#[derive(Debug)]
pub(super) struct Palette {
    pub surface: Rgb,
    pub surface_container_high: Rgb,
    pub surface_container_highest: Rgb,
    pub on_surface: Rgb,
    pub on_surface_variant: Rgb,
    pub outline: Rgb,
    pub primary: Rgb,
    pub on_primary: Rgb,
    pub primary_container: Rgb,
    pub on_primary_container: Rgb,
    pub secondary_container: Rgb,
    pub on_secondary_container: Rgb,
    /// The launcher's wallpaper, top and bottom colours of a vertical gradient.
    pub wallpaper: (Rgb, Rgb),
    /// Contact avatars' backgrounds and letters, picked by the name's hash.
    pub avatars: [(Rgb, Rgb); 8],
}

pub(super) const LIGHT: Palette = Palette {
    surface: [0xf9, 0xf9, 0xff],
    surface_container_high: [0xe7, 0xe8, 0xee],
    surface_container_highest: [0xe2, 0xe2, 0xe9],
    on_surface: [0x19, 0x1c, 0x20],
    on_surface_variant: [0x44, 0x47, 0x4e],
    outline: [0x74, 0x77, 0x7f],
    primary: [0x41, 0x5f, 0x91],
    on_primary: [0xff, 0xff, 0xff],
    primary_container: [0xd6, 0xe3, 0xff],
    on_primary_container: [0x28, 0x47, 0x77],
    secondary_container: [0xda, 0xe2, 0xf9],
    on_secondary_container: [0x3e, 0x47, 0x59],
    wallpaper: ([0xd8, 0xe2, 0xfa], [0xf4, 0xe4, 0xf0]),
    avatars: [
        ([0xd6, 0xe3, 0xff], [0x28, 0x47, 0x77]),
        ([0xc4, 0xee, 0xd0], [0x1f, 0x50, 0x36]),
        ([0xff, 0xda, 0xd6], [0x73, 0x33, 0x2e]),
        ([0xfa, 0xd8, 0xfd], [0x5a, 0x3d, 0x60]),
        ([0xff, 0xdf, 0xa0], [0x5c, 0x43, 0x00]),
        ([0xb8, 0xea, 0xf3], [0x00, 0x4f, 0x58]),
        ([0xe0, 0xe0, 0xff], [0x3f, 0x41, 0x78]),
        ([0xff, 0xdb, 0xc8], [0x6d, 0x39, 0x1a]),
    ],
};

pub(super) const DARK: Palette = Palette {
    surface: [0x11, 0x13, 0x18],
    surface_container_high: [0x28, 0x2a, 0x2f],
    surface_container_highest: [0x33, 0x35, 0x3a],
    on_surface: [0xe2, 0xe2, 0xe9],
    on_surface_variant: [0xc4, 0xc6, 0xd0],
    outline: [0x8e, 0x90, 0x99],
    primary: [0xaa, 0xc7, 0xff],
    on_primary: [0x0a, 0x30, 0x5f],
    primary_container: [0x28, 0x47, 0x77],
    on_primary_container: [0xd6, 0xe3, 0xff],
    secondary_container: [0x3e, 0x47, 0x59],
    on_secondary_container: [0xda, 0xe2, 0xf9],
    wallpaper: ([0x16, 0x1d, 0x33], [0x2a, 0x1f, 0x30]),
    avatars: [
        ([0x28, 0x47, 0x77], [0xd6, 0xe3, 0xff]),
        ([0x1f, 0x50, 0x36], [0xc4, 0xee, 0xd0]),
        ([0x73, 0x33, 0x2e], [0xff, 0xda, 0xd6]),
        ([0x5a, 0x3d, 0x60], [0xfa, 0xd8, 0xfd]),
        ([0x5c, 0x43, 0x00], [0xff, 0xdf, 0xa0]),
        ([0x00, 0x4f, 0x58], [0xb8, 0xea, 0xf3]),
        ([0x3f, 0x41, 0x78], [0xe0, 0xe0, 0xff]),
        ([0x6d, 0x39, 0x1a], [0xff, 0xdb, 0xc8]),
    ],
};

impl Palette {
    pub fn of(theme: Theme) -> &'static Palette {
        match theme {
            Theme::Light => &LIGHT,
            Theme::Dark => &DARK,
        }
    }
}

/// Behind everything, where no view draws.
pub(super) const BACKDROP: Rgb = [0x00, 0x00, 0x00];

/// The scrim behind a dialog leaves this much (of 256) of the screen's light.
pub(super) const SCRIM_KEEP: u16 = 174;

/// Colours for one view: as given when enabled; disabled, mixed into the
/// surface as Material draws disabled content, at 38% opacity.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ink {
    pub enabled: bool,
    pub pal: &'static Palette,
}

impl Ink {
    pub fn of(&self, c: Rgb) -> Rgb {
        if self.enabled {
            return c;
        }
        let s = self.pal.surface;
        let mix = |i: usize| ((u32::from(c[i]) * 38 + u32::from(s[i]) * 62) / 100) as u8;
        [mix(0), mix(1), mix(2)]
    }
}
