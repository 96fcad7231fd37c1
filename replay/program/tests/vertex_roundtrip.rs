//! Encoder round trips over generated programs (deterministic xorshift PRNG), and the JSON form.

use rsxtrace_program::vertex::{
    self, AddressRegister, CcRegister, Component, ConditionTest, ConditionUpdate, InputAttribute,
    OutputRegister, RegisterType, Relation, ScalarOpcode, Source, Swizzle, VectorOpcode,
    VertexInstruction, VertexProgram, WriteMask,
};

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        // xorshift64
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bit(&mut self) -> bool {
        self.next() & 1 == 1
    }
    fn comp(&mut self) -> Component {
        Component::from_code(self.below(4) as u32)
    }
    fn swz(&mut self) -> Swizzle {
        Swizzle([self.comp(), self.comp(), self.comp(), self.comp()])
    }
    fn opt(&mut self, n: u64) -> Option<u8> {
        if self.bit() {
            Some(self.below(n) as u8)
        } else {
            None
        }
    }
}

fn source(r: &mut Rng) -> Source {
    Source {
        reg_type: [
            RegisterType::Temp,
            RegisterType::Input,
            RegisterType::Constant,
        ][r.below(3) as usize],
        temp_index: r.below(64) as u8,
        swizzle: r.swz(),
        negate: r.bit(),
        abs: r.bit(),
    }
}

pub(crate) fn instruction(r: &mut Rng, slot: usize) -> VertexInstruction {
    let mut i = VertexInstruction {
        slot,
        vector: VectorOpcode::ALL[r.below(26) as usize],
        scalar: ScalarOpcode::ALL[r.below(21) as usize],
        vec_dst_temp: r.opt(63),
        sca_dst_temp: r.opt(63),
        output: r.opt(31).map(OutputRegister),
        vec_result: r.bit(),
        vec_mask: WriteMask(r.below(16) as u8),
        sca_mask: WriteMask(r.below(16) as u8),
        sources: [source(r), source(r), source(r)],
        input: InputAttribute(r.below(16) as u8),
        const_index: r.below(1024) as u16,
        index_const: r.bit(),
        index_input: r.bit(),
        address: AddressRegister {
            register: r.below(2) as u8,
            component: r.comp(),
        },
        condition: ConditionTest {
            enabled: r.bit(),
            relation: Relation::from_code(r.below(8) as u32),
            swizzle: r.swz(),
        },
        cc_update: ConditionUpdate {
            enable_0: r.bit(),
            enable_1: r.bit(),
        },
        cc_register: if r.bit() {
            CcRegister::CC1
        } else {
            CcRegister::CC0
        },
        saturate: r.bit(),
        end: r.bit(),
    };
    if i.scalar.has_immediate_target() {
        // Targets share bits with src2; keep them inside the 544-slot memory.
        vertex::set_branch_target(&mut i, r.below(544) as u16);
    }
    i
}

#[test]
fn generated_programs_round_trip() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..500 {
        let n = 1 + r.below(12) as usize;
        let p = VertexProgram {
            start_slot: 0,
            instructions: (0..n).map(|s| instruction(&mut r, s)).collect(),
        };
        let words = vertex::encode(&p);
        assert_eq!(words.len(), n * 4);
        let back =
            vertex::decode_words(&words).unwrap_or_else(|e| panic!("{e} for words {words:08x?}"));
        assert_eq!(back, p, "words {words:08x?}");
        assert_eq!(vertex::decode_bytes(&vertex::encode_bytes(&p)).unwrap(), p);
        // Disassembly never fails and has one line per slot.
        assert_eq!(vertex::disassemble(&p).lines().count(), n);
    }
}

#[test]
fn random_words_round_trip_when_accepted() {
    let mut r = Rng(0x1234_5678_9abc_def1);
    let mut accepted = 0;
    for _ in 0..20_000 {
        // D0 bits 28 and 31 are refused (unknown); clear them so more words are accepted.
        let w = [
            r.next() as u32 & !0x9000_0000,
            r.next() as u32,
            r.next() as u32,
            r.next() as u32,
        ];
        if let Ok(p) = vertex::decode_words(&w) {
            accepted += 1;
            assert_eq!(vertex::encode(&p), w, "lossless for {w:08x?}");
        }
    }
    // Random words are accepted often enough for this to be a real check.
    assert!(accepted > 2000, "only {accepted} accepted");
}

#[test]
fn set_branch_target_sets_exactly_the_target() {
    let mut r = Rng(42);
    for t in [0u16, 7, 8, 63, 64, 511, 512, 530, 543] {
        let mut i = instruction(&mut r, 0);
        i.scalar = ScalarOpcode::Cal;
        vertex::set_branch_target(&mut i, t);
        assert_eq!(i.branch_target(), Some(t));
    }
}

#[test]
fn json_form() {
    // Cube slot 5 (see vertex_fields.rs): DP4 o[HPOS].x, v[POS], c[256]; END.
    let p = vertex::decode_words(&[0x401f9c6c, 0x01d0000d, 0x8106c0c3, 0x60411f81]).unwrap();
    let j = vertex::to_json(&p);
    assert_eq!(j["stage"], "vertex");
    let i = &j["instructions"][0];
    assert_eq!(i["slot"], 0);
    assert_eq!(i["vector"], "DP4");
    assert_eq!(i["scalar"], "NOP");
    assert_eq!(i["const_index"], 256);
    assert_eq!(i["output"]["name"], "HPOS");
    assert_eq!(i["output"]["number"], 0);
    assert_eq!(i["vec_mask"], "x");
    assert_eq!(i["sources"][1]["reg_type"], "Constant");
    assert_eq!(i["sources"][0]["swizzle"], "xyzw");
    assert_eq!(i["input"], "POS");
    assert_eq!(i["end"], true);
    assert_eq!(i["branch_target"], serde_json::Value::Null);
    assert_eq!(i["condition"]["relation"], "TR");
}
