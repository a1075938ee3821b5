//! Re-quantizing a GGUF file with the quantized types mistral.rs runs on
//! (candle's `QTensor`), and the packed layout of any GGUF file as it is on
//! disk.
//!
//! - **Which tensors move.** Every matrix of the body goes to the chosen
//!   type. One-dimensional tensors (norms) stay as they are. The output head
//!   — `output.weight`, or `token_embd.weight` when the embeddings are tied
//!   and there is no `output.weight` — follows `--keep-output`: its source
//!   type (`same`), `q8_0`, `f16`, or the body's type (`no`: the trap that
//!   docs/cpu-4bit.md measures).
//! - **Fallbacks.** A type whose block does not divide a row cannot hold it:
//!   Q4K's 256-wide blocks fit none of SmolLM2's 576-wide rows. Such a
//!   tensor falls back to Q4_0 (32-wide), then Q8_0, then F16, and the
//!   report names every fallback. llama.cpp falls back from Q4_K to Q5_0;
//!   candle has no AVX2 kernel for Q5_0, so Q4_0 is the faster choice here.
//! - **No double rounding where none is needed.** A tensor already of its
//!   target type is copied as it is.
//! - **Deterministic output.** Metadata in key order, tensors in their
//!   source order; `general.file_type` is set to the body's type and
//!   `droidscore.quantize` says what was done, from which file.
//!
//! The written file is GGUF version 2 (candle's writer), which llama.cpp reads.

use std::collections::BTreeMap;
use std::io::{BufReader, BufWriter, Seek};
use std::path::{Path, PathBuf};

use candle_core::quantized::{gguf_file, GgmlDType, QTensor};
use candle_core::Device;

/// Bumped whenever the quantizer's output for the same input and options
/// can change: it is part of the cache key, so an old artifact is never
/// reused by a new quantizer.
pub const QUANTIZER_VERSION: u32 = 1;

/// The body's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum Target {
    #[value(name = "q4_0")]
    #[serde(rename = "q4_0")]
    Q4_0,
    #[value(name = "q4k")]
    #[serde(rename = "q4k")]
    Q4k,
    #[value(name = "q8_0")]
    #[serde(rename = "q8_0")]
    Q8_0,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Q4_0 => "q4_0",
            Target::Q4k => "q4k",
            Target::Q8_0 => "q8_0",
        }
    }

    fn dtype(self) -> GgmlDType {
        match self {
            Target::Q4_0 => GgmlDType::Q4_0,
            Target::Q4k => GgmlDType::Q4K,
            Target::Q8_0 => GgmlDType::Q8_0,
        }
    }

    /// llama.cpp's `general.file_type` for a file mostly of this type
    /// (Q4_K_S: Q4_K without the Q6_K layers Q4_K_M adds).
    fn file_type(self) -> u32 {
        match self {
            Target::Q4_0 => 2,
            Target::Q4k => 14,
            Target::Q8_0 => 7,
        }
    }
}

/// The output head's precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeepOutput {
    /// As it is in the source file.
    Same,
    #[value(name = "q8_0")]
    #[serde(rename = "q8_0")]
    Q8_0,
    F16,
    /// Not kept: quantized with the body.
    No,
}

impl KeepOutput {
    pub fn name(self) -> &'static str {
        match self {
            KeepOutput::Same => "same",
            KeepOutput::Q8_0 => "q8_0",
            KeepOutput::F16 => "f16",
            KeepOutput::No => "no",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum QuantizeError {
    #[error("{path}: {why}")]
    File { path: PathBuf, why: String },
    /// Writing the output file failed (the file system's error, or candle's
    /// GGUF writer's).
    #[error("{path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("{path}: tensor {tensor}: {why}")]
    Tensor {
        path: PathBuf,
        tensor: String,
        why: String,
    },
}

/// Weights, bytes and tensors of one GGUF type in a file.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct TypeCount {
    pub tensors: usize,
    pub weights: u64,
    pub bytes: u64,
}

/// A file's packed layout as it is on disk: what each type holds, and bytes
/// per weight over the whole file's tensors and over its matrices alone.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Layout {
    pub by_type: BTreeMap<String, TypeCount>,
    pub weights: u64,
    pub tensor_bytes: u64,
    pub bytes_per_weight: f64,
    /// Matrices only (the norms are f32 and few).
    pub matrix_bytes_per_weight: f64,
    /// The tensor the model's logits come from, and its type.
    pub output_head: String,
    pub output_head_type: String,
    /// Whether the head is the token embedding (no `output.weight`).
    pub tied_embeddings: bool,
    /// What `droidscore.quantize` says, when this quantizer wrote the file.
    pub quantized_by: Option<String>,
}

