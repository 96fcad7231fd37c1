//! Fragment-program decoder: guest bytes (or nouveau-order words) to [`FragmentProgram`].
//!
//! Field layout: rsx-microcode.md B.1 (RPCS3 `RSXFragmentProgram.h`, PSL1GHT `nvfx_shader.h`).
//! Inline constants and the program-start scan: B.3 and RPCS3 `ProgramStateCache.cpp`
//! (`is_any_src_constant`, `analyse_fragment_program`). Flow offsets: B.5.

use super::error::{FlowField, FlowTargetProblem, FragmentDecodeError};
use super::ir::{
    AluOperands, Condition, Destination, FlowKind, FlowOperands, FragmentInstruction,
    FragmentProgram, InlineConstant, InputAttribute, LoopFields, Operands, OutputScale, Precision,
    PrecisionModifier, Relation, Source, SourceKind, Swizzle, WriteMask,
};
use super::opcode::FpOpcode;

/// Bytes per slot (4 words).
pub const SLOT_BYTES: usize = 16;

/// Read one guest-memory word: big-endian with its 16-bit halves swapped (B.1, "RSX half-word
/// swap"; RPCS3 `FPToCFG.cpp` `decode_instruction`).
#[inline]
pub fn word_from_guest(bytes: [u8; 4]) -> u32 {
    u32::from_be_bytes(bytes).rotate_left(16)
}

/// Inverse of [`word_from_guest`].
#[inline]
pub fn word_to_guest(word: u32) -> [u8; 4] {
    word.rotate_left(16).to_be_bytes()
}

/// Where the decoder reads slots from.
trait SlotSource {
    /// Number of whole slots.
    fn slots(&self) -> usize;
    /// Length in bytes (for error offsets).
    fn byte_len(&self) -> usize;
    /// The four words of slot `i` in nouveau order, `None` past the end.
    fn slot(&self, i: usize) -> Option<[u32; 4]>;
}

struct GuestBytes<'a>(&'a [u8]);

impl SlotSource for GuestBytes<'_> {
    fn slots(&self) -> usize {
        self.0.len() / SLOT_BYTES
    }
    fn byte_len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn slot(&self, i: usize) -> Option<[u32; 4]> {
        let start = i.checked_mul(SLOT_BYTES)?;
        let s: &[u8; 16] = self
            .0
            .get(start..start.checked_add(SLOT_BYTES)?)?
            .try_into()
            .ok()?;
        Some([
            word_from_guest([s[0], s[1], s[2], s[3]]),
            word_from_guest([s[4], s[5], s[6], s[7]]),
            word_from_guest([s[8], s[9], s[10], s[11]]),
            word_from_guest([s[12], s[13], s[14], s[15]]),
        ])
    }
}

struct HostWords<'a>(&'a [u32]);

impl SlotSource for HostWords<'_> {
    fn slots(&self) -> usize {
        self.0.len() / 4
    }
    fn byte_len(&self) -> usize {
        self.0.len().saturating_mul(4)
    }
    #[inline]
    fn slot(&self, i: usize) -> Option<[u32; 4]> {
        let start = i.checked_mul(4)?;
        let s: &[u32; 4] = self.0.get(start..start.checked_add(4)?)?.try_into().ok()?;
        Some(*s)
    }
}

/// Decode exactly the given ucode, starting at slot 0: bytes as stored in guest memory and in
/// CgBinary containers. The END instruction (plus its constant slot) must be the last slot;
/// anything after it is [`FragmentDecodeError::TrailingData`].
pub fn decode(ucode: &[u8]) -> Result<FragmentProgram, FragmentDecodeError> {
    decode_from(&GuestBytes(ucode), true)
}

/// Like [`decode`], but stops at the END instruction and ignores what follows (for memory
/// blocks that may be longer than the program, e.g. a capture's memory snapshot).
pub fn decode_until_end(ucode: &[u8]) -> Result<FragmentProgram, FragmentDecodeError> {
    decode_from(&GuestBytes(ucode), false)
}

/// Decode words already in nouveau/host order (no half-word swap), e.g. Tiny3D's
/// `nv_shaders.h` arrays. Strict like [`decode`]; byte offsets in errors count 4 per word.
pub fn decode_words(words: &[u32]) -> Result<FragmentProgram, FragmentDecodeError> {
    decode_from(&HostWords(words), true)
}

/// RPCS3's program-start scan for fragment programs found in capture memory
/// (`analyse_fragment_program`): returns the byte offset of the first slot whose 6-bit
/// opcode is non-zero and which is not a flow-control instruction, skipping leading
/// zero-opcode slots (and the data slot after a leading NOP with a constant source). If an
/// END slot comes first, its offset is returned (a NOP shader). If neither is found, the
/// length rounded down to a whole slot is returned.
///
/// Like RPCS3, a leading flow-control instruction (`SRC1` bit 31) does not start the program.
pub fn program_start(ucode: &[u8]) -> usize {
    let src = GuestBytes(ucode);
    let mut i = 0usize;
    while let Some(w) = src.slot(i) {
        let here = i;
        if w[2] & (1 << 31) == 0 {
            if (w[0] >> 24) & 0x3F != 0 {
                return here * SLOT_BYTES;
            }
            if has_constant_source(w) {
                i += 1;
            }
        }
        if w[0] & 1 != 0 {
            return here * SLOT_BYTES;
        }
        i += 1;
    }
    src.slots() * SLOT_BYTES
}

