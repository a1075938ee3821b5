//! The prefix cache kept to a byte budget, and the bookkeeping that makes
//! that possible and reports what it saved.
//!
//! mistral.rs 0.8.1's prefix cacher (`PrefixCacheManagerV2`,
//! `prefix_cacher.rs`) keeps a full KV cache for every finished sequence,
//! keyed on all its tokens (prompt and generated), and on the CPU never lets
//! one go: `evict_caches` counts only caches on other devices, and
//! `evict_all_caches` runs only when a forward pass fails. Nothing public
//! clears it; dropping the engine that owns it does (`runner.rs`).
//!
//! So [`Mirror`] replays the cacher's bookkeeping from outside: the same keys
//! in the same order, the capacity each entry's KV tensors were allocated
//! with (they grow in blocks of [`GROW`] tokens), and the same lookup rule
//! (`search_for_matching_cache`), which gives every response the number of
//! prompt tokens mistral.rs took from the cache. [`PrefixCache`] holds the
//! mirror, the budget and the counters `/health` reports; when the next
//! entry would take the held bytes past the budget, the engine is replaced
//! with a fresh one and the mirror cleared (a *reset*). Entries cannot be
//! dropped one at a time, so a reset drops them all; the agent reuses the
//! newest entry (consecutive steps share the system prompt and goal), and a
//! reset costs the request after it that reuse, which
//! `cached_tokens_lost_to_resets` counts.

use serde::Serialize;

/// The default budget (`serve --prefix-cache-mib`): for the default model
/// (45 KiB a token in f32) two ~750-token agent steps, or five of under 512.
pub const DEFAULT_BUDGET_MIB: u64 = 128;

/// mistral.rs's KV cache block (`NormalCache::CACHE_GROW_SIZE`): a sequence's
/// cache is allocated for its prompt rounded up to this, and grows by it.
pub const GROW: usize = 512;

/// Tokens a KV cache of `len` tokens is allocated for.
pub fn capacity_for(len: usize) -> usize {
    len.max(1).div_ceil(GROW) * GROW
}

/// The shape of one token's keys and values, over every layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KvGeometry {
    pub layers: usize,
    pub kv_heads: usize,
    pub k_head_dim: usize,
    pub v_head_dim: usize,
    /// Bytes per element of the activation dtype the cache is kept in.
    pub dtype_bytes: usize,
}

impl KvGeometry {
    pub fn bytes_per_token(&self) -> u64 {
        (self.layers * self.kv_heads * (self.k_head_dim + self.v_head_dim) * self.dtype_bytes)
            as u64
    }

    /// From a GGUF header's `{arch}.block_count`, `{arch}.attention.*` keys.
    pub fn from_gguf(header: &crate::gguf::Header, dtype_bytes: usize) -> Option<KvGeometry> {
        let arch = header.architecture()?;
        let int = |key: &str| {
            header
                .get(&format!("{arch}.{key}"))
                .and_then(|v| v.as_int())
                .and_then(|v| usize::try_from(v).ok())
        };
        let layers = int("block_count")?;
        let heads = int("attention.head_count")?;
        let kv_heads = int("attention.head_count_kv").unwrap_or(heads);
        let head_dim =
            int("attention.key_length").or_else(|| Some(int("embedding_length")? / heads));
        let k_head_dim = head_dim?;
        let v_head_dim = int("attention.value_length").unwrap_or(k_head_dim);
        Some(KvGeometry {
            layers,
            kv_heads,
            k_head_dim,
            v_head_dim,
            dtype_bytes,
        })
    }

    /// From a safetensors model's config.json (its `text_config` if it has one).
    pub fn from_config(config: &serde_json::Value, dtype_bytes: usize) -> Option<KvGeometry> {
        let text = config.get("text_config").unwrap_or(config);
        let int = |key: &str| {
            text.get(key)
                .or_else(|| config.get(key))
                .and_then(|v| v.as_u64())
                .map(|v| v as usize)
        };
        let layers = int("num_hidden_layers")?;
        let heads = int("num_attention_heads")?;
        let kv_heads = int("num_key_value_heads").unwrap_or(heads);
        let head_dim = int("head_dim").or_else(|| Some(int("hidden_size")? / heads))?;
        Some(KvGeometry {
            layers,
            kv_heads,
            k_head_dim: head_dim,
            v_head_dim: head_dim,
            dtype_bytes,
        })
    }
}

/// What one cache entry is keyed on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Tokens(Vec<u32>),
    /// A sequence whose tokens are not known here (a prompt with images:
    /// mistral.rs's processor expands them into image tokens).
    Opaque,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    key: Key,
    capacity: usize,
}

/// A prompt's match in the cache, as mistral.rs finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// Prompt tokens whose keys and values come from the cache.
    pub tokens: usize,
    /// The capacity of the entry they come from (the new sequence's cache
    /// starts as a copy of it).
    pub capacity: usize,
}

/// mistral.rs's prefix-cache entries, replayed.
#[derive(Debug, Clone, Default)]
pub struct Mirror {
    entries: Vec<Entry>,
}

