//! The tokenizer a GGUF file was trained with, built from the file itself:
//! its vocabulary, merges, token types and special tokens, and the
//! pre-tokenizer that `tokenizer.ggml.pre` names — as llama.cpp reads them
//! (`src/llama-vocab.cpp`: the regexes per pre type, token types 3 CONTROL,
//! 4 USER_DEFINED and 2 UNKNOWN matched whole in text).
//!
//! Why: mistral.rs 0.8.1 (`gguf/gguf_tokenizer.rs`) gives every BPE GGUF one
//! Qwen2/Llama-3-style split regex, whatever the file says. Right for
//! `qwen2`; wrong for SmolLM2's `smollm` (digits split one by one, then
//! GPT-2's regex, so `\n\n` is two `Ċ` tokens, not one `ĊĊ`).
//!
//! `prepare` writes `tokenizer.json` (ours) and `tokenizer_config.json` (the
//! file's own chat template and bos/eos/unk tokens, copied verbatim) into a
//! directory of the cache keyed by the GGUF's path, size and mtime; the
//! engine hands that directory to mistral.rs as the tokenizer's model id.
//! (`GgufModelBuilder::with_tokenizer_json` is stored but never read by the
//! GGUF loader in 0.8.1; only a tokenizer model directory is.)
//!
//! Pre types: the llama.cpp groups of `gpt2`, `smollm`, `qwen2` and `llama3`
//! below. Any other is an error naming it (`--tokenizer mistralrs` loads the
//! file with mistral.rs's own tokenizer instead). Files whose
//! `tokenizer.ggml.model` is not `gpt2` (SentencePiece `llama`) are left to
//! mistral.rs's own conversion, which handles them.
//!
//! Not mirrored: Qwen2's Hugging Face tokenizer also NFC-normalizes text;
//! llama.cpp does not, and neither do we (text already in NFC, as most is,
//! is unaffected).

use std::path::{Path, PathBuf};

use candle_core::quantized::gguf_file;
use sha2::{Digest, Sha256};

/// Which tokenizer a GGUF file loads with.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Ours, from the file's own vocabulary and `tokenizer.ggml.pre`, as
    /// llama.cpp tokenizes.
    #[default]
    Gguf,
    /// mistral.rs 0.8.1's conversion (one Qwen2-style pre-tokenizer for
    /// every BPE file).
    Mistralrs,
}

/// What tokenized a loaded model, for `ModelInfo`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Info {
    /// `gguf` (ours) or `mistralrs`.
    pub source: Source,
    /// `tokenizer.ggml.pre`, as the file says.
    pub pre: Option<String>,
    /// The directory mistral.rs loaded `tokenizer.json` from (ours only).
    pub dir: Option<PathBuf>,
}

/// llama.cpp's pre-tokenizer groups (`llm_tokenizer_bpe`), each a sequence
/// of split regexes applied one after the other, then GPT-2's byte mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pre {
    /// GPT-2's regex.
    Gpt2,
    /// Every digit alone, then GPT-2's regex (SmolLM, StarCoder, …).
    Smollm,
    /// Qwen2's regex: digits alone, `\s*[\r\n]+` keeps newlines together.
    Qwen2,
    /// Llama 3's: as Qwen2's with digits in threes; merges ignored for
    /// whole-word vocabulary hits.
    Llama3,
}

const GPT2_REGEX: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)";
const QWEN2_REGEX: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const LLAMA3_REGEX: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// `tokenizer.ggml.pre` values and their group, as llama.cpp maps them.
const PRE_NAMES: &[(&str, Pre)] = &[
    ("gpt-2", Pre::Gpt2),
    ("phi-2", Pre::Gpt2),
    ("mpt", Pre::Gpt2),
    ("olmo", Pre::Gpt2),
    ("jais", Pre::Gpt2),
    ("exaone4", Pre::Gpt2),
    ("smollm", Pre::Smollm),
    ("starcoder", Pre::Smollm),
    ("refact", Pre::Smollm),
    ("command-r", Pre::Smollm),
    ("codeshell", Pre::Smollm),
    ("exaone", Pre::Smollm),
    ("minerva-7b", Pre::Smollm),
    ("qwen2", Pre::Qwen2),
    ("deepseek-r1-qwen", Pre::Qwen2),
    ("megrez", Pre::Qwen2),
    ("stablelm2", Pre::Qwen2),
    ("hunyuan", Pre::Qwen2),
    ("llama3", Pre::Llama3),
    ("llama-v3", Pre::Llama3),
    ("llama-bpe", Pre::Llama3),
    ("falcon3", Pre::Llama3),
    ("pixtral", Pre::Llama3),
    ("dbrx", Pre::Llama3),
    ("smaug-bpe", Pre::Llama3),
];

