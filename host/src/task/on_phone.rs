//! The task suite as the virtual phone's source of initial states: what
//! `droidscore-sim load TASK VARIANT EPISODE_SEED [INSTANCE_SEED]` and `sim serve
//! --task` put the phone in.

use droidscore_phone::apps::PhoneSetup;
use droidscore_phone::vphone::{LoadError, Setups};

use super::Task;

/// Every variant of these tasks, loadable by the virtual phone.
#[derive(Debug)]
pub struct SuiteSetups(pub Vec<Task>);

impl Setups for SuiteSetups {
    fn setup(
        &self,
        task: &str,
        variant: &str,
        instance_seed: u64,
        seed: u64,
    ) -> Result<PhoneSetup, LoadError> {
        let t = self
            .0
            .iter()
            .find(|t| t.id == task)
            .ok_or_else(|| LoadError::NoTask(task.to_string()))?;
        let drawn;
        let instances = if instance_seed == 0 {
            &t.variants
        } else {
            drawn = t
                .instances(instance_seed)
                .map_err(|e| LoadError::Instance(e.to_string()))?;
            &drawn
        };
        let instance = instances
            .iter()
            .find(|i| i.variant.id == variant)
            .ok_or_else(|| LoadError::NoVariant {
                task: task.to_string(),
                variant: variant.to_string(),
            })?;
        Ok(instance.setup(seed))
    }
}
