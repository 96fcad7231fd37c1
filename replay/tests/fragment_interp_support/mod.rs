//! Builders shared by the fragment interpreter tests: instructions built as IR values, encoded
//! with `rsxtrace_program::fragment::encode` and decoded back, then run on one quad.
#![allow(dead_code)]

use rsxtrace_program::fragment::{
    decode, encode, AluOperands, Condition, Destination, FlowKind, FlowOperands, FpOpcode,
    FragmentInstruction, FragmentProgram, InlineConstant, InputAttribute, Operands, OutputScale,
    PrecisionModifier, Relation, Source, SourceKind, Swizzle, WriteMask,
};
use rsxtrace_replay::interp::fragment::{
    run_single_quad, FragmentState, LaneInputs, QuadInputs, QuadOutputs,
};
use rsxtrace_replay::texture::{NoTextures, Sampler};

pub fn dest(index: u8) -> Destination {
    Destination::temp(index)
}

pub fn hdest(index: u8) -> Destination {
    Destination {
        fp16: true,
        ..dest(index)
    }
}

pub fn masked(d: Destination, mask: u8) -> Destination {
    Destination {
        mask: WriteMask(mask),
        ..d
    }
}

pub fn r(index: u8) -> Source {
    Source::temp(index)
}

pub fn h(index: u8) -> Source {
    Source {
        fp16: true,
        ..Source::temp(index)
    }
}

pub fn input() -> Source {
    Source {
        kind: SourceKind::Input,
        ..Source::temp(0)
    }
}

pub fn konst() -> Source {
    Source {
        kind: SourceKind::Constant,
        ..Source::temp(0)
    }
}

pub fn swz(s: Source, sw: [u8; 4]) -> Source {
    Source {
        swizzle: Swizzle(sw),
        ..s
    }
}

pub fn neg(s: Source) -> Source {
    Source { negate: true, ..s }
}

pub fn abs(s: Source) -> Source {
    Source { abs: true, ..s }
}

pub fn modif(s: Source, m: PrecisionModifier) -> Source {
    Source { modifier: m, ..s }
}

/// An ALU/texture instruction; unused sources are R0 (never a constant, which would claim a
/// constant slot).
pub fn op(op: FpOpcode, d: Destination, srcs: &[Source]) -> FragmentInstruction {
    let mut sources = [r(0); 3];
    for (s, v) in sources.iter_mut().zip(srcs) {
        *s = *v;
    }
    FragmentInstruction {
        slot: 0,
        opcode: op,
        end: false,
        dest: d,
        input: InputAttribute(0),
        texture_unit: 0,
        exp_tex: false,
        condition: Condition::ALWAYS,
        operands: Operands::Alu(AluOperands {
            sources,
            scale: OutputScale::None,
            perspective: false,
            indexed_input: false,
            input_displacement: 0,
        }),
        constant: None,
    }
}

pub fn with_const(mut i: FragmentInstruction, v: [f32; 4]) -> FragmentInstruction {
    i.constant = Some(InlineConstant(v.map(f32::to_bits)));
    i
}

pub fn with_const_bits(mut i: FragmentInstruction, v: [u32; 4]) -> FragmentInstruction {
    i.constant = Some(InlineConstant(v));
    i
}

pub fn with_input(mut i: FragmentInstruction, a: u8) -> FragmentInstruction {
    i.input = InputAttribute(a);
    i
}

pub fn with_cond(
    mut i: FragmentInstruction,
    relation: Relation,
    sw: [u8; 4],
    cc: u8,
) -> FragmentInstruction {
    i.condition = Condition {
        relation,
        swizzle: Swizzle(sw),
        cc,
    };
    i
}

pub fn with_scale(mut i: FragmentInstruction, scale: OutputScale) -> FragmentInstruction {
    if let Operands::Alu(a) = &mut i.operands {
        a.scale = scale;
    }
    i
}

pub fn set_cond(mut i: FragmentInstruction, cc: u8) -> FragmentInstruction {
    i.dest.set_cond = true;
    i.dest.cc_write = cc;
    i
}

pub fn flow(kind: FlowKind) -> FragmentInstruction {
    let mut i = op(FpOpcode::Nop, dest(0), &[]);
    i.opcode = match kind {
        FlowKind::Brk => FpOpcode::Brk,
        FlowKind::Ret => FpOpcode::Ret,
        FlowKind::Cal { .. } => FpOpcode::Cal,
        FlowKind::Ife { .. } => FpOpcode::Ife,
        FlowKind::Loop(_) => FpOpcode::Loop,
        FlowKind::Rep(_) => FpOpcode::Rep,
    };
    i.dest.no_dest = true;
    i.dest.mask = WriteMask(0);
    i.operands = Operands::Flow(FlowOperands {
        kind,
        reserved: [0; 3],
    });
    i
}

/// Assigns slots in order (an instruction with a constant takes two), sets END on the last,
/// and returns the program after an encode/decode round trip.
pub fn program(mut insns: Vec<FragmentInstruction>) -> FragmentProgram {
    let mut slot = 0;
    for i in &mut insns {
        i.slot = slot;
        slot += 1 + u32::from(i.constant.is_some());
    }
    if let Some(last) = insns.last_mut() {
        last.end = true;
    }
    let bytes = encode(&FragmentProgram::new(insns));
    decode(&bytes).expect("test program decodes")
}

/// A quad whose four lanes all have `lane` as inputs.
pub fn uniform_quad(lane: LaneInputs) -> QuadInputs {
    QuadInputs {
        lanes: [lane; 4],
        coverage: 0xF,
    }
}

pub fn run_quad(p: &FragmentProgram, state: &FragmentState, quad: &QuadInputs) -> QuadOutputs {
    run_quad_with(p, state, quad, &NoTextures)
}

pub fn run_quad_with(
    p: &FragmentProgram,
    state: &FragmentState,
    quad: &QuadInputs,
    sampler: &dyn Sampler,
) -> QuadOutputs {
    run_single_quad(p, state, quad, sampler).expect("program runs")
}

/// Runs with R exports (control 0x40) and default inputs; returns lane 0's colour 0.
pub fn r0(insns: Vec<FragmentInstruction>) -> [f64; 4] {
    let p = program(insns);
    let out = run_quad(&p, &FragmentState::new(0x40), &QuadInputs::default());
    out.lanes[0].colors[0]
}

/// Lane 0's R0 as f32 bit patterns.
pub fn r0_bits(insns: Vec<FragmentInstruction>) -> [u32; 4] {
    r0(insns).map(|v| (v as f32).to_bits())
}
