//! The fidelity probe and the quantizer on the default model (fetched by
//! the test command): `logits` writes a base file that reads back; `kld` of
//! the model against its own base is zero with every top token agreeing; a
//! candidate whose output head was perturbed scores a larger KLD than the
//! same layout unperturbed; `quantize` keeps every tensor and the metadata,
//! falls back where Q4K's block does not divide a row, and `--quant` runs
//! the re-quantized file from a cache keyed on the configuration.
//! Without the default model in the cache these tests fail, saying so.

mod support;

use std::path::{Path, PathBuf};

use candle_core::quantized::{gguf_file, GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use droidscore_device::exit;
use droidscore_device::kld;
use support::env::{default_model, text, TestCommand, TestEnv};

/// Prose written for this test, long enough for two 128-token chunks.
const TEXT: &str = "\
A phone agent reads the screen as a tree of views. Each view has a class, \
a resource id, a text or a content description, and the bounds it occupies \
on the display. The agent picks one action at a time: tap a point, type a \
string, swipe between two points, press Back or Home, or say that it is \
done. The harness does not believe the agent when it says it is done. It \
asks the phone instead. If the task was to turn on Wi-Fi, the answer is in \
the global settings table, and nothing the agent wrote changes it. If the \
task was to rename a contact, the answer is in the contacts provider. When \
no setting holds the answer, the harness reads the final view tree and \
looks for the element the task describes. A task also has variants. In one \
the switch is called Wireless instead of Wi-Fi; in another the rows of the \
settings list come in a different order; in a third a decoy row looks like \
the right one but leads somewhere else. An agent that learned one screen \
by heart fails the variants, and that is the point of having them. The \
model behind the agent runs on the phone's own processor. It has to be \
small, and it has to be quantized: four bits per weight instead of sixteen \
or thirty-two. Quantization saves memory and time, but it moves the \
model's predictions. How far they move is measured by comparing the \
probabilities the quantized model gives to every token of its vocabulary \
with those of the reference model, position by position, over a text like \
this one. The measure is the Kullback-Leibler divergence, averaged over \
the positions in the second half of each chunk, and the share of positions \
where both models put the same token first.";

/// Runs `command`, expecting it to succeed, and parses its last line of stdout.
fn run_json(command: &mut TestCommand) -> serde_json::Value {
    let out = command.ok();
    let stdout = text(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", text(&out.stderr)))
}

/// `logits` of `model` over TEXT in two chunks of 128 into `base.kld` in the env.
fn write_base(env: &TestEnv, model: &Path) -> (PathBuf, serde_json::Value) {
    let text = env.write("text.txt", TEXT);
    let base = env.join("base.kld");
    let out = run_json(
        env.device()
            .args(["logits", "-m"])
            .arg(model)
            .arg("-f")
            .arg(&text)
            .args(["-c", "128", "--chunks", "2", "-t", "2", "--out"])
            .arg(&base),
    );
    (base, out)
}

fn kld_of(env: &TestEnv, model: &Path, base: &Path, extra: &[&str]) -> serde_json::Value {
    run_json(
        env.device()
            .args(["kld", "-m"])
            .arg(model)
            .arg("--base")
            .arg(base)
            .args(["-t", "2", "-o", "json"])
            .args(extra),
    )
}

fn f(v: &serde_json::Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing: {v}"))
}

#[test]
fn a_model_scored_against_its_own_base_file_has_zero_kld_and_the_same_top_token_everywhere() {
    let model = default_model();
    let env = TestEnv::new("fidelity-self");
    let (base, written) = write_base(&env, &model);
    assert_eq!(written["n_ctx"], 128);
    assert_eq!(written["n_chunk"], 2);
    assert_eq!(written["n_vocab"], 49152);
    assert_eq!(written["scored_positions"], 126);

    // The base file reads back: the header, the tokens, then exactly one
    // record per scored position and nothing after.
    let bytes = std::fs::read(&base).unwrap();
    let mut r = std::io::Cursor::new(&bytes);
    let header = kld::BaseHeader::read(&mut r).unwrap();
    assert_eq!(
        (header.n_ctx, header.n_vocab, header.n_chunk),
        (128, 49152, 2)
    );
    assert_eq!(header.tokens.len(), 256);
    assert!(header.tokens.iter().all(|&t| t < 49152));
    let mut again = Vec::new();
    header.write(&mut again).unwrap();
    assert_eq!(
        &bytes[..again.len()],
        &again[..],
        "the header re-encodes to the same bytes"
    );
    let records = 2 * kld::scored_per_chunk(128);
    assert_eq!(
        bytes.len(),
        again.len() + records * 2 * kld::record_len(49152),
        "one record per scored position"
    );
    for _ in 0..records {
        let record = kld::read_record(&mut r, 49152).unwrap();
        let logp = kld::decode(&record, 49152);
        // A record decodes to a distribution: its clipped tail is small.
        let mass: f64 = logp.iter().map(|&l| f64::from(l).exp()).sum();
        assert!((0.99..1.01).contains(&mass), "probability mass {mass}");
    }

    let scored = kld_of(&env, &model, &base, &[]);
    assert_eq!(scored["positions"], 126);
    assert!(f(&scored, "kld_mean").abs() < 1e-4, "{scored}");
    assert_eq!(f(&scored, "same_top"), 1.0, "{scored}");
    assert!(f(&scored, "ln_ppl_ratio").abs() < 1e-4, "{scored}");
    // Each position is scored on the token after it: on this prose the
    // model's perplexity is about 42; scored on the token at the position
    // itself (an off-by-one), it would be in the thousands.
    let ppl = f(&scored, "ppl_base");
    assert!((1.0..100.0).contains(&ppl), "{scored}");
    assert_eq!(scored["model"]["quantization"], "Q4_1");
}

/// Small deterministic noise, uniform in [−1, 1).
fn noise(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// The default model with an explicit `output.weight`: the tied embedding
/// plus `scale` × its standard deviation × uniform noise (0: a plain copy).
fn with_output_head(model: &Path, out: &Path, scale: f32) {
    let mut file = std::io::BufReader::new(std::fs::File::open(model).unwrap());
    let content = gguf_file::Content::read(&mut file).unwrap();
    assert!(!content.tensor_infos.contains_key("output.weight"));
    let mut names: Vec<_> = content.tensor_infos.iter().collect();
    names.sort_by_key(|(_, i)| i.offset);
    let mut tensors: Vec<(String, QTensor)> = names
        .iter()
        .map(|(n, _)| {
            let t = content.tensor(&mut file, n, &Device::Cpu).unwrap();
            (n.to_string(), t)
        })
        .collect();
    let embd = &tensors
        .iter()
        .find(|(n, _)| n == "token_embd.weight")
        .unwrap()
        .1;
    let w = embd.dequantize(&Device::Cpu).unwrap();
    let head = if scale == 0.0 {
        w
    } else {
        let std = w
            .sqr()
            .unwrap()
            .mean_all()
            .unwrap()
            .to_scalar::<f32>()
            .unwrap()
            .sqrt();
        let n = w.elem_count();
        let delta = Tensor::from_vec(noise(n, 7), w.shape(), &Device::Cpu).unwrap();
        (w + (delta * f64::from(scale * std)).unwrap()).unwrap()
    };
    let head = QTensor::quantize(&head, GgmlDType::Q8_0).unwrap();
    tensors.push(("output.weight".into(), head));
    let mut md: Vec<_> = content.metadata.iter().collect();
    md.sort_by(|a, b| a.0.cmp(b.0));
    let md: Vec<(&str, &gguf_file::Value)> = md.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let ts: Vec<(&str, &QTensor)> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let mut w = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    gguf_file::write(&mut w, &md, &ts).unwrap();
}

#[test]
fn a_perturbed_output_head_scores_a_larger_kld_than_the_same_head_unperturbed() {
    let model = default_model();
    let env = TestEnv::new("fidelity-head");
    let (base, _) = write_base(&env, &model);
    let copy = env.join("untied-copy.gguf");
    let perturbed = env.join("untied-perturbed.gguf");
    with_output_head(&model, &copy, 0.0);
    with_output_head(&model, &perturbed, 0.5);

    let same = kld_of(&env, &copy, &base, &[]);
    let moved = kld_of(&env, &perturbed, &base, &[]);
    assert_eq!(same["model"]["layout"]["output_head"], "output.weight");
    assert_eq!(same["model"]["layout"]["tied_embeddings"], false);
    // The copy differs from the base only by Q8_0 rounding of a Q8_0 head.
    assert!(f(&same, "kld_mean") < 1e-3, "{same}");
    let (k_same, u_same) = (f(&same, "kld_mean"), f(&same, "kld_uncertainty"));
    let (k_moved, u_moved) = (f(&moved, "kld_mean"), f(&moved, "kld_uncertainty"));
    assert!(
        k_moved - k_same > 5.0 * (u_same + u_moved),
        "perturbed {k_moved} ± {u_moved} is not clearly above unperturbed {k_same} ± {u_same}"
    );
    assert!(f(&moved, "same_top") < f(&same, "same_top"), "{moved}");
}

#[test]
fn quantize_keeps_every_tensor_and_the_metadata_and_names_each_fallback() {
    let model = default_model();
    let env = TestEnv::new("fidelity-quantize");
    let out = env.join("q4k-no.gguf");
    let report = run_json(
        env.device()
            .args(["quantize", "--in"])
            .arg(&model)
            .arg("--out")
            .arg(&out)
            .args(["--type", "q4k", "--keep-output", "no", "--json"]),
    );
    let tensors = report["tensors"].as_array().unwrap();
    assert_eq!(tensors.len(), 272);
    // SmolLM2's rows are 576 wide except ffn_down's 1536: only those fit
    // Q4K's 256-wide blocks, and every other matrix says why it did not.
    for t in tensors {
        let name = t["name"].as_str().unwrap();
        let rank = t["shape"].as_array().unwrap().len();
        let to = t["to"].as_str().unwrap();
        if rank == 1 {
            assert_eq!(to, "F32", "{t}");
        } else if name.ends_with("ffn_down.weight") {
            assert_eq!(to, "Q4_K", "{t}");
            assert!(t["fallback"].is_null(), "{t}");
        } else {
            assert_eq!(to, "Q4_0", "{t}");
            assert!(t["fallback"].as_str().unwrap().contains("576"), "{t}");
        }
    }
    let layout = &report["layout"];
    assert_eq!(layout["output_head"], "token_embd.weight");
    assert_eq!(layout["output_head_type"], "Q4_0");
    assert_eq!(layout["by_type"]["Q4_K"]["tensors"], 30);
    // Q4_0 and Q4_K both pack 4.5 bits (18 bytes per 32, 144 per 256).
    assert!(
        (f(layout, "matrix_bytes_per_weight") - 0.5625).abs() < 1e-9,
        "{layout}"
    );

    // Every tensor keeps its name and shape, and every metadata value but
    // the file type (and our provenance key) is unchanged — the vocabulary
    // and merges included.
    let read = |p: &Path| {
        let mut f = std::io::BufReader::new(std::fs::File::open(p).unwrap());
        gguf_file::Content::read(&mut f).unwrap()
    };
    let (a, b) = (read(&model), read(&out));
    assert_eq!(a.tensor_infos.len(), b.tensor_infos.len());
    for (name, info) in &a.tensor_infos {
        assert_eq!(info.shape, b.tensor_infos[name].shape, "{name}");
    }
    for (key, value) in &a.metadata {
        if key == "general.file_type" {
            continue;
        }
        assert_eq!(
            format!("{value:?}"),
            format!("{:?}", b.metadata[key]),
            "metadata {key} changed"
        );
    }
    assert!(b.metadata["droidscore.quantize"]
        .to_string()
        .unwrap()
        .contains("body q4k, output head no"));
}

#[test]
fn the_quant_path_is_a_load_option_cached_per_configuration_and_recorded() {
    let model = default_model();
    let env = TestEnv::new("fidelity-path");
    let (base, _) = write_base(&env, &model);
    let first = kld_of(
        &env,
        &model,
        &base,
        &["--quant", "q8_0", "--keep-output", "same"],
    );
    let again = kld_of(
        &env,
        &model,
        &base,
        &["--quant", "q8_0", "--keep-output", "same"],
    );
    let other = kld_of(
        &env,
        &model,
        &base,
        &["--quant", "q8_0", "--keep-output", "f16"],
    );
    let r = |v: &serde_json::Value| v["model"]["requantized"].clone();
    assert_eq!(r(&first)["target"], "q8_0");
    assert_eq!(r(&first)["keep_output"], "same");
    assert_eq!(r(&first)["written_now"], true);
    assert_eq!(
        r(&again)["written_now"],
        false,
        "the second run reuses the file"
    );
    assert_eq!(r(&first)["file"], r(&again)["file"]);
    assert_ne!(
        r(&first)["file"],
        r(&other)["file"],
        "another head, another file"
    );
    assert!(r(&first)["file"]
        .as_str()
        .unwrap()
        .starts_with(env.cache().join("quantized").to_str().unwrap()));
    assert_eq!(first["model"]["layout"]["output_head_type"], "Q8_0");
    assert_eq!(other["model"]["layout"]["output_head_type"], "F16");
    assert_eq!(first["model"]["quantization"], "Q8_0");
    // Q4_1 weights re-quantized to Q8_0 move the model very little.
    assert!(f(&first, "kld_mean") < 0.01, "{first}");

    // --keep-output without --quant would be a silent no-op: refused.
    let out = env
        .device()
        .args(["kld", "--keep-output", "q8_0", "-m"])
        .arg(&model)
        .arg("--base")
        .arg(&base)
        .code(exit::FAILED);
    let err = text(&out.stderr);
    assert!(
        err.contains("--keep-output") && err.contains("--quant"),
        "{err}"
    );
}

/// `tokenize` goes through the loaded model's own tokenize request, so its
/// ids are the server's. SmolLM2 was trained with GPT-2's split (`smollm`):
/// "\n\n" is Ċ Ċ (198 198); mistral.rs's own tokenizer makes it ĊĊ (1116).
#[test]
fn tokenize_prints_the_servers_ids_split_as_the_model_was_trained() {
    let model = default_model();
    let env = TestEnv::new("fidelity-tokenize");
    let file = env.write("t.txt", "a\n\nb");
    let ids = |flags: &[&str]| {
        let out = env
            .device()
            .arg("tokenize")
            .args(flags)
            .arg("-m")
            .arg(&model)
            .arg(&file)
            .ok();
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(ids(&[]), "81\n198\n198\n82\n");
    assert_eq!(ids(&["--json"]), "[81,198,198,82]\n");
    assert_eq!(ids(&["--tokenizer", "mistralrs"]), "81\n1116\n82\n");
}
