//! The recompiled modules of one verification, by content: a draw whose program and
//! translation options another draw already had takes that draw's module instead of
//! translating (WGSL written, then parsed and validated by naga) again. A game frame runs a
//! few hundred programs over thousands of draws. Keys are the program's encoded words (the
//! vertex program's whole transform memory too, for branch targets outside it) and every
//! option (and a hit must hold the very program: a test hook's edit the encoding cannot hold
//! is translated anew); a mutant, run once, is never kept.

use rsxtrace_program::fragment::{self, FragmentProgram};
use rsxtrace_program::vertex::{self, VertexProgram};
use rsxtrace_replay::wgsl::fragment::FragmentTranslateOptions;
use rsxtrace_replay::wgsl::vertex::{VertexTextureUnits, VertexTranslateOptions};
use rsxtrace_replay::wgsl::{TranslateError, WgslModule};
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};
use xxhash_rust::xxh3::Xxh3;

type FragmentKey = (u128, FragmentTranslateOptions);
type VertexKey = (u128, VertexTranslateOptions, VertexTextureUnits);

/// Modules by content (see the module documentation).
#[derive(Default)]
pub struct Modules {
    fragment: Memo<FragmentKey, FragmentProgram>,
    vertex: Memo<VertexKey, VertexProgram>,
}

/// Translations by key, each with the program it was made from: a key found with another
/// program (a test hook's edit the encoding cannot hold) is translated anew.
struct Memo<K, P> {
    modules: Mutex<HashMap<K, (P, Arc<WgslModule>)>>,
}

impl<K, P> Default for Memo<K, P> {
    fn default() -> Self {
        Memo {
            modules: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Hash + Eq, P: Clone + PartialEq> Memo<K, P> {
    /// The module of `program` under `key`, translated by `translate` when missing (outside
    /// the lock, so that draws translating different programs do not wait for one another)
    /// and kept unless `once`.
    fn get(
        &self,
        key: K,
        program: &P,
        once: bool,
        translate: impl FnOnce() -> Result<WgslModule, TranslateError>,
    ) -> Result<Arc<WgslModule>, TranslateError> {
        let lock = || self.modules.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((p, m)) = lock().get(&key) {
            if p == program {
                return Ok(Arc::clone(m));
            }
        }
        let module = Arc::new(translate()?);
        if !once {
            lock().insert(key, (program.clone(), Arc::clone(&module)));
        }
        Ok(module)
    }

    fn len(&self) -> usize {
        self.modules
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

impl Modules {
    /// The fragment module of `program` under `options`.
    pub fn fragment(
        &self,
        program: &FragmentProgram,
        options: &FragmentTranslateOptions,
        once: bool,
        translate: impl FnOnce() -> Result<WgslModule, TranslateError>,
    ) -> Result<Arc<WgslModule>, TranslateError> {
        let key = xxhash_rust::xxh3::xxh3_128(&fragment::encode(program));
        self.fragment.get((key, *options), program, once, translate)
    }

    /// The vertex module of `program` (decoded from `memory_words`) under `rules` with the
    /// vertex texture units in `textures`.
    pub fn vertex(
        &self,
        program: &VertexProgram,
        memory_words: &[u32],
        rules: &VertexTranslateOptions,
        textures: &VertexTextureUnits,
        once: bool,
        translate: impl FnOnce() -> Result<WgslModule, TranslateError>,
    ) -> Result<Arc<WgslModule>, TranslateError> {
        let mut h = Xxh3::new();
        h.update(&(program.start_slot as u64).to_le_bytes());
        for w in vertex::encode_memory(program).iter().chain(memory_words) {
            h.update(&w.to_le_bytes());
        }
        self.vertex
            .get((h.digest128(), *rules, *textures), program, once, translate)
    }

    /// Modules kept (fragment, vertex).
    pub fn len(&self) -> (usize, usize) {
        (self.fragment.len(), self.vertex.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
    use rsxtrace_replay::wgsl::fragment::translate;
    use std::cell::Cell;

    #[test]
    fn a_module_is_translated_once_per_program_and_options_and_never_kept_for_once() {
        let modules = Modules::default();
        let program = fragment::decode(&FRAGMENT_MOV_COL0).unwrap();
        let options = FragmentTranslateOptions::with_control(0x40);
        let translations = Cell::new(0);
        let get = |program: &FragmentProgram, options: &FragmentTranslateOptions, once| {
            modules
                .fragment(program, options, once, || {
                    translations.set(translations.get() + 1);
                    translate(program, options)
                })
                .unwrap()
        };
        let a = get(&program, &options, false);
        let b = get(&program, &options, false);
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(translations.get(), 1);
        // Another control word, another program (one field changed): each its own module.
        let other_options = FragmentTranslateOptions::with_control(0x42);
        assert!(!Arc::ptr_eq(&a, &get(&program, &other_options, false)));
        let mut edited = program.clone();
        edited.instructions[0].dest.index = 1;
        assert_ne!(get(&edited, &options, false).source, a.source);
        assert_eq!(translations.get(), 3);
        // A program run once is translated and not kept.
        let mut mutant = program.clone();
        mutant.instructions[0].dest.index = 2;
        get(&mutant, &options, true);
        get(&mutant, &options, true);
        assert_eq!(translations.get(), 5);
        assert_eq!(modules.len(), (3, 0));
    }
}
