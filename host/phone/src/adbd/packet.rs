//! The transport's unit (AOSP adb/protocol.txt): a 24-byte header of six
//! little-endian u32 — command, arg0, arg1, data_length, data_check (the byte
//! sum of the payload), magic (command ^ 0xffffffff) — then the payload.

use std::io::{self, Read};

pub(crate) const A_CNXN: u32 = 0x4e58_4e43;
pub(crate) const A_AUTH: u32 = 0x4854_5541;
pub(crate) const A_OPEN: u32 = 0x4e45_504f;
pub(crate) const A_OKAY: u32 = 0x5941_4b4f;
pub(crate) const A_CLSE: u32 = 0x4553_4c43;
pub(crate) const A_WRTE: u32 = 0x4554_5257;

/// The protocol version we answer CNXN with. Peers at this version may skip
/// the checksum (send 0); adbd since Android N does not check it, nor do we.
pub(crate) const VERSION: u32 = 0x0100_0001;
/// The largest payload we advertise in CNXN and send in one WRTE.
pub(crate) const MAX_DATA: usize = 256 * 1024;
/// The largest payload we accept: adb's own MAX_PAYLOAD. A peer that claims
/// more is malformed and loses the connection before we allocate.
pub(crate) const MAX_ACCEPTED: usize = 1024 * 1024;
/// What a peer means by maxdata 0: the pre-2016 limit, MAX_PAYLOAD_V1.
pub(crate) const MAX_DATA_V1: usize = 4 * 1024;

const HEADER_LEN: usize = 24;

/// One packet: a command, its two arguments and its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Packet {
    pub(crate) command: u32,
    pub(crate) arg0: u32,
    pub(crate) arg1: u32,
    pub(crate) data: Vec<u8>,
}

/// Why a packet could not be read; every one ends the connection.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PacketError {
    #[error("read failed: {0}")]
    Io(#[from] io::Error),
    #[error("bad magic {magic:#010x} for command {command:#010x}")]
    BadMagic { command: u32, magic: u32 },
    #[error("payload of {0} bytes is over the {MAX_ACCEPTED}-byte limit")]
    TooLong(u32),
}

impl Packet {
    pub(crate) fn new(command: u32, arg0: u32, arg1: u32, data: Vec<u8>) -> Packet {
        Packet {
            command,
            arg0,
            arg1,
            data,
        }
    }

    /// Read one packet. The checksum is not checked (see [`VERSION`]); the
    /// magic and the length are.
    pub(crate) fn read_from(reader: &mut impl Read) -> Result<Packet, PacketError> {
        let mut header = [0u8; HEADER_LEN];
        reader.read_exact(&mut header)?;
        let word = |i: usize| {
            u32::from_le_bytes([
                header[4 * i],
                header[4 * i + 1],
                header[4 * i + 2],
                header[4 * i + 3],
            ])
        };
        let (command, arg0, arg1, length, magic) = (word(0), word(1), word(2), word(3), word(5));
        if magic != command ^ 0xffff_ffff {
            return Err(PacketError::BadMagic { command, magic });
        }
        if length as usize > MAX_ACCEPTED {
            return Err(PacketError::TooLong(length));
        }
        let mut data = vec![0u8; length as usize];
        reader.read_exact(&mut data)?;
        Ok(Packet::new(command, arg0, arg1, data))
    }

    /// Header and payload in one buffer, so one write puts them on the wire
    /// together (with TCP_NODELAY two writes would be two segments).
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.data.len());
        for word in [
            self.command,
            self.arg0,
            self.arg1,
            self.data.len() as u32,
            checksum(&self.data),
            self.command ^ 0xffff_ffff,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&self.data);
        out
    }
}

/// protocol.txt's data_check: the sum of the payload's bytes.
pub(crate) fn checksum(data: &[u8]) -> u32 {
    data.iter()
        .fold(0u32, |sum, &b| sum.wrapping_add(u32::from(b)))
}

/// The command's four letters, for logs.
pub(crate) fn command_name(command: u32) -> String {
    let bytes = command.to_le_bytes();
    if bytes.iter().all(u8::is_ascii_uppercase) {
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        format!("{command:#010x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_words_spell_their_names() {
        for (command, name) in [
            (A_CNXN, "CNXN"),
            (A_AUTH, "AUTH"),
            (A_OPEN, "OPEN"),
            (A_OKAY, "OKAY"),
            (A_CLSE, "CLSE"),
            (A_WRTE, "WRTE"),
        ] {
            assert_eq!(command_name(command), name);
        }
        assert_eq!(command_name(7), "0x00000007");
    }

    #[test]
    fn header_is_six_little_endian_words() {
        let bytes = Packet::new(A_WRTE, 1, 2, vec![0xff, 0x01]).to_bytes();
        #[rustfmt::skip]
        let expected = [
            b'W', b'R', b'T', b'E',
            1, 0, 0, 0,
            2, 0, 0, 0,
            2, 0, 0, 0,
            0x00, 0x01, 0, 0, // 0xff + 0x01
            !b'W', !b'R', !b'T', !b'E',
            0xff, 0x01,
        ];
        assert_eq!(bytes, expected);
    }

    #[test]
    fn packets_read_back_what_was_written() {
        let packet = Packet::new(A_OPEN, 5, 0, b"shell:echo hi\0".to_vec());
        let bytes = packet.to_bytes();
        assert_eq!(Packet::read_from(&mut &bytes[..]).unwrap(), packet);
    }

    #[test]
    fn a_zero_checksum_is_accepted() {
        let mut bytes = Packet::new(A_WRTE, 1, 2, b"abc".to_vec()).to_bytes();
        bytes[16..20].fill(0);
        assert_eq!(Packet::read_from(&mut &bytes[..]).unwrap().data, b"abc");
    }

    #[test]
    fn bad_magic_is_refused() {
        let mut bytes = Packet::new(A_OKAY, 1, 2, vec![]).to_bytes();
        bytes[20] ^= 1;
        assert!(matches!(
            Packet::read_from(&mut &bytes[..]),
            Err(PacketError::BadMagic { .. })
        ));
    }

    #[test]
    fn a_length_over_the_limit_is_refused_before_allocating() {
        let mut bytes = Packet::new(A_WRTE, 1, 2, vec![]).to_bytes();
        bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            Packet::read_from(&mut &bytes[..]),
            Err(PacketError::TooLong(u32::MAX))
        ));
    }

    #[test]
    fn a_truncated_payload_is_an_io_error() {
        let bytes = Packet::new(A_WRTE, 1, 2, b"abcdef".to_vec()).to_bytes();
        assert!(matches!(
            Packet::read_from(&mut &bytes[..bytes.len() - 1]),
            Err(PacketError::Io(_))
        ));
    }
}
