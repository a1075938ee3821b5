//! The fidelity metric, with `llama-perplexity --kl-divergence`'s
//! definitions so that our numbers and llama.cpp's mean the same thing.
//!
//! - **The base file** is llama.cpp's: `_logits_`, `n_ctx`, `n_vocab`,
//!   `n_chunk`, every chunk's tokens, then for each chunk one record per
//!   scored position. A record holds the reference's log-softmax packed into
//!   `u16`s: logits below `max − 16` are clipped, the rest are scaled to
//!   0..65535 (`scale` and the minimum log-probability lead the record as two
//!   `f32`s). A base file we write can be scored by llama.cpp and the other
//!   way round.
//! - **Scored positions** are the second half of each chunk: the logits at
//!   `n_ctx/2 … n_ctx−2` predict the tokens after them, 255 per 512-token
//!   chunk.
//! - **Per position**: the KL divergence of the candidate from the decoded
//!   base over the base's unclipped entries; the negative log-likelihood of
//!   the next token under both; whether both put the same token first; and
//!   Δp, the candidate's probability of the next token minus the base's.
//! - **Over a run**: means with llama.cpp's uncertainty (`sqrt(var/(N−1))`),
//!   percentiles by linear interpolation, "Same top p" with its binomial
//!   uncertainty, RMS Δp, and the perplexity of both with their ratio.
//!
//! Note that the base is stored quantized, so a model scored against its own
//! base has a KL divergence of about 1e-6, not exactly 0; top-1 agreement is
//! 100 % unless two logits tie within one `u16` step.

use std::io::{self, Read, Write};

use droidscore_contract::stats::quantile;

/// The base file's magic, as llama.cpp writes it.
pub const MAGIC: &[u8; 8] = b"_logits_";
/// Logits further than this below the maximum are clipped in a record.
const CLIP: f32 = 16.0;

/// `u16`s in one record for a vocabulary of `n_vocab` (two `f32`s first).
pub fn record_len(n_vocab: usize) -> usize {
    2 * n_vocab.div_ceil(2) + 4
}

/// The first scored position of a chunk of `n_ctx` tokens.
pub fn first_scored(n_ctx: usize) -> usize {
    n_ctx / 2
}

/// Scored positions per chunk.
pub fn scored_per_chunk(n_ctx: usize) -> usize {
    n_ctx - 1 - first_scored(n_ctx)
}

/// Round half to even, as llama.cpp's `nearest_int` does.
fn nearest_int(x: f32) -> u16 {
    x.round_ties_even() as u16
}

/// Pack one position's logits into a record.
pub fn encode(logits: &[f32]) -> Vec<u16> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let min = logits
        .iter()
        .copied()
        .fold(f32::INFINITY, f32::min)
        .max(max - CLIP);
    let sum: f64 = logits.iter().map(|&l| f64::from(l - max).exp()).sum();
    let lse = sum.ln() as f32;
    let scale = (max - min) / 65535.0;
    let min_log_prob = min - max - lse;
    let mut out = vec![0u16; record_len(logits.len())];
    for (i, word) in scale
        .to_le_bytes()
        .chunks(2)
        .chain(min_log_prob.to_le_bytes().chunks(2))
        .enumerate()
    {
        out[i] = u16::from_le_bytes([word[0], word[1]]);
    }
    let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
    for (q, &l) in out[4..].iter_mut().zip(logits) {
        *q = if l > min {
            nearest_int((l - min) * inv)
        } else {
            0
        };
    }
    out
}

/// A record's `(scale, min_log_prob)`.
fn header(record: &[u16]) -> (f32, f32) {
    let word = |i: usize| record[i].to_le_bytes();
    let (a, b, c, d) = (word(0), word(1), word(2), word(3));
    (
        f32::from_le_bytes([a[0], a[1], b[0], b[1]]),
        f32::from_le_bytes([c[0], c[1], d[0], d[1]]),
    )
}

/// The base's log-probabilities, decoded (clipped entries at the floor).
pub fn decode(record: &[u16], n_vocab: usize) -> Vec<f32> {
    let (scale, min_log_prob) = header(record);
    record[4..4 + n_vocab]
        .iter()
        .map(|&q| scale * f32::from(q) + min_log_prob)
        .collect()
}