/// Any of SRC0..SRC2 has register type 2 (RPCS3 `is_any_src_constant`).
#[inline]
fn has_constant_source(w: [u32; 4]) -> bool {
    (w[1] & 3) == 2 || (w[2] & 3) == 2 || (w[3] & 3) == 2
}

fn decode_from(
    src: &impl SlotSource,
    strict: bool,
) -> Result<FragmentProgram, FragmentDecodeError> {
    let len = src.byte_len();
    if len == 0 {
        return Err(FragmentDecodeError::Empty);
    }
    let slots = src.slots();
    // Flow offsets are 31-bit dword counts: 2^29 slots at most.
    if slots > (1 << 29) {
        return Err(FragmentDecodeError::TooLarge { len });
    }
    let whole = slots * SLOT_BYTES;
    if strict && whole != len {
        return Err(FragmentDecodeError::Truncated {
            offset: whole,
            available: len - whole,
        });
    }
    let mut instructions = Vec::with_capacity(slots.min(4096));
    let mut i = 0usize;
    loop {
        let Some(w) = src.slot(i) else {
            return Err(if whole != len && i * SLOT_BYTES == whole {
                FragmentDecodeError::Truncated {
                    offset: whole,
                    available: len - whole,
                }
            } else {
                FragmentDecodeError::MissingEnd { offset: len }
            });
        };
        // `slots` <= 2^29, so the cast is lossless.
        let slot = i as u32;
        let mut insn = decode_instruction(slot, w)?;
        if !insn.opcode.is_flow() && has_constant_source(w) {
            let Some(c) = src.slot(i + 1) else {
                return Err(FragmentDecodeError::MissingConstant {
                    slot,
                    offset: (i + 1) * SLOT_BYTES,
                });
            };
            insn.constant = Some(InlineConstant(c));
            i += 1;
        }
        i += 1;
        let end = insn.end;
        instructions.push(insn);
        if end {
            break;
        }
    }
    if strict && i * SLOT_BYTES != len {
        return Err(FragmentDecodeError::TrailingData {
            slot: i as u32,
            offset: i * SLOT_BYTES,
        });
    }
    let mut program = FragmentProgram {
        instructions,
        slot_count: i as u32,
    };
    validate_flow(&mut program)?;
    Ok(program)
}

/// Decode the four words of one instruction (no constant, no flow-target validation).
#[inline(always)]
fn decode_instruction(slot: u32, w: [u32; 4]) -> Result<FragmentInstruction, FragmentDecodeError> {
    let [op, s0, s1, s2] = w;
    let value = (((op >> 24) & 0x3F) | ((s1 >> 31) << 6)) as u8;
    let opcode =
        FpOpcode::from_u8(value).ok_or(FragmentDecodeError::InvalidOpcode { slot, value })?;
    let dest = Destination {
        index: ((op >> 1) & 0x3F) as u8,
        fp16: op & (1 << 7) != 0,
        set_cond: op & (1 << 8) != 0,
        mask: WriteMask(((op >> 9) & 0xF) as u8),
        precision: Precision::from_bits(op >> 22),
        no_dest: op & (1 << 30) != 0,
        saturate: op & (1 << 31) != 0,
        cc_write: ((s0 >> 30) & 1) as u8,
    };
    let condition = Condition {
        relation: Relation::from_bits(s0 >> 18),
        swizzle: Swizzle::from_bits(s0 >> 21),
        cc: (s0 >> 31) as u8,
    };
    let operands = if opcode.is_flow() {
        Operands::Flow(decode_flow(opcode, s0, s1, s2))
    } else {
        for (operand, word) in [(0u8, s0), (1, s1), (2, s2)] {
            if word & 3 == 3 {
                return Err(FragmentDecodeError::InvalidSourceType { slot, operand });
            }
        }
        Operands::Alu(AluOperands {
            sources: [
                source(s0, s0 & (1 << 29) != 0, s1 >> 19),
                source(s1, s1 & (1 << 18) != 0, s1 >> 22),
                source(s2, s2 & (1 << 18) != 0, s1 >> 25),
            ],
            scale: OutputScale::from_bits(s1 >> 28),
            perspective: s2 & (1 << 31) != 0,
            indexed_input: s2 & (1 << 30) != 0,
            input_displacement: ((s2 >> 19) & 0x7FF) as u16,
        })
    };
    Ok(FragmentInstruction {
        slot,
        opcode,
        end: op & 1 != 0,
        dest,
        input: InputAttribute(((op >> 13) & 0xF) as u8),
        texture_unit: ((op >> 17) & 0xF) as u8,
        exp_tex: op & (1 << 21) != 0,
        condition,
        operands,
        constant: None,
    })
}

