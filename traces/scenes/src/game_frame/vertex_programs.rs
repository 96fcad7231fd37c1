//! Seeded vertex programs for the game frame, built as rsxtrace vertex IR and encoded with
//! rsxtrace's own encoder (never from corpus files).
//!
//! Every program reads the position `v[0]`, the normal `v[2]`, the colour `v[3]` and the
//! texture coordinate `v[8]`, and writes the position `o[HPOS]` from c32..c35 (DP4 rows, the
//! transposed convention of `rsxtrace_scenes::samples`), and `o[COL0]`, `o[TEX0]` and `o[TEX1]`, so
//! any fragment program of the frame has its interpolants. What varies, chosen by the seed:
//! the position path (plain, or displaced along the normal), the colour path (vertex colour,
//! tinted, lit by a directional light with MAX, or modulated by a scalar SIN/EX2/RSQ/RCP), the
//! texture-coordinate paths (copied, scaled and scrolled with MAD, or from the position) and
//! the material constants' base register. Each program lists the constants it reads, with
//! values, so the frame uploads every one of them.

use super::rng::Rng;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_program::vertex::{
    self, Component, OutputRegister, RegisterType, ScalarOpcode, Source, Swizzle, VectorOpcode,
    VertexInstruction, WriteMask,
};

/// Outputs (rsx-microcode.md B.8): HPOS 0, COL0 1, TEX0 7, TEX1 8.
const HPOS: u8 = 0;
const COL0: u8 = 1;
const TEX0: u8 = 7;
const TEX1: u8 = 8;
/// `SET_VERTEX_ATTRIB_OUTPUT_MASK` for COL0 (bit 0), TEX0 (bit 14) and TEX1 (bit 15):
/// destination n of 7..14 sets bit n + 7 (shred-shader-notes, vertex microcode).
pub const OUTPUT_MASK: u32 = 1 | (1 << 14) | (1 << 15);
/// Attributes read: position 0, normal 2, colour 3, texture coordinate 8.
pub const INPUT_MASK: u32 = (1 << 0) | (1 << 2) | (1 << 3) | (1 << 8);
/// First constant of the model-view-projection rows.
pub const MVP: u16 = 32;

/// A generated vertex program and the material constants it reads.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexProgramSpec {
    /// Encoded words (four per slot), END on the last.
    pub words: Vec<u32>,
    /// Material constants `(index, value)` besides c32..c35.
    pub constants: Vec<(u16, [f32; 4])>,
}

