//! The services an OPEN can name (AOSP adb/SERVICES.TXT) and, for the one-shot
//! ones, the bytes their stream carries:
//! - `shell:CMD`: stdout then stderr, raw (v1 has no channel for either the
//!   split or the exit status);
//! - `shell,v2,ARGS:CMD`: shell protocol packets `[u8 id][u32 LE len][data]`
//!   (adb/shell_protocol.h), 1 stdout, 2 stderr, 3 exit; ARGS (`TERM=…`,
//!   `raw`, `pty`) are ignored, there is no terminal;
//! - `exec:CMD`: stdout only, byte for byte;
//! - `sync:`: the file service, see `sync`;
//! - `tcp:PORT`: a TCP connection to PORT on the device, see `relay` (what
//!   `adb forward tcp:LOCAL tcp:PORT` opens for each connection to LOCAL).
//!
//! - `root:` and `unroot:`: what the device says (`Device::restart_adbd`,
//!   as AOSP packages/modules/adb daemon/restart_service.cpp words it);
//!   when adbd restarts, the connection ends once the answer is out.
//!
//! - `dev:PATH`: the file's bytes (adbd opens the path; a file it cannot
//!   open refuses the OPEN);
//! - `reverse:list-forward` and `reverse:killforward-all`: as adbd answers on
//!   the device (`handle_forward_request`, adb.cpp): the list as a hex-length
//!   string (`0000`: there are no reverse forwards), and `OKAY`; creating a
//!   reverse forward is answered `FAIL` with a hex-length message.
//!
//! Everything else is refused, as adbd refuses: CLSE in answer to the OPEN.

use super::{Device, ShellOutput};

/// Shell protocol packet ids (adb/shell_protocol.h).
const ID_STDOUT: u8 = 1;
const ID_STDERR: u8 = 2;
const ID_EXIT: u8 = 3;

/// Said to `adb shell` without a command: there is no terminal to give it.
const NO_INTERACTIVE: &[u8] =
    b"droidscore: no interactive shell on the virtual phone; run `adb shell COMMAND`\n";

/// A service named in an OPEN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Service {
    Shell {
        command: String,
        v2: bool,
    },
    Exec(String),
    Sync,
    Tcp(u16),
    /// `root:` (true) or `unroot:` (false).
    Root(bool),
    Dev(String),
    Reverse(String),
}

/// What the device side of a `reverse:` request answers.
fn reverse(request: &str) -> Vec<u8> {
    match request {
        "list-forward" => b"0000".to_vec(),
        "killforward-all" => b"OKAY".to_vec(),
        _ => {
            let message = "the virtual phone has no reverse forwards";
            format!("FAIL{:04x}{message}", message.len()).into_bytes()
        }
    }
}

impl Service {
    /// The service an OPEN payload names (NUL-terminated on the wire), or
    /// None to refuse it.
    pub(crate) fn parse(payload: &[u8]) -> Option<Service> {
        let end = payload
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(payload.len());
        let name = std::str::from_utf8(&payload[..end]).ok()?;
        let (head, command) = name.split_once(':')?;
        let mut args = head.split(',');
        match args.next()? {
            "shell" => Some(Service::Shell {
                command: command.to_owned(),
                v2: args.any(|arg| arg == "v2"),
            }),
            "exec" if !command.is_empty() => Some(Service::Exec(command.to_owned())),
            "sync" if head == "sync" => Some(Service::Sync),
            // `tcp:PORT:HOST` (another host, from the device) is not offered.
            "tcp" if head == "tcp" => command.parse().ok().map(Service::Tcp),
            "root" if head == "root" && command.is_empty() => Some(Service::Root(true)),
            "unroot" if head == "unroot" && command.is_empty() => Some(Service::Root(false)),
            "dev" if head == "dev" && !command.is_empty() => Some(Service::Dev(command.to_owned())),
            "reverse" if head == "reverse" => Some(Service::Reverse(command.to_owned())),
            _ => None,
        }
    }
}

