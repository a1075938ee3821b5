//! The simulator served as a virtual phone, for a program that drives a
//! phone itself (`run --agent-cmd`): one virtual phone per worker on a
//! loopback port of its own, behind a private adb server (the real `adb`
//! binary's, on its own port and HOME), so the program's own `adb` calls
//! reach it exactly as they reach a phone. Each episode installs a fresh
//! simulator built from the instance; the program's commands are recorded
//! on the phone's side (`vphone::trajectory`), and when it ends the
//! simulator's state is copied back and scored in-process, flip history
//! and all.

use std::sync::Arc;
use std::time::Duration;

use droidscore_phone::adb::{AdbServerError, PrivateAdbServer};
use droidscore_phone::adbd::{Server, ServerHandle};
use droidscore_phone::apps::PhoneSetup;
use droidscore_phone::sim::SimPhone;
use droidscore_phone::vphone::{LoadError, Loaded, Setups, VirtualPhone};
use droidscore_phone::{Condition, Phone, PhoneError};

use super::{Backend, Handoff, Prepared};
use crate::task::Instance;

/// The virtual phone loads only what the backend installs: its
/// `droidscore-sim load` knows no task.
#[derive(Debug)]
struct NoSetups;

impl Setups for NoSetups {
    fn setup(&self, task: &str, _: &str, _: u64, _: u64) -> Result<PhoneSetup, LoadError> {
        Err(LoadError::NoTask(task.into()))
    }
}

/// One worker's virtual phone, its server and its adb server.
pub struct VirtualBackend {
    phone: Arc<VirtualPhone>,
    serial: String,
    /// Dropped in this order: the adb server first (it holds a connection
    /// to the phone), then the phone's listener.
    adb: PrivateAdbServer,
    _server: ServerHandle,
    /// The state scored: a copy of the simulator, taken at prepare and
    /// again when the program has ended.
    local: SimPhone,
    condition: Condition,
}

impl std::fmt::Debug for VirtualBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VirtualBackend")
            .field("serial", &self.serial)
            .field("adb_server_port", &self.adb.port())
            .finish()
    }
}

impl VirtualBackend {
    /// Serve a virtual phone and connect a private adb server to it; the
    /// error says plainly when `adb` is not installed.
    pub fn start() -> Result<VirtualBackend, AdbServerError> {
        let phone = Arc::new(VirtualPhone::new(NoSetups).map_err(|e| {
            AdbServerError::Wait(std::io::Error::other(format!("virtual phone: {e}")))
        })?);
        let server = Server::bind("127.0.0.1:0").map_err(AdbServerError::Wait)?;
        let handle = server.spawn(phone.clone());
        let serial = handle.local_addr().to_string();
        let adb = PrivateAdbServer::start()?;
        adb.connect(&serial, Duration::from_secs(30))?;
        let local = SimPhone::new(PhoneSetup::default())
            .map_err(|e| AdbServerError::Wait(std::io::Error::other(e.to_string())))?;
        Ok(VirtualBackend {
            phone,
            serial,
            adb,
            _server: handle,
            local,
            condition: Condition::Base,
        })
    }
}

impl Backend for VirtualBackend {
    fn prepare(&mut self, instance: &Instance, episode_seed: u64) -> Result<Prepared, PhoneError> {
        // The last program may have killed the adb server (`adb
        // kill-server`) or disconnected the phone: `adb connect` starts the
        // server again on its port and reconnects; when all is well it
        // only lists the phone.
        self.adb
            .connect(&self.serial, Duration::from_secs(30))
            .map_err(|e| PhoneError::Device(format!("the virtual phone's adb server: {e}")))?;
        let sim = SimPhone::new(instance.setup_in(episode_seed, self.condition))
            .map_err(|e| PhoneError::Device(e.to_string()))?;
        self.local = sim.clone();
        let loaded = Loaded {
            task: instance.task.clone(),
            variant: instance.variant.id.clone(),
            episode_seed,
        };
        self.phone.install(sim, loaded);
        Ok(Prepared::Ready)
    }

    fn phone(&mut self) -> &mut dyn Phone {
        &mut self.local
    }

    fn set_condition(&mut self, condition: Condition) -> Result<(), PhoneError> {
        self.condition = condition;
        Ok(())
    }

    fn handoff(&mut self) -> Option<Handoff> {
        Some(Handoff {
            serial: self.serial.clone(),
            adb_server_port: Some(self.adb.port()),
            virtual_phone: Some(self.phone.clone()),
        })
    }

    fn take_back(&mut self) -> Result<(), PhoneError> {
        self.local = self.phone.with_sim(|sim| sim.clone());
        Ok(())
    }
}
