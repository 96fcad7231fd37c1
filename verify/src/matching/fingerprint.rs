//! The structural fingerprint of a program: what `rsxtrace match` compares when no library
//! program has the captured program's content key.
//!
//! A [`Fingerprint`] holds, from the decoded program (`rsxtrace_program::vertex` /
//! `rsxtrace_program::fragment` decoders):
//! - `instructions`: vertex: slots from the entry through END; fragment: instructions
//!   (inline-constant slots not counted);
//! - `opcodes`: a histogram of opcodes: vertex programs count the vector and the scalar
//!   unit's operations separately (an idle unit counts nothing), fragment programs count every
//!   instruction's opcode, NOP included;
//! - `texture_units`: the unit of every texture instruction, in instruction order (vertex
//!   TXL; fragment TEX, TXP, TXD, TXL, TXB, TEXBEM, TXPBEM);
//! - `inputs`: the input attributes read by an operand the opcode really reads (vertex:
//!   `v[0..15]`; fragment: WPOS, COL0, …, FACING), as a bit set;
//! - `outputs`: what is written: vertex: the output registers `o[n]`; fragment: the temporary
//!   registers written, an H register counted as the R register it aliases (H(2n), H(2n+1)
//!   → R(n)), so R0, R1, R2–R4 are the colour and depth exports;
//! - `constants`: vertex: the constant registers `c[n]` read (`c[A0+n]` counted as its base
//!   `n` with [`RELATIVE_CONSTANT`] set); fragment: the indices of the instructions that own
//!   an inline constant (fragment programs have no constant registers).
//!
//! Decoding happens once per program: a library's fingerprints are computed when the library
//! is built ([`super::library`]).

use rsxtrace_program::container::Stage;
use rsxtrace_program::fragment::{self, FpOpcode};
use rsxtrace_program::vertex::{self, InputAttribute, RegisterType, ScalarOpcode, VectorOpcode};
use serde::ser::SerializeStruct;
use serde::Serialize;

/// Set in an opcode key for a vertex program's scalar-unit operation.
pub const SCALAR_OPCODE: u16 = 0x100;
/// Set in a vertex constant index read relative to the address register (`c[A0+n]`).
pub const RELATIVE_CONSTANT: u16 = 0x8000;

/// The structural fingerprint of one program (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// Vertex or fragment.
    pub stage: Stage,
    /// Instructions.
    pub instructions: u32,
    /// `(opcode key, count)`, ascending by key. Keys: vertex vector opcodes by code, scalar
    /// opcodes by code | [`SCALAR_OPCODE`]; fragment opcodes by their 7-bit value.
    pub opcodes: Vec<(u16, u32)>,
    /// Texture unit of each texture instruction, in order.
    pub texture_units: Vec<u8>,
    /// Input attributes read, bit n for attribute n.
    pub inputs: u32,
    /// Outputs written: vertex `o[n]`, fragment R(n), bit n.
    pub outputs: u64,
    /// Vertex: constant indices read; fragment: indices of instructions owning an inline
    /// constant. Ascending, no repeats.
    pub constants: Vec<u16>,
}

/// Why a program has no fingerprint (it does not decode).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{stage} program does not decode: {reason}")]
pub struct FingerprintError {
    /// `"vertex"` or `"fragment"`.
    pub stage: &'static str,
    /// The decoder's message.
    pub reason: String,
}

impl Fingerprint {
    /// The fingerprint of a program in canonical form (`FoundProgram::ucode` and `entry`:
    /// vertex programs as big-endian words, fingerprinted from the entry slot through the
    /// first END as a capture's draw holds them; fragment programs as guest-memory bytes).
    pub fn of_program(
        stage: Stage,
        ucode: &[u8],
        entry: u32,
    ) -> Result<Fingerprint, FingerprintError> {
        match stage {
            Stage::Vertex => {
                if ucode.len() % 16 != 0 {
                    return Err(FingerprintError {
                        stage: "vertex",
                        reason: format!("{} bytes are not whole instructions", ucode.len()),
                    });
                }
                let from = (entry as usize * 16).min(ucode.len());
                let span = rsxtrace_program::source::key::vertex_through_end(&ucode[from..]);
                let words = rsxtrace_program::vertex::words_of(span);
                Fingerprint::of_vertex_words(&words)
            }
            Stage::Fragment => Fingerprint::of_fragment_ucode(ucode),
        }
    }

