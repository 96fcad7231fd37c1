//! Named fragment-program uniforms read from draws' inline constants.
//!
//! A fragment program has no constant registers: a uniform is an inline constant, the 16-byte
//! slot that follows an instruction with a constant-type source (rsx-microcode.md B.3), and
//! the game patches those slots in the copy it uploads. A container (`CgBinaryProgram`,
//! PSL1GHT `FP`) names, for each uniform, the ucode byte offsets of the slots that hold it
//! (`embedded_constants`). This module:
//!
//! - keys a program by its microcode with every inline-constant slot zeroed ([`ProgramKey`]),
//!   so that a draw "uses the program" when its fragment microcode, masked the same way, is
//!   byte for byte the program's (the rule of the frame's `fp_hash`, compared in full);
//! - turns the container's byte offsets into slot indices relative to the first instruction
//!   ([`container_uniforms`]) or takes raw slot indices ([`raw_slots`]);
//! - reads each uniform's four floats at every draw that uses the program
//!   ([`read_uniforms`]), words decoded with the RSX half-word swap (B.1).

use rsxtrace_capture::frame::{FragmentProgram as DrawProgram, Frame};
use rsxtrace_program::container::Container;
use rsxtrace_program::fragment::{self, FragmentDecodeError};
use serde::Serialize;

/// Bytes per microcode slot.
const SLOT: usize = 16;

/// Why a program or its uniforms cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum UniformsError {
    /// The program's microcode does not decode.
    #[error("the program's fragment microcode does not decode: {0}")]
    Decode(#[from] FragmentDecodeError),
    /// The container is not a fragment program.
    #[error("the program is a vertex program; uniforms are read from fragment programs")]
    NotFragment,
    /// An embedded-constant offset is not a slot boundary.
    #[error(
        "uniform {name}: embedded constant at ucode byte offset {offset} is not 16-byte aligned"
    )]
    Misaligned {
        /// Uniform.
        name: String,
        /// Ucode byte offset.
        offset: u32,
    },
    /// An embedded-constant offset (or a raw slot) is not one of the program's
    /// inline-constant slots.
    #[error("{name}: slot {slot} (ucode byte offset {offset}) is not an inline-constant slot of the program (those are {known:?})")]
    NotAConstantSlot {
        /// Uniform or `slot N`.
        name: String,
        /// Slot index relative to the first instruction.
        slot: i64,
        /// Ucode byte offset (in the container's ucode).
        offset: i64,
        /// The program's constant slots.
        known: Vec<u32>,
    },
    /// A matrix uniform lacks one of its rows.
    #[error("uniform {name}: no parameter {name}[{row}] with inline-constant slots")]
    MissingRow {
        /// Base name.
        name: String,
        /// Row index.
        row: usize,
    },
}

/// A fragment program identified by its microcode with the inline constants masked out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramKey {
    /// Byte offset of the first instruction in the ucode the key was made from (leading
    /// zero-opcode slots are skipped, as the frame does; rrc-format.md 4.9).
    pub start: usize,
    /// Slots from the first instruction through END and its constant.
    pub slot_count: u32,
    /// Inline-constant slot indices relative to the first instruction, ascending.
    pub constant_slots: Vec<u32>,
    /// The microcode from the first instruction with every constant slot zeroed.
    pub masked: Vec<u8>,
}

/// `ucode` (from its first instruction) with the 16 bytes of each slot in `constant_slots`
/// zeroed; slots past the end are ignored.
pub fn masked_ucode(ucode: &[u8], constant_slots: &[u32]) -> Vec<u8> {
    let mut out = ucode.to_vec();
    for &slot in constant_slots {
        let at = slot as usize * SLOT;
        if let Some(bytes) = out.get_mut(at..at.saturating_add(SLOT)) {
            bytes.fill(0);
        }
    }
    out
}

