//! The recompiled programs the GPU render keeps with the device (`Gpu::kept`), so that a
//! later frame on the same device (the frames of a CI suite, a replay after the first) takes
//! them instead of recompiling, as the device keeps its pipelines: fragment modules by
//! microcode (inline constants included) and translation options, wrapped modules by fragment
//! module and wrapper options, vertex modules by the content of the transform program memory,
//! the start slot and the state of the vertex texture units the program samples. Every key is
//! the content, never an address, so a module is reused exactly where recompiling would give
//! the same one.
//!
//! Uploaded textures are kept too, by the unit's state and the content key of the bytes the
//! draw read (`texture::cache::content_key`), with the notes their conversion gave (a frame
//! that takes one reports them as if it had converted it), within [`TEXTURE_BUDGET`] bytes:
//! a frame keeps those the frame before used, and what does not fit is not kept.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use rsxtrace_gpu::UploadedTexture;
use rsxtrace_wgsl::fragment::FragmentTranslateOptions;
use rsxtrace_wgsl::vertex::VertexTextureUnits;
use rsxtrace_wgsl::WgslModule;

use super::vertex::VertexModule;

/// A fragment module and the inputs its program reads (`FragmentProgram::inputs_read`).
pub(crate) type FragmentModule = (Arc<WgslModule>, u16);

/// Bytes of uploaded textures kept with a device for later frames at most (their texels, 16
/// bytes each): the 2,000-draw game-scale frame's fit (about 310 MB); of the 20,000-draw
/// frame's, those uploaded first up to this.
pub(crate) const TEXTURE_BUDGET: u64 = 1 << 30;

/// The key of an uploaded texture: the unit's state (as text) and the content key of its
/// bytes.
pub(crate) type TextureKey = (String, u128);

/// The programs and textures kept with one device (see the module documentation).
#[derive(Default)]
pub(crate) struct KeptModules {
    fragment: Memo<(u128, FragmentTranslateOptions), FragmentModule>,
    wrapped: Memo<(u64, String), Arc<WgslModule>>,
    vertex: Memo<(u128, u32, VertexTextureUnits), VertexModule>,
    textures: Mutex<KeptTextures<Arc<UploadedTexture>>>,
}

/// Textures (`T`: an uploaded one) within a byte budget, by frame: a frame starting lets go
/// of those the frame before did not use; a texture that does not fit is not kept (letting
/// go of the least recently used instead would keep nothing useful of a frame that uses more
/// than the budget in turn, as every texture would go before its next use).
struct KeptTextures<T> {
    entries: HashMap<TextureKey, KeptTexture<T>>,
    bytes: u64,
    /// Frames started so far; each entry remembers the last that used it.
    frame: u64,
}

impl<T> Default for KeptTextures<T> {
    fn default() -> Self {
        KeptTextures {
            entries: HashMap::new(),
            bytes: 0,
            frame: 0,
        }
    }
}

struct KeptTexture<T> {
    texture: T,
    notes: Vec<String>,
    bytes: u64,
    used: u64,
}

impl<T: Clone> KeptTextures<T> {
    /// A frame starts: the textures the one before did not use are let go.
    fn begin_frame(&mut self) {
        self.frame += 1;
        let keep_from = self.frame - 1;
        let mut freed = 0;
        self.entries.retain(|_, e| {
            let kept = e.used >= keep_from;
            if !kept {
                freed += e.bytes;
            }
            kept
        });
        self.bytes -= freed;
    }

    fn get(&mut self, key: &TextureKey) -> Option<(T, Vec<String>)> {
        let entry = self.entries.get_mut(key)?;
        entry.used = self.frame;
        Some((entry.texture.clone(), entry.notes.clone()))
    }

    fn keep(&mut self, key: TextureKey, texture: KeptTexture<T>, budget: u64) {
        let replaced = self.entries.get(&key).map_or(0, |e| e.bytes);
        if self.bytes - replaced + texture.bytes > budget {
            return;
        }
        let texture = KeptTexture {
            used: self.frame,
            ..texture
        };
        self.bytes = self.bytes - replaced + texture.bytes;
        self.entries.insert(key, texture);
    }
}

impl KeptModules {
    /// The fragment module of microcode `ucode` (hashed here) under `options`, made by `make`
    /// when no frame made it before.
    pub(crate) fn fragment(
        &self,
        ucode: &[u8],
        options: FragmentTranslateOptions,
        make: impl FnOnce() -> Result<FragmentModule, String>,
    ) -> Result<FragmentModule, String> {
        self.fragment
            .get_or_make((content_hash(ucode), options), make)
    }

