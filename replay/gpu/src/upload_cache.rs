//! Textures `run_fragment_eval` uploaded, kept by content: a binding bound again (the next
//! draw of a verification that samples the same texture, each mutant of the negative control)
//! takes the texture the device already holds instead of writing its texels again (a
//! 4096 x 4096 texture is 256 MiB of `Rgba32Float`, written per draw before). Keyed by
//! XXH3-128 of the binding's shape, sampler state and texels, which costs a small part of the
//! upload it saves; the most recently used are kept within [`UPLOAD_CACHE_BYTES`] of texels.

use std::sync::Mutex;

use hashlink::LruCache;
use xxhash_rust::xxh3::Xxh3;

use crate::device::{lock, Gpu};
use crate::error::GpuError;
use crate::texture::TextureBinding;

/// Bytes of texels kept on the device for bindings bound again (on lavapipe, host memory:
/// kept small; a 4096 x 4096 texture just fits).
pub(crate) const UPLOAD_CACHE_BYTES: u64 = 256 << 20;

/// An uploaded texture with its view and sampler.
pub(crate) type Uploaded = (wgpu::Texture, wgpu::TextureView, wgpu::Sampler);

/// Uploaded textures by content key, with their texel bytes.
pub(crate) type UploadCache = BytesLru<Uploaded>;

/// Values by content key within a budget of bytes, the least recently used let go first.
pub(crate) struct BytesLru<V> {
    entries: LruCache<u128, (V, u64)>,
    bytes: u64,
    budget: u64,
}

impl<V> BytesLru<V> {
    fn with_budget(budget: u64) -> Self {
        BytesLru {
            entries: LruCache::new_unbounded(),
            bytes: 0,
            budget,
        }
    }

    /// The value of `key`, now the most recently used.
    fn get(&mut self, key: u128) -> Option<&V> {
        self.entries.get(&key).map(|(v, _)| v)
    }

    /// Keeps `value` (of `bytes` bytes) under `key`, letting go of the least recently used
    /// until it fits; one larger than the whole budget is not kept.
    fn insert(&mut self, key: u128, value: V, bytes: u64) {
        if bytes > self.budget {
            return;
        }
        if let Some((_, b)) = self.entries.remove(&key) {
            self.bytes -= b;
        }
        while self.bytes + bytes > self.budget {
            match self.entries.remove_lru() {
                Some((_, (_, b))) => self.bytes -= b,
                None => break,
            }
        }
        self.entries.insert(key, (value, bytes));
        self.bytes += bytes;
    }
}

/// The content key of `binding`: its shape, sampler state and every texel.
pub(crate) fn content_key(binding: &TextureBinding) -> u128 {
    let mut h = Xxh3::new();
    let shape = format!(
        "{:?} {} {} {} {} {:?}",
        binding.dimension,
        binding.width,
        binding.height,
        binding.depth_or_layers,
        binding.mip_levels,
        binding.sampler
    );
    h.update(shape.as_bytes());
    for level in &binding.levels {
        h.update(&(level.len() as u64).to_le_bytes());
        h.update(bytemuck::cast_slice(level));
    }
    h.digest128()
}

impl Gpu {
    /// `binding` uploaded (`TextureBinding::upload`), or the texture of an equal binding
    /// uploaded before and still kept.
    pub(crate) fn upload_kept(
        &self,
        binding: &TextureBinding,
        name: &str,
    ) -> Result<Uploaded, GpuError> {
        let key = content_key(binding);
        if let Some(uploaded) = lock(&self.uploads).get(key) {
            return Ok(uploaded.clone());
        }
        let uploaded = binding.upload(self, name)?;
        let bytes = binding.levels.iter().map(|l| l.len() as u64 * 16).sum();
        lock(&self.uploads).insert(key, uploaded.clone(), bytes);
        Ok(uploaded)
    }

    /// Textures kept for bindings bound again, and their texel bytes.
    pub fn kept_uploads(&self) -> (usize, u64) {
        let cache = lock(&self.uploads);
        (cache.entries.len(), cache.bytes)
    }
}

/// The cache a device starts with.
pub(crate) fn new_cache() -> Mutex<UploadCache> {
    Mutex::new(BytesLru::with_budget(UPLOAD_CACHE_BYTES))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_go_until_a_value_fits_the_budget() {
        let mut lru = BytesLru::with_budget(100);
        lru.insert(1, 'a', 40);
        lru.insert(2, 'b', 40);
        assert_eq!(lru.get(1), Some(&'a'));
        // 3 needs 2's room (1 was used after 2).
        lru.insert(3, 'c', 50);
        assert_eq!(lru.get(1).copied(), Some('a'));
        assert_eq!(lru.get(2).copied(), None);
        assert_eq!(lru.get(3).copied(), Some('c'));
        assert_eq!(lru.bytes, 90);
        // Larger than the whole budget: not kept, nothing let go.
        lru.insert(4, 'd', 101);
        assert_eq!(lru.get(4).copied(), None);
        assert_eq!(lru.bytes, 90);
        // The same key again replaces its value and its bytes.
        lru.insert(3, 'e', 10);
        assert_eq!(lru.get(3).copied(), Some('e'));
        assert_eq!(lru.bytes, 50);
    }
}
