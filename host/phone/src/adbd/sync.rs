//! The `sync:` file service (AOSP adb/SYNC.TXT, file_sync_protocol.h,
//! daemon/file_sync_service.cpp): 8-byte requests `[4-letter id][u32 LE]`
//! then the path, all little-endian. It is a byte stream — a request may
//! straddle WRTE packets, or several share one — so [`SyncSession`] buffers
//! what arrives and answers each request once it is whole.
//!
//! As in adbd, a failure answers FAIL and ends the session; QUIT ends it
//! quietly. Either way the stream closes once the answers are flushed.
//!
//! Answers stop at a limit the connection gives (what it has room for):
//! requests past it stay in the inbox until fed again, so a peer that
//! sends many RECVs at once and reads nothing cannot make the session hold
//! many files' worth of answers.

use super::{Device, SyncFail};

const fn id(name: &[u8; 4]) -> u32 {
    u32::from_le_bytes(*name)
}

const ID_STAT: u32 = id(b"STAT");
const ID_STA2: u32 = id(b"STA2");
const ID_LST2: u32 = id(b"LST2");
const ID_LIST: u32 = id(b"LIST");
const ID_DENT: u32 = id(b"DENT");
const ID_SEND: u32 = id(b"SEND");
const ID_RECV: u32 = id(b"RECV");
const ID_DATA: u32 = id(b"DATA");
const ID_DONE: u32 = id(b"DONE");
const ID_OKAY: u32 = id(b"OKAY");
const ID_FAIL: u32 = id(b"FAIL");
const ID_QUIT: u32 = id(b"QUIT");

/// Longest path a request may carry (adbd's limit).
const MAX_PATH: usize = 1024;
/// Largest DATA chunk either way (SYNC_DATA_MAX).
pub(crate) const SYNC_DATA_MAX: usize = 64 * 1024;

/// One `sync:` stream's state.
#[derive(Debug, Default)]
pub(crate) struct SyncSession {
    inbox: Vec<u8>,
    sending: Option<Upload>,
    ended: bool,
}

/// A SEND in progress: where it goes and what has arrived so far.
#[derive(Debug)]
struct Upload {
    path: String,
    mode: u32,
    data: Vec<u8>,
}

/// Where a [`SyncSession::feed`] left off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fed {
    /// Every whole request is answered; a partial one waits for more bytes.
    Done,
    /// The answers reached the limit with requests still waiting: feed
    /// again (with no new bytes) once they have gone out.
    Paused,
    /// The session is over (QUIT, or a FAIL written): flush, then close.
    Ended,
}

/// What one whole request did.
enum Step {
    /// Consumed this many bytes; carry on.
    Continue(usize),
    /// The request is not all here yet.
    NeedMore,
    /// The session is over (QUIT, or a FAIL already written).
    End,
}

