//! Shared helpers of the vertex tests: the corpus vertex programs (the corpus, never copied
//! into the repository, is found by `rsxtrace-testkit`) and hand-built vertex instructions.

#![allow(dead_code)]

use rsxtrace_program::container::Container;
use rsxtrace_program::vertex::{self, VertexProgram};

/// The corpus vertex programs: every `ps3autotests/*.vpo` and the Tiny3D `.rvp`, as
/// (relative path, decoded program). Empty when the corpus is missing.
pub fn corpus_vertex_programs() -> Vec<(String, VertexProgram)> {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return Vec::new();
    };
    let mut names = corpus.files_ending("ps3autotests", ".vpo");
    names.push(rsxtrace_testkit::tiny3d::VERTEX_PROGRAM.to_string());
    names
        .into_iter()
        .map(|rel| {
            let bytes = corpus.read(&rel);
            let c = Container::parse(&bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
            let p = vertex::decode_bytes(c.ucode()).unwrap_or_else(|e| panic!("{rel}: {e}"));
            (rel, p)
        })
        .collect()
}

use rsxtrace_program::vertex::{
    AddressRegister, CcRegister, Component, ConditionTest, ConditionUpdate, InputAttribute,
    OutputRegister, RegisterType, Relation, ScalarOpcode, Source, Swizzle, VectorOpcode,
    VertexInstruction, WriteMask,
};

/// `MOV o[HPOS], v[POS]` (the first slot of the ps3autotests cube program, words laid out by
/// hand in rsx-microcode.md B.8 order), without END, at `slot`.
pub fn mov_hpos(slot: usize) -> VertexInstruction {
    let p = vertex::decode_words(&[0x401f9c6c, 0x0040000d, 0x8106c083, 0x6041ff80])
        .expect("cube slot 0 decodes");
    let mut i = p.instructions[0];
    assert_eq!(i.vector, VectorOpcode::Mov);
    assert_eq!(i.output, Some(OutputRegister(0)));
    assert!(!i.end);
    i.slot = slot;
    i
}

/// A temp source `R<n>` with the identity swizzle.
pub fn temp(n: u8) -> Source {
    Source {
        reg_type: RegisterType::Temp,
        temp_index: n,
        swizzle: Swizzle::IDENTITY,
        negate: false,
        abs: false,
    }
}

/// A source of register type `t` (input or constant of the instruction) with a swizzle.
pub fn source(t: RegisterType, swizzle: [Component; 4], negate: bool, abs: bool) -> Source {
    Source {
        reg_type: t,
        temp_index: 0,
        swizzle: Swizzle(swizzle),
        negate,
        abs,
    }
}

/// An arithmetic instruction: `vector` writing temp `vdst` (xyzw), `scalar` writing temp
/// `sdst` (x), sources R1, c[7], v[3].
pub fn arith(slot: usize, vector: VectorOpcode, scalar: ScalarOpcode) -> VertexInstruction {
    let mut i = mov_hpos(slot);
    i.vector = vector;
    i.scalar = scalar;
    i.vec_dst_temp = Some(2);
    i.sca_dst_temp = Some(3);
    i.output = None;
    i.vec_result = true;
    i.vec_mask = WriteMask::XYZW;
    i.sca_mask = WriteMask(1);
    i.sources = [
        temp(1),
        source(
            RegisterType::Constant,
            [Component::W, Component::Z, Component::Y, Component::X],
            true,
            false,
        ),
        source(
            RegisterType::Input,
            [Component::Y, Component::Y, Component::X, Component::W],
            false,
            true,
        ),
    ];
    i.input = InputAttribute(3);
    i.const_index = 7;
    i.index_const = false;
    i.index_input = false;
    i.address = AddressRegister {
        register: 0,
        component: Component::X,
    };
    i.condition = ConditionTest {
        enabled: false,
        relation: Relation::TR,
        swizzle: Swizzle::IDENTITY,
    };
    i.cc_update = ConditionUpdate {
        enable_0: false,
        enable_1: false,
    };
    i.cc_register = CcRegister::CC0;
    i.saturate = false;
    i.end = false;
    i
}

/// A flow-control instruction `op` to `target` on relation `rel` of CC1.
pub fn branch(slot: usize, op: ScalarOpcode, target: u16, rel: Relation) -> VertexInstruction {
    let mut i = arith(slot, VectorOpcode::Nop, op);
    i.vec_dst_temp = None;
    i.sca_dst_temp = None;
    i.sources[2] = temp(0);
    i.condition = ConditionTest {
        enabled: false,
        relation: rel,
        swizzle: Swizzle([Component::X, Component::Y, Component::Y, Component::W]),
    };
    i.cc_register = CcRegister::CC1;
    if op.has_immediate_target() {
        vertex::set_branch_target(&mut i, target);
    }
    i
}

/// A program of `instructions` (slots renumbered from 0), the last with END.
pub fn program(mut instructions: Vec<VertexInstruction>) -> VertexProgram {
    for (n, i) in instructions.iter_mut().enumerate() {
        if i.scalar.has_immediate_target() {
            let t = i.branch_target().unwrap_or(0);
            i.slot = n;
            vertex::set_branch_target(i, t);
        } else {
            i.slot = n;
        }
    }
    if let Some(last) = instructions.last_mut() {
        last.end = true;
    }
    VertexProgram {
        start_slot: 0,
        instructions,
    }
}