/// One scored position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position {
    pub kld: f64,
    /// −log p(next token) under the candidate and under the base.
    pub nll: f64,
    pub nll_base: f64,
    pub same_top: bool,
    /// p(next) under the candidate minus under the base.
    pub delta_p: f64,
}

/// First index of the strict maximum.
fn argmax(xs: &[f32]) -> usize {
    let mut best = 0;
    for (i, &x) in xs.iter().enumerate() {
        if x > xs[best] {
            best = i;
        }
    }
    best
}

/// Score the candidate's logits at one position against the base record,
/// `next` being the token that follows. A next token clipped in the record
/// (more than 16 below the base's maximum logit) gets the record's floor as
/// its base log-probability, as in llama.cpp.
pub fn score(record: &[u16], logits: &[f32], next: usize) -> Position {
    let base = decode(record, logits.len());
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let lse = logits
        .iter()
        .map(|&l| f64::from(l - max).exp())
        .sum::<f64>()
        .ln();
    let log_q = |i: usize| f64::from(logits[i] - max) - lse;
    let mut kld = 0.0;
    for (i, &b) in base.iter().enumerate() {
        // As llama.cpp: base log-probabilities at or below −16 are left out.
        if b > -CLIP {
            let b = f64::from(b);
            kld += b.exp() * (b - log_q(i));
        }
    }
    let nll = -log_q(next);
    let nll_base = -f64::from(base[next]);
    Position {
        kld,
        nll,
        nll_base,
        same_top: argmax(logits) == argmax(&base),
        delta_p: (-nll).exp() - (-nll_base).exp(),
    }
}

/// `(mean, uncertainty)` as llama.cpp computes them.
pub fn mean_and_uncertainty(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| x * x).sum::<f64>() / n - mean * mean;
    let unc = if var > 0.0 && xs.len() > 10 {
        (var / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (mean, unc)
}

/// A candidate against a base, over every scored position.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    pub positions: usize,
    pub kld_mean: f64,
    pub kld_uncertainty: f64,
    /// 99.9, 99, 95, 90, 50, 10, 5, 1, 0.1 and the extremes.
    pub kld_percentiles: Vec<(String, f64)>,
    pub same_top: f64,
    pub same_top_uncertainty: f64,
    pub rms_delta_p: f64,
    pub rms_delta_p_uncertainty: f64,
    pub ppl: f64,
    pub ppl_uncertainty: f64,
    pub ppl_base: f64,
    pub ppl_base_uncertainty: f64,
    /// ln(PPL / PPL base) and its uncertainty (with the covariance).
    pub ln_ppl_ratio: f64,
    pub ln_ppl_ratio_uncertainty: f64,
}

impl Summary {
    /// The closing lines of `llama-perplexity --kl-divergence`, in its
    /// words and order, for reading beside it.
    pub fn text(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("Scored positions:    {}\n", self.positions));
        out.push_str(&format!(
            "Mean PPL(Q):         {:.6} ± {:.6}\n",
            self.ppl, self.ppl_uncertainty
        ));
        out.push_str(&format!(
            "Mean PPL(base):      {:.6} ± {:.6}\n",
            self.ppl_base, self.ppl_base_uncertainty
        ));
        out.push_str(&format!(
            "Mean ln(PPL(Q)/PPL(base)): {:.6} ± {:.6}\n",
            self.ln_ppl_ratio, self.ln_ppl_ratio_uncertainty
        ));
        out.push_str(&format!(
            "Mean    KLD:         {:.6} ± {:.6}\n",
            self.kld_mean, self.kld_uncertainty
        ));
        for (name, v) in &self.kld_percentiles {
            let label = match name.as_str() {
                "max" => "Maximum KLD:".to_string(),
                "min" => "Minimum KLD:".to_string(),
                "median" => "Median  KLD:".to_string(),
                p => format!("{p:>5}%   KLD:"),
            };
            out.push_str(&format!("{label:<21}{v:.6}\n"));
        }
        out.push_str(&format!(
            "RMS Δp:              {:.3} ± {:.3} %\n",
            100.0 * self.rms_delta_p,
            100.0 * self.rms_delta_p_uncertainty
        ));
        out.push_str(&format!(
            "Same top p:          {:.3} ± {:.3} %\n",
            100.0 * self.same_top,
            100.0 * self.same_top_uncertainty
        ));
        out
    }
}

fn covariance(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    if a.len() < 10 {
        return 0.0;
    }
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let ab = a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() / n;
    (ab - ma * mb) / (n - 1.0)
}

