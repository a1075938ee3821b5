//! A tiny Qwen2.5-VL or Qwen2-VL with pseudo-random weights, written as the
//! directory a user would download — `config.json`, `tokenizer.json`,
//! `tokenizer_config.json` (chat template), `preprocessor_config.json`,
//! `model.safetensors` — so the tests can drive mistral.rs's multimodal path
//! with no model download.
//!
//! Tensor names and shapes are the ones mistral.rs 0.8.1's loaders ask their
//! VarBuilder for (`vision_models/{qwen2_5_vl,qwen2vl}/{vision,text}.rs`):
//! both share the Qwen2 decoder, the patch geometry and the preprocessor;
//! their vision towers differ (2.5: RMS norms, gated MLPs, windowed
//! attention in all but the `fullatt_block_indexes` blocks). Note
//! that its `mistralrs_quant::linear` turns a layer whose tensors are missing
//! into a dummy instead of failing, so a wrong name here loads "fine": the
//! tests prove the tower is wired by the logits moving with the image.
//! Values come from a fixed-seed generator: every run writes the same bytes.

use std::collections::HashMap;
use std::path::Path;

use safetensors::tensor::TensorView;
use safetensors::Dtype;
use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::{AddedToken, Tokenizer};

// The text model is 256 wide so that every quantized layer's input width is a
// multiple of 256, the Q4K block: narrower layers make mistral.rs fall back to
// Q4_1 (or skip) without a word, and `--quant q4k` would not test q4k.
const HIDDEN: usize = 256;
const INTERMEDIATE: usize = 512;
const LAYERS: usize = 2;
const HEADS: usize = 4;
const KV_HEADS: usize = 2;
const HEAD_DIM: usize = HIDDEN / HEADS;
/// Which of the two architectures to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// `Qwen2_5_VLForConditionalGeneration`
    Qwen25Vl,
    /// `Qwen2VLForConditionalGeneration`
    Qwen2Vl,
}

// The vision tower: 2 blocks, 32 wide, the real patch geometry.
const EMBED_DIM: usize = 32;
const VISION_HEADS: usize = 2;
const VISION_DEPTH: usize = 2;
const MLP_RATIO: usize = 2;
const PATCH: usize = 14;
const TEMPORAL_PATCH: usize = 2;
const MERGE: usize = 2;

/// Byte-level BPE over the 256 byte symbols with no merges (one token per
/// byte), then these, in this order. `<|placeholder|>` is not in the real
/// Qwen2-VL vocabulary: mistral.rs adds it at load, and it is listed here so
/// that it gets an id inside `vocab_size`.
pub const SPECIAL_TOKENS: [&str; 8] = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<|placeholder|>",
];
const VOCAB: usize = 256 + SPECIAL_TOKENS.len();

fn special_id(token: &str) -> usize {
    256 + SPECIAL_TOKENS.iter().position(|t| *t == token).unwrap()
}

/// The Qwen2(.5)-VL template for string contents, default system message included.
/// mistral.rs flattens image messages to text and puts
/// `<|vision_start|><|image_pad|><|vision_end|>` before the text itself.
pub const CHAT_TEMPLATE: &str = "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/// What `CHAT_TEMPLATE` renders for one user message.
pub fn render_user_prompt(text: &str) -> String {
    format!(
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n{text}<|im_end|>\n<|im_start|>assistant\n"
    )
}

/// Write the model into `dir` (created if missing).
pub fn write(dir: &Path, arch: Arch) {
    std::fs::create_dir_all(dir).unwrap();
    write_json(&dir.join("config.json"), &config(arch));
    write_json(
        &dir.join("preprocessor_config.json"),
        &serde_json::json!({
            "min_pixels": 3136,
            "max_pixels": 12845056,
            "patch_size": PATCH,
            "temporal_patch_size": TEMPORAL_PATCH,
            "merge_size": MERGE,
            "image_mean": [0.48145466, 0.4578275, 0.40821073],
            "image_std": [0.26862954, 0.26130258, 0.27577711],
            "image_processor_type": "Qwen2VLImageProcessor",
            "processor_class": "Qwen2VLProcessor",
        }),
    );
    write_json(
        &dir.join("tokenizer_config.json"),
        &serde_json::json!({
            "chat_template": CHAT_TEMPLATE,
            "bos_token": null,
            "eos_token": "<|im_end|>",
            "pad_token": "<|endoftext|>",
            "model_max_length": 4096,
            "tokenizer_class": "Qwen2Tokenizer",
        }),
    );
    tokenizer().save(dir.join("tokenizer.json"), true).unwrap();
    write_weights(&dir.join("model.safetensors"), arch);
}

