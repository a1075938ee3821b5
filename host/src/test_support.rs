//! The phone unit tests of core modules (agents, oracles) run on: the
//! simulator, reached here so those modules name only the `Phone` trait, as
//! the code they test does. Test builds only.

use droidscore_phone::apps::PhoneSetup;
use droidscore_phone::sim::SimPhone;
use droidscore_phone::Phone;

/// A simulated phone started from `setup`.
pub fn with_setup(setup: PhoneSetup) -> Box<dyn Phone> {
    Box::new(SimPhone::new(setup).expect("the test setup is one the simulator accepts"))
}