impl Pre {
    pub fn from_name(name: &str) -> Option<Pre> {
        PRE_NAMES.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
    }

    fn regexes(self) -> &'static [&'static str] {
        match self {
            Pre::Gpt2 => &[GPT2_REGEX],
            Pre::Smollm => &[r"\p{N}", GPT2_REGEX],
            Pre::Qwen2 => &[QWEN2_REGEX],
            Pre::Llama3 => &[LLAMA3_REGEX],
        }
    }

    /// llama.cpp sets `ignore_merges` for its llama3 group only.
    fn ignore_merges(self) -> bool {
        self == Pre::Llama3
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error("{path}: {why}")]
    Gguf { path: PathBuf, why: String },
    #[error(
        "{path}: tokenizer.ggml.pre is {pre:?}, a pre-tokenizer droidscore does not know \
         (known: {known}); --tokenizer mistralrs loads the file with mistral.rs's own \
         (one Qwen2-style pre-tokenizer for every BPE file)"
    )]
    UnknownPre {
        path: PathBuf,
        pre: String,
        known: String,
    },
    #[error("{path}: {why}")]
    Cache { path: PathBuf, why: String },
}

/// A GGUF file's tokenizer metadata.
#[derive(Debug, Clone)]
pub struct Vocab {
    /// `tokenizer.ggml.model`: `gpt2` (BPE) or `llama` (SentencePiece), …
    pub model: String,
    pub pre: Option<String>,
    pub tokens: Vec<String>,
    /// `tokenizer.ggml.token_type` (1 normal, 2 unknown, 3 control, 4 user
    /// defined, 5 unused, 6 byte), or empty.
    pub types: Vec<i32>,
    pub merges: Vec<String>,
    pub bos: Option<u32>,
    pub eos: Option<u32>,
    pub unk: Option<u32>,
    pub chat_template: Option<String>,
}

/// Read the tokenizer metadata of the GGUF file at `path`.
pub fn read_vocab(path: &Path) -> Result<Vocab, TokenizerError> {
    let err = |why: String| TokenizerError::Gguf {
        path: path.to_owned(),
        why,
    };
    let mut file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
    let content = gguf_file::Content::read(&mut file).map_err(|e| err(e.to_string()))?;
    let md = &content.metadata;
    let text = |key: &str| md.get(key).and_then(|v| v.to_string().ok()).cloned();
    let id = |key: &str| md.get(key).and_then(|v| v.to_u32().ok());
    let strings = |key: &str| -> Result<Vec<String>, TokenizerError> {
        match md.get(key) {
            None => Ok(Vec::new()),
            Some(v) => v
                .to_vec()
                .map_err(|e| err(format!("{key}: {e}")))?
                .iter()
                .map(|s| {
                    s.to_string()
                        .cloned()
                        .map_err(|e| err(format!("{key}: {e}")))
                })
                .collect(),
        }
    };
    let types = match md.get("tokenizer.ggml.token_type") {
        None => Vec::new(),
        Some(v) => v
            .to_vec()
            .map_err(|e| err(format!("tokenizer.ggml.token_type: {e}")))?
            .iter()
            .map(|t| t.to_i32().map_err(|e| err(format!("token_type: {e}"))))
            .collect::<Result<_, _>>()?,
    };
    let vocab = Vocab {
        model: text("tokenizer.ggml.model").ok_or_else(|| err("no tokenizer.ggml.model".into()))?,
        pre: text("tokenizer.ggml.pre"),
        tokens: strings("tokenizer.ggml.tokens")?,
        types,
        merges: strings("tokenizer.ggml.merges")?,
        bos: id("tokenizer.ggml.bos_token_id"),
        eos: id("tokenizer.ggml.eos_token_id"),
        unk: id("tokenizer.ggml.unknown_token_id"),
        chat_template: text("tokenizer.chat_template"),
    };
    if vocab.tokens.is_empty() {
        return Err(err("no tokenizer.ggml.tokens".into()));
    }
    if !vocab.types.is_empty() && vocab.types.len() != vocab.tokens.len() {
        return Err(err(format!(
            "{} token types for {} tokens",
            vocab.types.len(),
            vocab.tokens.len()
        )));
    }
    for t in [vocab.bos, vocab.eos, vocab.unk].into_iter().flatten() {
        if t as usize >= vocab.tokens.len() {
            return Err(err(format!("special token id {t} is past the vocabulary")));
        }
    }
    Ok(vocab)
}