fn type_name(t: GgmlDType) -> String {
    format!("{t:?}")
        .replace("Q4K", "Q4_K")
        .replace("Q6K", "Q6_K")
}

fn open(path: &Path) -> Result<(gguf_file::Content, BufReader<std::fs::File>), QuantizeError> {
    let err = |why: String| QuantizeError::File {
        path: path.to_owned(),
        why,
    };
    let file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
    let mut reader = BufReader::new(file);
    let content = gguf_file::Content::read(&mut reader)
        .map_err(|e| err(format!("not a GGUF file candle can read: {e}")))?;
    Ok((content, reader))
}

/// The name of the output head tensor, and whether it is the tied embedding.
fn output_head(content: &gguf_file::Content) -> (&'static str, bool) {
    if content.tensor_infos.contains_key("output.weight") {
        ("output.weight", false)
    } else {
        ("token_embd.weight", true)
    }
}

/// The packed layout of the GGUF file at `path`, from its tensor table.
pub fn layout(path: &Path) -> Result<Layout, QuantizeError> {
    let (content, _) = open(path)?;
    let mut by_type: BTreeMap<String, TypeCount> = BTreeMap::new();
    let (mut weights, mut bytes, mut matrix_weights, mut matrix_bytes) = (0u64, 0u64, 0u64, 0u64);
    for info in content.tensor_infos.values() {
        let n = info.shape.elem_count() as u64;
        let b = n / info.ggml_dtype.block_size() as u64 * info.ggml_dtype.type_size() as u64;
        let entry = by_type.entry(type_name(info.ggml_dtype)).or_default();
        entry.tensors += 1;
        entry.weights += n;
        entry.bytes += b;
        weights += n;
        bytes += b;
        if info.shape.rank() >= 2 {
            matrix_weights += n;
            matrix_bytes += b;
        }
    }
    let (head, tied) = output_head(&content);
    let head_type = content
        .tensor_infos
        .get(head)
        .map(|i| type_name(i.ggml_dtype))
        .unwrap_or_else(|| "absent".into());
    let ratio = |b: u64, w: u64| if w == 0 { 0.0 } else { b as f64 / w as f64 };
    Ok(Layout {
        by_type,
        weights,
        tensor_bytes: bytes,
        bytes_per_weight: ratio(bytes, weights),
        matrix_bytes_per_weight: ratio(matrix_bytes, matrix_weights),
        output_head: head.into(),
        output_head_type: head_type,
        tied_embeddings: tied,
        quantized_by: content
            .metadata
            .get("droidscore.quantize")
            .and_then(|v| v.to_string().ok())
            .cloned(),
    })
}

/// What happened to one tensor.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TensorRecord {
    pub name: String,
    pub shape: Vec<usize>,
    pub from: String,
    pub to: String,
    /// Why `to` is not what was asked (a block that does not divide the row).
    pub fallback: Option<String>,
}

/// What `quantize` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub input: PathBuf,
    pub output: PathBuf,
    pub target: Target,
    pub keep_output: KeepOutput,
    pub quantizer_version: u32,
    pub tensors: Vec<TensorRecord>,
    pub layout: Layout,
}

impl Report {
    /// `(from → to) × count` and every fallback, one line each.
    pub fn summary(&self) -> String {
        let mut moves: BTreeMap<(String, String), usize> = BTreeMap::new();
        for t in &self.tensors {
            *moves.entry((t.from.clone(), t.to.clone())).or_default() += 1;
        }
        let mut out = String::new();
        for ((from, to), n) in moves {
            out.push_str(&format!("{n:4} tensors {from} -> {to}\n"));
        }
        let fallbacks: Vec<_> = self
            .tensors
            .iter()
            .filter(|t| t.fallback.is_some())
            .collect();
        if let Some(first) = fallbacks.first() {
            out.push_str(&format!(
                "{} fell back ({} …): {}\n",
                fallbacks.len(),
                first.name,
                first.fallback.as_deref().unwrap_or("")
            ));
        }
        out.push_str(&format!(
            "{:.4} bytes per weight over the matrices, {:.4} over every tensor; head {} is {}\n",
            self.layout.matrix_bytes_per_weight,
            self.layout.bytes_per_weight,
            self.layout.output_head,
            self.layout.output_head_type
        ));
        out
    }
}

