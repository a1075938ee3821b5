//! The bearer token of a server deployed to a phone. Every app on a phone
//! can reach its loopback, so `device deploy` and `run --on-device` start
//! the server with a token it requires on every route (`droidscore-device
//! serve --token-file`): a fresh one per deployment, [`TOKEN_BYTES`] bytes
//! from the system's random source, pushed to [`REMOTE_TOKEN`] and made
//! readable by the shell user only (apps run as other users). The server's
//! command line names the file, never the token, and the host sends it as
//! `Authorization: Bearer`, as OpenAI clients send their key. A reused
//! deployment's token is read back from the phone; a restart during a run
//! keeps the token the agents hold.

use droidscore_phone::{DeployTarget, PhoneError};

use crate::agent::ApiKey;

/// The deployment's token on the phone, mode 600 (`serve --token-file`).
pub const REMOTE_TOKEN: &str = "/data/local/tmp/droidscore-device.token";

/// Random bytes in a token (written as twice as many hex digits).
pub const TOKEN_BYTES: usize = 32;

/// A fresh token: [`TOKEN_BYTES`] bytes from `/dev/urandom`, in hex.
pub(crate) fn new_token() -> std::io::Result<ApiKey> {
    use std::io::Read;
    let mut bytes = [0u8; TOKEN_BYTES];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(ApiKey::new(
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>(),
    ))
}

/// The token of the deployment on the phone, if it can be read.
pub(crate) fn token_on_phone(phone: &mut dyn DeployTarget) -> Result<Option<ApiKey>, PhoneError> {
    Ok(phone.read_file(REMOTE_TOKEN)?.and_then(|raw| {
        let text = String::from_utf8(raw).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| ApiKey::new(text))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_token_is_64_hex_digits_new_and_not_in_debug_output() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.expose().len(), 2 * TOKEN_BYTES);
        assert!(a.expose().bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(format!("{a:?}"), "ApiKey(…)");
    }
}
