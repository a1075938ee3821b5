//! Who the phone's shell runs as, and what that user may touch. The
//! virtual phone is a userdebug emulator's (AndroidWorld's image, where
//! `adb root` works): adbd starts as `shell` and `adb root` restarts it as
//! `root`, with the texts AOSP adbd prints (packages/modules/adb
//! daemon/restart_service.cpp: `restart_root_service`,
//! `restart_unroot_service`). Every shell and sync request after that runs
//! as the user adbd runs as.
//!
//! `whoami` and `id` are toybox's (toys/posix/id.c: `whoami` is `id -un`;
//! `id` prints `uid=N(name) gid=N(name) groups=…` and, with SELinux, the
//! `context=`). As `shell` the groups are those adbd keeps when it drops
//! root (daemon/main.cpp, `drop_privileges`), numbered as
//! system/core/libcutils/include/private/android_filesystem_config.h
//! numbers them; its domain is `u:r:shell:s0`, root adbd's `u:r:su:s0`
//! (apex/adbd.rc `--root_seclabel=u:r:su:s0`).
//!
//! The apps' private data (`/data/data/<package>/…`) is closed to `shell`:
//! `/data/data` itself can be looked up but not listed, and nothing below
//! it can be reached (the app's own directory is `drwx------` under its
//! uid, and SELinux keeps the shell domain out of app data), so a command
//! fails with `Permission denied` (EACCES) as on the emulator. As root all
//! of it is open.

use super::state::Inner;
use crate::adbd::ShellOutput;

/// Where the apps keep their private data.
pub(super) const APP_DATA: &str = "/data/data";

/// `id` as root adbd's shell prints it.
const ID_ROOT: &str = "uid=0(root) gid=0(root) groups=0(root) context=u:r:su:s0\n";
/// `id` as the `shell` user (adbd's groups after it drops root).
const ID_SHELL: &str = "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0\n";

/// `whoami`: `root` or `shell`.
pub(super) fn whoami(inner: &Inner) -> ShellOutput {
    ShellOutput::ok(if inner.root { "root\n" } else { "shell\n" })
}

/// `id` (no options): the user, group, groups and SELinux context.
pub(super) fn id(inner: &Inner, args: &[&str]) -> ShellOutput {
    match args {
        [] => ShellOutput::ok(if inner.root { ID_ROOT } else { ID_SHELL }),
        ["-u"] => ShellOutput::ok(if inner.root { "0\n" } else { "2000\n" }),
        ["-un"] | ["-nu"] | ["-u", "-n"] | ["-n", "-u"] => whoami(inner),
        _ => ShellOutput::fail(1, "usage: id [-u [-n]]"),
    }
}

/// Whether the shell's user may not reach `path` at all: as `shell`,
/// anything below `/data/data`.
pub(super) fn denied(inner: &Inner, path: &str) -> bool {
    !inner.root && below_app_data(path)
}

/// Whether the shell's user may not list directory `path`: as `shell`,
/// `/data/data` and anything below it.
pub(super) fn unlistable(inner: &Inner, path: &str) -> bool {
    !inner.root && (path.trim_end_matches('/') == APP_DATA || below_app_data(path))
}

fn below_app_data(path: &str) -> bool {
    path.strip_prefix(APP_DATA)
        .is_some_and(|rest| rest.starts_with('/') && !rest.trim_matches('/').is_empty())
}

/// `CMD: PATH: Permission denied` (toybox's `perror_msg` of EACCES), status 1.
pub(super) fn permission_denied(command: &str, path: &str) -> ShellOutput {
    ShellOutput::fail(1, format_args!("{command}: {path}: Permission denied"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_is_below_data_data_is_closed_to_the_shell() {
        assert!(below_app_data("/data/data/com.arduia.expense"));
        assert!(below_app_data("/data/data/com.arduia.expense/databases/x"));
        assert!(!below_app_data("/data/data"));
        assert!(!below_app_data("/data/data/"));
        assert!(!below_app_data("/data/database"));
        assert!(!below_app_data("/data/local/tmp/x"));
    }
}