/// One source from its word (type already checked not to be 3), abs bit and modifier bits.
#[inline(always)]
fn source(word: u32, abs: bool, modifier: u32) -> Source {
    Source {
        kind: match word & 3 {
            0 => SourceKind::Temp,
            1 => SourceKind::Input,
            _ => SourceKind::Constant,
        },
        index: ((word >> 2) & 0x3F) as u8,
        fp16: word & (1 << 8) != 0,
        swizzle: Swizzle::from_bits(word >> 9),
        negate: word & (1 << 17) != 0,
        abs,
        modifier: PrecisionModifier::from_bits(modifier),
    }
}

/// Offsets are stored raw here (dwords); [`validate_flow`] converts and checks them.
fn decode_flow(opcode: FpOpcode, s0: u32, s1: u32, s2: u32) -> FlowOperands {
    const OFFSET: u32 = 0x7FFF_FFFF;
    // SRC0 keeps only the condition (18–28, 30, 31) for flow ops.
    let r0 = s0 & (0x3_FFFF | (1 << 29));
    let (kind, r1, r2) = match opcode {
        FpOpcode::Cal => (
            FlowKind::Cal {
                target: s1 & OFFSET,
            },
            0,
            s2,
        ),
        FpOpcode::Ife => (
            FlowKind::Ife {
                else_slot: s1 & OFFSET,
                end_slot: s2 & OFFSET,
            },
            0,
            s2 & !OFFSET,
        ),
        FpOpcode::Loop | FpOpcode::Rep => {
            let fields = LoopFields {
                count: ((s1 >> 2) & 0xFF) as u8,
                init: ((s1 >> 10) & 0xFF) as u8,
                increment: ((s1 >> 19) & 0xFF) as u8 as i8,
                end_slot: s2 & OFFSET,
            };
            let kind = if opcode == FpOpcode::Loop {
                FlowKind::Loop(fields)
            } else {
                FlowKind::Rep(fields)
            };
            (kind, s1 & (0b11 | (1 << 18) | (0xF << 27)), s2 & !OFFSET)
        }
        FpOpcode::Brk => (FlowKind::Brk, s1 & OFFSET, s2),
        _ => (FlowKind::Ret, s1 & OFFSET, s2),
    };
    FlowOperands {
        kind,
        reserved: [r0, r1, r2],
    }
}

/// Convert each raw dword offset to a slot and check it lands on an instruction.
fn validate_flow(program: &mut FragmentProgram) -> Result<(), FragmentDecodeError> {
    // `instructions` are sorted by slot; binary search finds instruction starts.
    let is_instruction = |slot: u32| {
        program
            .instructions
            .binary_search_by_key(&slot, |i| i.slot)
            .is_ok()
    };
    let check = |at: u32, field: FlowField, offset: u32, forward: bool| {
        let err = |problem| FragmentDecodeError::BadFlowTarget {
            slot: at,
            field,
            offset,
            problem,
        };
        if offset % 4 != 0 {
            return Err(err(FlowTargetProblem::Misaligned));
        }
        let target = offset / 4;
        if forward && target <= at {
            return Err(err(FlowTargetProblem::NotForward));
        }
        if target >= program.slot_count {
            return Err(err(FlowTargetProblem::PastEnd));
        }
        if !is_instruction(target) {
            return Err(err(FlowTargetProblem::ConstantSlot));
        }
        Ok(target)
    };
    // Checked against the immutable program first, then patched in.
    let mut fixed: Vec<(usize, FlowKind)> = Vec::new();
    for (n, insn) in program.instructions.iter().enumerate() {
        let Operands::Flow(flow) = &insn.operands else {
            continue;
        };
        let at = insn.slot;
        let kind = match flow.kind {
            FlowKind::Cal { target } => FlowKind::Cal {
                target: check(at, FlowField::Target, target, false)?,
            },
            FlowKind::Ife {
                else_slot,
                end_slot,
            } => {
                let e = check(at, FlowField::Else, else_slot, true)?;
                let end = check(at, FlowField::End, end_slot, true)?;
                if e > end {
                    return Err(FragmentDecodeError::BadFlowTarget {
                        slot: at,
                        field: FlowField::Else,
                        offset: else_slot,
                        problem: FlowTargetProblem::ElseAfterEnd,
                    });
                }
                FlowKind::Ife {
                    else_slot: e,
                    end_slot: end,
                }
            }
            FlowKind::Loop(mut l) => {
                l.end_slot = check(at, FlowField::End, l.end_slot, true)?;
                FlowKind::Loop(l)
            }
            FlowKind::Rep(mut l) => {
                l.end_slot = check(at, FlowField::End, l.end_slot, true)?;
                FlowKind::Rep(l)
            }
            k @ (FlowKind::Brk | FlowKind::Ret) => k,
        };
        fixed.push((n, kind));
    }
    for (n, kind) in fixed {
        if let Some(Operands::Flow(flow)) = program.instructions.get_mut(n).map(|i| &mut i.operands)
        {
            flow.kind = kind;
        }
    }
    Ok(())
}