impl SyncSession {
    /// Take the bytes of one WRTE, append the answers to `out` while it is
    /// under `limit` bytes (one answer may cross it).
    pub(crate) fn feed(
        &mut self,
        bytes: &[u8],
        device: &dyn Device,
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Fed {
        if self.ended {
            return Fed::Ended;
        }
        self.inbox.extend_from_slice(bytes);
        let mut at = 0;
        let fed = loop {
            if out.len() >= limit && at < self.inbox.len() {
                break Fed::Paused;
            }
            let step = match self.sending.take() {
                Some(upload) => self.upload_step(upload, at, device, out),
                None => self.request_step(at, device, out),
            };
            match step {
                Step::Continue(used) => at += used,
                Step::NeedMore => break Fed::Done,
                Step::End => {
                    self.ended = true;
                    self.inbox = Vec::new();
                    return Fed::Ended;
                }
            }
        };
        self.inbox.drain(..at);
        fed
    }

    /// A request: `[id][path length]` then the path.
    fn request_step(&mut self, at: usize, device: &dyn Device, out: &mut Vec<u8>) -> Step {
        let Some((id, len)) = header(&self.inbox[at..]) else {
            return Step::NeedMore;
        };
        let len = len as usize;
        if len > MAX_PATH {
            return fail(out, "path too long");
        }
        let Some(path) = self.inbox.get(at + 8..at + 8 + len) else {
            return Step::NeedMore;
        };
        let Ok(path) = std::str::from_utf8(path) else {
            return fail(out, "path is not UTF-8");
        };
        tracing::debug!(request = %name(id), path, "sync");
        match id {
            ID_STAT => stat_v1(out, device.stat(path)),
            ID_STA2 | ID_LST2 => {
                let stat = device.stat(path).ok_or_else(|| device.stat_errno(path));
                stat_v2(out, id, stat)
            }
            // do_list: a DENT per entry (mode, size, mtime, name length,
            // then the name), then a DENT-shaped DONE of zeros.
            ID_LIST => {
                for entry in device.list(path) {
                    put(out, ID_DENT, entry.mode);
                    out.extend_from_slice(&entry.size.to_le_bytes());
                    out.extend_from_slice(&entry.mtime.to_le_bytes());
                    out.extend_from_slice(&(entry.name.len() as u32).to_le_bytes());
                    out.extend_from_slice(entry.name.as_bytes());
                }
                put(out, ID_DONE, 0);
                out.extend_from_slice(&[0; 12]);
            }
            ID_SEND => {
                let Some((path, mode)) = path.rsplit_once(',') else {
                    return fail(out, "missing , in ID_SEND_V1");
                };
                let Some(mode) = parse_mode(mode) else {
                    return fail(out, "bad mode");
                };
                self.sending = Some(Upload {
                    path: path.to_owned(),
                    mode,
                    data: Vec::new(),
                });
            }
            ID_RECV => match device.pull(path) {
                Ok(data) => {
                    for chunk in data.chunks(SYNC_DATA_MAX) {
                        put(out, ID_DATA, chunk.len() as u32);
                        out.extend_from_slice(chunk);
                    }
                    put(out, ID_DONE, 0);
                }
                Err(message) => return fail(out, &format!("open failed: {message}")),
            },
            ID_QUIT => return Step::End,
            other => return fail(out, &format!("unknown command {other:08x}")),
        }
        Step::Continue(8 + len)
    }

    /// Inside a SEND: DATA chunks, then DONE with the mtime.
    fn upload_step(
        &mut self,
        mut upload: Upload,
        at: usize,
        device: &dyn Device,
        out: &mut Vec<u8>,
    ) -> Step {
        let Some((id, value)) = header(&self.inbox[at..]) else {
            self.sending = Some(upload);
            return Step::NeedMore;
        };
        match id {
            ID_DATA => {
                let len = value as usize;
                if len > SYNC_DATA_MAX {
                    return fail(out, "oversize data message");
                }
                let Some(chunk) = self.inbox.get(at + 8..at + 8 + len) else {
                    self.sending = Some(upload);
                    return Step::NeedMore;
                };
                upload.data.extend_from_slice(chunk);
                self.sending = Some(upload);
                Step::Continue(8 + len)
            }
            // DONE's value is the file's mtime.
            ID_DONE => {
                tracing::debug!(path = upload.path, bytes = upload.data.len(), "sync push");
                match device.push(&upload.path, upload.mode, value, upload.data) {
                    Ok(()) => {
                        put(out, ID_OKAY, 0);
                        Step::Continue(8)
                    }
                    Err(SyncFail(message)) => fail(out, &message),
                }
            }
            _ => fail(out, "invalid data message"),
        }
    }
}

/// The `[id][u32]` at the front of `bytes`, if all eight bytes are there.
fn header(bytes: &[u8]) -> Option<(u32, u32)> {
    let word = |i: usize| Some(u32::from_le_bytes(bytes.get(i..i + 4)?.try_into().ok()?));
    Some((word(0)?, word(4)?))
}

fn put(out: &mut Vec<u8>, id: u32, value: u32) {
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&value.to_le_bytes());
}

fn fail(out: &mut Vec<u8>, message: &str) -> Step {
    tracing::debug!(message, "sync FAIL");
    put(out, ID_FAIL, message.len() as u32);
    out.extend_from_slice(message.as_bytes());
    Step::End
}

/// STAT (an lstat, despite the name): mode, size, mtime; all zero when absent.
fn stat_v1(out: &mut Vec<u8>, stat: Option<(u32, u32, u32)>) {
    let (mode, size, mtime) = stat.unwrap_or_default();
    put(out, ID_STAT, mode);
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&mtime.to_le_bytes());
}