fn write_json(path: &Path, value: &serde_json::Value) {
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

/// The fields of a real `config.json` (Qwen2.5-VL-3B-Instruct's,
/// Qwen2-VL-2B-Instruct's), at tiny sizes. Qwen2-VL's vision config names no
/// `hidden_act`, as the real one does not: mistral.rs spells the default
/// `quickgelu` and would refuse HF's `quick_gelu`.
fn config(arch: Arch) -> serde_json::Value {
    let (architecture, model_type, vision) = match arch {
        Arch::Qwen25Vl => (
            "Qwen2_5_VLForConditionalGeneration",
            "qwen2_5_vl",
            serde_json::json!({
                "depth": VISION_DEPTH,
                "hidden_size": EMBED_DIM,
                "out_hidden_size": HIDDEN,
                "intermediate_size": EMBED_DIM * MLP_RATIO,
                "hidden_act": "silu",
                "num_heads": VISION_HEADS,
                "in_chans": 3,
                "patch_size": PATCH,
                "spatial_patch_size": PATCH,
                "spatial_merge_size": MERGE,
                "temporal_patch_size": TEMPORAL_PATCH,
                "window_size": 112,
                "fullatt_block_indexes": [VISION_DEPTH - 1],
                "tokens_per_second": 2,
            }),
        ),
        Arch::Qwen2Vl => (
            "Qwen2VLForConditionalGeneration",
            "qwen2_vl",
            serde_json::json!({
                "depth": VISION_DEPTH,
                "embed_dim": EMBED_DIM,
                "hidden_size": HIDDEN,
                "mlp_ratio": MLP_RATIO,
                "num_heads": VISION_HEADS,
                "in_chans": 3,
                "patch_size": PATCH,
                "spatial_patch_size": PATCH,
                "spatial_merge_size": MERGE,
                "temporal_patch_size": TEMPORAL_PATCH,
            }),
        ),
    };
    serde_json::json!({
        "architectures": [architecture],
        "model_type": model_type,
        "vocab_size": VOCAB,
        "hidden_size": HIDDEN,
        "intermediate_size": INTERMEDIATE,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS,
        "hidden_act": "silu",
        "max_position_embeddings": 4096,
        "max_window_layers": LAYERS,
        "rms_norm_eps": 1e-6,
        "rope_theta": 1000000.0,
        // mrope sections split head_dim / 2 rotary frequencies into t, h, w.
        "rope_scaling": {"type": "mrope", "mrope_section": [8, 12, 12]},
        "tie_word_embeddings": false,
        "use_sliding_window": false,
        "sliding_window": 4096,
        "bos_token_id": special_id("<|endoftext|>"),
        "eos_token_id": special_id("<|im_end|>"),
        "vision_start_token_id": special_id("<|vision_start|>"),
        "vision_end_token_id": special_id("<|vision_end|>"),
        "image_token_id": special_id("<|image_pad|>"),
        "video_token_id": special_id("<|video_pad|>"),
        "torch_dtype": "bfloat16",
        "vision_config": vision,
    })
}

/// The tokenizer `tokenizer.json` holds.
pub fn tokenizer() -> Tokenizer {
    let mut symbols: Vec<char> = ByteLevel::alphabet().into_iter().collect();
    symbols.sort_unstable();
    let vocab: Vocab = symbols
        .iter()
        .enumerate()
        .map(|(id, c)| (c.to_string(), id as u32))
        .collect();
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, Vec::new())
        .build()
        .unwrap();
    let mut tokenizer = Tokenizer::new(bpe);
    tokenizer.with_pre_tokenizer(Some(ByteLevel::new(false, true, true)));
    tokenizer.with_decoder(Some(ByteLevel::default()));
    let special: Vec<AddedToken> = SPECIAL_TOKENS
        .iter()
        .map(|t| AddedToken::from(*t, true))
        .collect();
    tokenizer.add_special_tokens(&special);
    assert_eq!(tokenizer.get_vocab_size(true), VOCAB);
    tokenizer
}

