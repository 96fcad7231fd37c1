//! The pre-decoded form the block engine ([`super::exec`]) runs: each checked instruction is
//! converted once into an [`Op`] with everything that does not depend on the pixel resolved
//! up front — swizzles as index arrays, the components each source must supply, inline
//! constants converted and fully modified, input-attribute rules (COL0/COL1 clamp, FOGC.w,
//! perspective factor) decided, the precision-clamp exemptions of rsx-microcode.md B.2
//! applied, flow targets turned into instruction indices.

use rsxtrace_program::fragment::{
    FlowKind, FpOpcode, FragmentInstruction, Precision, PrecisionModifier, Relation, Source,
    SourceKind,
};

use super::error::FragmentExecError;
use super::io::attr;
use super::options::{FragmentOptions, PerspectiveFlag};
use super::precision::{scale_factor, source_modifier};
use super::prepare::Prepared;
use super::real::{idx4, map4, Real};
use super::regfile::R_COUNT;

/// Where a source's raw value comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Read<T> {
    /// Not read by the opcode.
    Unused,
    /// R register `n`.
    R(u8),
    /// H register `n`.
    H(u8),
    /// A value already swizzled and modified (inline constants).
    Value([T; 4]),
    /// Input attribute `attr` (0–14).
    Input {
        /// Attribute number.
        attr: u8,
        /// Multiplied by WPOS.w ([`perspective_applies`]).
        perspective: bool,
    },
    /// `TEX[A0 + displacement]` (B.3).
    Indexed {
        /// Added to A0.
        displacement: u16,
        /// Multiplied by WPOS.w ([`perspective_applies`]).
        perspective: bool,
    },
}

/// A source operand with its modifiers resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Src<T> {
    /// The raw value.
    pub read: Read<T>,
    /// Component of the raw value feeding x, y, z, w (0–3).
    pub swizzle: [u8; 4],
    /// |x| first.
    pub abs: bool,
    /// Precision modifier, `None` when it has no effect or does not apply (COL0/COL1, B.2).
    pub modifier: PrecisionModifier,
    /// Negate last.
    pub negate: bool,
}

/// What the destination does with a result (RPCS3 `SetDst` order, B.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clamp {
    /// No clamp (fp32, fp16, or an exempt opcode).
    None,
    /// Saturate (NaN → 0).
    Saturate,
    /// fx12 precision.
    Fx12,
    /// fx9 precision.
    Fx9,
}

/// The destination fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dst<T> {
    /// Condition FL: nothing is written, not even the CC.
    pub skip: bool,
    /// Writes the register file (not `no_dest`).
    pub write: bool,
    /// H destination.
    pub fp16: bool,
    /// Register index (R or H numbering).
    pub index: u8,
    /// Components written (bit 0 = x).
    pub mask: u8,
    /// Output scale factor, `None` for ×1.
    pub scale: Option<T>,
    /// Clamp after the fp16 rounding.
    pub clamp: Clamp,
    /// Writes the condition register `cc`.
    pub set_cond: bool,
    /// Condition register written (0 or 1).
    pub cc: u8,
}

/// The condition test (B.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cond {
    /// Relation against 0.
    pub relation: Relation,
    /// CC component tested for x, y, z, w.
    pub swizzle: [u8; 4],
    /// Condition register read (0 or 1).
    pub cc: u8,
}

/// What kind of work an instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// NOP, FENCT, FENCB.
    Nop,
    /// Arithmetic, pack/unpack ([`super::ops`]).
    Alu,
    /// KIL.
    Kil,
    /// DDX.
    Ddx,
    /// DDY.
    Ddy,
    /// TEX, TXP, TXD, TXL, TXB, TEXBEM, TXPBEM.
    Texture,
    /// IFE; `else_slot == end_slot` when there is no else block.
    Ife {
        /// First slot of the else block.
        else_slot: u32,
        /// First slot after the construct.
        end_slot: u32,
        /// Index of the else block's first instruction.
        else_index: usize,
        /// Index of the first instruction after the construct.
        end_index: usize,
    },
    /// LOOP or REP.
    Loop {
        /// Iterations.
        count: u8,
        /// Initial counter.
        init: u8,
        /// Counter increment.
        increment: i8,
        /// First slot after the body.
        end_slot: u32,
        /// Index of the first instruction after the body.
        end_index: usize,
    },
    /// BRK.
    Brk,
    /// RET.
    Ret,
    /// CAL (no semantics; refused when executed).
    Cal,
}