    /// The fingerprint of vertex-program words (four per slot, entry slot first), as a
    /// capture's draw holds them (`Draw::vertex_program_words`).
    pub fn of_vertex_words(words: &[u32]) -> Result<Fingerprint, FingerprintError> {
        let program = vertex::decode_words(words).map_err(|e| FingerprintError {
            stage: "vertex",
            reason: e.to_string(),
        })?;
        let mut histogram = Histogram::default();
        let mut texture_units = Vec::new();
        let (mut inputs, mut outputs) = (0u32, 0u64);
        let mut constants = Vec::new();
        for insn in &program.instructions {
            if insn.vector_active() {
                histogram.add(vertex_vector_key(insn.vector));
            }
            if insn.scalar_active() {
                histogram.add(vertex_scalar_key(insn.scalar));
            }
            let reads = insn.operands_read();
            if let Some(unit) = insn.texture_unit() {
                texture_units.push(unit);
            }
            for (source, read) in insn.sources.iter().zip(reads) {
                if !read {
                    continue;
                }
                match source.reg_type {
                    RegisterType::Input => inputs |= 1 << (insn.input.0 & 31),
                    RegisterType::Constant => {
                        let relative = if insn.index_const {
                            RELATIVE_CONSTANT
                        } else {
                            0
                        };
                        constants.push(insn.const_index | relative);
                    }
                    RegisterType::Temp => {}
                }
            }
            if let Some(output) = insn.output {
                let written = if insn.vec_result {
                    insn.vector_active() && insn.vec_mask.0 != 0
                } else {
                    insn.scalar_active() && insn.sca_mask.0 != 0
                };
                if written {
                    outputs |= 1 << (output.0 & 63);
                }
            }
        }
        constants.sort_unstable();
        constants.dedup();
        Ok(Fingerprint {
            stage: Stage::Vertex,
            instructions: u32::try_from(program.instructions.len()).unwrap_or(u32::MAX),
            opcodes: histogram.finish(),
            texture_units,
            inputs,
            outputs,
            constants,
        })
    }

    /// The fingerprint of fragment microcode in guest byte order, read up to its END (what
    /// follows END is ignored, as in a capture's memory).
    pub fn of_fragment_ucode(ucode: &[u8]) -> Result<Fingerprint, FingerprintError> {
        let program = fragment::decode_until_end(ucode).map_err(|e| FingerprintError {
            stage: "fragment",
            reason: e.to_string(),
        })?;
        let mut histogram = Histogram::default();
        let mut texture_units = Vec::new();
        let inputs = u32::from(program.inputs_read());
        let mut outputs = 0u64;
        let mut constants = Vec::new();
        for (n, insn) in program.instructions.iter().enumerate() {
            histogram.add(u16::from(insn.opcode.value()));
            if insn.opcode.is_texture() {
                texture_units.push(insn.texture_unit);
            }
            if insn.constant.is_some() {
                constants.push(u16::try_from(n).unwrap_or(u16::MAX));
            }
            if insn.alu().is_none() {
                continue;
            }
            let writes = !insn.dest.no_dest
                && insn.dest.mask.0 != 0
                && !matches!(insn.opcode, FpOpcode::Nop | FpOpcode::Kil);
            if writes {
                let index = insn.dest.index & 63;
                let r = if insn.dest.fp16 { index / 2 } else { index };
                outputs |= 1 << r;
            }
        }
        Ok(Fingerprint {
            stage: Stage::Fragment,
            instructions: u32::try_from(program.instructions.len()).unwrap_or(u32::MAX),
            opcodes: histogram.finish(),
            texture_units,
            inputs,
            outputs,
            constants,
        })
    }

    /// The name of an opcode key of this fingerprint's stage (`"DP4"`, `"RSQ (scalar)"`).
    pub fn opcode_name(&self, key: u16) -> String {
        opcode_name(self.stage, key)
    }

    /// The name of input attribute `n`.
    pub fn input_name(&self, n: u32) -> String {
        let n = u8::try_from(n).unwrap_or(u8::MAX);
        match self.stage {
            Stage::Vertex => format!("v[{}]", InputAttribute(n).name()),
            Stage::Fragment => fragment::InputAttribute(n).to_string(),
        }
    }

    /// The name of output bit `n`.
    pub fn output_name(&self, n: u32) -> String {
        match self.stage {
            Stage::Vertex => vertex::OutputRegister(u8::try_from(n).unwrap_or(u8::MAX)).to_string(),
            Stage::Fragment => format!("R{n}"),
        }
    }

    /// The name of a `constants` entry.
    pub fn constant_name(&self, c: u16) -> String {
        match self.stage {
            Stage::Vertex if c & RELATIVE_CONSTANT != 0 => {
                format!("c[A0+{}]", c & !RELATIVE_CONSTANT)
            }
            Stage::Vertex => format!("c[{c}]"),
            Stage::Fragment => format!("#{c}"),
        }
    }
}

fn vertex_vector_key(op: VectorOpcode) -> u16 {
    u16::try_from(op.code()).unwrap_or(0xFF)
}

fn vertex_scalar_key(op: ScalarOpcode) -> u16 {
    SCALAR_OPCODE | u16::try_from(op.code()).unwrap_or(0xFF)
}