impl Mirror {
    /// `search_for_matching_cache` for a text prompt: over the entries in
    /// insertion order, the longest shared token prefix (the first of equal
    /// lengths) among those whose capacity can be rewound to it; a match of
    /// zero tokens is none, and so is a match of the whole prompt (there
    /// would be nothing left to compute, and 0.8.1 then reuses nothing).
    /// `Err(())` when an opaque entry could be the match.
    #[allow(clippy::result_unit_err)]
    pub fn lookup(&self, prompt: &[u32]) -> Result<Option<Hit>, ()> {
        if self.entries.iter().any(|e| e.key == Key::Opaque) {
            return Err(());
        }
        let mut best: Option<Hit> = None;
        for entry in &self.entries {
            let Key::Tokens(key) = &entry.key else {
                continue;
            };
            let shared = key.iter().zip(prompt).take_while(|(a, b)| a == b).count();
            // `can_rewind_to`: SingleCache::try_set_len checks the
            // capacity only, not how many positions were filled.
            if shared == 0 || shared > entry.capacity {
                continue;
            }
            if best.is_none_or(|b| shared > b.tokens) {
                best = Some(Hit {
                    tokens: shared,
                    capacity: entry.capacity,
                });
            }
        }
        Ok(best.filter(|b| b.tokens < prompt.len()))
    }

    /// `add_sequence`: an `IndexMap::insert`, so a key already held keeps
    /// its place and takes the new cache.
    pub fn insert(&mut self, tokens: Vec<u32>, capacity: usize) {
        let key = Key::Tokens(tokens);
        match self.entries.iter_mut().find(|e| e.key == key) {
            Some(entry) => entry.capacity = capacity,
            None => self.entries.push(Entry { key, capacity }),
        }
    }

    pub fn insert_opaque(&mut self, capacity: usize) {
        self.entries.push(Entry {
            key: Key::Opaque,
            capacity,
        });
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Tokens of KV capacity held, over every entry.
    pub fn capacity(&self) -> usize {
        self.entries.iter().map(|e| e.capacity).sum()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

/// The KV capacity a finished sequence's cache entry holds: its cache
/// started at the hit entry's capacity (a copy of it) or at the prompt's
/// (`capacity_for(prompt)`, the preallocated cache), and grew in blocks to
/// fit every token fed through the model — all but the last one sampled.
pub fn entry_capacity(prompt: usize, generated: usize, hit: Option<Hit>) -> usize {
    let start = hit.map_or(capacity_for(prompt), |h| h.capacity);
    let fed = prompt + generated.saturating_sub(1);
    start.max(capacity_for(fed))
}

/// The counters `/health` reports under `prefix_cache`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counters {
    /// Chat completions answered (the warm-up included).
    pub requests: u64,
    pub prompt_tokens: u64,
    /// Prompt tokens whose keys and values came from the cache.
    pub cached_tokens: u64,
    /// Prompt tokens run through the model: `prompt_tokens − cached_tokens`.
    pub computed_tokens: u64,
    /// Requests that reused a cached prefix, as mistral.rs itself counts
    /// them (its `IntervalLogger`), summed over every engine.
    pub engine_hits: u64,
    /// Requests where this bookkeeping and mistral.rs disagreed on whether
    /// the cache was hit (expected 0; the response then reports mistral.rs's
    /// verdict).
    pub mismatches: u64,
    /// Times the cache was emptied (a fresh engine).
    pub resets: u64,
    /// Prompt tokens that would have come from the cache had a reset not
    /// emptied it just before their request.
    pub cached_tokens_lost_to_resets: u64,
    /// Requests whose cached tokens could not be known (images in the cache).
    pub unknown: u64,
}

/// The prefix cache's state: whether mistral.rs keeps one for this model,
/// the budget, the mirror of what it holds, and the counters.
#[derive(Debug, Clone)]
pub struct PrefixCache {
    pub enabled: bool,
    /// Why it is off, when it is.
    pub off_because: Option<String>,
    pub budget_bytes: u64,
    pub geometry: Option<KvGeometry>,
    pub mirror: Mirror,
    pub counters: Counters,
}

/// `/health`'s `prefix_cache` object.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub enabled: bool,
    pub off_because: Option<String>,
    pub budget_bytes: u64,
    pub bytes_per_token: Option<u64>,
    pub kv: Option<KvGeometry>,
    pub entries: usize,
    pub bytes_held: u64,
    #[serde(flatten)]
    pub counters: Counters,
}

impl PrefixCache {
    pub fn new(
        enabled: bool,
        off_because: Option<String>,
        budget_bytes: u64,
        geometry: Option<KvGeometry>,
    ) -> PrefixCache {
        PrefixCache {
            enabled,
            off_because,
            budget_bytes,
            geometry,
            mirror: Mirror::default(),
            counters: Counters::default(),
        }
    }

    fn bytes(&self, tokens: usize) -> u64 {
        self.geometry
            .map_or(0, |g| g.bytes_per_token() * tokens as u64)
    }