/// One pre-decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Op<T> {
    /// Instruction slot (for errors and block ends).
    pub slot: u32,
    /// The opcode.
    pub opcode: FpOpcode,
    /// Its kind.
    pub kind: Kind,
    /// END bit.
    pub end: bool,
    /// Register sources actually read (0–3).
    pub sources: usize,
    /// The sources (entries past `sources` are [`Read::Unused`]).
    pub src: [Src<T>; 3],
    /// Components of each (swizzled) source the opcode uses.
    pub need: [u8; 3],
    /// Destination.
    pub dst: Dst<T>,
    /// Condition test.
    pub cond: Cond,
    /// Texture unit.
    pub texture_unit: u8,
    /// Texel expanded with 2x − 1.
    pub exp_tex: bool,
}

/// A whole program in pre-decoded form.
#[derive(Clone, Debug)]
pub struct Compiled<T> {
    /// Instructions in slot order.
    pub ops: Vec<Op<T>>,
    /// R registers the block engine must keep (every register referenced, and R0–R4 for
    /// the outputs).
    pub registers: usize,
    /// Bit `n`: input attribute `n` can be read.
    pub attributes: u16,
}

impl<T: Real> Compiled<T> {
    /// Converts a checked program for `opts`.
    pub fn new(prepared: &Prepared<'_>, opts: &FragmentOptions) -> Result<Self, FragmentExecError> {
        let mut ops = Vec::with_capacity(prepared.insns.len());
        // R0, R2, R3, R4 / H0..H8 (colours) and R1 (depth) are read at the end (B.6).
        let mut registers = 5usize;
        let mut attributes = 0u16;
        for insn in prepared.insns {
            let op = compile_op::<T>(prepared, insn, opts)?;
            for s in op.src.iter().take(op.sources) {
                match s.read {
                    Read::R(r) => registers = registers.max(usize::from(r) + 1),
                    Read::H(h) => registers = registers.max(usize::from(h >> 1) + 1),
                    Read::Input { attr, .. } => {
                        attributes |= 1u16.checked_shl(u32::from(attr)).unwrap_or(0)
                    }
                    // TEX0..TEX9 (B.3).
                    Read::Indexed { .. } => attributes |= 0x3FF << attr::TEX0,
                    Read::Unused | Read::Value(_) => {}
                }
            }
            if op.dst.write && op.kind != Kind::Nop && op.kind != Kind::Kil {
                let r = if op.dst.fp16 {
                    op.dst.index >> 1
                } else {
                    op.dst.index
                };
                registers = registers.max(usize::from(r) + 1);
            }
            ops.push(op);
        }
        if ops.iter().any(|o| {
            o.src.iter().take(o.sources).any(|s| {
                matches!(
                    s.read,
                    Read::Input {
                        perspective: true,
                        ..
                    } | Read::Indexed {
                        perspective: true,
                        ..
                    }
                )
            })
        }) {
            // The perspective factor reads WPOS.w.
            attributes |= 1 << attr::WPOS;
        }
        Ok(Compiled {
            ops,
            registers: registers.min(R_COUNT),
            attributes,
        })
    }
}