pub fn summarize(positions: &[Position]) -> Summary {
    let col = |f: fn(&Position) -> f64| positions.iter().map(f).collect::<Vec<_>>();
    let kld = col(|p| p.kld);
    let nll = col(|p| p.nll);
    let nll_base = col(|p| p.nll_base);
    let dp2 = col(|p| p.delta_p * p.delta_p);
    let (kld_mean, kld_uncertainty) = mean_and_uncertainty(&kld);
    let mut sorted = kld.clone();
    sorted.sort_by(f64::total_cmp);
    let kld_percentiles = [
        ("max", 1.0),
        ("99.9", 0.999),
        ("99", 0.99),
        ("95", 0.95),
        ("90", 0.90),
        ("median", 0.5),
        ("10", 0.10),
        ("5", 0.05),
        ("1", 0.01),
        ("0.1", 0.001),
        ("min", 0.0),
    ]
    .iter()
    .map(|&(name, frac)| (name.to_string(), quantile(&sorted, frac)))
    .collect();
    let n = positions.len() as f64;
    let same_top = positions.iter().filter(|p| p.same_top).count() as f64 / n;
    let (mean_dp2, unc_dp2) = mean_and_uncertainty(&dp2);
    let rms_delta_p = mean_dp2.sqrt();
    let (f_q, u_q) = mean_and_uncertainty(&nll);
    let (f_b, u_b) = mean_and_uncertainty(&nll_base);
    let cov = covariance(&nll, &nll_base);
    let (ppl, ppl_base) = (f_q.exp(), f_b.exp());
    Summary {
        positions: positions.len(),
        kld_mean,
        kld_uncertainty,
        kld_percentiles,
        same_top,
        same_top_uncertainty: (same_top * (1.0 - same_top) / (n - 1.0)).sqrt(),
        rms_delta_p,
        rms_delta_p_uncertainty: if rms_delta_p > 0.0 {
            0.5 / rms_delta_p * unc_dp2
        } else {
            0.0
        },
        ppl,
        ppl_uncertainty: ppl * u_q,
        ppl_base,
        ppl_base_uncertainty: ppl_base * u_b,
        ln_ppl_ratio: f_q - f_b,
        ln_ppl_ratio_uncertainty: (u_q * u_q + u_b * u_b - 2.0 * cov).max(0.0).sqrt(),
    }
}

/// A base file's header and tokens; the records follow them on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseHeader {
    pub n_ctx: usize,
    pub n_vocab: usize,
    pub n_chunk: usize,
    /// `n_chunk × n_ctx` tokens.
    pub tokens: Vec<u32>,
}

fn bad(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

impl BaseHeader {
    pub fn write(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(MAGIC)?;
        for v in [self.n_ctx, self.n_vocab, self.n_chunk] {
            let v = i32::try_from(v).map_err(|_| bad(format!("{v} does not fit an int32")))?;
            w.write_all(&v.to_le_bytes())?;
        }
        for &t in &self.tokens {
            w.write_all(&(t as i32).to_le_bytes())?;
        }
        Ok(())
    }

    pub fn read(r: &mut impl Read) -> io::Result<BaseHeader> {
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)?;
        if &magic != MAGIC {
            return Err(bad(format!(
                "not a logits base file: it starts {magic:?}, not \"_logits_\""
            )));
        }
        let mut int = || -> io::Result<usize> {
            let mut b = [0u8; 4];
            r.read_exact(&mut b)?;
            usize::try_from(i32::from_le_bytes(b))
                .map_err(|_| bad("a negative size in the header".into()))
        };
        let (n_ctx, n_vocab, n_chunk) = (int()?, int()?, int()?);
        let tokens = (0..n_ctx * n_chunk)
            .map(|_| int().map(|t| t as u32))
            .collect::<io::Result<_>>()?;
        Ok(BaseHeader {
            n_ctx,
            n_vocab,
            n_chunk,
            tokens,
        })
    }
}

pub fn write_record(w: &mut impl Write, record: &[u16]) -> io::Result<()> {
    let bytes: Vec<u8> = record.iter().flat_map(|q| q.to_le_bytes()).collect();
    w.write_all(&bytes)
}

