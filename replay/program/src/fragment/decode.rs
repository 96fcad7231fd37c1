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

/// The unread rest of the input, as slots of four nouveau-order words.
trait Slots: Copy {
    /// The first slot, or `None` when less than a whole slot is left.
    fn first(self) -> Option<[u32; 4]>;
    /// The input without its first `n` slots (empty when fewer are left).
    fn skip(self, n: usize) -> Self;
}

/// Guest-order bytes: each word big-endian with its halves swapped.
#[derive(Clone, Copy)]
struct GuestBytes<'a>(&'a [u8]);

impl Slots for GuestBytes<'_> {
    #[inline(always)]
    fn first(self) -> Option<[u32; 4]> {
        let (s, _) = self.0.split_first_chunk::<SLOT_BYTES>()?;
        Some([
            word_from_guest([s[0], s[1], s[2], s[3]]),
            word_from_guest([s[4], s[5], s[6], s[7]]),
            word_from_guest([s[8], s[9], s[10], s[11]]),
            word_from_guest([s[12], s[13], s[14], s[15]]),
        ])
    }
    #[inline(always)]
    fn skip(self, n: usize) -> Self {
        GuestBytes(
            n.checked_mul(SLOT_BYTES)
                .and_then(|at| self.0.get(at..))
                .unwrap_or(&[]),
        )
    }
}

/// Host-order words (no swap).
#[derive(Clone, Copy)]
struct HostWords<'a>(&'a [u32]);

impl Slots for HostWords<'_> {
    #[inline(always)]
    fn first(self) -> Option<[u32; 4]> {
        self.0.first_chunk::<4>().copied()
    }
    #[inline(always)]
    fn skip(self, n: usize) -> Self {
        HostWords(
            n.checked_mul(4)
                .and_then(|at| self.0.get(at..))
                .unwrap_or(&[]),
        )
    }
}

/// Decode exactly the given ucode, starting at slot 0: bytes as stored in guest memory and in
/// CgBinary containers. The END instruction (plus its constant slot) must be the last slot;
/// anything after it is [`FragmentDecodeError::TrailingData`].
pub fn decode(ucode: &[u8]) -> Result<FragmentProgram, FragmentDecodeError> {
    decode_from(GuestBytes(ucode), ucode.len(), true)
}

/// Like [`decode`], but stops at the END instruction and ignores what follows (for memory
/// blocks that may be longer than the program, e.g. a capture's memory snapshot).
pub fn decode_until_end(ucode: &[u8]) -> Result<FragmentProgram, FragmentDecodeError> {
    decode_from(GuestBytes(ucode), ucode.len(), false)
}

/// Decode words already in nouveau/host order (no half-word swap), e.g. Tiny3D's
/// `nv_shaders.h` arrays. Strict like [`decode`]; byte offsets in errors count 4 per word.
pub fn decode_words(words: &[u32]) -> Result<FragmentProgram, FragmentDecodeError> {
    decode_from(HostWords(words), words.len().saturating_mul(4), true)
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
    let mut rest = GuestBytes(ucode);
    let mut at = 0usize;
    while let Some(w) = rest.first() {
        let here = at;
        let mut step = 1;
        if w[2] & (1 << 31) == 0 {
            if (w[0] >> 24) & 0x3F != 0 {
                return here;
            }
            if has_constant_source(w) {
                // Skip the data slot too (RPCS3 `analyse_fragment_program`).
                step = 2;
            }
        }
        if w[0] & 1 != 0 {
            return here;
        }
        rest = rest.skip(step);
        at += step * SLOT_BYTES;
    }
    ucode.len() - ucode.len() % SLOT_BYTES
}

/// Any of SRC0..SRC2 has register type 2 (RPCS3 `is_any_src_constant`).
#[inline(always)]
fn has_constant_source(w: [u32; 4]) -> bool {
    (w[1] & 3) == 2 || (w[2] & 3) == 2 || (w[3] & 3) == 2
}

/// The 7-bit opcode value to [`FpOpcode`] as a table (one load instead of a 70-arm match).
const OPCODES: [Option<FpOpcode>; 128] = {
    let mut table = [None; 128];
    let mut v = 0;
    while v < 128 {
        table[v] = FpOpcode::from_u8(v as u8);
        v += 1;
    }
    table
};