fn compile_op<T: Real>(
    prepared: &Prepared<'_>,
    insn: &FragmentInstruction,
    opts: &FragmentOptions,
) -> Result<Op<T>, FragmentExecError> {
    let unused = Src {
        read: Read::Unused,
        swizzle: [0, 1, 2, 3],
        abs: false,
        modifier: PrecisionModifier::None,
        negate: false,
    };
    let cond = Cond {
        relation: insn.condition.relation,
        swizzle: insn.condition.swizzle.0.map(|c| c & 3),
        cc: insn.condition.cc & 1,
    };
    let d = insn.dest;
    let mut op = Op {
        slot: insn.slot,
        opcode: insn.opcode,
        kind: Kind::Nop,
        end: insn.end,
        sources: 0,
        src: [unused; 3],
        need: [0; 3],
        dst: Dst {
            skip: insn.condition.relation == Relation::Fl,
            write: !d.no_dest,
            fp16: d.fp16,
            index: d.index,
            mask: d.mask.0 & 0xF,
            scale: None,
            clamp: Clamp::None,
            set_cond: d.set_cond,
            cc: d.cc_write & 1,
        },
        cond,
        texture_unit: insn.texture_unit,
        exp_tex: insn.exp_tex,
    };
    if let Some(flow) = insn.flow() {
        op.kind = match flow.kind {
            FlowKind::Ife {
                else_slot,
                end_slot,
            } => Kind::Ife {
                else_slot,
                end_slot,
                else_index: prepared.index_of(else_slot, insn.slot)?,
                end_index: prepared.index_of(end_slot, insn.slot)?,
            },
            FlowKind::Loop(l) | FlowKind::Rep(l) => Kind::Loop {
                count: l.count,
                init: l.init,
                increment: l.increment,
                end_slot: l.end_slot,
                end_index: prepared.index_of(l.end_slot, insn.slot)?,
            },
            FlowKind::Brk => Kind::Brk,
            FlowKind::Ret => Kind::Ret,
            FlowKind::Cal { .. } => Kind::Cal,
        };
        return Ok(op);
    }
    let Some(alu) = insn.alu() else {
        return Ok(op);
    };
    op.kind = match insn.opcode {
        FpOpcode::Nop | FpOpcode::Fenct | FpOpcode::Fencb => Kind::Nop,
        FpOpcode::Kil => Kind::Kil,
        FpOpcode::Ddx => Kind::Ddx,
        FpOpcode::Ddy => Kind::Ddy,
        o if o.is_texture() => Kind::Texture,
        _ => Kind::Alu,
    };
    if op.kind == Kind::Nop || op.kind == Kind::Kil {
        return Ok(op);
    }
    op.sources = insn.opcode.operands_read().min(3);
    for (k, (dst, s)) in op.src.iter_mut().zip(&alu.sources).enumerate() {
        if k < op.sources {
            *dst = compile_src(insn, alu, s, opts);
        }
    }
    op.need = needed(insn.opcode, op.dst.mask, op.sources);
    // Output scale ×1 is skipped (B.1); encoding 4 was refused by the check.
    op.dst.scale = scale_factor::<T>(alu.scale).filter(|&f| f != T::ONE);
    op.dst.clamp = if d.saturate {
        Clamp::Saturate
    } else if insn.skips_precision_clamp() {
        Clamp::None
    } else {
        match d.precision {
            // fp16 on an R register is ignored; on an H register the value is rounded
            // anyway (B.2).
            Precision::Fp32 | Precision::Fp16 => Clamp::None,
            Precision::Fx12 => Clamp::Fx12,
            Precision::Fx9 => Clamp::Fx9,
        }
    };
    Ok(op)
}

