//! Shared helpers of the vertex interpreter tests: an instruction builder over the decoder's IR
//! (encoded with `vertex::encode` and decoded back before running, so every test also goes
//! through the real word layout), and a runner.
#![allow(dead_code)]

use rsxtrace_program::vertex::{
    self, AddressRegister, CcRegister, Component, ConditionTest, ConditionUpdate, InputAttribute,
    OutputRegister, RegisterType, Relation, ScalarOpcode, Source, Swizzle, VectorOpcode,
    VertexInstruction, VertexProgram, WriteMask,
};
use rsxtrace_replay::interp::vertex::{
    run_vertex, ConstantBank, VertexBatchOutput, VertexEnvironment, VertexExecError, VertexOptions,
};

/// Swizzle from letters, e.g. "xxyw".
pub fn swz(s: &str) -> Swizzle {
    let c: Vec<Component> = s
        .chars()
        .map(|ch| match ch {
            'x' => Component::X,
            'y' => Component::Y,
            'z' => Component::Z,
            _ => Component::W,
        })
        .collect();
    Swizzle([c[0], c[1], c[2], c[3]])
}

/// Write mask from letters.
pub fn mask(s: &str) -> WriteMask {
    let mut m = 0;
    for ch in s.chars() {
        m |= match ch {
            'x' => 1,
            'y' => 2,
            'z' => 4,
            _ => 8,
        };
    }
    WriteMask(m)
}

fn source(reg_type: RegisterType, temp_index: u8) -> Source {
    Source {
        reg_type,
        temp_index,
        swizzle: Swizzle::IDENTITY,
        negate: false,
        abs: false,
    }
}

/// R<n>.xyzw.
pub fn r(n: u8) -> Source {
    source(RegisterType::Temp, n)
}
/// The instruction's input v[..].
pub fn v() -> Source {
    source(RegisterType::Input, 0)
}
/// The instruction's constant c[..].
pub fn c() -> Source {
    source(RegisterType::Constant, 0)
}
/// With a swizzle.
pub fn sw(mut s: Source, letters: &str) -> Source {
    s.swizzle = swz(letters);
    s
}
/// Negated.
pub fn neg(mut s: Source) -> Source {
    s.negate = true;
    s
}
/// Absolute value.
pub fn abs(mut s: Source) -> Source {
    s.abs = true;
    s
}

/// A builder over [`VertexInstruction`]: NOP/NOP, no destinations, condition TR disabled,
/// sources v (valid type) everywhere.
#[derive(Clone, Copy)]
pub struct I(pub VertexInstruction);