    pub fn bytes_held(&self) -> u64 {
        self.bytes(self.mirror.capacity())
    }

    /// Whether a request whose entry will hold about `capacity` tokens must
    /// find the cache emptied first, so that what is held stays within the
    /// budget.
    pub fn must_reset_before(&self, capacity: usize) -> bool {
        self.enabled
            && !self.mirror.is_empty()
            && self.bytes_held() + self.bytes(capacity) > self.budget_bytes
    }

    /// Whether what is held is over the budget now (an entry larger than
    /// foreseen, or larger than the whole budget).
    pub fn over_budget(&self) -> bool {
        self.enabled && self.bytes_held() > self.budget_bytes
    }

    pub fn report(&self) -> Report {
        Report {
            enabled: self.enabled,
            off_because: self.off_because.clone(),
            budget_bytes: self.budget_bytes,
            bytes_per_token: self.geometry.map(|g| g.bytes_per_token()),
            kv: self.geometry,
            entries: self.mirror.len(),
            bytes_held: self.bytes_held(),
            counters: self.counters.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_grows_in_blocks_of_512() {
        assert_eq!(capacity_for(1), 512);
        assert_eq!(capacity_for(512), 512);
        assert_eq!(capacity_for(513), 1024);
        // 750 prompt tokens, 10 generated: 759 fed, one 1024-token block pair.
        assert_eq!(entry_capacity(750, 10, None), 1024);
        // A hit starts from the entry's capacity, however short the prompt.
        let hit = Hit {
            tokens: 3,
            capacity: 1024,
        };
        assert_eq!(entry_capacity(20, 2, Some(hit)), 1024);
        assert_eq!(entry_capacity(510, 5, None), 1024);
        assert_eq!(entry_capacity(500, 8, None), 512);
    }

    #[test]
    fn smollm2_135m_in_f32_holds_45_kib_a_token() {
        // 30 layers, 3 KV heads of 64: the +47 MiB a ~750-token request
        // measured before the bound is one 1024-token entry.
        let g = KvGeometry {
            layers: 30,
            kv_heads: 3,
            k_head_dim: 64,
            v_head_dim: 64,
            dtype_bytes: 4,
        };
        assert_eq!(g.bytes_per_token(), 46_080);
        assert_eq!(g.bytes_per_token() * 1024, 45 * 1024 * 1024);
    }

    #[test]
    fn lookup_follows_search_for_matching_cache() {
        let mut m = Mirror::default();
        assert_eq!(m.lookup(&[1, 2, 3]), Ok(None));
        m.insert(vec![1, 2, 3, 4, 5, 9], 512);
        m.insert(vec![1, 2, 3, 4, 6], 512);
        // Longest shared prefix wins; the first of equal lengths.
        assert_eq!(
            m.lookup(&[1, 2, 3, 4, 5, 7]),
            Ok(Some(Hit {
                tokens: 5,
                capacity: 512
            }))
        );
        assert_eq!(m.lookup(&[1, 2, 3, 4, 8]).unwrap().unwrap().tokens, 4);
        // Nothing shared.
        assert_eq!(m.lookup(&[7, 1, 2]), Ok(None));
        // The whole prompt cached: mistral.rs reuses nothing.
        assert_eq!(m.lookup(&[1, 2, 3, 4, 5]), Ok(None));
        assert_eq!(m.lookup(&[1, 2, 3, 4, 5, 9]), Ok(None));
        // A prompt that runs past a whole key reuses all of it.
        assert_eq!(
            m.lookup(&[1, 2, 3, 4, 5, 9, 10]).unwrap().unwrap().tokens,
            6
        );
        // Re-inserting a key keeps one entry.
        m.insert(vec![1, 2, 3, 4, 6], 1024);
        assert_eq!(m.len(), 2);
        assert_eq!(m.capacity(), 1536);
        m.insert_opaque(512);
        assert_eq!(m.lookup(&[1, 2]), Err(()));
    }

    #[test]
    fn the_budget_resets_before_an_entry_that_would_not_fit() {
        let g = KvGeometry {
            layers: 1,
            kv_heads: 1,
            k_head_dim: 1,
            v_head_dim: 1,
            dtype_bytes: 1,
        };
        // 2 bytes a token: 1024 bytes an entry of 512; a budget of two.
        let mut c = PrefixCache::new(true, None, 2048, Some(g));
        assert!(!c.must_reset_before(512));
        c.mirror.insert(vec![1], 512);
        assert!(!c.must_reset_before(512));
        c.mirror.insert(vec![2], 512);
        assert!(c.must_reset_before(512));
        assert!(!c.over_budget());
        c.mirror.insert(vec![3], 512);
        assert!(c.over_budget());
        assert_eq!(c.report().bytes_held, 3072);
        // An empty cache never needs a reset first, whatever comes.
        c.mirror.clear();
        assert!(!c.must_reset_before(100_000));
        let off = PrefixCache::new(false, Some("x".into()), 0, Some(g));
        assert!(!off.must_reset_before(512) && !off.over_budget());
    }
}