/// STA2/LST2: the 72-byte stat_v2, answered under the id asked; or its
/// error (an errno, e.g. ENOENT) with zeros. No links here, so stat and
/// lstat agree.
fn stat_v2(out: &mut Vec<u8>, id: u32, stat: Result<(u32, u32, u32), u32>) {
    let (error, mode, nlink, size, mtime) = match stat {
        Ok((mode, size, mtime)) => (0, mode, 1u32, size, mtime),
        Err(errno) => (errno, 0, 0, 0, 0),
    };
    put(out, id, error);
    out.extend_from_slice(&0u64.to_le_bytes()); // dev
    out.extend_from_slice(&0u64.to_le_bytes()); // ino
    out.extend_from_slice(&mode.to_le_bytes());
    out.extend_from_slice(&nlink.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // uid
    out.extend_from_slice(&0u32.to_le_bytes()); // gid
    out.extend_from_slice(&u64::from(size).to_le_bytes());
    for _ in 0..3 {
        out.extend_from_slice(&i64::from(mtime).to_le_bytes()); // atime, mtime, ctime
    }
}

/// SEND's mode as adbd reads it (`strtoul(s, nullptr, 0)`): `0x` hex, a
/// leading `0` octal, else decimal. adb 29 sends decimal (`33188`).
fn parse_mode(text: &str) -> Option<u32> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16).ok()
    } else if text.len() > 1 && text.starts_with('0') {
        u32::from_str_radix(&text[1..], 8).ok()
    } else {
        text.parse().ok()
    }
}

