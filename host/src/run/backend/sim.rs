//! The simulator as a run's backend: every episode gets a fresh simulated
//! phone built from the instance's variant, initial state and episode seed, so no
//! episode sees another's state and every instance can run.

use droidscore_phone::apps::{PhoneSetup, SetupError};
use droidscore_phone::sim::SimPhone;
use droidscore_phone::{Condition, Phone, PhoneError};

use super::{Backend, Prepared};
use crate::task::Instance;

/// A fresh [`SimPhone`] per episode.
#[derive(Debug)]
pub struct SimBackend {
    phone: SimPhone,
    /// The condition each new phone is built in.
    condition: Condition,
}

impl SimBackend {
    /// A backend holding a phone in the simulator's default state until the
    /// first episode is prepared.
    pub fn new() -> Result<SimBackend, SetupError> {
        Ok(SimBackend {
            phone: SimPhone::new(PhoneSetup::default())?,
            condition: Condition::Base,
        })
    }
}

impl Backend for SimBackend {
    fn prepare(&mut self, instance: &Instance, episode_seed: u64) -> Result<Prepared, PhoneError> {
        self.phone = SimPhone::new(instance.setup_in(episode_seed, self.condition))
            .map_err(|e| PhoneError::Device(e.to_string()))?;
        Ok(Prepared::Ready)
    }

    fn phone(&mut self) -> &mut dyn Phone {
        &mut self.phone
    }

    fn set_condition(&mut self, condition: Condition) -> Result<(), PhoneError> {
        self.condition = condition;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use droidscore_phone::SettingKey;

    #[test]
    fn every_episode_starts_from_its_own_instance_not_from_the_last_episode() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
        let tasks = crate::task::load_dir(&dir).unwrap();
        let base = |id: &str| tasks.iter().find(|t| t.id == id).unwrap().variant("base");
        let (wifi_on, wifi_off) = (base("wifi_on").unwrap(), base("wifi_off").unwrap());
        let wifi: SettingKey = "global/wifi_on".parse().unwrap();
        let mut backend = SimBackend::new().unwrap();
        for (instance, starts) in [(wifi_on, "0"), (wifi_off, "1"), (wifi_on, "0")] {
            assert_eq!(backend.prepare(instance, 7).unwrap(), Prepared::Ready);
            let read = backend.phone().read_setting(&wifi).unwrap();
            assert_eq!(read.as_deref(), Some(starts), "{}", instance.task);
        }
    }

    /// A condition set on the backend builds the next phones in it.
    #[test]
    fn the_next_phones_are_built_in_the_condition_set() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tasks");
        let tasks = crate::task::load_dir(&dir).unwrap();
        let wifi_on = tasks.iter().find(|t| t.id == "wifi_on").unwrap();
        let font: SettingKey = "system/font_scale".parse().unwrap();
        let mut backend = SimBackend::new().unwrap();
        backend.set_condition(Condition::Font(1300)).unwrap();
        backend.prepare(&wifi_on.variants[0], 0).unwrap();
        let read = backend.phone().read_setting(&font).unwrap();
        assert_eq!(read.as_deref(), Some("1.3"));
        backend.set_condition(Condition::Base).unwrap();
        backend.prepare(&wifi_on.variants[0], 0).unwrap();
        let read = backend.phone().read_setting(&font).unwrap();
        assert_ne!(read.as_deref(), Some("1.3"));
    }
}