impl ProgramKey {
    /// The key of microcode as a container stores it (guest byte order). Leading zero-opcode
    /// slots are skipped and anything after END (and its constant) is ignored.
    pub fn from_ucode(ucode: &[u8]) -> Result<ProgramKey, UniformsError> {
        let start = fragment::program_start(ucode);
        let body = ucode.get(start..).unwrap_or(&[]);
        let program = fragment::decode_until_end(body)?;
        let constant_slots: Vec<u32> = program
            .instructions
            .iter()
            .filter(|i| i.constant.is_some())
            .map(|i| i.slot.saturating_add(1))
            .collect();
        let len = (program.slot_count as usize)
            .saturating_mul(SLOT)
            .min(body.len());
        let masked = masked_ucode(body.get(..len).unwrap_or(&[]), &constant_slots);
        Ok(ProgramKey {
            start,
            slot_count: program.slot_count,
            constant_slots,
            masked,
        })
    }

    /// Whether a draw's fragment program is this program (same masked microcode).
    pub fn matches(&self, program: &DrawProgram) -> bool {
        program.slot_count == self.slot_count
            && program.constant_slots == self.constant_slots
            && program.ucode.len() == self.masked.len()
            && masked_ucode(&program.ucode, &program.constant_slots) == self.masked
    }
}

/// A uniform and the inline-constant slots (relative to the first instruction) that hold it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UniformSlots {
    /// The parameter's name, or `slot N` for a raw slot.
    pub name: String,
    /// Slot indices; the game writes the same value to each.
    pub slots: Vec<u32>,
}

/// The named uniforms of a fragment container that have inline-constant slots, in parameter
/// order, their byte offsets turned into slot indices of `key` (made from the container's
/// ucode). A parameter with no slots (not referenced, or an interpolant) is left out.
pub fn container_uniforms(
    container: &Container,
    key: &ProgramKey,
) -> Result<Vec<UniformSlots>, UniformsError> {
    if container.stage() != rsxtrace_program::container::Stage::Fragment {
        return Err(UniformsError::NotFragment);
    }
    let mut out: Vec<UniformSlots> = Vec::new();
    for parameter in container.parameters() {
        let Some(name) = parameter.name else { continue };
        let Some(offsets) = container.embedded_constants(name) else {
            continue;
        };
        if offsets.is_empty() || out.iter().any(|u| u.name == name) {
            continue;
        }
        let mut slots = Vec::with_capacity(offsets.len().min(key.constant_slots.len()));
        for &offset in offsets {
            slots.push(slot_of_offset(name, offset, key)?);
        }
        out.push(UniformSlots {
            name: name.to_string(),
            slots,
        });
    }
    Ok(out)
}

/// The slot (relative to the first instruction) of a container ucode byte offset, checked to
/// be one of the program's constant slots.
fn slot_of_offset(name: &str, offset: u32, key: &ProgramKey) -> Result<u32, UniformsError> {
    if offset as usize % SLOT != 0 {
        return Err(UniformsError::Misaligned {
            name: name.to_string(),
            offset,
        });
    }
    let slot = (i64::from(offset) - key.start as i64) / SLOT as i64;
    match u32::try_from(slot) {
        Ok(s) if key.constant_slots.contains(&s) => Ok(s),
        _ => Err(UniformsError::NotAConstantSlot {
            name: name.to_string(),
            slot,
            offset: i64::from(offset),
            known: key.constant_slots.clone(),
        }),
    }
}

/// Raw slots (relative to the first instruction) as uniforms named `slot N`; each must be an
/// inline-constant slot of the program. An empty list means every constant slot.
pub fn raw_slots(key: &ProgramKey, slots: &[u32]) -> Result<Vec<UniformSlots>, UniformsError> {
    let wanted: &[u32] = if slots.is_empty() {
        &key.constant_slots
    } else {
        slots
    };
    wanted
        .iter()
        .map(|&slot| {
            if key.constant_slots.contains(&slot) {
                Ok(UniformSlots {
                    name: format!("slot {slot}"),
                    slots: vec![slot],
                })
            } else {
                Err(UniformsError::NotAConstantSlot {
                    name: format!("slot {slot}"),
                    slot: i64::from(slot),
                    offset: key.start as i64 + i64::from(slot) * SLOT as i64,
                    known: key.constant_slots.clone(),
                })
            }
        })
        .collect()
}

