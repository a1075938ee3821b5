//! Deploy helpers for running our own programs on a phone (the on-device
//! model server): push a file, forward a port, start a program in the
//! background and stop it, all through the same transport as the phone, and
//! every argument quoted for the phone's `sh -c`.

use super::phone::AdbPhone;
use super::shell::quote;
use crate::{DeployTarget, PhoneError};

/// A program started in the background on the phone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Background {
    pub pid: u32,
    /// Where its stdout and stderr go on the phone.
    pub log: String,
}

/// The shell line that starts `argv` detached, output to `log`, and prints its pid.
pub(crate) fn start_command(argv: &[&str], log: &str) -> String {
    let words: Vec<String> = argv.iter().map(|a| quote(a)).collect();
    format!(
        "nohup {} > {} 2>&1 < /dev/null & echo $!",
        words.join(" "),
        quote(log)
    )
}

/// [`start_command`] in the working directory `dir`. `cd` is its own
/// command before `;`, not `cd DIR && nohup … &`: `&` ends the whole and-or
/// list, which would run in a background subshell whose pid (`$!`) is not
/// the program's.
pub(crate) fn start_command_in(dir: &str, argv: &[&str], log: &str) -> String {
    format!("cd {}; {}", quote(dir), start_command(argv, log))
}

impl AdbPhone {
    /// `adb push`: write `data` to `remote`, then make it executable when asked.
    pub fn push(&mut self, data: &[u8], remote: &str, executable: bool) -> Result<(), PhoneError> {
        self.transport().push(data, remote)?;
        if executable {
            self.shell_ok(&format!("chmod 755 {}", quote(remote)))?;
        }
        Ok(())
    }

    /// `adb push` of a local file, streamed; then `chmod 755` when asked.
    pub fn push_file(
        &mut self,
        local: &std::path::Path,
        remote: &str,
        executable: bool,
    ) -> Result<(), PhoneError> {
        let file = std::fs::File::open(local)
            .map_err(|e| PhoneError::Device(format!("{}: {e}", local.display())))?;
        self.transport().push_from(Box::new(file), remote)?;
        if executable {
            self.shell_ok(&format!("chmod 755 {}", quote(remote)))?;
        }
        Ok(())
    }

    /// `sha256sum REMOTE` on the phone: the hex digest, or None when the
    /// file is not there (or the phone has no `sha256sum`).
    pub fn sha256(&mut self, remote: &str) -> Result<Option<String>, PhoneError> {
        let out = self.shell(&format!("sha256sum {}", quote(remote)))?;
        let text = out.stdout_text();
        Ok((out.status == 0)
            .then(|| text.split_whitespace().next().map(str::to_string))
            .flatten()
            .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())))
    }

    /// `cat REMOTE`, or None when it cannot be read.
    pub fn read_file(&mut self, remote: &str) -> Result<Option<Vec<u8>>, PhoneError> {
        let out = self.shell(&format!("cat {}", quote(remote)))?;
        Ok((out.status == 0).then_some(out.stdout))
    }

    /// The last `lines` lines of a file on the phone (`tail -n`), or why not.
    pub fn tail(&mut self, remote: &str, lines: usize) -> Result<String, PhoneError> {
        let out = self.shell(&format!("tail -n {lines} {}", quote(remote)))?;
        Ok(out.all_text())
    }

    /// A process's argv from `/proc/PID/cmdline`; None when it is not running.
    pub fn cmdline(&mut self, pid: u32) -> Result<Option<Vec<String>>, PhoneError> {
        let Some(raw) = self.read_file(&format!("/proc/{pid}/cmdline"))? else {
            return Ok(None);
        };
        let argv: Vec<String> = raw
            .split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        Ok((!argv.is_empty()).then_some(argv))
    }

    /// `adb forward LOCAL REMOTE` (`tcp:8080`, `tcp:8080`).
    pub fn forward(&mut self, local: &str, remote: &str) -> Result<(), PhoneError> {
        Ok(self.transport().forward(local, remote)?)
    }

    /// `adb forward --remove LOCAL`.
    pub fn remove_forward(&mut self, local: &str) -> Result<(), PhoneError> {
        Ok(self.transport().remove_forward(local)?)
    }

    /// This phone's forwards, (LOCAL, REMOTE), as `adb forward --list` lists them.
    pub fn forwards(&mut self) -> Result<Vec<(String, String)>, PhoneError> {
        Ok(self.transport().forwards()?)
    }

    /// Start `argv` in the background, detached from the adb shell, in the
    /// working directory `dir`.
    pub fn start_background_in(
        &mut self,
        dir: &str,
        argv: &[&str],
        log: &str,
    ) -> Result<Background, PhoneError> {
        self.start_background_line(&start_command_in(dir, argv, log), argv, log)
    }

    fn start_background_line(
        &mut self,
        line: &str,
        argv: &[&str],
        log: &str,
    ) -> Result<Background, PhoneError> {
        let out = self.shell_ok(line)?;
        let pid = out.trim().parse().map_err(|_| {
            PhoneError::Device(format!("starting {argv:?} printed no pid: {out:?}"))
        })?;
        Ok(Background {
            pid,
            log: log.to_string(),
        })
    }
}

