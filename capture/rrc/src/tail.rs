//! The register-state tail (`rsx::rsx_state`, rrc-format.md 1.6): the last item of every
//! stream from v3 on, whose layout is told apart by its length alone.

use crate::error::RrcError;
use crate::model::{
    RegState, TailLayout, REGISTER_COUNT, TRANSFORM_CONSTANT_SLOTS, TRANSFORM_PROGRAM_WORDS,
    TRANSFORM_PROGRAM_WORDS_OLD,
};

const REGISTERS_BYTES: usize = REGISTER_COUNT * 4;
const PROGRAM_BYTES: usize = TRANSFORM_PROGRAM_WORDS * 4;
const PROGRAM_OLD_BYTES: usize = TRANSFORM_PROGRAM_WORDS_OLD * 4;
const CONSTANTS_BYTES: usize = TRANSFORM_CONSTANT_SLOTS * 16;

/// 8704 + 65536.
pub const LEN_PROGRAM544: usize = PROGRAM_BYTES + REGISTERS_BYTES;
/// 8704 + 8192 + 65536.
pub const LEN_PROGRAM544_CONSTANTS: usize = PROGRAM_BYTES + CONSTANTS_BYTES + REGISTERS_BYTES;
/// 8192 + 65536 (v3, v4 and early v5).
pub const LEN_PROGRAM512: usize = PROGRAM_OLD_BYTES + REGISTERS_BYTES;

impl TailLayout {
    /// Bytes on disk.
    pub fn byte_len(self) -> usize {
        match self {
            TailLayout::Program544 => LEN_PROGRAM544,
            TailLayout::Program544WithConstants => LEN_PROGRAM544_CONSTANTS,
            TailLayout::Program512 => LEN_PROGRAM512,
        }
    }

    /// The layout of a tail of `len` bytes, if any (rrc-format.md 1.6 table).
    pub fn from_len(len: usize) -> Option<TailLayout> {
        match len {
            LEN_PROGRAM544 => Some(TailLayout::Program544),
            LEN_PROGRAM544_CONSTANTS => Some(TailLayout::Program544WithConstants),
            LEN_PROGRAM512 => Some(TailLayout::Program512),
            _ => None,
        }
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    crate::structs::words(bytes).collect()
}

/// Parse a serial-family (v5/v6) tail: `tail` is everything after the replay commands, which
/// started at byte `offset`.
pub fn parse_serial(tail: &[u8], offset: u64) -> Result<RegState, RrcError> {
    let layout = TailLayout::from_len(tail.len()).ok_or(RrcError::BadTail {
        offset,
        remaining: tail.len() as u64,
        expected: "74240, 82432 or 73728",
    })?;
    Ok(parse_layout(tail, layout))
}

/// Parse a cereal-family (v3/v4) tail: always 8192 + 65536 bytes (rrc-format.md 2.2).
pub fn parse_cereal(tail: &[u8], offset: u64) -> Result<RegState, RrcError> {
    if tail.len() != LEN_PROGRAM512 {
        return Err(RrcError::BadTail {
            offset,
            remaining: tail.len() as u64,
            expected: "73728",
        });
    }
    Ok(parse_layout(tail, TailLayout::Program512))
}

/// Split a tail whose length matches `layout` (checked by the callers).
fn parse_layout(tail: &[u8], layout: TailLayout) -> RegState {
    let program_len = match layout {
        TailLayout::Program512 => PROGRAM_OLD_BYTES,
        _ => PROGRAM_BYTES,
    };
    let (program, rest) = tail.split_at(program_len.min(tail.len()));
    let (constants, registers) = match layout {
        TailLayout::Program544WithConstants => {
            let (c, r) = rest.split_at(CONSTANTS_BYTES.min(rest.len()));
            (Some(c), r)
        }
        _ => (None, rest),
    };
    RegState {
        transform_program: words(program),
        transform_constants: constants.map(|c| {
            c.chunks_exact(16)
                .map(|v| {
                    let w = |i: usize| u32::from_le_bytes([v[i], v[i + 1], v[i + 2], v[i + 3]]);
                    [w(0), w(4), w(8), w(12)]
                })
                .collect()
        }),
        registers: words(registers),
    }
}

/// Append `words` as exactly `len` little-endian u32 (zero-padded or cut).
fn put_words(out: &mut Vec<u8>, words: impl Iterator<Item = u32>, len: usize) {
    let mut n = 0;
    for w in words.take(len) {
        out.extend_from_slice(&w.to_le_bytes());
        n += 1;
    }
    out.resize(out.len() + (len - n) * 4, 0);
}

/// The layout a version 6 file stores `s` in: [`RegState::tail_layout`], except that a
/// 512-slot program (v3, v4, early v5) is padded to 544 slots. RPCS3 HEAD reads a v6 tail as
/// 8704 program bytes, then the registers (`RSXThread.cpp`, `serialize<rsx::rsx_state>`;
/// rrc-format.md 1.6), so a 73728-byte tail in a v6 file would not load there.
pub fn v6_layout(s: &RegState) -> TailLayout {
    match s.tail_layout() {
        TailLayout::Program512 => TailLayout::Program544,
        layout => layout,
    }
}

/// Append the tail in the layout [`v6_layout`] names: program, constants when that layout
/// has them, registers. Each array is written at exactly the layout's length (zero-padded or
/// cut), so the result always matches one of the known tail lengths.
pub fn write(out: &mut Vec<u8>, s: &RegState) {
    let layout = v6_layout(s);
    put_words(
        out,
        s.transform_program.iter().copied(),
        TRANSFORM_PROGRAM_WORDS,
    );
    if layout == TailLayout::Program544WithConstants {
        let constants = s.transform_constants.as_deref().unwrap_or(&[]);
        put_words(
            out,
            constants.iter().flat_map(|v| v.iter().copied()),
            TRANSFORM_CONSTANT_SLOTS * 4,
        );
    }
    put_words(out, s.registers.iter().copied(), REGISTER_COUNT);
}
