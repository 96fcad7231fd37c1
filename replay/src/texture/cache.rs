//! Decoded textures shared between draws: a texture that a thousand draws sample is decoded
//! once. Entries are keyed by everything that determines their texels: the unit's format,
//! dimension, size, mip count, layout, pitch and remap, and the content of the guest-memory
//! bytes behind every sub-resource (an XXH3-128 of them, read on every lookup). A draw or a
//! transfer that writes those bytes (render to texture, a ring buffer that wraps) therefore
//! changes the key, and the next lookup decodes anew: nothing needs invalidating.
//!
//! Hashing the bytes costs a fraction of decoding them (XXH3 reads gigabytes per second; the
//! decoder writes four floats per texel). The cache holds at most a budget of decoded bytes and
//! drops its oldest entries beyond it.

use super::decode::{DecodePlan, DecodedTexture};
use super::error::TextureError;
use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::frame::state::Texture;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use xxhash_rust::xxh3::Xxh3;

/// Decoded bytes a cache keeps by default (1 GiB: 64 M texels).
pub const DEFAULT_BUDGET: usize = 1 << 30;

/// What a cache did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that decoded.
    pub misses: u64,
    /// Entries held now.
    pub entries: usize,
    /// Decoded bytes held now.
    pub bytes: usize,
}

#[derive(Default)]
struct Entries {
    map: HashMap<u128, Arc<DecodedTexture>>,
    /// Keys in insertion order, oldest first.
    order: VecDeque<u128>,
    stats: CacheStats,
}

/// A cache of decoded textures (see the module documentation). Shareable between threads.
pub struct TextureCache {
    budget: usize,
    entries: Mutex<Entries>,
}

impl Default for TextureCache {
    fn default() -> Self {
        TextureCache::with_budget(DEFAULT_BUDGET)
    }
}

/// Decoded size of an image in bytes (four f32 per texel).
fn decoded_bytes(t: &DecodedTexture) -> usize {
    t.images.iter().map(|l| l.texels.len() * 16).sum()
}

/// The key of a decode: the plan's fields that shape the texels, then the bytes.
fn key<S: AsRef<[u8]>>(plan: &DecodePlan, slices: &[S]) -> u128 {
    let g = &plan.geometry;
    let mut h = Xxh3::new();
    for v in [
        plan.format_word,
        g.width,
        g.height,
        g.depth,
        g.layers,
        g.mip_field,
        u32::from(g.linear),
        u32::from(g.border_texels),
        g.pitch,
        plan.remap_word,
    ] {
        h.update(&v.to_le_bytes());
    }
    for s in slices {
        let s = s.as_ref();
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s);
    }
    h.digest128()
}

/// The key of unit `unit`'s image (state `texture`) in `memory`, as the cache keys it: the
/// state that shapes the texels and an XXH3-128 of every byte the decode reads. For caches of
/// other things made from the same image (the GPU render's uploaded textures).
pub fn content_key<M: GuestMemory + ?Sized>(
    unit: u8,
    texture: &Texture,
    memory: &M,
) -> Result<u128, TextureError> {
    let plan = DecodePlan::new(unit, texture)?;
    let slices = plan.read(memory)?;
    Ok(key(&plan, &slices))
}

impl TextureCache {
    /// A cache that keeps at most `budget` decoded bytes (the newest entry is always kept).
    pub fn with_budget(budget: usize) -> TextureCache {
        TextureCache {
            budget,
            entries: Mutex::new(Entries::default()),
        }
    }

    /// Unit `unit`'s image (state `texture`) from `memory`: from the cache when the same state
    /// over the same bytes was decoded before, decoded and kept otherwise. Errors are those of
    /// [`decode_texture`](super::decode::decode_texture) and are not kept.
    pub fn decode<M: GuestMemory + ?Sized>(
        &self,
        unit: u8,
        texture: &Texture,
        memory: &M,
    ) -> Result<Arc<DecodedTexture>, TextureError> {
        let plan = DecodePlan::new(unit, texture)?;
        let slices = plan.read(memory)?;
        let key = key(&plan, &slices);
        {
            let mut e = self.lock();
            if let Some(hit) = e.map.get(&key).cloned() {
                e.stats.hits += 1;
                return Ok(hit);
            }
        }
        // Decoded outside the lock: other threads' lookups go on meanwhile.
        let decoded = Arc::new(plan.decode(&slices)?);
        let size = decoded_bytes(&decoded);
        let mut e = self.lock();
        e.stats.misses += 1;
        if e.map.insert(key, decoded.clone()).is_none() {
            e.order.push_back(key);
            e.stats.bytes += size;
            e.stats.entries += 1;
        }
        while e.stats.bytes > self.budget && e.order.len() > 1 {
            let Some(oldest) = e.order.pop_front() else {
                break;
            };
            if let Some(old) = e.map.remove(&oldest) {
                e.stats.bytes -= decoded_bytes(&old);
                e.stats.entries -= 1;
            }
        }
        Ok(decoded)
    }

    /// What the cache did so far, and what it holds.
    pub fn stats(&self) -> CacheStats {
        self.lock().stats
    }

    /// The entries, even if a thread panicked while holding them (they stay consistent: every
    /// update is a few field writes).
    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}