/// A source operand.
#[derive(Clone, Copy)]
enum Src {
    /// Input attribute with a swizzle.
    In(u8, &'static str),
    /// Constant with a swizzle.
    C(u16, &'static str),
    /// Temporary with a swizzle.
    T(u8, &'static str),
}

/// A destination.
#[derive(Clone, Copy)]
enum Dst {
    Out(u8),
    Temp(u8),
}

fn swizzle(s: &str) -> Swizzle {
    let mut c = [Component::X; 4];
    for (slot, ch) in c.iter_mut().zip(s.chars().cycle()) {
        *slot = match ch {
            'y' => Component::Y,
            'z' => Component::Z,
            'w' => Component::W,
            _ => Component::X,
        };
    }
    Swizzle(c)
}

fn mask(s: &str) -> WriteMask {
    WriteMask(s.chars().fold(0, |m, ch| {
        m | match ch {
            'x' => 1,
            'y' => 2,
            'z' => 4,
            'w' => 8,
            _ => 0,
        }
    }))
}

/// Program text built instruction by instruction from a decoded template slot.
struct Writer {
    template: VertexInstruction,
    insns: Vec<VertexInstruction>,
}

impl Writer {
    fn new() -> Option<Writer> {
        let template = *vertex::decode_words(&mvp_vertex_program(u32::from(MVP)))
            .ok()?
            .instructions
            .first()?;
        Some(Writer {
            template,
            insns: Vec::new(),
        })
    }

    /// Fill sources; the (single) input and constant index come from them.
    fn sources(&self, insn: &mut VertexInstruction, srcs: &[Src], first: usize) {
        for (k, s) in srcs.iter().enumerate() {
            let Some(slot) = insn.sources.get_mut(first + k) else {
                continue;
            };
            let (reg_type, temp_index, sw) = match *s {
                Src::In(a, sw) => {
                    insn.input = vertex::InputAttribute(a);
                    (RegisterType::Input, 0, sw)
                }
                Src::C(c, sw) => {
                    insn.const_index = c;
                    (RegisterType::Constant, 0, sw)
                }
                Src::T(t, sw) => (RegisterType::Temp, t, sw),
            };
            *slot = Source {
                reg_type,
                temp_index,
                swizzle: swizzle(sw),
                negate: false,
                abs: false,
            };
        }
    }

    fn vec(&mut self, op: VectorOpcode, dst: Dst, m: &str, srcs: &[Src]) {
        let mut insn = self.template;
        insn.slot = self.insns.len();
        insn.vector = op;
        insn.scalar = ScalarOpcode::Nop;
        insn.sca_dst_temp = None;
        insn.sca_mask = WriteMask(0);
        insn.vec_mask = mask(m);
        match dst {
            Dst::Out(o) => {
                insn.output = Some(OutputRegister(o));
                insn.vec_result = true;
                insn.vec_dst_temp = None;
            }
            Dst::Temp(t) => {
                insn.output = None;
                insn.vec_result = false;
                insn.vec_dst_temp = Some(t);
            }
        }
        insn.end = false;
        self.sources(&mut insn, srcs, 0);
        self.insns.push(insn);
    }

    /// A scalar operation (reads source 2, rsx-microcode.md B.8) into a temporary.
    fn scalar(&mut self, op: ScalarOpcode, temp: u8, m: &str, src: Src) {
        let mut insn = self.template;
        insn.slot = self.insns.len();
        insn.vector = VectorOpcode::Nop;
        insn.vec_mask = WriteMask(0);
        insn.vec_dst_temp = None;
        insn.output = None;
        insn.vec_result = false;
        insn.scalar = op;
        insn.sca_dst_temp = Some(temp);
        insn.sca_mask = mask(m);
        insn.end = false;
        self.sources(&mut insn, &[src], 2);
        self.insns.push(insn);
    }

    fn finish(mut self) -> Vec<u32> {
        if let Some(last) = self.insns.last_mut() {
            last.end = true;
        }
        vertex::encode(&vertex::VertexProgram {
            start_slot: 0,
            instructions: self.insns,
        })
    }
}

/// One program from the seed's choices; `base` is its first material constant (c40..).
fn one(rng: &mut Rng, base: u16) -> Option<VertexProgramSpec> {
    let mut w = Writer::new()?;
    let mut constants: Vec<(u16, [f32; 4])> = Vec::new();
    let constant =
        |constants: &mut Vec<(u16, [f32; 4])>, rng: &mut Rng, k: u16, lo: f32, hi: f32| {
            let v = [
                rng.range(lo, hi),
                rng.range(lo, hi),
                rng.range(lo, hi),
                rng.range(lo, hi),
            ];
            constants.push((base + k, v));
            base + k
        };

    // Position: plain, or displaced along the normal by c[base].x.
    let position = if rng.chance(40) {
        let k = constant(&mut constants, rng, 0, 0.0, 0.1);
        w.vec(
            VectorOpcode::Mov,
            Dst::Temp(0),
            "xyzw",
            &[Src::In(0, "xyzw")],
        );
        w.vec(
            VectorOpcode::Mad,
            Dst::Temp(0),
            "xyz",
            &[Src::In(2, "xyzw"), Src::C(k, "xxxx"), Src::T(0, "xyzw")],
        );
        Src::T(0, "xyzw")
    } else {
        Src::In(0, "xyzw")
    };
    for row in 0..4u16 {
        let m = ["x", "y", "z", "w"][usize::from(row)];
        w.vec(
            VectorOpcode::Dp4,
            Dst::Out(HPOS),
            m,
            &[position, Src::C(MVP + row, "xyzw")],
        );
    }

    // Colour.
    match rng.below(4) {
        0 => w.vec(
            VectorOpcode::Mov,
            Dst::Out(COL0),
            "xyzw",
            &[Src::In(3, "xyzw")],
        ),
        1 => {
            let k = constant(&mut constants, rng, 1, 0.25, 1.0);
            w.vec(
                VectorOpcode::Mul,
                Dst::Out(COL0),
                "xyzw",
                &[Src::In(3, "xyzw"), Src::C(k, "xyzw")],
            );
        }
        2 => {
            // Directional light: N.L, clamped at 0 with MAX against the constant's w (0),
            // then ambient + diffuse x colour.
            let light = constant(&mut constants, rng, 2, -1.0, 1.0);
            constants.last_mut()?.1[3] = 0.0;
            let ambient = constant(&mut constants, rng, 3, 0.05, 0.3);
            w.vec(
                VectorOpcode::Dp3,
                Dst::Temp(1),
                "x",
                &[Src::In(2, "xyzw"), Src::C(light, "xyzw")],
            );
            w.vec(
                VectorOpcode::Max,
                Dst::Temp(1),
                "x",
                &[Src::T(1, "xxxx"), Src::C(light, "wwww")],
            );
            w.vec(
                VectorOpcode::Mad,
                Dst::Out(COL0),
                "xyzw",
                &[
                    Src::T(1, "xxxx"),
                    Src::In(3, "xyzw"),
                    Src::C(ambient, "xyzw"),
                ],
            );
        }
        _ => {
            let op = rng.pick(&[
                ScalarOpcode::Sin,
                ScalarOpcode::Cos,
                ScalarOpcode::Ex2,
                ScalarOpcode::Rsq,
                ScalarOpcode::Rcp,
            ])?;
            // Keep the scalar's argument away from 0 for RSQ/RCP.
            let k = constant(&mut constants, rng, 4, 0.5, 2.0);
            w.vec(
                VectorOpcode::Mul,
                Dst::Temp(2),
                "x",
                &[Src::In(0, "xxxx"), Src::C(k, "xxxx")],
            );
            w.vec(
                VectorOpcode::Add,
                Dst::Temp(2),
                "x",
                &[Src::T(2, "xxxx"), Src::C(k, "yyyy")],
            );
            w.scalar(op, 3, "x", Src::T(2, "xxxx"));
            w.vec(
                VectorOpcode::Mul,
                Dst::Out(COL0),
                "xyzw",
                &[Src::T(3, "xxxx"), Src::In(3, "xyzw")],
            );
        }
    }

    // TEX0: copied, or scaled and scrolled.
    if rng.chance(50) {
        w.vec(
            VectorOpcode::Mov,
            Dst::Out(TEX0),
            "xyzw",
            &[Src::In(8, "xyzw")],
        );
    } else {
        let k = constant(&mut constants, rng, 5, -2.0, 2.0);
        w.vec(
            VectorOpcode::Mad,
            Dst::Out(TEX0),
            "xy",
            &[Src::In(8, "xyxy"), Src::C(k, "xyxy"), Src::C(k, "zwzw")],
        );
        w.vec(
            VectorOpcode::Mov,
            Dst::Out(TEX0),
            "zw",
            &[Src::In(8, "zwzw")],
        );
    }
    // TEX1: the normal, or the position scaled (a detail-map projection).
    if rng.chance(50) {
        w.vec(
            VectorOpcode::Mov,
            Dst::Out(TEX1),
            "xyzw",
            &[Src::In(2, "xyzw")],
        );
    } else {
        let k = constant(&mut constants, rng, 6, 0.5, 4.0);
        w.vec(
            VectorOpcode::Mul,
            Dst::Out(TEX1),
            "xyzw",
            &[Src::In(0, "xzyw"), Src::C(k, "xyzw")],
        );
    }
    // Sometimes a FRC/FLR pair on a temp that feeds nothing visible but still runs.
    if rng.chance(25) {
        let op = rng.pick(&[VectorOpcode::Frc, VectorOpcode::Flr])?;
        w.vec(op, Dst::Temp(4), "xyzw", &[Src::In(8, "xyxy")]);
        w.vec(
            VectorOpcode::Add,
            Dst::Out(TEX1),
            "w",
            &[Src::T(4, "xxxx"), Src::T(4, "yyyy")],
        );
    }
    Some(VertexProgramSpec {
        words: w.finish(),
        constants,
    })
}

/// `count` distinct programs (distinct by their words) from `rng`.
pub fn generate(rng: &mut Rng, count: usize) -> Vec<VertexProgramSpec> {
    let mut out: Vec<VertexProgramSpec> = Vec::with_capacity(count);
    let mut attempts = 0;
    while out.len() < count && attempts < count * 50 {
        attempts += 1;
        // Material constants from c40 on, eight per program window.
        let base = 40 + 8 * rng.below(8) as u16;
        if let Some(p) = one(rng, base) {
            if !out.iter().any(|q| q.words == p.words) {
                out.push(p);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_decode_back_and_read_only_listed_constants() {
        let mut rng = Rng::new(3);
        let programs = generate(&mut rng, 48);
        assert_eq!(programs.len(), 48);
        for p in &programs {
            let decoded = vertex::decode_words(&p.words).expect("decodes");
            assert!(decoded.instructions.last().is_some_and(|i| i.end));
            assert_eq!(vertex::encode(&decoded), p.words, "round trip");
            for insn in &decoded.instructions {
                let reads_constant = insn
                    .sources
                    .iter()
                    .any(|s| s.reg_type == RegisterType::Constant);
                if reads_constant {
                    let c = insn.const_index;
                    assert!(
                        (MVP..MVP + 4).contains(&c) || p.constants.iter().any(|(k, _)| *k == c),
                        "c[{c}] read but not listed"
                    );
                }
            }
        }
    }

    #[test]
    fn the_first_slots_by_hand() {
        // A plain program starts with DP4 o[HPOS].x, v[0], c[32]: the same words as
        // mvp_vertex_program's DP4 rows (checked by hand there), with x as the mask.
        let mut w = Writer::new().unwrap();
        w.vec(
            VectorOpcode::Dp4,
            Dst::Out(HPOS),
            "x",
            &[Src::In(0, "xyzw"), Src::C(MVP, "xyzw")],
        );
        let words = w.finish();
        let reference = mvp_vertex_program(32);
        // The reference's last slot is DP4 o[HPOS].x, v[0], c[32] with END.
        assert_eq!(words, reference[16..20].to_vec());
    }
}