/// Non-zero when a source word has register type 3 (both bits 0 and 1 set).
#[inline(always)]
fn type3(word: u32) -> u32 {
    word & (word >> 1) & 1
}

/// Decode from the slots of `rest`; `len` is the input length in bytes (for errors).
#[inline(always)]
fn decode_from(
    mut rest: impl Slots,
    len: usize,
    strict: bool,
) -> Result<FragmentProgram, FragmentDecodeError> {
    if len == 0 {
        return Err(FragmentDecodeError::Empty);
    }
    let whole_slots = len / SLOT_BYTES;
    // Flow offsets are 31-bit dword counts: 2^29 slots at most.
    if whole_slots > (1 << 29) {
        return Err(FragmentDecodeError::TooLarge { len });
    }
    let whole = whole_slots * SLOT_BYTES;
    if strict && whole != len {
        return Err(FragmentDecodeError::Truncated {
            offset: whole,
            available: len - whole,
        });
    }
    // At most one instruction per slot; the cap bounds what a large memory block reserves.
    let mut instructions = Vec::with_capacity(whole_slots.min(4096));
    // Indices (into `instructions`) of flow-control instructions, checked after the loop.
    let mut flows: Vec<usize> = Vec::new();
    // Slot of the next instruction; `whole_slots` <= 2^29 bounds it, so u32 arithmetic on it
    // cannot overflow.
    let mut slot = 0u32;
    loop {
        let Some(w) = rest.first() else {
            return Err(end_of_input(slot, whole, len));
        };
        let [op, s0, s1, s2] = w;
        // Opcode: `OPDEST` 24–29 plus `SRC1` bit 31 (B.1).
        let value = ((op >> 24) & 0x3F) | ((s1 >> 31) << 6);
        let Some(opcode) = OPCODES.get(value as usize).copied().flatten() else {
            return Err(instruction_error(slot, rest));
        };
        // The ALU and flow paths each push their own instruction, so the compiler builds it
        // in place instead of merging the two through a stack temporary.
        if s1 >> 31 == 0 {
            if type3(s0) | type3(s1) | type3(s2) != 0 {
                return Err(instruction_error(slot, rest));
            }
            // The input advances by 1 or 2 slots arithmetically rather than through a branch:
            // whether an instruction owns a constant is data dependent and predicts badly.
            let has_constant = has_constant_source(w);
            let next = rest.skip(1);
            let c = next.first();
            if has_constant && c.is_none() {
                return Err(FragmentDecodeError::MissingConstant {
                    slot,
                    offset: (slot as usize + 1) * SLOT_BYTES,
                });
            }
            let constant = c.filter(|_| has_constant).map(InlineConstant);
            push_with(&mut instructions, move || {
                alu_instruction(slot, opcode, w, constant)
            });
            rest = next.skip(usize::from(has_constant));
            slot += 1 + u32::from(has_constant);
        } else {
            flows.push(instructions.len());
            instructions.push(flow_instruction(slot, opcode, rest));
            rest = rest.skip(1);
            slot += 1;
        }
        if op & 1 != 0 {
            break;
        }
    }
    let consumed = slot as usize * SLOT_BYTES;
    if strict && consumed != len {
        return Err(FragmentDecodeError::TrailingData {
            slot,
            offset: consumed,
        });
    }
    let mut program = FragmentProgram {
        instructions,
        slot_count: slot,
    };
    if !flows.is_empty() {
        validate_flow(&mut program, &flows)?;
    }
    Ok(program)
}

/// Push the instruction `make` builds. While the vector has room (always, up to the
/// reserved capacity) `make` runs on a path with no call, so the compiler can build the
/// instruction straight into the vector instead of keeping its fields alive across a
/// possible reallocation.
#[inline(always)]
fn push_with(v: &mut Vec<FragmentInstruction>, make: impl FnOnce() -> FragmentInstruction) {
    if v.len() < v.capacity() {
        v.push(make());
    } else {
        grow_and_push(v, make);
    }
}

/// The rare path of [`push_with`]: the vector is full.
#[cold]
#[inline(never)]
fn grow_and_push(v: &mut Vec<FragmentInstruction>, make: impl FnOnce() -> FragmentInstruction) {
    v.push(make());
}

