//! Byte helpers for what steps carry: gzip for UI dumps (uiautomator XML
//! compresses about tenfold) and sha256 hex for observation digests.

use std::io::{Read, Write};

use flate2::{read::GzDecoder, write::GzEncoder, Compression};
use sha2::{Digest, Sha256};

/// Gzip a UI dump for `StepRecord::ui_dump_gz`.
pub(crate) fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    // Writing into a Vec cannot fail.
    encoder
        .write_all(text.as_bytes())
        .expect("gzip into memory");
    encoder.finish().expect("gzip into memory")
}

/// Undo [`gzip`]. Fails on bytes that are not gzip or not UTF-8.
pub(crate) fn gunzip(bytes: &[u8]) -> std::io::Result<String> {
    let mut text = String::new();
    GzDecoder::new(bytes).read_to_string(&mut text)?;
    Ok(text)
}

/// Lowercase hex sha256, as in `StepRecord::observation_digest`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_round_trips_and_shrinks_a_ui_dump() {
        let dump = "<node text=\"Wi-Fi\" resource-id=\"android:id/title\"/>".repeat(200);
        let packed = gzip(&dump);
        assert!(packed.len() * 5 < dump.len(), "{} bytes", packed.len());
        assert_eq!(gunzip(&packed).unwrap(), dump);
    }

    #[test]
    fn gunzip_refuses_bytes_that_are_not_gzip() {
        assert!(gunzip(b"<hierarchy/>").is_err());
    }

    #[test]
    fn sha256_hex_matches_the_known_digest_of_abc() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