const ARITH_VECTOR: [VectorOpcode; 22] = [
    VectorOpcode::Nop,
    VectorOpcode::Mov,
    VectorOpcode::Mul,
    VectorOpcode::Add,
    VectorOpcode::Mad,
    VectorOpcode::Dp3,
    VectorOpcode::Dph,
    VectorOpcode::Dp4,
    VectorOpcode::Dst,
    VectorOpcode::Min,
    VectorOpcode::Max,
    VectorOpcode::Slt,
    VectorOpcode::Sge,
    VectorOpcode::Arl,
    VectorOpcode::Frc,
    VectorOpcode::Flr,
    VectorOpcode::Seq,
    VectorOpcode::Sfl,
    VectorOpcode::Sgt,
    VectorOpcode::Sle,
    VectorOpcode::Sne,
    VectorOpcode::Str,
];

const ARITH_SCALAR: [ScalarOpcode; 12] = [
    ScalarOpcode::Nop,
    ScalarOpcode::Mov,
    ScalarOpcode::Rcp,
    ScalarOpcode::Rcc,
    ScalarOpcode::Rsq,
    ScalarOpcode::Exp,
    ScalarOpcode::Log,
    ScalarOpcode::Lit,
    ScalarOpcode::Lg2,
    ScalarOpcode::Ex2,
    ScalarOpcode::Sin,
    ScalarOpcode::Cos,
];

/// Every arithmetic vector op paired with a scalar op (dual issue), SSG, conditional writes on
/// both CC registers, CC updates, saturate, output writes from either unit, relative constant
/// and input reads, then every flow-control op.
pub fn every_opcode() -> VertexProgram {
    let mut v = Vec::new();
    for (n, op) in ARITH_VECTOR.iter().enumerate() {
        let mut i = arith(0, *op, ARITH_SCALAR[n % ARITH_SCALAR.len()]);
        if *op == VectorOpcode::Arl {
            i.vec_dst_temp = Some(1);
        }
        v.push(i);
    }
    let mut ssg = arith(0, VectorOpcode::Ssg, ScalarOpcode::Lit);
    ssg.saturate = true;
    v.push(ssg);
    // Conditional write through CC1 with an update of CC1, output written by the scalar unit.
    let mut c = arith(0, VectorOpcode::Mad, ScalarOpcode::Rcc);
    c.condition.enabled = true;
    c.condition.relation = Relation::GE;
    c.condition.swizzle.0 = [Component::W, Component::X, Component::X, Component::Y];
    c.cc_register = CcRegister::CC1;
    c.cc_update = ConditionUpdate {
        enable_0: true,
        enable_1: true,
    };
    c.vec_result = false;
    c.output = Some(OutputRegister(5));
    v.push(c);
    // No destination at all: the result goes to the CC (the "Far Cry 2" case).
    let mut f = arith(0, VectorOpcode::Dp4, ScalarOpcode::Nop);
    f.vec_dst_temp = None;
    v.push(f);
    // Relative constant and input reads through A1.z.
    let mut r = arith(0, VectorOpcode::Mad, ScalarOpcode::Ex2);
    r.index_const = true;
    r.index_input = true;
    r.address.register = 1;
    r.address.component = Component::Z;
    r.vec_result = true;
    r.output = Some(OutputRegister(15));
    v.push(r);
    // Every relation as a conditional write.
    for rel in [
        Relation::FL,
        Relation::LT,
        Relation::EQ,
        Relation::LE,
        Relation::GT,
        Relation::NE,
        Relation::GE,
        Relation::TR,
    ] {
        let mut c = arith(0, VectorOpcode::Mov, ScalarOpcode::Sin);
        c.condition.enabled = true;
        c.condition.relation = rel;
        v.push(c);
    }
    let base = v.len() as u16;
    // Flow: BRI over one slot, CAL to a subroutine after the END... laid out as
    // base+0 BRI -> base+2, base+1 MOV, base+2 CAL -> base+7, base+3 CLI -> base+7 (LT),
    // base+4 CLB -> base+7, base+5 BRB -> base+8, base+6 BRA (A0.x), base+7 RET, base+8 MOV END.
    v.push(branch(0, ScalarOpcode::Bri, base + 2, Relation::NE));
    v.push(mov_hpos(0));
    v.push(branch(0, ScalarOpcode::Cal, base + 7, Relation::TR));
    v.push(branch(0, ScalarOpcode::Cli, base + 7, Relation::LT));
    v.push(branch(0, ScalarOpcode::Clb, base + 7, Relation::TR));
    v.push(branch(0, ScalarOpcode::Brb, base + 8, Relation::TR));
    v.push(branch(0, ScalarOpcode::Bra, 0, Relation::GT));
    v.push(branch(0, ScalarOpcode::Ret, 0, Relation::TR));
    v.push(mov_hpos(0));
    program(v)
}