    /// The fragment module with hash `fragment` wrapped under the options `options` (as
    /// text), made by `make` when no frame made it before.
    pub(crate) fn wrapped(
        &self,
        fragment: u64,
        options: String,
        make: impl FnOnce() -> Result<Arc<WgslModule>, String>,
    ) -> Result<Arc<WgslModule>, String> {
        self.wrapped.get_or_make((fragment, options), make)
    }

    /// The vertex module of the program at `start` in the transform program memory `memory`
    /// (hashed here) with its texture units in state `units`, made by `make` when no frame
    /// made it before.
    pub(crate) fn vertex(
        &self,
        memory: &[u32],
        start: u32,
        units: VertexTextureUnits,
        make: impl FnOnce() -> Result<VertexModule, String>,
    ) -> Result<VertexModule, String> {
        let words: Vec<u8> = memory.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.vertex
            .get_or_make((content_hash(&words), start, units), make)
    }
}

impl KeptModules {
    /// The texture kept under `key` and the notes its conversion gave.
    pub(crate) fn texture(&self, key: &TextureKey) -> Option<(Arc<UploadedTexture>, Vec<String>)> {
        self.textures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
    }

    /// A frame starts on the device: the textures the frame before did not use are let go.
    pub(crate) fn begin_frame(&self) {
        self.textures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .begin_frame();
    }

    /// Keeps `texture` (`bytes` of texels, converted with `notes`) under `key`, when it fits
    /// within [`TEXTURE_BUDGET`].
    pub(crate) fn keep_texture(
        &self,
        key: TextureKey,
        texture: Arc<UploadedTexture>,
        notes: Vec<String>,
        bytes: u64,
    ) {
        self.textures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keep(
                key,
                KeptTexture {
                    texture,
                    notes,
                    bytes,
                    used: 0,
                },
                TEXTURE_BUDGET,
            );
    }
}

/// A 128-bit content hash (XXH3), the key of a kept module's source.
fn content_hash(bytes: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

/// Values by key, made once; the lock is not held while a value is made.
struct Memo<K, V>(Mutex<HashMap<K, V>>);

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo(Mutex::new(HashMap::new()))
    }
}

impl<K: Hash + Eq, V: Clone> Memo<K, V> {
    fn get_or_make(&self, key: K, make: impl FnOnce() -> Result<V, String>) -> Result<V, String> {
        let lock = || self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = lock().get(&key) {
            return Ok(v.clone());
        }
        let v = make()?;
        lock().insert(key, v.clone());
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_made_once_per_key_and_errors_are_not_kept() {
        let memo: Memo<u32, u32> = Memo::default();
        let mut made = 0;
        for _ in 0..3 {
            let v = memo.get_or_make(7, || {
                made += 1;
                Ok(70)
            });
            assert_eq!(v, Ok(70));
        }
        assert_eq!(made, 1);
        assert_eq!(
            memo.get_or_make(8, || Err("no".into())),
            Err("no".to_string())
        );
        assert_eq!(memo.get_or_make(8, || Ok(80)), Ok(80));
    }

    #[test]
    fn textures_are_kept_while_frames_use_them_and_only_within_the_budget() {
        let mut kept: KeptTextures<u32> = KeptTextures::default();
        let key = |n: u128| ("unit 0".to_string(), n);
        let entry = |t: u32, bytes: u64| KeptTexture {
            texture: t,
            notes: vec![format!("note {t}")],
            bytes,
            used: 0,
        };
        kept.begin_frame();
        kept.keep(key(1), entry(1, 40), 100);
        kept.keep(key(2), entry(2, 40), 100);
        // Full: the third is not kept, and nothing is let go for it.
        kept.keep(key(3), entry(3, 40), 100);
        assert_eq!(kept.get(&key(3)), None);
        assert_eq!(kept.bytes, 80);
        // The next frame finds both, and uses only the first.
        kept.begin_frame();
        assert_eq!(kept.get(&key(1)), Some((1, vec!["note 1".to_string()])));
        // The frame after lets go of the second, which made room for a third.
        kept.begin_frame();
        assert_eq!(kept.get(&key(2)), None);
        assert_eq!(kept.bytes, 40);
        kept.keep(key(3), entry(3, 40), 100);
        assert!(kept.get(&key(1)).is_some() && kept.get(&key(3)).is_some());
        // One larger than the whole budget is not kept.
        kept.keep(key(4), entry(4, 101), 100);
        assert_eq!(kept.get(&key(4)), None);
        // Kept again under the same key: counted once.
        kept.keep(key(3), entry(5, 40), 100);
        assert_eq!(kept.bytes, 80);
        assert_eq!(kept.get(&key(3)).map(|(t, _)| t), Some(5));
    }
}
