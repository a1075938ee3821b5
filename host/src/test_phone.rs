//! The phone unit tests of core modules (agents, oracles) run on: the
//! simulator, reached here so those modules name only the `Phone` trait, as
//! the code they test does. Test builds only.

use crate::apps::PhoneSetup;
use crate::phone::Phone;
use crate::sim::SimPhone;
use crate::task::Instance;

/// A simulated phone started from `setup`.
pub fn with_setup(setup: PhoneSetup) -> Box<dyn Phone> {
    Box::new(SimPhone::new(setup).expect("the test setup is one the simulator accepts"))
}

/// A simulated phone in `instance`'s initial state (seed 0).
pub fn for_instance(instance: &Instance) -> Box<dyn Phone> {
    with_setup(instance.setup(0))
}