/// The rows `NAME[0]`..`NAME[3]` of a matrix uniform (a parameter named `x.NAME[k]` also
/// matches, as Cg qualifies struct members), as single-slot uniforms in row order.
pub fn matrix_rows(
    uniforms: &[UniformSlots],
    name: &str,
) -> Result<[UniformSlots; 4], UniformsError> {
    let row = |k: usize| {
        let exact = format!("{name}[{k}]");
        let qualified = format!(".{exact}");
        uniforms
            .iter()
            .find(|u| u.name == exact)
            .or_else(|| uniforms.iter().find(|u| u.name.ends_with(&qualified)))
            .cloned()
            .ok_or(UniformsError::MissingRow {
                name: name.to_string(),
                row: k,
            })
    };
    Ok([row(0)?, row(1)?, row(2)?, row(3)?])
}

/// The four floats of constant slot `slot` of a draw's microcode (guest byte order), or
/// `None` when the slot is past its end.
pub fn read_slot(ucode: &[u8], slot: u32) -> Option<[f32; 4]> {
    rsxtrace_capture::frame::fragment::inline_constant(ucode, slot)
}

/// One uniform's value at one draw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UniformValue {
    /// Name.
    pub name: String,
    /// The value of its first slot.
    pub value: [f32; 4],
    /// Every slot's value, only when they differ (the game patched one copy and not another).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub differing: Option<Vec<[f32; 4]>>,
}

/// The uniforms of one draw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrawUniforms {
    /// Draw index.
    pub draw: usize,
    /// The values, in the order asked.
    pub uniforms: Vec<UniformValue>,
}

/// The draws (indices, ascending) whose fragment program is `key`'s program.
pub fn draws_using(frame: &Frame, key: &ProgramKey) -> Vec<usize> {
    frame
        .draws
        .iter()
        .filter(|d| {
            d.fragment_program
                .as_deref()
                .is_some_and(|p| key.matches(p))
        })
        .map(|d| d.index)
        .collect()
}

/// The value of each uniform at every draw that uses `key`'s program. A uniform with no slot
/// is skipped (there is nothing to read).
pub fn read_uniforms(
    frame: &Frame,
    key: &ProgramKey,
    uniforms: &[UniformSlots],
) -> Vec<DrawUniforms> {
    frame
        .draws
        .iter()
        .filter_map(|d| {
            let program = d.fragment_program.as_deref().filter(|p| key.matches(p))?;
            Some(DrawUniforms {
                draw: d.index,
                uniforms: uniforms
                    .iter()
                    .filter_map(|u| value_at(&program.ucode, u))
                    .collect(),
            })
        })
        .collect()
}