/// Resolves one source (B.2 "Source precision modifiers", B.3; RPCS3 `GetSRC`).
fn compile_src<T: Real>(
    insn: &FragmentInstruction,
    alu: &rsxtrace_program::fragment::AluOperands,
    s: &Source,
    opts: &FragmentOptions,
) -> Src<T> {
    let swizzle = s.swizzle.0.map(|c| c & 3);
    let modifier = match s.modifier {
        // Encodings 5–7: "unknown, no effect in HW tests" (B.2).
        PrecisionModifier::Unknown5 | PrecisionModifier::Unknown6 | PrecisionModifier::Unknown7 => {
            PrecisionModifier::None
        }
        m => m,
    };
    let mut src = Src {
        read: Read::Unused,
        swizzle,
        abs: s.abs,
        modifier,
        negate: s.negate,
    };
    match s.kind {
        SourceKind::Temp => {
            src.read = if s.fp16 {
                Read::H(s.index)
            } else {
                Read::R(s.index)
            };
        }
        SourceKind::Constant => {
            // The check guarantees the constant exists.
            let raw = insn
                .constant
                .map(|c| map4(c.0, |w| T::from_f32(f32::from_bits(w))))
                .unwrap_or([T::ZERO; 4]);
            let mut v = idx4(|c| raw[usize::from(swizzle[c])]);
            if src.abs {
                v = map4(v, T::abs);
            }
            if modifier != PrecisionModifier::None {
                v = map4(v, |x| source_modifier(x, modifier, opts));
            }
            if src.negate {
                v = map4(v, |x| -x);
            }
            src = Src {
                read: Read::Value(v),
                swizzle: [0, 1, 2, 3],
                abs: false,
                modifier: PrecisionModifier::None,
                negate: false,
            };
        }
        SourceKind::Input if alu.indexed_input => {
            src.read = Read::Indexed {
                displacement: alu.input_displacement,
                // TEX0–TEX9 are never WPOS/COL0/COL1.
                perspective: perspective_applies(alu.perspective, opts, attr::TEX0),
            };
        }
        SourceKind::Input => {
            let a = insn.input.0;
            src.read = Read::Input {
                attr: a,
                perspective: perspective_applies(alu.perspective, opts, usize::from(a)),
            };
            // COL0/COL1 skip the modifier (B.2).
            if usize::from(a) == attr::COL0 || usize::from(a) == attr::COL1 {
                src.modifier = PrecisionModifier::None;
            }
        }
    }
    src
}

/// Whether the input attribute `index` is multiplied by WPOS.w (B.1 perspective flag).
#[inline]
pub fn perspective_applies(perspective_bit: bool, opts: &FragmentOptions, index: usize) -> bool {
    perspective_bit
        && opts.perspective == PerspectiveFlag::MultiplyByWposW
        && index != attr::WPOS
        && index != attr::COL0
        && index != attr::COL1
}

/// Components of each swizzled source the opcode reads, given the destination mask.
fn needed(op: FpOpcode, mask: u8, n: usize) -> [u8; 3] {
    let per = |a: u8, b: u8, c: u8| -> [u8; 3] {
        let all = [a, b, c];
        idx3(|k| if k < n { all[k] } else { 0 })
    };
    match op {
        // Per-component opcodes (B.7): only the written components matter.
        FpOpcode::Mov
        | FpOpcode::Mul
        | FpOpcode::Add
        | FpOpcode::Mad
        | FpOpcode::Min
        | FpOpcode::Max
        | FpOpcode::Slt
        | FpOpcode::Sge
        | FpOpcode::Sle
        | FpOpcode::Sgt
        | FpOpcode::Sne
        | FpOpcode::Seq
        | FpOpcode::Frc
        | FpOpcode::Flr
        | FpOpcode::Lrp
        | FpOpcode::Ddx
        | FpOpcode::Ddy => per(mask, mask, mask),
        FpOpcode::Div | FpOpcode::Divsq => per(mask, 1, 0),
        FpOpcode::Rcp
        | FpOpcode::Rsq
        | FpOpcode::Ex2
        | FpOpcode::Lg2
        | FpOpcode::Cos
        | FpOpcode::Sin => per(1, 0, 0),
        FpOpcode::Pow => per(1, 1, 0),
        FpOpcode::Dp2 => per(3, 3, 0),
        FpOpcode::Dp2a => per(3, 3, 1),
        FpOpcode::Dp3 => per(7, 7, 0),
        FpOpcode::Sfl | FpOpcode::Str => [0; 3],
        _ => per(0xF, 0xF, 0xF),
    }
}

fn idx3(f: impl Fn(usize) -> u8) -> [u8; 3] {
    [f(0), f(1), f(2)]
}