/// The bytes a one-shot service's stream carries, and whether adbd restarts
/// once they are out (`root:`, `unroot:`); `max_packet` bounds the payload
/// of one shell protocol packet. None for `sync:` and `tcp:`, which are
/// conversations, not one answer.
pub(crate) fn run_one_shot(
    service: &Service,
    device: &dyn Device,
    max_packet: usize,
) -> Option<(Vec<u8>, bool)> {
    if let Service::Root(root) = service {
        let restart = device.restart_adbd(*root);
        return Some((restart.message.into_bytes(), restart.restarts));
    }
    let bytes = match service {
        Service::Shell { command, v2 } if command.is_empty() => {
            let refusal = ShellOutput {
                stdout: Vec::new(),
                stderr: NO_INTERACTIVE.to_vec(),
                exit: 1,
            };
            Some(encode_shell(&refusal, *v2, max_packet))
        }
        Service::Shell { command, v2 } => {
            Some(encode_shell(&device.shell(command), *v2, max_packet))
        }
        Service::Exec(command) => Some(device.shell(command).stdout),
        Service::Reverse(request) => Some(reverse(request)),
        // The connection refused the OPEN already when the file is absent.
        Service::Dev(path) => Some(device.pull(path).unwrap_or_default()),
        Service::Sync | Service::Tcp(_) | Service::Root(_) => None,
    };
    bytes.map(|b| (b, false))
}

fn encode_shell(output: &ShellOutput, v2: bool, max_packet: usize) -> Vec<u8> {
    if !v2 {
        return [&output.stdout[..], &output.stderr[..]].concat();
    }
    let mut out = Vec::with_capacity(output.stdout.len() + output.stderr.len() + 16);
    for (id, bytes) in [(ID_STDOUT, &output.stdout), (ID_STDERR, &output.stderr)] {
        for chunk in bytes.chunks(max_packet.max(1)) {
            push_packet(&mut out, id, chunk);
        }
    }
    push_packet(&mut out, ID_EXIT, &[output.exit]);
    out
}

fn push_packet(out: &mut Vec<u8>, id: u8, data: &[u8]) {
    out.push(id);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(command: &str, v2: bool) -> Option<Service> {
        Some(Service::Shell {
            command: command.to_owned(),
            v2,
        })
    }

    #[test]
    fn services_are_named_as_adb_29_names_them() {
        assert_eq!(Service::parse(b"shell:echo hi\0"), shell("echo hi", false));
        assert_eq!(
            Service::parse(b"shell,v2,TERM=xterm-256color,raw:echo a:b,c\0"),
            shell("echo a:b,c", true)
        );
        assert_eq!(Service::parse(b"shell,v2,pty:\0"), shell("", true));
        assert_eq!(
            Service::parse(b"exec:cat /x\0"),
            Some(Service::Exec("cat /x".into()))
        );
        assert_eq!(Service::parse(b"sync:\0"), Some(Service::Sync));
        assert_eq!(Service::parse(b"sync:"), Some(Service::Sync));
        assert_eq!(Service::parse(b"tcp:8077\0"), Some(Service::Tcp(8077)));
        assert_eq!(Service::parse(b"root:\0"), Some(Service::Root(true)));
        assert_eq!(Service::parse(b"unroot:\0"), Some(Service::Root(false)));
    }

    #[test]
    fn other_services_are_refused() {
        for name in [
            &b"reboot:\0"[..],
            b"tcpip:5555\0",
            b"framebuffer:\0",
            b"exec:\0",
            b"shell\0",
            b"\0",
            b"",
            b"shell:\xff\0",
            b"tcp:\0",
            b"tcp:99999\0",
            b"tcp:8077:example.com\0",
        ] {
            assert_eq!(
                Service::parse(name),
                None,
                "{:?}",
                String::from_utf8_lossy(name)
            );
        }
    }

    #[test]
    fn v2_packets_split_long_output_and_end_with_the_exit_status() {
        let output = ShellOutput {
            stdout: b"abcde".to_vec(),
            stderr: b"E".to_vec(),
            exit: 3,
        };
        assert_eq!(
            encode_shell(&output, true, 3),
            [
                &[1, 3, 0, 0, 0][..],
                b"abc",
                &[1, 2, 0, 0, 0],
                b"de",
                &[2, 1, 0, 0, 0],
                b"E",
                &[3, 1, 0, 0, 0, 3],
            ]
            .concat()
        );
        assert_eq!(encode_shell(&output, false, 3), b"abcdeE");
    }
}
