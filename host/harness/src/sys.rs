//! The harness's only direct calls into the kernel: page-cache residency of a
//! file (our own read-only `mmap(2)` of it, then `mincore(2)`), the page size,
//! `kill(2)` for process groups, and `waitid(2)` to see a child exit without
//! reaping it. Everything else reads `/proc`.
//!
//! The harness crate denies `unsafe_code` (every other crate of the
//! workspace forbids it); this module alone allows it, and each block says
//! why it is sound.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// The kernel's page size in bytes.
pub fn page_size() -> usize {
    // SAFETY: sysconf reads a constant; it has no pointer arguments.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size > 0 {
        size as usize
    } else {
        4096
    }
}

/// How many of a file's pages are in the page cache right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Residency {
    pub file_bytes: u64,
    pub pages: u64,
    pub resident_pages: u64,
    pub page_size: u64,
}

/// Maps `path` read-only and asks `mincore(2)` which of its pages are in the
/// page cache. Mapping does not read the file, so asking does not change
/// the answer. The pages counted are the page cache's, not any process's.
pub fn page_cache_residency(path: &Path) -> io::Result<Residency> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    let page = page_size();
    let page_size = page as u64;
    if len == 0 {
        return Ok(Residency {
            file_bytes: 0,
            pages: 0,
            resident_pages: 0,
            page_size,
        });
    }
    let len_usize = usize::try_from(len)
        .map_err(|_| io::Error::other("the file is larger than the address space"))?;
    let pages = len_usize.div_ceil(page);
    // SAFETY: a fresh shared read-only mapping of a file we hold open; the
    // kernel chooses the address (null hint), so no existing memory is
    // replaced. The mapping is never read through, only passed to mincore,
    // so a file truncated meanwhile cannot fault us.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len_usize,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let mut vec = vec![0u8; pages];
    // SAFETY: `addr` is page-aligned and maps `len_usize` bytes (just
    // returned by mmap); `vec` holds one byte per page of that length, as
    // mincore(2) requires.
    let rc = unsafe { libc::mincore(addr, len_usize, vec.as_mut_ptr()) };
    let err = io::Error::last_os_error();
    // SAFETY: unmapping exactly the mapping created above, used nowhere else.
    unsafe { libc::munmap(addr, len_usize) };
    if rc != 0 {
        return Err(err);
    }
    Ok(Residency {
        file_bytes: len,
        pages: pages as u64,
        resident_pages: vec.iter().filter(|b| *b & 1 == 1).count() as u64,
        page_size,
    })
}

/// Sends SIGKILL to every process in process group `pgid` (a child started
/// with `process_group(0)` leads its own group). Errors are ignored: a group
/// already gone is what we want.
pub fn kill_process_group(pgid: u32) {
    if let Ok(pgid) = libc::pid_t::try_from(pgid) {
        if pgid > 1 {
            // SAFETY: kill(2) takes plain integers; a negative pid names a
            // process group. pgid > 1 keeps us from signalling every process.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
    }
}

/// Blocks until child `pid` has exited, leaving it unreaped (a zombie,
/// `waitid(WEXITED | WNOWAIT)`): while it is, neither its pid nor its
/// process-group id can be reused, so its group can still be killed
/// without hitting a stranger. Reap it afterwards with `Child::wait`.
pub fn wait_exited_unreaped(pid: u32) -> io::Result<()> {
    loop {
        // SAFETY: siginfo_t is plain data for which all-zero is valid.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid(2) writes only into `info`, a live local we own.
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                libc::id_t::from(pid),
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Sends SIGKILL to one process; errors (already gone) are ignored.
pub fn kill_pid(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        if pid > 1 {
            // SAFETY: kill(2) takes plain integers; pid > 1 names one process.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_just_written_and_read_is_resident() {
        let path = std::env::temp_dir().join(format!("droidscore-mincore-{}", std::process::id()));
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let _ = std::fs::read(&path).unwrap();
        let r = page_cache_residency(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(r.file_bytes, 1 << 20);
        assert_eq!(r.pages, (1u64 << 20).div_ceil(r.page_size));
        assert_eq!(r.resident_pages, r.pages, "{r:?}");
    }

    #[test]
    fn an_empty_file_has_no_pages() {
        let path = std::env::temp_dir().join(format!("droidscore-empty-{}", std::process::id()));
        std::fs::write(&path, b"").unwrap();
        let r = page_cache_residency(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!((r.pages, r.resident_pages), (0, 0));
    }
}