/// The type a tensor whose rows are `row` wide gets when `wanted` is asked:
/// `wanted` if its block divides the row, else the first of Q4_0, Q8_0, F16
/// that does (with the reason).
fn fit(wanted: GgmlDType, row: usize) -> (GgmlDType, Option<String>) {
    if row.is_multiple_of(wanted.block_size()) {
        return (wanted, None);
    }
    let to = [GgmlDType::Q4_0, GgmlDType::Q8_0, GgmlDType::F16]
        .into_iter()
        .find(|t| row.is_multiple_of(t.block_size()))
        .unwrap_or(GgmlDType::F32);
    (
        to,
        Some(format!(
            "rows of {row} are not a multiple of {}'s block of {}: {} instead",
            type_name(wanted),
            wanted.block_size(),
            type_name(to)
        )),
    )
}

fn sha256_hex(path: &Path) -> Result<String, QuantizeError> {
    crate::model::sha256_file(path).map_err(|e| match e {
        crate::model::ModelError::File { path, why } => QuantizeError::File { path, why },
        other => QuantizeError::File {
            path: path.to_owned(),
            why: other.to_string(),
        },
    })
}

/// Re-quantize `input` into `output` (written to a temporary file beside it
/// and renamed, so a half-written file never has the final name).
pub fn quantize(
    input: &Path,
    output: &Path,
    target: Target,
    keep: KeepOutput,
) -> Result<Report, QuantizeError> {
    let (content, mut reader) = open(input)?;
    let (head, _) = output_head(&content);
    let tensor_err = |tensor: &str, why: String| QuantizeError::Tensor {
        path: input.to_owned(),
        tensor: tensor.to_owned(),
        why,
    };
    let mut names: Vec<(&String, u64)> = content
        .tensor_infos
        .iter()
        .map(|(n, i)| (n, i.offset))
        .collect();
    names.sort_by_key(|&(n, offset)| (offset, n.clone()));
    let mut tensors: Vec<(String, QTensor)> = Vec::with_capacity(names.len());
    let mut records = Vec::with_capacity(names.len());
    for (name, _) in names {
        let qt = content
            .tensor(&mut reader, name, &Device::Cpu)
            .map_err(|e| tensor_err(name, e.to_string()))?;
        let from = qt.dtype();
        let dims = qt.shape().dims().to_vec();
        let row = *dims.last().unwrap_or(&1);
        let wanted = if dims.len() < 2 {
            None
        } else if name == head {
            match keep {
                KeepOutput::Same => None,
                KeepOutput::Q8_0 => Some(GgmlDType::Q8_0),
                KeepOutput::F16 => Some(GgmlDType::F16),
                KeepOutput::No => Some(target.dtype()),
            }
        } else {
            Some(target.dtype())
        };
        let (to, fallback) = match wanted {
            Some(w) => fit(w, row),
            None => (from, None),
        };
        let out = if to == from {
            qt
        } else {
            let weights = qt
                .dequantize(&Device::Cpu)
                .map_err(|e| tensor_err(name, format!("dequantize: {e}")))?;
            QTensor::quantize(&weights, to)
                .map_err(|e| tensor_err(name, format!("quantize to {}: {e}", type_name(to))))?
        };
        records.push(TensorRecord {
            name: name.clone(),
            shape: dims,
            from: type_name(from),
            to: type_name(to),
            fallback,
        });
        tensors.push((name.clone(), out));
    }

    let source_sha = sha256_hex(input)?;
    let provenance = format!(
        "droidscore-device quantize v{QUANTIZER_VERSION}: body {}, output head {} ({}), from {} (sha256 {source_sha})",
        target.name(),
        keep.name(),
        head,
        input.file_name().unwrap_or_default().to_string_lossy(),
    );
    let mut metadata: BTreeMap<String, gguf_file::Value> =
        content.metadata.clone().into_iter().collect();
    // candle's writer aligns to 32 and writes no alignment key.
    metadata.remove("general.alignment");
    metadata.insert(
        "general.file_type".into(),
        gguf_file::Value::U32(target.file_type()),
    );
    metadata.insert(
        "droidscore.quantize".into(),
        gguf_file::Value::String(provenance),
    );
    let tmp = output.with_extension(format!("partial-{}", std::process::id()));
    let write = || -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let file = std::fs::File::create(&tmp)?;
        let mut w = BufWriter::new(file);
        let md: Vec<(&str, &gguf_file::Value)> =
            metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let ts: Vec<(&str, &QTensor)> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
        gguf_file::write(&mut w, &md, &ts)?;
        w.stream_position()?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok(std::fs::rename(&tmp, output)?)
    };
    if let Err(source) = write() {
        let _ = std::fs::remove_file(&tmp);
        return Err(QuantizeError::Write {
            path: output.to_owned(),
            source,
        });
    }
    let layout = layout(output)?;
    Ok(Report {
        input: input.to_owned(),
        output: output.to_owned(),
        target,
        keep_output: keep,
        quantizer_version: QUANTIZER_VERSION,
        tensors: records,
        layout,
    })
}