/// The name of an opcode key for `stage`.
pub fn opcode_name(stage: Stage, key: u16) -> String {
    match stage {
        Stage::Vertex if key & SCALAR_OPCODE != 0 => {
            match ScalarOpcode::from_code(u32::from(key & 0xFF)) {
                Some(op) => format!("{} (scalar)", op.name()),
                None => format!("scalar 0x{:02x}", key & 0xFF),
            }
        }
        Stage::Vertex => match VectorOpcode::from_code(u32::from(key)) {
            Some(op) => op.name().to_string(),
            None => format!("vector 0x{key:02x}"),
        },
        Stage::Fragment => match u8::try_from(key).ok().and_then(FpOpcode::from_u8) {
            Some(op) => op.name().to_string(),
            None => format!("0x{key:02x}"),
        },
    }
}

/// Opcode counts indexed by key (keys are below 0x200).
#[derive(Default)]
struct Histogram(Vec<u32>);

impl Histogram {
    fn add(&mut self, key: u16) {
        let k = usize::from(key);
        if self.0.len() <= k {
            self.0.resize(k + 1, 0);
        }
        self.0[k] += 1;
    }

    fn finish(self) -> Vec<(u16, u32)> {
        self.0
            .into_iter()
            .enumerate()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| (u16::try_from(k).unwrap_or(u16::MAX), n))
            .collect()
    }
}

/// JSON form: `{"stage", "instructions", "opcodes": {"NAME": count}, "texture_units": [..],
/// "inputs": ["NAME"], "outputs": ["NAME"], "constants": ["c[n]" | "#n"]}`.
impl Serialize for Fingerprint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let opcodes: serde_json::Map<String, serde_json::Value> = self
            .opcodes
            .iter()
            .map(|&(k, n)| (self.opcode_name(k), n.into()))
            .collect();
        let inputs: Vec<String> = bits(u64::from(self.inputs))
            .map(|n| self.input_name(n))
            .collect();
        let outputs: Vec<String> = bits(self.outputs).map(|n| self.output_name(n)).collect();
        let constants: Vec<String> = self
            .constants
            .iter()
            .map(|&c| self.constant_name(c))
            .collect();
        let mut st = s.serialize_struct("Fingerprint", 7)?;
        st.serialize_field("stage", &self.stage)?;
        st.serialize_field("instructions", &self.instructions)?;
        st.serialize_field("opcodes", &opcodes)?;
        st.serialize_field("texture_units", &self.texture_units)?;
        st.serialize_field("inputs", &inputs)?;
        st.serialize_field("outputs", &outputs)?;
        st.serialize_field("constants", &constants)?;
        st.end()
    }
}

/// The set bits of `mask`, ascending.
pub(crate) fn bits(mask: u64) -> impl Iterator<Item = u32> {
    (0..64).filter(move |n| mask & (1 << n) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
    use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;

    #[test]
    fn mvp_vertex_program_reads_its_rows_and_position() {
        let f = Fingerprint::of_vertex_words(&mvp_vertex_program(32)).unwrap();
        assert_eq!(f.stage, Stage::Vertex);
        assert!(f.instructions >= 4);
        assert!(f.constants.iter().all(|&c| (32..36).contains(&c)), "{f:?}");
        assert_eq!(f.constants.len(), 4);
        assert!(f.inputs & 1 != 0, "reads v[0]");
        assert!(f.outputs & 1 != 0, "writes o[HPOS]");
        let dp4 = vertex_vector_key(VectorOpcode::Dp4);
        assert!(f.opcodes.iter().any(|&(k, n)| k == dp4 && n == 4), "{f:?}");
        assert_eq!(f.opcode_name(dp4), "DP4");
    }

    #[test]
    fn mov_col0_fragment_program() {
        let f = Fingerprint::of_fragment_ucode(&FRAGMENT_MOV_COL0).unwrap();
        assert_eq!(f.instructions, 1);
        assert_eq!(f.opcodes, vec![(u16::from(FpOpcode::Mov.value()), 1)]);
        assert_eq!(f.inputs, 1 << 1, "COL0");
        assert_eq!(f.outputs, 1, "R0");
        assert!(f.texture_units.is_empty() && f.constants.is_empty());
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(json["opcodes"]["MOV"], 1);
        assert_eq!(json["inputs"][0], "COL0");
        assert_eq!(json["outputs"][0], "R0");
    }

    #[test]
    fn undecodable_programs_are_errors_not_panics() {
        assert!(Fingerprint::of_program(Stage::Vertex, &[1, 2, 3], 0).is_err());
        assert!(Fingerprint::of_program(Stage::Vertex, &[], 0).is_err());
        assert!(Fingerprint::of_program(Stage::Fragment, &[0xFF; 7], 0).is_err());
    }
}