/// The on-device server's deployment, over adb: each request is the
/// inherent method of the same name, or one quoted shell line.
impl DeployTarget for AdbPhone {
    fn serial(&self) -> &str {
        AdbPhone::serial(self)
    }

    fn is_virtual(&self) -> bool {
        AdbPhone::is_virtual(self)
    }

    fn getprop(&mut self, name: &str) -> Result<String, PhoneError> {
        self.shell_ok(&format!("getprop {name}"))
    }

    fn read_file(&mut self, remote: &str) -> Result<Option<Vec<u8>>, PhoneError> {
        AdbPhone::read_file(self, remote)
    }

    fn sha256(&mut self, remote: &str) -> Result<Option<String>, PhoneError> {
        AdbPhone::sha256(self, remote)
    }

    fn push(&mut self, data: &[u8], remote: &str, executable: bool) -> Result<(), PhoneError> {
        AdbPhone::push(self, data, remote, executable)
    }

    fn push_file(
        &mut self,
        local: &std::path::Path,
        remote: &str,
        executable: bool,
    ) -> Result<(), PhoneError> {
        AdbPhone::push_file(self, local, remote, executable)
    }

    fn make_executable(&mut self, remote: &str) -> Result<(), PhoneError> {
        self.shell_ok(&format!("chmod 755 {}", quote(remote)))
            .map(drop)
    }

    fn make_private(&mut self, remote: &str) -> Result<(), PhoneError> {
        self.shell_ok(&format!("chmod 600 {}", quote(remote)))
            .map(drop)
    }

    fn remove_file(&mut self, remote: &str) -> Result<(), PhoneError> {
        self.shell(&format!("rm -f {}", quote(remote))).map(drop)
    }

    fn tail(&mut self, remote: &str, lines: usize) -> Result<String, PhoneError> {
        AdbPhone::tail(self, remote, lines)
    }

    fn cmdline(&mut self, pid: u32) -> Result<Option<Vec<String>>, PhoneError> {
        AdbPhone::cmdline(self, pid)
    }

    fn kill(&mut self, pid: u32) -> Result<(), PhoneError> {
        self.shell_ok(&format!("kill {pid}")).map(drop)
    }

    fn start_background_in(
        &mut self,
        dir: &str,
        argv: &[&str],
        log: &str,
    ) -> Result<u32, PhoneError> {
        AdbPhone::start_background_in(self, dir, argv, log).map(|started| started.pid)
    }

    fn forward(&mut self, local: &str, remote: &str) -> Result<(), PhoneError> {
        AdbPhone::forward(self, local, remote)
    }

    fn remove_forward(&mut self, local: &str) -> Result<(), PhoneError> {
        AdbPhone::remove_forward(self, local)
    }

    fn forwards(&mut self) -> Result<Vec<(String, String)>, PhoneError> {
        AdbPhone::forwards(self)
    }

    fn unused_local_port(&self) -> u16 {
        super::free_port()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// The start line works in a real `sh`: the program runs detached with
    /// its arguments intact (hostile ones included), and the pid is printed.
    #[test]
    fn the_start_line_runs_the_program_in_a_real_sh_with_its_arguments_intact() {
        let env = droidscore_testenv::TestEnv::new("deploy-start");
        let dir = env.path();
        let log = dir.join("it's a log");
        let line = start_command(
            &[
                "sh",
                "-c",
                "printf '%s|' \"$@\"",
                "x",
                "a b",
                "'; touch pwned; '",
                "$(id)",
            ],
            log.to_str().unwrap(),
        );
        let out = Command::new("sh")
            .arg("-c")
            .arg(&line)
            .current_dir(dir)
            .output()
            .unwrap();
        let pid: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        assert!(pid > 0);
        // Wait for the detached program to finish writing.
        for _ in 0..100 {
            if std::fs::read_to_string(&log).is_ok_and(|l| l.ends_with('|')) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "a b|'; touch pwned; '|$(id)|"
        );
        assert!(!dir.join("pwned").exists());
    }

    /// `start_command_in` runs the program in the directory, and the pid it
    /// prints is the program's own (nohup execs it; no subshell between).
    #[test]
    fn the_start_line_in_a_directory_prints_the_programs_own_pid() {
        let env = droidscore_testenv::TestEnv::new("deploy-in");
        let dir = env.path();
        let line = start_command_in(
            dir.to_str().unwrap(),
            &["sh", "-c", "echo $$ > pid; pwd > cwd"],
            "log",
        );
        let out = Command::new("sh").arg("-c").arg(&line).output().unwrap();
        let printed: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        let mut own = None;
        for _ in 0..100 {
            own = std::fs::read_to_string(dir.join("pid"))
                .ok()
                .and_then(|p| p.trim().parse::<u32>().ok());
            if own.is_some()
                && std::fs::read_to_string(dir.join("cwd")).is_ok_and(|c| !c.is_empty())
            {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(own, Some(printed));
        assert_eq!(
            std::fs::read_to_string(dir.join("cwd")).unwrap().trim(),
            dir.to_str().unwrap()
        );
    }
}
