//! The facts the host (`droidscore`) and the device server
//! (`droidscore-device`) must agree on, in one place so they cannot drift:
//! where models are cached, which models there are by name ([`models`]),
//! what `/health` answers ([`health`]), what `droidscore-device speed`
//! prints and `droidscore bench` reads ([`speed`]), and how a sample becomes
//! a figure ([`stats`]), and where a figure came from ([`provenance`]).
//! Data only: serde, no mistral.rs, no async runtime
//! and no HTTP client, so the host stays light.

pub mod health;
mod located;
pub mod models;
pub mod provenance;
pub mod speed;

use std::path::PathBuf;

pub use models::DEFAULT_MODEL;

/// The cache directory: `DROIDSCORE_CACHE`, else `$XDG_CACHE_HOME/droidscore`,
/// else `~/.cache/droidscore`. `droidscore-device fetch-model` puts models
/// here and the host looks for them here.
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

/// Statistics of a sample of figures (latencies, tokens a second, bytes).
pub mod stats {
    /// The median of `xs` in any order (the mean of the middle two for an
    /// even count); NaN for an empty sample.
    pub fn median(xs: &[f64]) -> f64 {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }

    /// The q-quantile (0 ≤ q ≤ 1) of values sorted ascending, interpolating
    /// linearly between ranks (the "type 7" rule of R and NumPy), so
    /// `quantile(v, 0.5)` is `median(v)`; NaN for an empty sample.
    pub fn quantile(sorted: &[f64], q: f64) -> f64 {
        if sorted.is_empty() {
            return f64::NAN;
        }
        let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
    }

    /// The arithmetic mean and the sample (n − 1) standard deviation; NaN
    /// for an empty sample, a deviation of 0 for one figure.
    pub fn mean_stddev(xs: &[f64]) -> (f64, f64) {
        if xs.is_empty() {
            return (f64::NAN, f64::NAN);
        }
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        if xs.len() < 2 {
            return (mean, 0.0);
        }
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var.sqrt())
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn median_of_odd_even_unsorted_and_empty_samples() {
            assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
            assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
            assert!(median(&[]).is_nan());
        }

        #[test]
        fn quantiles_interpolate_between_ranks() {
            let v = [1.0, 2.0, 3.0, 4.0];
            assert_eq!(quantile(&v, 0.5), median(&v));
            assert_eq!(quantile(&v, 0.0), 1.0);
            assert_eq!(quantile(&v, 1.0), 4.0);
            // Position 0.9 × 3 = 2.7: 3 + 0.7 × (4 − 3).
            assert!((quantile(&v, 0.9) - 3.7).abs() < 1e-12);
            assert_eq!(quantile(&[7.0], 0.9), 7.0);
            assert!(quantile(&[], 0.5).is_nan());
        }

        #[test]
        fn mean_and_sample_deviation() {
            let (mean, sd) = mean_stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
            assert_eq!(mean, 5.0);
            // Sum of squares 32 over n − 1 = 7.
            assert!((sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
            assert_eq!(mean_stddev(&[1.5]), (1.5, 0.0));
            assert!(mean_stddev(&[]).0.is_nan());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_directory_follows_the_environment() {
        // One test owns these variables: tests in a binary share a process.
        std::env::set_var("DROIDSCORE_CACHE", "/x/cache");
        assert_eq!(cache_dir(), PathBuf::from("/x/cache"));
        std::env::remove_var("DROIDSCORE_CACHE");
        std::env::set_var("XDG_CACHE_HOME", "/x/xdg");
        assert_eq!(cache_dir(), PathBuf::from("/x/xdg/droidscore"));
        std::env::remove_var("XDG_CACHE_HOME");
        std::env::set_var("HOME", "/x/home");
        assert_eq!(cache_dir(), PathBuf::from("/x/home/.cache/droidscore"));
    }
}
