//! Provenance stamped on every run: the revision droidscore was built from
//! (and whether tracked files had changed), the host and CPU, the endpoint
//! and model, and a hash of the task suite, so a number can always be
//! traced to what produced it. The facts themselves are read by
//! `droidscore_contract::provenance`, as the bench's are.

use droidscore_contract::provenance::Machine;

use crate::store::Provenance;

/// `COMMIT` or `COMMIT-dirty`: what `build.rs` found in the checkout the
/// binary was built from; `None` for a build outside one. Not the working
/// directory's: a run started in another repository must not take its
/// `HEAD`.
fn built_from() -> Option<String> {
    Some(env!("DROIDSCORE_GIT_REV"))
        .filter(|rev| !rev.is_empty())
        .map(str::to_string)
}

pub fn provenance(
    suite: &crate::task::Suite,
    endpoint: Option<String>,
    model: Option<String>,
) -> std::io::Result<Provenance> {
    let machine = Machine::this();
    Ok(Provenance {
        git_rev: built_from(),
        host: machine.hostname,
        cpu: machine.cpu_model,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        endpoint,
        model,
        suite_hash: suite.hash()?,
        droidscore_version: env!("CARGO_PKG_VERSION").to_string(),
        endpoint_health: None,
    })
}

#[cfg(test)]
mod tests {
    use droidscore_contract::provenance::Revision;

    #[test]
    fn a_run_records_the_revision_the_binary_was_built_from() {
        // The tests are built from this checkout, so build.rs found its HEAD;
        // the record is the same whatever directory the run starts in.
        let here = Revision::of_checkout(env!("CARGO_MANIFEST_DIR").as_ref())
            .expect("host/ is inside a git checkout");
        let built = Revision::parse(&super::built_from().expect("build.rs stamps a revision"));
        assert_eq!(built.commit, here.commit);
    }
}