fn value_at(ucode: &[u8], uniform: &UniformSlots) -> Option<UniformValue> {
    let values: Vec<[f32; 4]> = uniform
        .slots
        .iter()
        .filter_map(|&s| read_slot(ucode, s))
        .collect();
    let first = *values.first()?;
    let same = values
        .iter()
        .all(|v| v.map(f32::to_bits) == first.map(f32::to_bits));
    Some(UniformValue {
        name: uniform.name.clone(),
        value: first,
        differing: (!same).then_some(values),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
    use rsxtrace_capture::builder::CaptureBuilder;
    use rsxtrace_capture::rrc::Location;
    use rsxtrace_program::container::encode_word;

    /// `MOV R0, {c}` + END with its constant slot, as guest bytes laid out by hand.
    ///
    /// Instruction words (after the half-word swap, rsx-microcode.md B.1):
    /// - w0 = 0x0181_0001... built as: opcode MOV (1) in bits 24..29, END bit 0, destination
    ///   R0 (bits 1..6 = 0), mask xyzw (bits 9..12), input 0: `0x0100_1E01`.
    /// - w1 = SRC0: type 2 (constant) in bits 0..1, identity swizzle xyzw (0b11_10_01_00 at
    ///   bits 9..16 = 0x1C800): `0x0001_C802`.
    /// - w2, w3 = SRC1, SRC2: type 0 with identity swizzle: `0x0001_C800`.
    fn mov_const(c: [f32; 4]) -> Vec<u8> {
        let words = [0x0100_1E01u32, 0x0001_C802, 0x0001_C800, 0x0001_C800];
        let mut out: Vec<u8> = words
            .iter()
            .flat_map(|w| w.rotate_left(16).to_be_bytes())
            .collect();
        for v in c {
            out.extend_from_slice(&encode_word(v));
        }
        out
    }

    fn frame_with(programs: &[Vec<u8>]) -> Frame {
        let mut b = CaptureBuilder::new("uniforms-test");
        b.put_memory(Location::Main, 0x1000, &[0u8; 48]).unwrap();
        b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
            .unwrap();
        for (k, ucode) in programs.iter().enumerate() {
            let at = 0x0030_0000 + 0x100 * k as u32;
            b.set_fragment_program(Location::Local, at, ucode, 0x40)
                .unwrap();
            b.draw_arrays(5, &[(0, 3)]).unwrap();
        }
        Frame::from_capture(&b.finish()).unwrap()
    }

    #[test]
    fn hand_laid_program_decodes_with_one_constant_slot() {
        let key = ProgramKey::from_ucode(&mov_const([1.0, 2.0, 3.0, 4.0])).unwrap();
        assert_eq!(key.start, 0);
        assert_eq!(key.slot_count, 2);
        assert_eq!(key.constant_slots, vec![1]);
        assert!(key.masked[16..].iter().all(|&b| b == 0));
        assert_eq!(
            read_slot(&mov_const([1.0, 2.0, 3.0, 4.0]), 1),
            Some([1.0, 2.0, 3.0, 4.0])
        );
        // 1.0 = 0x3F800000 is stored with its halves exchanged: 00 00 3F 80.
        assert_eq!(
            &mov_const([1.0, 0.0, 0.0, 0.0])[16..20],
            &[0, 0, 0x3F, 0x80]
        );
    }

    #[test]
    fn draws_match_with_constants_masked_and_values_are_read() {
        let frame = frame_with(&[
            mov_const([0.5, 0.25, 0.0, 1.0]),
            FRAGMENT_MOV_COL0.to_vec(),
            mov_const([-2.0, 8.0, 16.0, 0.125]),
        ]);
        let key = ProgramKey::from_ucode(&mov_const([0.0; 4])).unwrap();
        assert_eq!(draws_using(&frame, &key), vec![0, 2]);
        let uniforms = raw_slots(&key, &[]).unwrap();
        assert_eq!(
            uniforms,
            vec![UniformSlots {
                name: "slot 1".into(),
                slots: vec![1]
            }]
        );
        let values = read_uniforms(&frame, &key, &uniforms);
        assert_eq!(values.len(), 2);
        assert_eq!(values[0].draw, 0);
        assert_eq!(values[0].uniforms[0].value, [0.5, 0.25, 0.0, 1.0]);
        assert_eq!(values[1].uniforms[0].value, [-2.0, 8.0, 16.0, 0.125]);
        assert_eq!(values[1].uniforms[0].differing, None);
        // The other program matches nothing here.
        let other = ProgramKey::from_ucode(&FRAGMENT_MOV_COL0).unwrap();
        assert_eq!(draws_using(&frame, &other), vec![1]);
    }

    #[test]
    fn a_changed_instruction_word_does_not_match() {
        let mut changed = mov_const([0.0; 4]);
        changed[5] ^= 0x02; // a swizzle bit of SRC0
        let frame = frame_with(&[changed]);
        let key = ProgramKey::from_ucode(&mov_const([0.0; 4])).unwrap();
        assert!(draws_using(&frame, &key).is_empty());
    }

    #[test]
    fn raw_slots_refuse_non_constant_slots() {
        let key = ProgramKey::from_ucode(&mov_const([0.0; 4])).unwrap();
        let err = raw_slots(&key, &[0]).unwrap_err();
        assert!(
            matches!(err, UniformsError::NotAConstantSlot { slot: 0, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("slot 0"));
    }

    #[test]
    fn matrix_rows_by_exact_and_qualified_names() {
        let u = |n: &str, s: u32| UniformSlots {
            name: n.into(),
            slots: vec![s],
        };
        let list = vec![
            u("M[1]", 3),
            u("main.M[0]", 1),
            u("M[2]", 5),
            u("M[3]", 7),
            u("Other", 9),
        ];
        let rows = matrix_rows(&list, "M").unwrap();
        assert_eq!(rows.map(|r| r.slots[0]), [1, 3, 5, 7]);
        let err = matrix_rows(&list[..3], "M").unwrap_err();
        assert!(matches!(err, UniformsError::MissingRow { row: 3, .. }));
    }

    #[test]
    fn differing_copies_of_one_uniform_are_reported() {
        // Two MOVs from constants: slots 1 and 3 hold the same uniform in the container.
        let mut first = mov_const([1.0, 1.0, 1.0, 1.0]);
        first[0..16].copy_from_slice(&{
            // Same MOV without END: clear bit 0 of w0 (stored in byte 3 after the swap).
            let w0 = 0x0100_1E00u32.rotate_left(16).to_be_bytes();
            let mut s = [0u8; 16];
            s[..4].copy_from_slice(&w0);
            s[4..].copy_from_slice(&mov_const([0.0; 4])[4..16]);
            s
        });
        let ucode = [first, mov_const([2.0, 1.0, 1.0, 1.0])].concat();
        let key = ProgramKey::from_ucode(&ucode).unwrap();
        assert_eq!(key.constant_slots, vec![1, 3]);
        let frame = frame_with(&[ucode]);
        let uniform = UniformSlots {
            name: "U".into(),
            slots: vec![1, 3],
        };
        let values = read_uniforms(&frame, &key, &[uniform]);
        assert_eq!(
            values[0].uniforms[0].differing,
            Some(vec![[1.0, 1.0, 1.0, 1.0], [2.0, 1.0, 1.0, 1.0]])
        );
    }

    /// A corpus file (the corpus lies in `../shared/corpus` from the workspace root), or
    /// `None` after a loud message when the corpus is absent (a failure when CI=true).
    fn corpus_file(relative: &str) -> Option<std::path::PathBuf> {
        let mut dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        while !dir.join("Cargo.lock").exists() {
            if !dir.pop() {
                break;
            }
        }
        let path = dir.join("../shared/corpus").join(relative);
        if path.exists() {
            return Some(path);
        }
        eprintln!("CORPUS MISSING: {} not found; test skipped", path.display());
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CORPUS MISSING under CI"
        );
        None
    }

    #[test]
    fn corpus_container_uniform_slots() {
        let Some(path) = corpus_file("ps3autotests/rsx_fp_dynamic_test1.fpo") else {
            return;
        };
        let bytes = std::fs::read(path).unwrap();
        let container = Container::parse(&bytes).unwrap();
        let key = ProgramKey::from_ucode(container.ucode()).unwrap();
        let uniforms = container_uniforms(&container, &key).unwrap();
        let time = uniforms
            .iter()
            .find(|u| u.name == "iGlobalTime")
            .expect("iGlobalTime");
        assert!(!time.slots.is_empty());
        for s in &time.slots {
            assert!(key.constant_slots.contains(s));
        }
    }
}
