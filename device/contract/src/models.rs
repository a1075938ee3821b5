//! The model catalogue as both sides name it: the models
//! `droidscore-device fetch-model NAME` installs and `serve --model NAME`
//! loads, and the file each becomes in the cache. The device keeps how to
//! download and check each one (`droidscore-device`'s `model.rs`); the host
//! needs only the names, to refuse an unknown `--device-model` before it
//! starts or deploys anything, and the file names, to find a fetched model
//! in the cache and push it to a phone.

use std::path::PathBuf;

/// A model known by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Model {
    /// What `--model` and `--device-model` take: `smollm2-135m`.
    pub name: &'static str,
    /// One line for people: the model, its quantization, architecture and
    /// licence.
    pub about: &'static str,
    /// The GGUF file in the cache (`<cache>/models/<file_name>`).
    pub file_name: &'static str,
}

impl Model {
    /// Where this model is kept in the cache of [`crate::cache_dir`]'s form.
    pub fn path_in(&self, cache: &std::path::Path) -> PathBuf {
        cache.join("models").join(self.file_name)
    }
}

/// The model every command loads when given none, as
/// `droidscore-device serve --model` and `droidscore run --device-model`
/// take it.
pub const DEFAULT_MODEL: &str = SMOLLM2_135M.name;

/// The default model ([`DEFAULT_MODEL`]).
pub const SMOLLM2_135M: Model = Model {
    name: "smollm2-135m",
    about: "SmolLM2-135M-Instruct, Q4_1 GGUF (llama; Apache-2.0)",
    file_name: "SmolLM2-135M-Instruct.Q4_1.gguf",
};

pub const QWEN2_5_CODER_0_5B: Model = Model {
    name: "qwen2.5-coder-0.5b",
    about: "Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF (qwen2; model card: Apache-2.0)",
    file_name: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
};

/// Every model known by name, the default first.
pub const MODELS: &[Model] = &[SMOLLM2_135M, QWEN2_5_CODER_0_5B];

/// The model called `name`.
pub fn find(name: &str) -> Option<&'static Model> {
    MODELS.iter().find(|m| m.name == name)
}

/// The default model.
pub fn default_model() -> &'static Model {
    &MODELS[0]
}

/// The names, comma-separated, for messages.
pub fn names() -> String {
    MODELS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
}

/// Whether a `--model` argument that names no existing file should be read
/// as a mistyped name: a bare word, with no directory and no `.gguf`.
/// Both sides refuse such an argument with [`names`] rather than pass it on
/// as a path.
pub fn looks_like_a_name(arg: &str) -> bool {
    !arg.contains('/') && !arg.ends_with(".gguf")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_first_and_every_name_is_found() {
        assert_eq!(default_model().name, DEFAULT_MODEL);
        for m in MODELS {
            assert_eq!(find(m.name), Some(m));
            assert!(m.file_name.ends_with(".gguf"), "{}", m.file_name);
        }
        assert_eq!(find("smollm2"), None);
        assert_eq!(names(), "smollm2-135m, qwen2.5-coder-0.5b");
    }

    #[test]
    fn names_are_distinct_and_read_as_names() {
        let mut seen = std::collections::HashSet::new();
        for m in MODELS {
            assert!(seen.insert(m.name), "{} twice", m.name);
            assert!(looks_like_a_name(m.name), "{}", m.name);
        }
        assert!(!looks_like_a_name("models/x"));
        assert!(!looks_like_a_name("x.gguf"));
        assert_eq!(
            SMOLLM2_135M.path_in(std::path::Path::new("/c")),
            PathBuf::from("/c/models/SmolLM2-135M-Instruct.Q4_1.gguf")
        );
    }
}