/// The pre-tokenizer group of `vocab`, or `None` when the file is not BPE
/// (left to mistral.rs). A BPE file with no `tokenizer.ggml.pre` is
/// llama.cpp's `default`, which is none of ours: an error too.
pub fn pre_of(vocab: &Vocab, path: &Path) -> Result<Option<Pre>, TokenizerError> {
    if vocab.model != "gpt2" {
        return Ok(None);
    }
    let name = vocab.pre.as_deref().unwrap_or("default");
    Pre::from_name(name)
        .map(Some)
        .ok_or_else(|| TokenizerError::UnknownPre {
            path: path.to_owned(),
            pre: name.to_string(),
            known: PRE_NAMES
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Whether llama.cpp matches this token type whole in text (its
/// `cache_special_tokens`): control, user-defined and unknown.
fn matched_whole(token_type: i32) -> bool {
    matches!(token_type, 2..=4)
}

/// `tokenizer.json` for `vocab` with the pre-tokenizer `pre`, as the
/// `tokenizers` crate reads it.
pub fn tokenizer_json(vocab: &Vocab, pre: Pre) -> serde_json::Value {
    use serde_json::{json, Map, Value};
    let mut ids = Map::with_capacity(vocab.tokens.len());
    for (i, t) in vocab.tokens.iter().enumerate() {
        ids.insert(t.clone(), Value::from(i));
    }
    // GGUF merges are "left right"; byte-level tokens hold no raw space.
    let merges: Vec<Value> = vocab
        .merges
        .iter()
        .filter_map(|m| m.split_once(' '))
        .map(|(l, r)| json!([l, r]))
        .collect();
    let added: Vec<Value> = vocab
        .types
        .iter()
        .enumerate()
        .filter(|(_, &t)| matched_whole(t))
        .map(|(i, &t)| {
            json!({
                "id": i,
                "content": vocab.tokens[i],
                "single_word": false,
                "lstrip": false,
                "rstrip": false,
                "normalized": false,
                // User-defined tokens are text, not control (llama.cpp
                // prints them when detokenizing).
                "special": t != 4,
            })
        })
        .collect();
    let mut steps: Vec<Value> = pre
        .regexes()
        .iter()
        .map(|r| {
            json!({
                "type": "Split",
                "pattern": {"Regex": r},
                "behavior": "Isolated",
                "invert": false,
            })
        })
        .collect();
    steps.push(json!({
        "type": "ByteLevel",
        "add_prefix_space": false,
        "trim_offsets": false,
        "use_regex": false,
    }));
    json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added,
        "normalizer": null,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": steps},
        "post_processor": {
            "type": "ByteLevel",
            "add_prefix_space": false,
            "trim_offsets": false,
            "use_regex": false,
        },
        "decoder": {
            "type": "ByteLevel",
            "add_prefix_space": false,
            "trim_offsets": false,
            "use_regex": false,
        },
        "model": {
            "type": "BPE",
            "dropout": null,
            "unk_token": null,
            "continuing_subword_prefix": null,
            "end_of_word_suffix": null,
            "fuse_unk": false,
            "byte_fallback": false,
            "ignore_merges": pre.ignore_merges(),
            "vocab": ids,
            "merges": merges,
        },
    })
}

/// `tokenizer_config.json`: the file's own chat template and bos/eos/unk
/// tokens, which mistral.rs takes from the GGUF itself only when it builds
/// the tokenizer itself.
pub fn tokenizer_config(vocab: &Vocab) -> serde_json::Value {
    let token = |id: Option<u32>| id.map(|i| vocab.tokens[i as usize].clone());
    serde_json::json!({
        "chat_template": vocab.chat_template,
        "bos_token": token(vocab.bos),
        "eos_token": token(vocab.eos),
        "unk_token": token(vocab.unk),
    })
}

/// Bumped whenever `tokenizer_json` or `tokenizer_config` changes, so that
/// a cached directory from an older build is not reused.
const FORMAT: u32 = 1;

/// The cache directory for the GGUF file at `path`: keyed by its canonical
/// path, size and modification time (hashing the file itself would cost a
/// read of every weight at each load).
pub fn cache_key(path: &Path) -> Result<String, TokenizerError> {
    let err = |why: String| TokenizerError::Gguf {
        path: path.to_owned(),
        why,
    };
    let canonical = path.canonicalize().map_err(|e| err(e.to_string()))?;
    let meta = std::fs::metadata(&canonical).map_err(|e| err(e.to_string()))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let mut h = Sha256::new();
    h.update(format!("{FORMAT}\0{}\0{}\0{mtime}", canonical.display(), meta.len()).as_bytes());
    let stem = canonical
        .file_stem()
        .map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
    Ok(format!("{stem}-{}", &format!("{:x}", h.finalize())[..16]))
}

/// A tokenizer directory ready for mistral.rs.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub dir: PathBuf,
    pub pre: Option<String>,
}

/// Our tokenizer for the GGUF file at `path`, in `cache/tokenizers/KEY/`,
/// written now if it is not there; `None` when the file is not BPE (left
/// to mistral.rs).
pub fn prepare(path: &Path, cache: &Path) -> Result<Option<Prepared>, TokenizerError> {
    let dir = cache.join("tokenizers").join(cache_key(path)?);
    let vocab = read_vocab(path)?;
    let Some(pre) = pre_of(&vocab, path)? else {
        return Ok(None);
    };
    let prepared = Prepared {
        dir: dir.clone(),
        pre: vocab.pre.clone(),
    };
    if dir.join("tokenizer.json").is_file() && dir.join("tokenizer_config.json").is_file() {
        return Ok(Some(prepared));
    }
    let cache_err = |p: &Path, why: String| TokenizerError::Cache {
        path: p.to_owned(),
        why,
    };
    let json = tokenizer_json(&vocab, pre).to_string();
    // Refuse to hand mistral.rs a file the tokenizers crate cannot read.
    json.parse::<tokenizers::Tokenizer>().map_err(|e| {
        cache_err(
            path,
            format!("the tokenizer built from it does not load: {e}"),
        )
    })?;
    let tmp = dir.with_extension(format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| cache_err(&tmp, e.to_string()))?;
    std::fs::write(tmp.join("tokenizer.json"), json).map_err(|e| cache_err(&tmp, e.to_string()))?;
    std::fs::write(
        tmp.join("tokenizer_config.json"),
        serde_json::to_string_pretty(&tokenizer_config(&vocab)).unwrap_or_default(),
    )
    .map_err(|e| cache_err(&tmp, e.to_string()))?;
    // Into place whole; another process may have got there first.
    if std::fs::rename(&tmp, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
        if !dir.join("tokenizer.json").is_file() {
            return Err(cache_err(&dir, "could not be written".into()));
        }
    }
    Ok(Some(prepared))
}

/// What tokenizes the GGUF file at `path` when it loads with `source`:
/// ours is prepared in the cache (the directory to hand mistral.rs); a file
/// that is not BPE is recorded as mistral.rs's, whatever was asked.
pub fn for_gguf(path: &Path, source: Source) -> Result<Info, TokenizerError> {
    if source == Source::Gguf {
        if let Some(p) = prepare(path, &crate::model::cache_dir())? {
            return Ok(Info {
                source,
                pre: p.pre,
                dir: Some(p.dir),
            });
        }
        tracing::info!(
            "{}: not a BPE tokenizer; mistral.rs converts it itself",
            path.display()
        );
    }
    let header = crate::gguf::read_header(path).map_err(|e| TokenizerError::Gguf {
        path: path.to_owned(),
        why: e.to_string(),
    })?;
    Ok(Info {
        source: Source::Mistralrs,
        pre: header
            .get("tokenizer.ggml.pre")
            .and_then(crate::gguf::Value::as_text)
            .map(str::to_string),
        dir: None,
    })
}

/// Our tokenizer for the GGUF file at `path`, loaded (tests and tools).
pub fn load(path: &Path, cache: &Path) -> Result<tokenizers::Tokenizer, TokenizerError> {
    let prepared = prepare(path, cache)?.ok_or_else(|| TokenizerError::Gguf {
        path: path.to_owned(),
        why: "not a BPE (gpt2) tokenizer: mistral.rs builds its own".into(),
    })?;
    let file = prepared.dir.join("tokenizer.json");
    tokenizers::Tokenizer::from_file(&file).map_err(|e| TokenizerError::Cache {
        path: file,
        why: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A byte-level vocabulary of its own: the letters and newline, a few
    /// merges, one control token.
    fn tiny(pre: &str) -> Vocab {
        let tokens: Vec<String> = ["<|im_end|>", "a", "b", "Ċ", "ĊĊ", "1", "2", "Ġ", "Ġa", "12"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut types = vec![1; tokens.len()];
        types[0] = 3;
        Vocab {
            model: "gpt2".into(),
            pre: Some(pre.into()),
            types,
            merges: ["Ċ Ċ", "Ġ a", "1 2"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            tokens,
            bos: None,
            eos: Some(0),
            unk: None,
            chat_template: Some("{{ messages }}".into()),
        }
    }

    fn encode(vocab: &Vocab, text: &str) -> Vec<u32> {
        let pre = pre_of(vocab, Path::new("t.gguf")).unwrap().unwrap();
        let t: tokenizers::Tokenizer = tokenizer_json(vocab, pre).to_string().parse().unwrap();
        t.encode(text, false).unwrap().get_ids().to_vec()
    }

    #[test]
    fn smollm_splits_newlines_and_digits_apart_as_gpt2_does() {
        let v = tiny("smollm");
        // "\n\n" is two pieces (GPT-2's `\s+(?!\S)`), so the ĊĊ merge never applies.
        assert_eq!(encode(&v, "a\n\nb"), [1, 3, 3, 2]);
        // Every digit alone: the "1 2" merge never applies.
        assert_eq!(encode(&v, "12"), [5, 6]);
        assert_eq!(encode(&v, " a"), [8]);
    }

    #[test]
    fn qwen2_keeps_newlines_together_and_digits_apart() {
        let v = tiny("qwen2");
        assert_eq!(encode(&v, "a\n\nb"), [1, 4, 2]);
        assert_eq!(encode(&v, "12"), [5, 6]);
    }

    #[test]
    fn control_tokens_are_matched_whole_and_the_template_is_the_files() {
        let v = tiny("qwen2");
        assert_eq!(encode(&v, "a<|im_end|>b"), [1, 0, 2]);
        let config = tokenizer_config(&v);
        assert_eq!(config["chat_template"], "{{ messages }}");
        assert_eq!(config["eos_token"], "<|im_end|>");
        assert!(config["bos_token"].is_null());
    }

    #[test]
    fn an_unknown_pre_type_is_an_error_naming_it_and_sentencepiece_is_left_alone() {
        let v = tiny("tekken");
        let err = pre_of(&v, Path::new("m.gguf")).unwrap_err().to_string();
        assert!(
            err.contains("\"tekken\"") && err.contains("--tokenizer mistralrs"),
            "{err}"
        );
        let mut spm = tiny("default");
        spm.model = "llama".into();
        assert_eq!(pre_of(&spm, Path::new("m.gguf")).unwrap(), None);
    }

    /// The default model's own ids for strings its pre-tokenizer decides
    /// (ids read from its vocabulary: Ċ 198, ĊĊ 1116, a 81, b 82, digits 33…).
    #[test]
    fn the_default_models_tokens_as_llama_cpp_gives_them() {
        let cache = crate::model::cache_dir();
        let path = crate::model::default_path(&cache);
        assert!(
            path.is_file(),
            "the default model is not at {}: run `droidscore-device fetch-model`",
            path.display()
        );
        let t = load(&path, &cache).unwrap();
        let ids = |s: &str| t.encode(s, false).unwrap().get_ids().to_vec();
        // mistral.rs's own tokenizer gives [81, 1116, 82].
        assert_eq!(ids("a\n\nb"), [81, 198, 198, 82]);
        assert_eq!(ids("12345"), [33, 34, 35, 36, 37]);
        assert_eq!(ids("<|im_start|>user"), [1, 4093]);
        assert!(ids("café 東京 🙂").iter().all(|&i| i < 49_152));
        assert_eq!(
            t.decode(&ids("café 東京 🙂\n\n  x"), false).unwrap(),
            "café 東京 🙂\n\n  x"
        );
    }

    /// Qwen2's: `\n\n` is one token, ĊĊ = 271 (a 64, b 65). Needs
    /// `droidscore-device fetch-model qwen2.5-coder-0.5b` (491 MB).
    #[test]
    #[ignore = "needs the qwen2.5-coder-0.5b model in the cache"]
    fn the_qwen_models_tokens_as_llama_cpp_gives_them() {
        let cache = crate::model::cache_dir();
        let path = crate::model::find("qwen2.5-coder-0.5b")
            .unwrap()
            .path(&cache);
        let t = load(&path, &cache).unwrap();
        let ids = |s: &str| t.encode(s, false).unwrap().get_ids().to_vec();
        assert_eq!(ids("a\n\nb"), [64, 271, 65]);
        assert_eq!(ids("123"), [16, 17, 18]);
        assert_eq!(ids("<|im_end|>"), [151_645]);
    }
}