/// The error for running out of slots at `slot`: a partial slot there is
/// [`FragmentDecodeError::Truncated`], otherwise the END is missing.
#[cold]
fn end_of_input(slot: u32, whole: usize, len: usize) -> FragmentDecodeError {
    if whole != len && slot as usize * SLOT_BYTES == whole {
        FragmentDecodeError::Truncated {
            offset: whole,
            available: len - whole,
        }
    } else {
        FragmentDecodeError::MissingEnd { offset: len }
    }
}

/// The error for the first slot of `rest` (slot number `slot`), refused by the fast check in
/// the decode loop: an unnamed opcode first, then the first source of register type 3. The
/// slot is read again here so the hot loop need not keep its words in memory.
#[cold]
#[inline(never)]
fn instruction_error(slot: u32, rest: impl Slots) -> FragmentDecodeError {
    let [op, s0, s1, s2] = rest.first().unwrap_or_default();
    let value = (((op >> 24) & 0x3F) | ((s1 >> 31) << 6)) as u8;
    if FpOpcode::from_u8(value).is_none() {
        return FragmentDecodeError::InvalidOpcode { slot, value };
    }
    let operand = [s0, s1, s2]
        .iter()
        .position(|&s| type3(s) != 0)
        .unwrap_or(0) as u8;
    FragmentDecodeError::InvalidSourceType { slot, operand }
}

/// An ALU or texture instruction (`SRC1` bit 31 clear) whose sources were checked not to
/// have register type 3.
#[inline(always)]
fn alu_instruction(
    slot: u32,
    opcode: FpOpcode,
    w: [u32; 4],
    constant: Option<InlineConstant>,
) -> FragmentInstruction {
    let [_, s0, s1, s2] = w;
    FragmentInstruction {
        operands: Operands::Alu(AluOperands {
            sources: [
                source(s0, s0 & (1 << 29) != 0, s1 >> 19),
                source(s1, s1 & (1 << 18) != 0, s1 >> 22),
                source(s2, s2 & (1 << 18) != 0, s1 >> 25),
            ],
            scale: OutputScale::from_bits(s1 >> 28),
            perspective: s2 & (1 << 31) != 0,
            indexed_input: s2 & (1 << 30) != 0,
            input_displacement: ((s2 >> 19) & 0x7FF) as u16,
        }),
        constant,
        ..common_fields(slot, opcode, w)
    }
}

/// A flow-control instruction (`SRC1` bit 31 set); offsets still raw (see [`decode_flow`]).
/// The words are read again from `rest` (whose first slot this is), so the hot loop need not
/// keep them in memory for this call.
#[inline(never)]
fn flow_instruction(slot: u32, opcode: FpOpcode, rest: impl Slots) -> FragmentInstruction {
    let w = rest.first().unwrap_or_default();
    let [_, s0, s1, s2] = w;
    FragmentInstruction {
        operands: Operands::Flow(decode_flow(opcode, s0, s1, s2)),
        ..common_fields(slot, opcode, w)
    }
}

/// The fields every instruction has (`OPDEST` and the `SRC0` condition); `operands` is a
/// placeholder the callers replace.
#[inline(always)]
fn common_fields(slot: u32, opcode: FpOpcode, w: [u32; 4]) -> FragmentInstruction {
    let [op, s0, _, _] = w;
    FragmentInstruction {
        slot,
        opcode,
        end: op & 1 != 0,
        dest: Destination {
            index: ((op >> 1) & 0x3F) as u8,
            fp16: op & (1 << 7) != 0,
            set_cond: op & (1 << 8) != 0,
            mask: WriteMask(((op >> 9) & 0xF) as u8),
            precision: Precision::from_bits(op >> 22),
            no_dest: op & (1 << 30) != 0,
            saturate: op & (1 << 31) != 0,
            cc_write: ((s0 >> 30) & 1) as u8,
        },
        input: InputAttribute(((op >> 13) & 0xF) as u8),
        texture_unit: ((op >> 17) & 0xF) as u8,
        exp_tex: op & (1 << 21) != 0,
        condition: Condition {
            relation: Relation::from_bits(s0 >> 18),
            swizzle: swizzle(s0 >> 21),
            cc: (s0 >> 31) as u8,
        },
        operands: Operands::Flow(FlowOperands {
            kind: FlowKind::Brk,
            reserved: [0; 3],
        }),
        constant: None,
    }
}