/// How a served model was re-quantized, recorded with every result.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Requantized {
    pub source: PathBuf,
    pub source_sha256: String,
    pub target: Target,
    pub keep_output: KeepOutput,
    pub quantizer_version: u32,
    pub file: PathBuf,
    /// False when the file was already in the cache.
    pub written_now: bool,
}

/// `input` re-quantized into `cache`, keyed on the source's content, the
/// options and the quantizer's version: two configurations never share a
/// file, and a changed source or quantizer never reuses an old one. On a
/// miss, `write(input, file)` writes it (`quantize` in this process, or a
/// child process, so that the quantizer's buffers never count in the
/// memory of the process that then loads the model).
pub fn cached(
    input: &Path,
    target: Target,
    keep: KeepOutput,
    cache: &Path,
    write: impl FnOnce(&Path, &Path) -> Result<(), QuantizeError>,
) -> Result<Requantized, QuantizeError> {
    let sha = sha256_hex(input)?;
    let stem = input.file_stem().unwrap_or_default().to_string_lossy();
    let file = cache.join(format!(
        "{stem}.{}-head_{}.v{QUANTIZER_VERSION}.{}.gguf",
        target.name(),
        keep.name(),
        &sha[..16]
    ));
    let written_now = !file.is_file();
    if written_now {
        std::fs::create_dir_all(cache).map_err(|e| QuantizeError::File {
            path: cache.to_owned(),
            why: e.to_string(),
        })?;
        write(input, &file)?;
    }
    Ok(Requantized {
        source: input.to_owned(),
        source_sha256: sha,
        target,
        keep_output: keep,
        quantizer_version: QUANTIZER_VERSION,
        file,
        written_now,
    })
}

/// `write` for `cached`: this binary's `quantize` subcommand in a child
/// process.
pub fn in_child_process(
    target: Target,
    keep: KeepOutput,
) -> impl FnOnce(&Path, &Path) -> Result<(), QuantizeError> {
    move |input: &Path, output: &Path| {
        let err = |why: String| QuantizeError::File {
            path: output.to_owned(),
            why,
        };
        let exe = std::env::current_exe().map_err(|e| err(e.to_string()))?;
        let out = std::process::Command::new(&exe)
            .arg("quantize")
            .arg("--in")
            .arg(input)
            .arg("--out")
            .arg(output)
            .args(["--type", target.name(), "--keep-output", keep.name()])
            .output()
            .map_err(|e| err(format!("starting {}: {e}", exe.display())))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(err(format!(
                "{} quantize failed ({}): {}",
                exe.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_that_does_not_divide_the_row_falls_back_and_says_why() {
        assert_eq!(fit(GgmlDType::Q4K, 1536), (GgmlDType::Q4K, None));
        let (to, why) = fit(GgmlDType::Q4K, 576);
        assert_eq!(to, GgmlDType::Q4_0);
        assert!(why.unwrap().contains("576"));
        let (to, _) = fit(GgmlDType::Q4_0, 48);
        assert_eq!(to, GgmlDType::F16);
    }
}