pub fn read_record(r: &mut impl Read, n_vocab: usize) -> io::Result<Vec<u16>> {
    let mut bytes = vec![0u8; 2 * record_len(n_vocab)];
    r.read_exact(&mut bytes)?;
    Ok(bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random logits.
    fn logits(seed: u64, n: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) as f32 / (1u64 << 31) as f32) * 20.0 - 10.0
            })
            .collect()
    }

    fn log_softmax(l: &[f32]) -> Vec<f64> {
        let max = l.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let lse = l
            .iter()
            .map(|&x| f64::from(x - max).exp())
            .sum::<f64>()
            .ln();
        l.iter().map(|&x| f64::from(x - max) - lse).collect()
    }

    #[test]
    fn a_record_decodes_to_the_log_softmax_within_one_step() {
        let l = logits(1, 1001);
        let rec = encode(&l);
        assert_eq!(rec.len(), 1006);
        let (scale, _) = header(&rec);
        let exact = log_softmax(&l);
        let max = l.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        for (i, d) in decode(&rec, l.len()).iter().enumerate() {
            if l[i] > max - CLIP {
                assert!(
                    (f64::from(*d) - exact[i]).abs() <= f64::from(scale) * 0.51 + 1e-5,
                    "entry {i}: {d} vs {}",
                    exact[i]
                );
            }
        }
    }

    #[test]
    fn a_model_against_its_own_base_has_near_zero_kld_and_full_top1_agreement() {
        let positions: Vec<Position> = (0..200)
            .map(|s| {
                let l = logits(s, 500);
                // A next token inside the record's 16-nat window: below it
                // the base's log-probability is floored (as in llama.cpp),
                // and its perplexity with it.
                let next = (0..500).find(|&i| l[i] > 5.0).unwrap();
                score(&encode(&l), &l, next)
            })
            .collect();
        let s = summarize(&positions);
        assert!(s.kld_mean.abs() < 1e-5, "{}", s.kld_mean);
        assert_eq!(s.same_top, 1.0);
        assert!(s.ln_ppl_ratio.abs() < 1e-3, "{}", s.ln_ppl_ratio);
    }

    #[test]
    fn a_perturbed_candidate_has_larger_kld_than_a_slightly_perturbed_one() {
        let run = |amount: f32| {
            let positions: Vec<Position> = (0..200)
                .map(|s| {
                    let l = logits(s, 500);
                    let noise = logits(s + 10_000, 500);
                    let c: Vec<f32> = l.iter().zip(&noise).map(|(a, n)| a + amount * n).collect();
                    score(&encode(&l), &c, 3)
                })
                .collect();
            summarize(&positions)
        };
        let (small, large) = (run(0.01), run(0.3));
        assert!(small.kld_mean > 0.0);
        assert!(
            large.kld_mean > small.kld_mean + 10.0 * large.kld_uncertainty,
            "{} vs {}",
            large.kld_mean,
            small.kld_mean
        );
        assert!(large.same_top < 1.0);
    }

    #[test]
    fn the_base_file_round_trips() {
        let header = BaseHeader {
            n_ctx: 8,
            n_vocab: 5,
            n_chunk: 2,
            tokens: (0..16).collect(),
        };
        let records: Vec<Vec<u16>> = (0..6).map(|s| encode(&logits(s, 5))).collect();
        let mut buf = Vec::new();
        header.write(&mut buf).unwrap();
        for r in &records {
            write_record(&mut buf, r).unwrap();
        }
        assert_eq!(&buf[..8], MAGIC);
        let mut rd = buf.as_slice();
        assert_eq!(BaseHeader::read(&mut rd).unwrap(), header);
        for r in &records {
            assert_eq!(&read_record(&mut rd, 5).unwrap(), r);
        }
        assert!(rd.is_empty());
    }

    #[test]
    fn scored_positions_are_the_second_half_of_each_chunk() {
        assert_eq!(first_scored(512), 256);
        assert_eq!(scored_per_chunk(512), 255);
    }

    #[test]
    fn uncertainty_and_percentiles_follow_llama_cpp() {
        let xs: Vec<f64> = (1..=11).map(f64::from).collect();
        let (m, u) = mean_and_uncertainty(&xs);
        assert_eq!(m, 6.0);
        // var = E[x²] − m² = 46 − 36 = 10; unc = sqrt(10 / 10) = 1.
        assert!((u - 1.0).abs() < 1e-12);
        assert_eq!(quantile(&xs, 0.5), 6.0);
        assert_eq!(quantile(&xs, 0.95), 10.5);
    }
}