/// Every 8-bit swizzle field (2 bits per component, x lowest; B.1) decoded, so a swizzle is
/// one load from a 1 KiB table.
const SWIZZLES: [Swizzle; 256] = {
    let mut table = [Swizzle::IDENTITY; 256];
    let mut bits = 0;
    while bits < 256 {
        table[bits] = Swizzle([
            (bits & 3) as u8,
            ((bits >> 2) & 3) as u8,
            ((bits >> 4) & 3) as u8,
            ((bits >> 6) & 3) as u8,
        ]);
        bits += 1;
    }
    table
};

/// The swizzle in the low 8 bits of `bits`; the same value as [`Swizzle::from_bits`].
#[inline(always)]
fn swizzle(bits: u32) -> Swizzle {
    // The index is masked to 0..=255, so the lookup never fails.
    SWIZZLES[(bits & 0xFF) as usize]
}

/// Source register types 0, 1 and 2 (3 is refused before a source is built).
const SOURCE_KINDS: [SourceKind; 4] = [
    SourceKind::Temp,
    SourceKind::Input,
    SourceKind::Constant,
    SourceKind::Constant,
];

/// One source from its word (type already checked not to be 3), abs bit and modifier bits.
#[inline(always)]
fn source(word: u32, abs: bool, modifier: u32) -> Source {
    Source {
        // Masked to 0..=3: the lookup never fails.
        kind: SOURCE_KINDS[(word & 3) as usize],
        index: ((word >> 2) & 0x3F) as u8,
        fp16: word & (1 << 8) != 0,
        swizzle: swizzle(word >> 9),
        negate: word & (1 << 17) != 0,
        abs,
        modifier: PrecisionModifier::from_bits(modifier),
    }
}

/// Offsets are stored raw here (dwords); [`validate_flow`] converts and checks them.
#[inline(never)]
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

/// Convert each raw dword offset to a slot and check it lands on an instruction. `flows`
/// lists the indices of the flow-control instructions, ascending.
#[inline(never)]
fn validate_flow(
    program: &mut FragmentProgram,
    flows: &[usize],
) -> Result<(), FragmentDecodeError> {
    let slot_count = program.slot_count;
    // Each instruction is checked with the program borrowed immutably, then patched. Patching
    // changes no slot, so later checks see the same instruction starts; on error the caller
    // drops the program.
    for &n in flows {
        let Some(insn) = program.instructions.get(n) else {
            continue;
        };
        let Operands::Flow(flow) = &insn.operands else {
            continue;
        };
        let at = insn.slot;
        let check = |field, offset, forward| {
            check_target(
                &program.instructions,
                slot_count,
                (n, at),
                field,
                offset,
                forward,
            )
        };
        let kind = match flow.kind {
            FlowKind::Cal { target } => FlowKind::Cal {
                target: check(FlowField::Target, target, false)?,
            },
            FlowKind::Ife {
                else_slot,
                end_slot,
            } => {
                let e = check(FlowField::Else, else_slot, true)?;
                let end = check(FlowField::End, end_slot, true)?;
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
                l.end_slot = check(FlowField::End, l.end_slot, true)?;
                FlowKind::Loop(l)
            }
            FlowKind::Rep(mut l) => {
                l.end_slot = check(FlowField::End, l.end_slot, true)?;
                FlowKind::Rep(l)
            }
            k @ (FlowKind::Brk | FlowKind::Ret) => k,
        };
        if let Some(Operands::Flow(flow)) = program.instructions.get_mut(n).map(|i| &mut i.operands)
        {
            flow.kind = kind;
        }
    }
    Ok(())
}

