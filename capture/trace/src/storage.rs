//! The bytes behind a [`crate::Trace`]: a read-only memory map of the file, or an 8-byte
//! aligned copy of bytes given in memory. Shared through an `Arc` so that data blobs handed out
//! by `to_capture` (as `bytes::Bytes`) keep it alive.

use std::sync::Arc;

/// Owned, 8-byte aligned, immutable trace bytes.
pub(crate) enum Backing {
    /// A memory-mapped file (page aligned).
    Map(memmap2::Mmap),
    /// Bytes copied from memory into words; `len` is the number of bytes used.
    Words {
        /// The storage (8-byte aligned because `capnp::Word` is).
        words: Vec<capnp::Word>,
        /// How many bytes of `words` are the trace.
        len: usize,
    },
}

impl Backing {
    /// Copy `bytes` into aligned storage.
    pub(crate) fn copy_of(bytes: &[u8]) -> Backing {
        let mut words = capnp::Word::allocate_zeroed_vec(bytes.len().div_ceil(8));
        let dst = capnp::Word::words_to_bytes_mut(&mut words);
        // `dst` is at least `bytes.len()` long by construction.
        if let Some(dst) = dst.get_mut(..bytes.len()) {
            dst.copy_from_slice(bytes);
        }
        Backing::Words {
            words,
            len: bytes.len(),
        }
    }

    /// The trace bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Backing::Map(map) => map,
            Backing::Words { words, len } => {
                let all = capnp::Word::words_to_bytes(words);
                all.get(..*len).unwrap_or(all)
            }
        }
    }
}

/// An `Arc<Backing>` that `bytes::Bytes::from_owner` accepts.
pub(crate) struct SharedBacking(pub(crate) Arc<Backing>);

impl AsRef<[u8]> for SharedBacking {
    fn as_ref(&self) -> &[u8] {
        self.0.bytes()
    }
}
