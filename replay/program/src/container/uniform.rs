//! Fragment-program uniforms held in inline-constant slots: reading and patching the four
//! floats of a 16-byte slot at a ucode byte offset.
//!
//! Inline constants are stored like code words (rsx-microcode.md B.1): each 32-bit word is
//! big-endian with its two 16-bit halves exchanged, so `1.0` (`0x3F800000`) is stored as the
//! bytes `00 00 3F 80`. The slot offsets come from [`super::Container::embedded_constants`].

use super::cg::SLOT_SIZE;
use super::error::{ContainerError, ContainerErrorKind};

/// Encodes one float as the RSX stores it in fragment microcode.
pub fn encode_word(value: f32) -> [u8; 4] {
    value.to_bits().rotate_left(16).to_be_bytes()
}

/// Decodes one fragment-microcode word to a float.
pub fn decode_word(bytes: [u8; 4]) -> f32 {
    f32::from_bits(u32::from_be_bytes(bytes).rotate_left(16))
}

fn slot_range(ucode_len: usize, offset: u32) -> Result<std::ops::Range<usize>, ContainerError> {
    let field = "inline constant slot";
    if offset % SLOT_SIZE != 0 {
        return Err(ContainerError::new(
            offset.into(),
            field,
            ContainerErrorKind::Misaligned {
                value: offset.into(),
                align: SLOT_SIZE.into(),
            },
        ));
    }
    let start = offset as usize;
    match start.checked_add(SLOT_SIZE as usize) {
        Some(end) if end <= ucode_len => Ok(start..end),
        _ => Err(ContainerError::new(
            offset.into(),
            field,
            ContainerErrorKind::OutOfBounds {
                value: u64::from(offset) + u64::from(SLOT_SIZE),
                limit: ucode_len as u64,
            },
        )),
    }
}

/// Writes `value` into every inline-constant slot at `offsets` (ucode byte offsets, 16-byte
/// aligned). All offsets are checked before anything is written; on error `ucode` is left
/// unchanged and the error's offset is the offending slot offset.
pub fn set_uniform(
    ucode: &mut [u8],
    offsets: &[u32],
    value: [f32; 4],
) -> Result<(), ContainerError> {
    for &o in offsets {
        slot_range(ucode.len(), o)?;
    }
    let mut encoded = [0u8; 16];
    for (chunk, v) in encoded.chunks_exact_mut(4).zip(value) {
        chunk.copy_from_slice(&encode_word(v));
    }
    for &o in offsets {
        let range = slot_range(ucode.len(), o)?;
        if let Some(slot) = ucode.get_mut(range) {
            slot.copy_from_slice(&encoded);
        }
    }
    Ok(())
}

/// Reads the four floats of the inline-constant slot at `offset`.
pub fn get_uniform(ucode: &[u8], offset: u32) -> Result<[f32; 4], ContainerError> {
    let range = slot_range(ucode.len(), offset)?;
    let slot = ucode.get(range).unwrap_or(&[]);
    let mut out = [0f32; 4];
    for (v, chunk) in out.iter_mut().zip(slot.chunks_exact(4)) {
        let mut w = [0u8; 4];
        w.copy_from_slice(chunk);
        *v = decode_word(w);
    }
    Ok(out)
}
