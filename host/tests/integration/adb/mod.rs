//! Every test that needs the real `adb` binary (Debian's, installed by
//! scripts/test.sh; without it they fail saying so), each through a private
//! adb server of its own port and HOME: our adbd's wire against the real
//! client, `adb forward` included (`adbd`), the adb backend driving the
//! virtual phone (`backend`), the binary's `run --phone adb` and `adb
//! latency` (`cli`), and `device deploy|stop` and `run --on-device`
//! (`device_deploy`), each action type on both backends (`actions`), and
//! two PyPI adb clients, adbutils and adb-shell, each call their READMEs
//! show (`pyclients`), and the virtual phone as a userdebug emulator:
//! `adb root`, the apps' databases pulled, pushed and read back (`rooted`).
//! `rig` starts the server and the phone they share.

mod actions;
mod adbd;
mod agent_cmd;
mod backend;
mod cli;
mod device_deploy;
mod faults;
mod pyclients;
mod rig;
mod rooted;
