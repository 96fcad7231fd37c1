//! Each chosen draw's own inline constants in a replacement fragment program.
//!
//! A game sets a fragment program's uniforms by patching the inline constant slots of its
//! copy of the microcode before each draw, so the draws of one program (one `fp_hash`, which
//! leaves constants out) carry different values. A replacement read from one draw's
//! disassembly carries that draw's values; given as they are to every chosen draw, it would
//! freeze all of them to those. The rule here: when the new program has as many inline
//! constants as a draw's old one, constant `k` of the file is taken as *unchanged* when its
//! value equals, bit for bit, constant `k` of at least one chosen draw, and then every draw
//! keeps its own value there; a constant the file changed (equal to no draw's) goes to every
//! draw as written. A draw whose old program has another number of constants, or none read,
//! takes the file's values.

use rsxtrace_capture::frame::Frame;
use rsxtrace_program::fragment::{self, InlineConstant};
use rsxtrace_program::kept_encoding::keep_fragment;
use std::collections::HashMap;

/// The microcode variants of a replacement: each distinct microcode with the draws that run
/// it, in order of first draw, and how many of the file's constants were kept per draw.
pub(crate) struct Variants {
    /// `(microcode, draws)`.
    pub programs: Vec<(Vec<u8>, Vec<usize>)>,
    /// Constants of the file taken as unchanged (each draw keeps its own value).
    pub kept: usize,
    /// Constants of the file.
    pub total: usize,
}

/// A draw's inline constants in slot order, as the bits the program decoder gives.
fn draw_constants(frame: &Frame, draw: usize) -> Option<Vec<[u32; 4]>> {
    let program = frame.draws.get(draw)?.fragment_program.as_ref()?;
    Some(
        program
            .constants()
            .map(|(_, values)| values.map(f32::to_bits))
            .collect(),
    )
}

/// `ucode` as it is for every draw: one variant, no constant kept.
pub(crate) fn as_given(draws: &[usize], ucode: &[u8]) -> Variants {
    Variants {
        programs: vec![(ucode.to_vec(), draws.to_vec())],
        kept: 0,
        total: 0,
    }
}

/// The variants of `ucode` (a fragment program that decodes) for `draws`.
pub(crate) fn per_draw(frame: &Frame, draws: &[usize], ucode: &[u8]) -> Variants {
    let Ok(program) = fragment::decode(ucode) else {
        return as_given(draws, ucode);
    };
    let file: Vec<[u32; 4]> = program
        .instructions
        .iter()
        .filter_map(|i| i.constant.map(|c| c.0))
        .collect();
    if file.is_empty() {
        return as_given(draws, ucode);
    }
    let olds: Vec<Option<Vec<[u32; 4]>>> = draws
        .iter()
        .map(|&d| draw_constants(frame, d).filter(|c| c.len() == file.len()))
        .collect();
    let unchanged: Vec<bool> = (0..file.len())
        .map(|k| olds.iter().flatten().any(|old| old[k] == file[k]))
        .collect();
    let mut programs: Vec<(Vec<u8>, Vec<usize>)> = Vec::new();
    for (&d, old) in draws.iter().zip(&olds) {
        let bytes = match old {
            Some(old) if unchanged.iter().any(|&u| u) => {
                let mut p = program.clone();
                let mut k = 0;
                for insn in &mut p.instructions {
                    if let Some(c) = &mut insn.constant {
                        if unchanged[k] {
                            *c = InlineConstant(old[k]);
                        }
                        k += 1;
                    }
                }
                fragment::encode(&p)
            }
            _ => ucode.to_vec(),
        };
        match programs.iter_mut().find(|(b, _)| *b == bytes) {
            Some((_, ds)) => ds.push(d),
            None => programs.push((bytes, vec![d])),
        }
    }
    Variants {
        programs,
        kept: unchanged.iter().filter(|&&u| u).count(),
        total: file.len(),
    }
}

/// `variants` with each draw's own instruction words wherever an instruction of the new
/// program is one of the program the draw ran (`rsxtrace_program::kept_encoding`): a
/// program assembled from a disassembly leaves the bits no unit reads out, so without this a
/// draw given its own program back as text would run other bytes. Regrouped by microcode.
pub(crate) fn keep_draw_encodings(frame: &Frame, variants: Variants) -> Variants {
    let mut programs: Vec<(Vec<u8>, Vec<usize>)> = Vec::new();
    for (ucode, draws) in variants.programs {
        // The draws of one program differ in their constants at most: each distinct original
        // is disassembled and assembled once.
        let mut kept: HashMap<&[u8], Vec<u8>> = HashMap::new();
        for d in draws {
            let original = frame
                .draws
                .get(d)
                .and_then(|draw| draw.fragment_program.as_ref());
            let bytes = match original {
                Some(p) => kept
                    .entry(p.ucode.as_slice())
                    .or_insert_with(|| keep_fragment(&ucode, &p.ucode).0)
                    .clone(),
                None => ucode.clone(),
            };
            match programs.iter_mut().find(|(b, _)| *b == bytes) {
                Some((_, ds)) => ds.push(d),
                None => programs.push((bytes, vec![d])),
            }
        }
    }
    Variants {
        programs,
        ..variants
    }
}