impl I {
    pub fn new() -> I {
        I(VertexInstruction::idle(0))
    }
    /// Vector op writing R<t>.mask.
    pub fn vec_temp(op: VectorOpcode, t: u8, m: &str) -> I {
        let mut i = I::new();
        i.0.vector = op;
        i.0.vec_dst_temp = Some(t);
        i.0.vec_mask = mask(m);
        i
    }
    /// Vector op writing o[reg].mask.
    pub fn vec_out(op: VectorOpcode, reg: u8, m: &str) -> I {
        let mut i = I::new();
        i.0.vector = op;
        i.0.output = Some(OutputRegister(reg));
        i.0.vec_result = true;
        i.0.vec_mask = mask(m);
        i
    }
    /// Scalar op writing R<t>.mask.
    pub fn sca_temp(op: ScalarOpcode, t: u8, m: &str) -> I {
        let mut i = I::new();
        i.0.scalar = op;
        i.0.sca_dst_temp = Some(t);
        i.0.sca_mask = mask(m);
        i
    }
    /// Scalar op writing o[reg].mask (vec_result clear).
    pub fn sca_out(op: ScalarOpcode, reg: u8, m: &str) -> I {
        let mut i = I::new();
        i.0.scalar = op;
        i.0.output = Some(OutputRegister(reg));
        i.0.vec_result = false;
        i.0.sca_mask = mask(m);
        i
    }
    /// A flow op (scalar) with an immediate target.
    pub fn flow(op: ScalarOpcode, target: u16) -> I {
        let mut i = I::new();
        i.0.scalar = op;
        vertex::set_branch_target(&mut i.0, target);
        i
    }
    pub fn srcs(mut self, s: [Source; 3]) -> I {
        // Keep src2's branch bits when this is a branch (set_branch_target wrote them).
        self.0.sources = s;
        self
    }
    pub fn s0(mut self, s: Source) -> I {
        self.0.sources[0] = s;
        self
    }
    pub fn s1(mut self, s: Source) -> I {
        self.0.sources[1] = s;
        self
    }
    pub fn s2(mut self, s: Source) -> I {
        self.0.sources[2] = s;
        self
    }
    pub fn input(mut self, a: u8) -> I {
        self.0.input = InputAttribute(a);
        self
    }
    pub fn konst(mut self, k: u16) -> I {
        self.0.const_index = k;
        self
    }
    pub fn rel_const(mut self, reg: u8, comp: Component) -> I {
        self.0.index_const = true;
        self.0.address = AddressRegister {
            register: reg,
            component: comp,
        };
        self
    }
    pub fn rel_input(mut self, reg: u8, comp: Component) -> I {
        self.0.index_input = true;
        self.0.address = AddressRegister {
            register: reg,
            component: comp,
        };
        self
    }
    /// Conditional on CC<cc>.swizzle REL 0 (test enabled).
    pub fn cond(mut self, rel: Relation, letters: &str, cc: u8) -> I {
        self.0.condition = ConditionTest {
            enabled: true,
            relation: rel,
            swizzle: swz(letters),
        };
        self.0.cc_register = if cc == 0 {
            CcRegister::CC0
        } else {
            CcRegister::CC1
        };
        self
    }
    /// Branch condition (relation only, test bit clear as branches ignore it).
    pub fn when(mut self, rel: Relation, letters: &str, cc: u8) -> I {
        self = self.cond(rel, letters, cc);
        self.0.condition.enabled = false;
        self
    }
    /// Update CC<cc> with the result.
    pub fn update_cc(mut self, cc: u8) -> I {
        self.0.cc_update = ConditionUpdate {
            enable_0: true,
            enable_1: true,
        };
        self.0.cc_register = if cc == 0 {
            CcRegister::CC0
        } else {
            CcRegister::CC1
        };
        self
    }
    pub fn sat(mut self) -> I {
        self.0.saturate = true;
        self
    }
    pub fn end(mut self) -> I {
        self.0.end = true;
        self
    }
    /// Add the scalar half of `other` (opcode, temp, mask) to this instruction.
    pub fn with_scalar(mut self, op: ScalarOpcode, t: Option<u8>, m: &str) -> I {
        self.0.scalar = op;
        self.0.sca_dst_temp = t;
        self.0.sca_mask = mask(m);
        self
    }
}

/// Encode the instructions one after another, decode the words back (slots from 0).
pub fn program(insns: &[I]) -> VertexProgram {
    let p = VertexProgram {
        start_slot: 0,
        instructions: insns
            .iter()
            .enumerate()
            .map(|(k, i)| VertexInstruction { slot: k, ..i.0 })
            .collect(),
    };
    let words = vertex::encode(&p);
    let decoded = vertex::decode_words(&words).expect("test program decodes");
    assert_eq!(
        decoded.instructions, p.instructions,
        "encode/decode round trip"
    );
    decoded
}

/// Constants from `(index, value)` pairs; everything else unknown.
pub fn constants(values: &[(usize, [f32; 4])]) -> ConstantBank {
    let mut b = ConstantBank::new();
    for (i, v) in values {
        assert!(b.set(*i, *v));
    }
    b
}

/// One vertex whose attributes `(index, value)` are set, others zero.
pub fn vertex_with(values: &[(usize, [f32; 4])]) -> [[f32; 4]; 16] {
    let mut a = [[0.0; 4]; 16];
    for (i, v) in values {
        a[*i] = *v;
    }
    a
}

/// Run `insns` over `inputs` with `consts`.
pub fn run_with(
    insns: &[I],
    consts: &[(usize, [f32; 4])],
    inputs: &[[[f32; 4]; 16]],
    options: &VertexOptions,
) -> Result<VertexBatchOutput, VertexExecError> {
    let p = program(insns);
    let bank = constants(consts);
    let env = VertexEnvironment::new(&bank);
    run_vertex(&p, &[], &env, inputs, options)
}

/// Run with default options; panics on error.
pub fn run(
    insns: &[I],
    consts: &[(usize, [f32; 4])],
    inputs: &[[[f32; 4]; 16]],
) -> VertexBatchOutput {
    run_with(insns, consts, inputs, &VertexOptions::default()).expect("program runs")
}

/// Output register `reg` of lane 0 as f32.
pub fn out0(o: &VertexBatchOutput, reg: u8) -> [f32; 4] {
    o.lanes[0].get_f32(reg).expect("output written")
}