/// How a tensor starts.
enum Init {
    /// Uniform in ±scale / sqrt(fan_in), fan_in being all dims but the first.
    Uniform(f32),
    Ones,
    Zeros,
}

/// Every tensor the loader reads, with its shape.
fn tensors(arch: Arch) -> Vec<(String, Vec<usize>, Init)> {
    use Init::*;
    let mut t: Vec<(String, Vec<usize>, Init)> = Vec::new();
    let mut add = |name: String, shape: &[usize], init: Init| t.push((name, shape.to_vec(), init));

    // visual.*: patch embedding (a Conv3d without bias), blocks, merger.
    add(
        "visual.patch_embed.proj.weight".into(),
        &[EMBED_DIM, 3, TEMPORAL_PATCH, PATCH, PATCH],
        Uniform(1.0),
    );
    let mlp = EMBED_DIM * MLP_RATIO;
    for i in 0..VISION_DEPTH {
        let b = format!("visual.blocks.{i}");
        for norm in ["norm1", "norm2"] {
            add(format!("{b}.{norm}.weight"), &[EMBED_DIM], Ones);
            if arch == Arch::Qwen2Vl {
                add(format!("{b}.{norm}.bias"), &[EMBED_DIM], Zeros);
            }
        }
        add(
            format!("{b}.attn.qkv.weight"),
            &[3 * EMBED_DIM, EMBED_DIM],
            Uniform(1.0),
        );
        add(format!("{b}.attn.qkv.bias"), &[3 * EMBED_DIM], Uniform(0.1));
        add(
            format!("{b}.attn.proj.weight"),
            &[EMBED_DIM, EMBED_DIM],
            Uniform(1.0),
        );
        add(format!("{b}.attn.proj.bias"), &[EMBED_DIM], Uniform(0.1));
        let (up, down): (&[&str], &str) = match arch {
            Arch::Qwen25Vl => (&["gate_proj", "up_proj"], "down_proj"),
            Arch::Qwen2Vl => (&["fc1"], "fc2"),
        };
        for name in up {
            add(
                format!("{b}.mlp.{name}.weight"),
                &[mlp, EMBED_DIM],
                Uniform(1.0),
            );
            add(format!("{b}.mlp.{name}.bias"), &[mlp], Uniform(0.1));
        }
        add(
            format!("{b}.mlp.{down}.weight"),
            &[EMBED_DIM, mlp],
            Uniform(1.0),
        );
        add(format!("{b}.mlp.{down}.bias"), &[EMBED_DIM], Uniform(0.1));
    }
    let merged = EMBED_DIM * MERGE * MERGE;
    add("visual.merger.ln_q.weight".into(), &[EMBED_DIM], Ones);
    if arch == Arch::Qwen2Vl {
        add("visual.merger.ln_q.bias".into(), &[EMBED_DIM], Zeros);
    }
    add(
        "visual.merger.mlp.0.weight".into(),
        &[merged, merged],
        Uniform(1.0),
    );
    add("visual.merger.mlp.0.bias".into(), &[merged], Uniform(0.1));
    add(
        "visual.merger.mlp.2.weight".into(),
        &[HIDDEN, merged],
        Uniform(1.0),
    );
    add("visual.merger.mlp.2.bias".into(), &[HIDDEN], Uniform(0.1));

    // model.*: the Qwen2 decoder (q/k/v with bias, o and the MLP without).
    // Embeddings are wide (±1 for every fan-in) so text and image rows are alike in size.
    add(
        "model.embed_tokens.weight".into(),
        &[VOCAB, HIDDEN],
        Uniform(16.0),
    );
    let kv = KV_HEADS * HEAD_DIM;
    for i in 0..LAYERS {
        let l = format!("model.layers.{i}");
        add(format!("{l}.input_layernorm.weight"), &[HIDDEN], Ones);
        add(
            format!("{l}.post_attention_layernorm.weight"),
            &[HIDDEN],
            Ones,
        );
        for (proj, out) in [("q_proj", HIDDEN), ("k_proj", kv), ("v_proj", kv)] {
            add(
                format!("{l}.self_attn.{proj}.weight"),
                &[out, HIDDEN],
                Uniform(1.0),
            );
            add(format!("{l}.self_attn.{proj}.bias"), &[out], Uniform(0.1));
        }
        add(
            format!("{l}.self_attn.o_proj.weight"),
            &[HIDDEN, HIDDEN],
            Uniform(1.0),
        );
        add(
            format!("{l}.mlp.gate_proj.weight"),
            &[INTERMEDIATE, HIDDEN],
            Uniform(1.0),
        );
        add(
            format!("{l}.mlp.up_proj.weight"),
            &[INTERMEDIATE, HIDDEN],
            Uniform(1.0),
        );
        add(
            format!("{l}.mlp.down_proj.weight"),
            &[HIDDEN, INTERMEDIATE],
            Uniform(1.0),
        );
    }
    add("model.norm.weight".into(), &[HIDDEN], Ones);
    // A sharper head than 1/sqrt(fan_in), so the next-token distribution has a clear top.
    add("lm_head.weight".into(), &[VOCAB, HIDDEN], Uniform(4.0));
    t
}