/// The request's four letters, for logs.
fn name(id: u32) -> String {
    super::packet::command_name(id)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::adbd::FakeDevice;

    fn request(id: &[u8; 4], body: &[u8]) -> Vec<u8> {
        [&id[..], &(body.len() as u32).to_le_bytes(), body].concat()
    }

    fn run(session: &mut SyncSession, device: &FakeDevice, bytes: &[u8]) -> (bool, Vec<u8>) {
        let mut out = Vec::new();
        let open = session.feed(bytes, device, &mut out, usize::MAX) != Fed::Ended;
        (open, out)
    }

    #[test]
    fn a_push_split_byte_by_byte_lands_whole() {
        let device = FakeDevice::default();
        let bytes = [
            request(b"SEND", b"/sdcard/a.txt,33188"),
            request(b"DATA", b"hello "),
            request(b"DATA", b"world"),
            [&b"DONE"[..], &7u32.to_le_bytes()].concat(),
        ]
        .concat();
        let mut session = SyncSession::default();
        let mut out = Vec::new();
        for byte in &bytes {
            assert_eq!(
                session.feed(std::slice::from_ref(byte), &device, &mut out, usize::MAX),
                Fed::Done
            );
        }
        assert_eq!(out, b"OKAY\0\0\0\0");
        assert_eq!(
            device.file("/sdcard/a.txt"),
            Some((0o100644, b"hello world".to_vec()))
        );
    }

    #[test]
    fn stat_answers_in_the_form_asked() {
        let device = FakeDevice::default();
        device.put_file("/f", 0o100600, b"12345");
        let mut session = SyncSession::default();

        let (_, out) = run(&mut session, &device, &request(b"STAT", b"/f"));
        assert_eq!(out.len(), 16);
        assert_eq!(&out[..4], b"STAT");
        assert_eq!(header(&out[4..]), Some((0o100600, 5)));

        let (_, out) = run(&mut session, &device, &request(b"STAT", b"/missing"));
        assert_eq!(out, [&b"STAT"[..], &[0; 12]].concat());

        for id in [b"STA2", b"LST2"] {
            let (_, out) = run(&mut session, &device, &request(id, b"/f"));
            assert_eq!(out.len(), 72);
            assert_eq!(&out[..4], id);
            assert_eq!(header(&out[4..]), Some((0, 0))); // error, dev
            assert_eq!(header(&out[24..]), Some((0o100600, 1))); // mode, nlink
            assert_eq!(&out[40..48], &5u64.to_le_bytes());

            let (open, out) = run(&mut session, &device, &request(id, b"/missing"));
            assert!(open);
            assert_eq!(out.len(), 72);
            assert_eq!(header(&out[4..]), Some((2, 0))); // ENOENT
        }
    }

    #[test]
    fn recv_sends_chunks_then_done_or_fails() {
        let device = FakeDevice::default();
        let big: Vec<u8> = (0..SYNC_DATA_MAX + 10).map(|i| i as u8).collect();
        device.put_file("/big", 0o100644, &big);
        let mut session = SyncSession::default();
        let (open, out) = run(&mut session, &device, &request(b"RECV", b"/big"));
        assert!(open);
        assert_eq!(header(&out), Some((ID_DATA, SYNC_DATA_MAX as u32)));
        let second = 8 + SYNC_DATA_MAX;
        assert_eq!(header(&out[second..]), Some((ID_DATA, 10)));
        assert_eq!(&out[out.len() - 8..], b"DONE\0\0\0\0");

        let (open, out) = run(&mut session, &device, &request(b"RECV", b"/nope"));
        assert!(!open);
        let message = b"open failed: No such file or directory";
        assert_eq!(out, request(b"FAIL", message));
    }

    #[test]
    fn list_sends_a_dent_per_entry_then_done() {
        let device = FakeDevice::default();
        device.put_file("/sdcard/b.txt", 0o100600, b"12345");
        device.put_file("/sdcard/sub/c.txt", 0o100644, b"x");
        let mut session = SyncSession::default();
        let (open, out) = run(&mut session, &device, &request(b"LIST", b"/sdcard"));
        assert!(open);
        let mut at = 0;
        let mut names = Vec::new();
        while &out[at..at + 4] == b"DENT" {
            let word = |i: usize| u32::from_le_bytes(out[at + i..at + i + 4].try_into().unwrap());
            let len = word(16) as usize;
            let name = String::from_utf8(out[at + 20..at + 20 + len].to_vec()).unwrap();
            names.push((name, word(4), word(8)));
            at += 20 + len;
        }
        assert_eq!(
            names,
            [
                (".".to_owned(), 0o040771, 4096),
                ("..".to_owned(), 0o040771, 4096),
                ("b.txt".to_owned(), 0o100600, 5),
            ]
        );
        assert_eq!(&out[at..], [&b"DONE"[..], &[0; 16]].concat());

        let (_, out) = run(&mut session, &device, &request(b"LIST", b"/nowhere"));
        assert_eq!(out, [&b"DONE"[..], &[0; 16]].concat());
    }

    #[test]
    fn quit_ends_the_session_quietly() {
        let device = FakeDevice::default();
        let mut session = SyncSession::default();
        let (open, out) = run(&mut session, &device, &request(b"QUIT", b""));
        assert!(!open);
        assert!(out.is_empty());
        assert!(!run(&mut session, &device, &request(b"STAT", b"/")).0);
    }

    #[test]
    fn bad_requests_fail_and_end_the_session() {
        let device = FakeDevice::default();
        for (bytes, message) in [
            (request(b"SEND", b"/no-mode"), "missing , in ID_SEND_V1"),
            (request(b"SEND", b"/x,abc"), "bad mode"),
            (request(b"NOPE", b""), "unknown command 45504f4e"),
            (request(b"STAT", &[b'a'; MAX_PATH + 1]), "path too long"),
            (
                [request(b"SEND", b"/x,420"), request(b"STAT", b"/")].concat(),
                "invalid data message",
            ),
        ] {
            let mut session = SyncSession::default();
            let (open, out) = run(&mut session, &device, &bytes);
            assert!(!open, "{message}");
            assert_eq!(out, request(b"FAIL", message.as_bytes()));
        }
    }

    #[test]
    fn modes_read_as_strtoul_reads_them() {
        assert_eq!(parse_mode("33188"), Some(0o100644));
        assert_eq!(parse_mode("0644"), Some(0o644));
        assert_eq!(parse_mode("0x1a4"), Some(0o644));
        assert_eq!(parse_mode("0"), Some(0));
        assert_eq!(parse_mode(""), None);
    }

    proptest! {
        #[test]
        fn any_bytes_in_any_pieces_never_panic(
            pieces in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 0..8),
            prefix in prop::sample::select(vec![&b""[..], b"SEND", b"RECV", b"STAT", b"STA2", b"DATA"]),
        ) {
            let device = FakeDevice::default();
            let mut session = SyncSession::default();
            let mut out = Vec::new();
            session.feed(prefix, &device, &mut out, usize::MAX);
            for piece in &pieces {
                session.feed(piece, &device, &mut out, usize::MAX);
            }
        }
    }
}