/// Check one encoded dword `offset` of the flow instruction `from` (its index in
/// `instructions` and its slot) and convert it to a slot: aligned, forward when `forward`,
/// inside the program, on an instruction (not a constant slot).
fn check_target(
    instructions: &[FragmentInstruction],
    slot_count: u32,
    from: (usize, u32),
    field: FlowField,
    offset: u32,
    forward: bool,
) -> Result<u32, FragmentDecodeError> {
    let (index, at) = from;
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
    if target >= slot_count {
        return Err(err(FlowTargetProblem::PastEnd));
    }
    // Instructions take one or two slots, so the instruction `d` slots away is between `d/2`
    // and `d` instructions away: search only that window (targets are usually near).
    let distance = target.abs_diff(at) as usize;
    let (lo, hi) = if target >= at {
        (
            index.saturating_add(distance / 2),
            index.saturating_add(distance),
        )
    } else {
        (
            index.saturating_sub(distance),
            index.saturating_sub(distance / 2),
        )
    };
    let window = instructions
        .get(lo.min(instructions.len())..hi.saturating_add(1).min(instructions.len()))
        .unwrap_or(&[]);
    if window.binary_search_by_key(&target, |i| i.slot).is_err() {
        return Err(err(FlowTargetProblem::ConstantSlot));
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `SRC0` condition "always": relation TR (7) at 18–20, identity swizzle 0xE4 at 21–28.
    const COND_TR: u32 = (7 << 18) | (0xE4 << 21);
    /// A temp source R0.xyzw: type 0, index 0, swizzle 0xE4 at 9–16.
    const R0: u32 = 0xE4 << 9;
    /// MUL R0, R0, {c}: opcode 0x02 at 24–29, mask xyzw (0xF at 9–12); SRC1 is type 2.
    const MUL_CONST: [u32; 4] = [(0x02 << 24) | (0xF << 9), COND_TR | R0, R0 | 2, R0];
    /// MOV R0, R0: opcode 0x01.
    const MOV: [u32; 4] = [(0x01 << 24) | (0xF << 9), COND_TR | R0, R0, R0];
    /// CAL (0x41: 0x01 at 24–29, `SRC1` bit 31) to the dword offset `target`, no_dest (bit 30).
    fn cal(target: u32) -> [u32; 4] {
        [(0x01 << 24) | (1 << 30), COND_TR, (1 << 31) | target, 0]
    }

    #[test]
    fn swizzle_table_matches_from_bits() {
        for bits in 0..256u32 {
            assert_eq!(swizzle(bits), Swizzle::from_bits(bits), "{bits:#04x}");
            // Only the low 8 bits count.
            assert_eq!(
                swizzle(bits | 0xFF00),
                Swizzle::from_bits(bits),
                "{bits:#04x}"
            );
        }
        // 0b00_01_10_11: x = 3 (w), y = 2 (z), z = 1 (y), w = 0 (x).
        assert_eq!(swizzle(0x1B), Swizzle([3, 2, 1, 0]));
    }

    #[test]
    fn opcode_table_covers_every_value() {
        for value in 0..128u8 {
            assert_eq!(
                OPCODES[usize::from(value)],
                FpOpcode::from_u8(value),
                "{value:#04x}"
            );
        }
    }

    /// Words of one- and two-slot instructions (`true` = MUL with a constant, `false` =
    /// MOV), with the slot of each.
    fn push_body(words: &mut Vec<u32>, starts: &mut Vec<u32>, sizes: &[bool]) {
        for &two in sizes {
            starts.push((words.len() / 4) as u32);
            if two {
                words.extend_from_slice(&MUL_CONST);
                words.extend_from_slice(&[0x3F80_0000, 0, 0, 0x3F80_0000]);
            } else {
                words.extend_from_slice(&MOV);
            }
        }
    }

    /// `before`, CAL to slot `target`, `after`, MOV END. Returns the words, the CAL's slot and
    /// index, and every instruction start.
    fn with_call(before: &[bool], after: &[bool], target: u32) -> (Vec<u32>, u32, Vec<u32>) {
        let mut words = Vec::new();
        let mut starts = Vec::new();
        push_body(&mut words, &mut starts, before);
        let cal_slot = (words.len() / 4) as u32;
        starts.push(cal_slot);
        words.extend_from_slice(&cal(target * 4));
        push_body(&mut words, &mut starts, after);
        starts.push((words.len() / 4) as u32);
        let mut end = MOV;
        end[0] |= 1;
        words.extend_from_slice(&end);
        (words, cal_slot, starts)
    }

    /// Every call target, backward and forward, in programs mixing one- and two-slot
    /// instructions is accepted exactly when it is an instruction start: the search window in
    /// `check_target` must hold every instruction the target could be, including when all
    /// instructions in between take two slots (the window's edge) or one.
    #[test]
    fn call_targets_across_constants() {
        let pattern: Vec<bool> = (0..40u32)
            .map(|i| (0x9C3A_5F17u32 >> (i % 32)) & 1 == 1)
            .collect();
        let shapes: [(Vec<bool>, Vec<bool>); 4] = [
            (vec![true; 9], vec![true; 9]),
            (vec![false; 9], vec![false; 9]),
            (pattern.clone(), pattern.iter().rev().copied().collect()),
            (
                (0..12).map(|i| i % 2 == 0).collect(),
                (0..12).map(|i| i % 3 == 0).collect(),
            ),
        ];
        for (before, after) in &shapes {
            let (words, _, _) = with_call(before, after, 0);
            let total = (words.len() / 4) as u32;
            for target in 0..total {
                let (words, cal_slot, starts) = with_call(before, after, target);
                let result = decode_words(&words);
                if starts.contains(&target) {
                    let program = result.unwrap_or_else(|e| panic!("target {target}: {e}"));
                    let flow = program.instructions[before.len()].flow().map(|f| f.kind);
                    assert_eq!(flow, Some(FlowKind::Cal { target }), "target {target}");
                } else {
                    assert_eq!(
                        result,
                        Err(FragmentDecodeError::BadFlowTarget {
                            slot: cal_slot,
                            field: FlowField::Target,
                            offset: target * 4,
                            problem: FlowTargetProblem::ConstantSlot,
                        }),
                        "target {target}"
                    );
                }
            }
        }
    }

    /// Forward IFE offsets across constant slots: the else and end slots land on instruction
    /// starts (accepted) or inside a constant (refused, naming the field).
    #[test]
    fn ife_targets_across_constants() {
        // Slot 0: IFE (0x42) else/end; slots 1–2 MUL + constant; 3–4 MUL + constant; 5 END.
        let ife = |else_slot: u32, end_slot: u32| {
            [
                (0x02 << 24) | (1 << 30),
                COND_TR,
                (1 << 31) | (else_slot * 4),
                end_slot * 4,
            ]
        };
        let program = |else_slot, end_slot| {
            let mut words = ife(else_slot, end_slot).to_vec();
            for _ in 0..2 {
                words.extend_from_slice(&MUL_CONST);
                words.extend_from_slice(&[0x4000_0000, 0, 0, 0]);
            }
            let mut end = MOV;
            end[0] |= 1;
            words.extend_from_slice(&end);
            decode_words(&words)
        };
        let p = program(3, 5).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            p.instructions[0].flow().map(|f| f.kind),
            Some(FlowKind::Ife {
                else_slot: 3,
                end_slot: 5
            })
        );
        assert_eq!(p.slot_count, 6);
        for (else_slot, end_slot, field, offset) in [
            (2, 5, FlowField::Else, 8),
            (4, 5, FlowField::Else, 16),
            (3, 4, FlowField::End, 16),
        ] {
            assert_eq!(
                program(else_slot, end_slot),
                Err(FragmentDecodeError::BadFlowTarget {
                    slot: 0,
                    field,
                    offset,
                    problem: FlowTargetProblem::ConstantSlot,
                }),
                "else {else_slot} end {end_slot}"
            );
        }
    }

    /// Both refusals of the fast check report what the full check would, in order: the
    /// opcode first, then the first source of type 3.
    #[test]
    fn instruction_errors_in_order() {
        // Opcode 0x30 (no name) and a type-3 SRC0: the opcode is reported.
        let mut w = MOV;
        w[0] = (0x30 << 24) | (0xF << 9);
        w[1] |= 3;
        assert_eq!(
            decode_words(&w),
            Err(FragmentDecodeError::InvalidOpcode {
                slot: 0,
                value: 0x30
            })
        );
        // MOV with SRC1 and SRC2 of type 3: source 1 is reported.
        let mut w = MOV;
        w[2] |= 3;
        w[3] |= 3;
        assert_eq!(
            decode_words(&w),
            Err(FragmentDecodeError::InvalidSourceType {
                slot: 0,
                operand: 1
            })
        );
    }
}
