//! Raw `exec-out screencap`: ~250 ms against ~2 s for `screencap -p`, which
//! encodes PNG on the phone (DESIGN.md). The output is a header of
//! little-endian u32s — width, height, pixel format and, on newer builds, a
//! colour-space word — then the pixels. The header's length is what is left
//! after the pixels: total − width·height·bytes-per-pixel, 12 or 16.

use image::{ImageFormat, RgbImage};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScreencapError {
    #[error("screencap output is {0} bytes, shorter than its 12-byte header")]
    Short(usize),
    #[error("screencap pixel format {0} is not RGBA_8888 (1), RGBX_8888 (2), RGB_888 (3) or RGB_565 (4)")]
    Format(u32),
    #[error("screencap says {width}×{height} in format {format}, but {len} bytes leave a {header}-byte header (12 or 16 expected)")]
    Size {
        width: u32,
        height: u32,
        format: u32,
        len: usize,
        header: i64,
    },
    #[error("png encoding failed: {0}")]
    Png(String),
}

/// A parsed raw screenshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawScreencap {
    pub width: u32,
    pub height: u32,
    /// 1 RGBA_8888, 2 RGBX_8888, 3 RGB_888, 4 RGB_565.
    pub format: u32,
    pub header_len: usize,
    pub image: RgbImage,
}

fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]])
}

impl RawScreencap {
    pub fn parse(bytes: &[u8]) -> Result<RawScreencap, ScreencapError> {
        if bytes.len() < 12 {
            return Err(ScreencapError::Short(bytes.len()));
        }
        let (width, height, format) = (word(bytes, 0), word(bytes, 4), word(bytes, 8));
        let bpp: u64 = match format {
            1 | 2 => 4,
            3 => 3,
            4 => 2,
            other => return Err(ScreencapError::Format(other)),
        };
        let pixels = u64::from(width) * u64::from(height) * bpp;
        let header = bytes.len() as i64 - pixels as i64;
        if header != 12 && header != 16 {
            return Err(ScreencapError::Size {
                width,
                height,
                format,
                len: bytes.len(),
                header,
            });
        }
        let data = &bytes[header as usize..];
        let mut image = RgbImage::new(width, height);
        for (i, px) in image.pixels_mut().enumerate() {
            *px = match bpp {
                4 | 3 => {
                    let at = i * bpp as usize;
                    image::Rgb([data[at], data[at + 1], data[at + 2]])
                }
                _ => {
                    let v = u16::from_le_bytes([data[i * 2], data[i * 2 + 1]]);
                    let (r, g, b) = ((v >> 11) & 0x1f, (v >> 5) & 0x3f, v & 0x1f);
                    // Widen 5/6-bit channels to 8 bits, repeating the high bits.
                    image::Rgb([
                        ((r << 3) | (r >> 2)) as u8,
                        ((g << 2) | (g >> 4)) as u8,
                        ((b << 3) | (b >> 2)) as u8,
                    ])
                }
            };
        }
        Ok(RawScreencap {
            width,
            height,
            format,
            header_len: header as usize,
            image,
        })
    }
}

/// Raw screencap bytes → PNG bytes, encoded on the host.
pub(crate) fn raw_to_png(bytes: &[u8]) -> Result<Vec<u8>, ScreencapError> {
    let shot = RawScreencap::parse(bytes)?;
    let mut png = std::io::Cursor::new(Vec::new());
    shot.image
        .write_to(&mut png, ImageFormat::Png)
        .map_err(|e| ScreencapError::Png(e.to_string()))?;
    Ok(png.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(width: u32, height: u32, format: u32, colour_space: bool, pixels: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for w in [width, height, format] {
            out.extend(w.to_le_bytes());
        }
        if colour_space {
            out.extend(1u32.to_le_bytes());
        }
        out.extend(pixels);
        out
    }

    #[test]
    fn both_header_forms_and_every_format_decode() {
        // 2×1: a red pixel and a blue one.
        let rgba = [255, 0, 0, 255, 0, 0, 255, 255];
        for colour_space in [false, true] {
            let shot = RawScreencap::parse(&raw(2, 1, 1, colour_space, &rgba)).unwrap();
            assert_eq!(shot.header_len, if colour_space { 16 } else { 12 });
            assert_eq!(shot.image.get_pixel(0, 0).0, [255, 0, 0]);
            assert_eq!(shot.image.get_pixel(1, 0).0, [0, 0, 255]);
        }
        let rgbx = RawScreencap::parse(&raw(2, 1, 2, true, &rgba)).unwrap();
        assert_eq!(rgbx.image.get_pixel(1, 0).0, [0, 0, 255]);
        let rgb = RawScreencap::parse(&raw(2, 1, 3, false, &[255, 0, 0, 0, 0, 255])).unwrap();
        assert_eq!(rgb.image.get_pixel(0, 0).0, [255, 0, 0]);
        // RGB_565 little-endian: 0xF800 red, 0x001F blue.
        let r565 = RawScreencap::parse(&raw(2, 1, 4, true, &[0x00, 0xF8, 0x1F, 0x00])).unwrap();
        assert_eq!(r565.image.get_pixel(0, 0).0, [255, 0, 0]);
        assert_eq!(r565.image.get_pixel(1, 0).0, [0, 0, 255]);
        let png = raw_to_png(&raw(2, 1, 1, false, &rgba)).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }

    #[test]
    fn malformed_output_is_an_error_that_says_what_is_wrong() {
        assert_eq!(RawScreencap::parse(&[0; 5]), Err(ScreencapError::Short(5)));
        assert_eq!(
            RawScreencap::parse(&raw(1, 1, 9, false, &[0; 4])),
            Err(ScreencapError::Format(9))
        );
        let truncated = RawScreencap::parse(&raw(2, 2, 1, false, &[0; 10])).unwrap_err();
        assert!(
            truncated.to_string().contains("2×2 in format 1"),
            "{truncated}"
        );
        // A device error printed instead of pixels is not mistaken for an image.
        assert!(RawScreencap::parse(b"/system/bin/sh: screencap: not found\n").is_err());
    }
}