/// splitmix64, seeded per tensor from its name (FNV-1a).
struct Rng(u64);

impl Rng {
    fn for_name(name: &str) -> Rng {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h)
    }

    /// Uniform in [-1, 1).
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// f32 → bf16, round to nearest even (values here are finite).
fn bf16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16) as u16
}

/// `model.safetensors` in bf16, as real checkpoints ship.
fn write_weights(path: &Path, arch: Arch) {
    let data: Vec<(String, Vec<usize>, Vec<u8>)> = tensors(arch)
        .into_iter()
        .map(|(name, shape, init)| {
            let n: usize = shape.iter().product();
            let fan_in: usize = shape[1..].iter().product::<usize>().max(1);
            let mut rng = Rng::for_name(&name);
            let bytes = (0..n)
                .map(|_| match init {
                    Init::Uniform(scale) => rng.next() * scale / (fan_in as f32).sqrt(),
                    Init::Ones => 1.0,
                    Init::Zeros => 0.0,
                })
                .flat_map(|x| bf16_bits(x).to_le_bytes())
                .collect();
            (name, shape, bytes)
        })
        .collect();
    let views: Vec<(&str, TensorView<'_>)> = data
        .iter()
        .map(|(name, shape, bytes)| {
            (
                name.as_str(),
                TensorView::new(Dtype::BF16, shape.clone(), bytes).unwrap(),
            )
        })
        .collect();
    let metadata = HashMap::from([("format".to_string(), "pt".to_string())]);
    safetensors::serialize_to_file(views, Some(metadata), path).unwrap();
}

/// Image tokens Qwen2(.5)-VL puts in the prompt for a `width`×`height` image,
/// from the model's `preprocessor_config.json`: the image is resized to
/// multiples of patch × merge pixels within [min_pixels, max_pixels]
/// (`smart_resize`), cut into patch × patch squares, and every merge × merge
/// of those becomes one token.
pub fn expected_image_tokens(dir: &Path, width: u32, height: u32) -> usize {
    let config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("preprocessor_config.json")).unwrap())
            .unwrap();
    let get = |k: &str| config[k].as_u64().unwrap() as f64;
    let (patch, merge) = (get("patch_size"), get("merge_size"));
    let (min_pixels, max_pixels) = (get("min_pixels"), get("max_pixels"));
    let factor = patch * merge;
    let (h, w) = (f64::from(height), f64::from(width));
    let (mut h_bar, mut w_bar) = ((h / factor).round() * factor, (w / factor).round() * factor);
    if h_bar * w_bar > max_pixels {
        let beta = (h * w / max_pixels).sqrt();
        h_bar = (h / beta / factor).floor() * factor;
        w_bar = (w / beta / factor).floor() * factor;
    } else if h_bar * w_bar < min_pixels {
        let beta = (min_pixels / (h * w)).sqrt();
        h_bar = (h * beta / factor).ceil() * factor;
        w_bar = (w * beta / factor).ceil() * factor;
    }
    let patches = (h_bar / patch) * (w_bar / patch);
    (patches / (merge * merge)) as usize
}
