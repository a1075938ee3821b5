//! Deploy helpers for running our own programs on a phone (the on-device
//! model server): push a file, forward a port, start a program in the
//! background and stop it, all through the same transport as the phone, and
//! every argument quoted for the phone's `sh -c`.

use super::phone::AdbPhone;
use super::shell::quote;
use crate::phone::PhoneError;

/// A program started in the background on the phone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Background {
    pub pid: u32,
    /// Where its stdout and stderr go on the phone.
    pub log: String,
}

/// The shell line that starts `argv` detached, output to `log`, and prints its pid.
pub fn start_command(argv: &[&str], log: &str) -> String {
    let words: Vec<String> = argv.iter().map(|a| quote(a)).collect();
    format!(
        "nohup {} > {} 2>&1 < /dev/null & echo $!",
        words.join(" "),
        quote(log)
    )
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

    /// `adb forward LOCAL REMOTE` (`tcp:8080`, `tcp:8080`).
    pub fn forward(&mut self, local: &str, remote: &str) -> Result<(), PhoneError> {
        Ok(self.transport().forward(local, remote)?)
    }

    /// Start `argv` in the background, detached from the adb shell.
    pub fn start_background(&mut self, argv: &[&str], log: &str) -> Result<Background, PhoneError> {
        let out = self.shell_ok(&start_command(argv, log))?;
        let pid = out.trim().parse().map_err(|_| {
            PhoneError::Device(format!("starting {argv:?} printed no pid: {out:?}"))
        })?;
        Ok(Background {
            pid,
            log: log.to_string(),
        })
    }

    /// Whether the background program is still running (`kill -0`).
    pub fn is_running(&mut self, process: &Background) -> Result<bool, PhoneError> {
        Ok(self.shell(&format!("kill -0 {}", process.pid))?.status == 0)
    }

    /// Stop the background program (`kill`); stopping one already gone is fine.
    pub fn stop_background(&mut self, process: &Background) -> Result<(), PhoneError> {
        self.shell(&format!("kill {}", process.pid))?;
        Ok(())
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
        let dir = std::env::temp_dir().join(format!("droidscore-deploy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
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
            .current_dir(&dir)
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
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
