//! The recompiled programs the GPU render keeps with the device (`Gpu::kept`), so that a
//! later frame on the same device (the frames of a CI suite, a replay after the first) takes
//! them instead of recompiling, as the device keeps its pipelines: fragment modules by
//! microcode (inline constants included) and translation options, wrapped modules by fragment
//! module and wrapper options, vertex modules by the content of the transform program memory,
//! the start slot and the state of the vertex texture units the program samples. Every key is
//! the content, never an address, so a module is reused exactly where recompiling would give
//! the same one.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

use rsxtrace_wgsl::fragment::FragmentTranslateOptions;
use rsxtrace_wgsl::vertex::VertexTextureUnits;
use rsxtrace_wgsl::WgslModule;

use super::vertex::VertexModule;

/// A fragment module and the inputs its program reads (`FragmentProgram::inputs_read`).
pub(crate) type FragmentModule = (Arc<WgslModule>, u16);

/// The programs kept with one device (see the module documentation).
#[derive(Default)]
pub(crate) struct KeptModules {
    fragment: Memo<(u128, FragmentTranslateOptions), FragmentModule>,
    wrapped: Memo<(u64, String), Arc<WgslModule>>,
    vertex: Memo<(u128, u32, VertexTextureUnits), VertexModule>,
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
}
