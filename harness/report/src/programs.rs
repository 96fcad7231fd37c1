//! A draw's programs as the site shows them: each distinct vertex and fragment program once
//! ([`ProgramKey`]), with its disassembly and its WGSL (the recompiler's output, or why there
//! is none), and per draw what differs between draws sharing a program: the transform
//! constants the vertex program reads with the values the draw sees ([`constants_read`]).
//!
//! A vertex program is keyed by its decoded instructions and entry slot; a fragment program by
//! its whole microcode (inline constants included: the recompiled module embeds them) and the
//! translation options the draw's texture units give, as the GPU render keys its modules.

use rsxtrace_capture::frame::Draw;
use rsxtrace_replay::program::fragment::{self, FragmentProgram};
use rsxtrace_replay::program::vertex::{self, VertexProgram};
use rsxtrace_replay::texture::binding::shader_dimension;
use rsxtrace_replay::texture::lod::unit_lod;
use rsxtrace_replay::texture::vertex_units::{translation_state, txl_units};
use rsxtrace_replay::wgsl::fragment::FragmentTranslateOptions;
use rsxtrace_replay::wgsl::vertex::{VertexTextureUnits, VertexTranslateOptions};
use rsxtrace_verify::probe::constant_layout::{self, reads::constant_reads};
use xxhash_rust::xxh3::Xxh3;

/// Which program, as a file name stem (`vp-<16 hex>` or `fp-<16 hex>`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProgramKey(pub String);

/// A decoded program of one draw, ready to be described.
pub enum DrawProgram {
    /// The vertex program and the transform memory it was decoded from.
    Vertex {
        /// The program.
        program: VertexProgram,
        /// The 544-slot transform program memory.
        memory: Vec<u32>,
        /// The state of the vertex texture units its TXL instructions sample (boxed: four
        /// units' state).
        textures: Box<VertexTextureUnits>,
    },
    /// The fragment program and the options of its translation.
    Fragment {
        /// The program.
        program: FragmentProgram,
        /// Translation options from the draw's state (boxed: sixteen units' state).
        options: Box<FragmentTranslateOptions>,
    },
}

/// One program's texts.
#[derive(Clone, Debug)]
pub struct ProgramText {
    /// `"vertex"` or `"fragment"`.
    pub stage: &'static str,
    /// Instruction count.
    pub instructions: usize,
    /// Disassembly in RPCS3's style.
    pub disassembly: String,
    /// The recompiled WGSL, or why it could not be made.
    pub wgsl: Result<String, String>,
    /// Fragment programs: the inline constants `(slot, values)`.
    pub inline_constants: Vec<(u32, [f32; 4])>,
}

/// The draw's vertex program and its key, or why it does not decode.
pub fn vertex_program(draw: &Draw) -> Result<(ProgramKey, DrawProgram), String> {
    let program = vertex::decode_from_memory(&draw.vertex_program, draw.vp_start as usize)
        .map_err(|e| format!("the vertex program does not decode: {e}"))?;
    let mut h = Xxh3::new();
    h.update(&(program.start_slot as u64).to_le_bytes());
    for i in &program.instructions {
        h.update(&(i.slot as u64).to_le_bytes());
        for w in i.to_words() {
            h.update(&w.to_le_bytes());
        }
    }
    let textures = translation_state(&draw.vertex_textures, txl_units(&program));
    if textures != VertexTextureUnits::default() {
        h.update(format!("{textures:?}").as_bytes());
    }
    let key = ProgramKey(format!("vp-{:016x}", h.digest()));
    Ok((
        key,
        DrawProgram::Vertex {
            program,
            memory: draw.vertex_program.to_vec(),
            textures: Box::new(textures),
        },
    ))
}

/// The draw's fragment program and its key, or why there is none.
pub fn fragment_program(draw: &Draw) -> Result<(ProgramKey, DrawProgram), String> {
    let fp = draw.fragment_program.as_ref().ok_or_else(|| {
        let why: Vec<String> = draw.problems.iter().map(|p| p.to_string()).collect();
        if why.is_empty() {
            "no fragment program".to_string()
        } else {
            format!("no fragment program: {}", why.join("; "))
        }
    })?;
    let program = fragment::decode(&fp.ucode)
        .map_err(|e| format!("the fragment program does not decode: {e}"))?;
    let options = FragmentTranslateOptions {
        texture_dims: std::array::from_fn(|u| shader_dimension(&draw.textures[u])),
        texture_lod: std::array::from_fn(|u| unit_lod(&draw.textures[u])),
        ..FragmentTranslateOptions::with_control(draw.shader_control.raw)
    };
    let mut h = Xxh3::new();
    h.update(&fp.ucode);
    h.update(format!("{options:?}").as_bytes());
    let key = ProgramKey(format!("fp-{:016x}", h.digest()));
    Ok((
        key,
        DrawProgram::Fragment {
            program,
            options: Box::new(options),
        },
    ))
}

/// Disassemble and recompile.
pub fn describe(program: &DrawProgram) -> ProgramText {
    match program {
        DrawProgram::Vertex {
            program,
            memory,
            textures,
        } => ProgramText {
            stage: "vertex",
            instructions: program.instructions.len(),
            disassembly: vertex::disassemble(program),
            wgsl: rsxtrace_replay::wgsl::vertex::translate_textured(
                program,
                memory,
                &VertexTranslateOptions::default(),
                textures,
            )
            .map(|m| m.source)
            .map_err(|e| e.to_string()),
            inline_constants: Vec::new(),
        },
        DrawProgram::Fragment { program, options } => ProgramText {
            stage: "fragment",
            instructions: program.instructions.len(),
            disassembly: fragment::disassemble(program),
            wgsl: rsxtrace_replay::wgsl::fragment::translate(program, options)
                .map(|m| m.source)
                .map_err(|e| e.to_string()),
            inline_constants: program
                .instructions
                .iter()
                .filter_map(|i| Some((i.slot + 1, i.constant?.values())))
                .collect(),
        },
    }
}

/// A transform constant a vertex program reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ConstantRead {
    /// Index (for a relative read: the offset added to the address register).
    pub index: u16,
    /// Read as `c[A0.x + index]`: which constant depends on the vertex.
    pub relative: bool,
}

/// The constants `program` reads: sources of constant type that the vector op (by its
/// operands, `VectorOpcode::reads`) or the scalar op (src2) reads, in index order.
pub fn constants_read(program: &VertexProgram) -> Vec<ConstantRead> {
    registers_read(&constant_reads(program))
}

/// The distinct registers of `reads` (`probe constants`' reads of one program), in index
/// order.
pub fn registers_read(reads: &[constant_layout::reads::ConstantRead]) -> Vec<ConstantRead> {
    let mut out: Vec<ConstantRead> = reads
        .iter()
        .map(|r| ConstantRead {
            index: r.register.index,
            relative: r.register.relative.is_some(),
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_replay::program::vertex::{
        RegisterType, Source, Swizzle, VectorOpcode, WriteMask,
    };

    #[test]
    fn constants_read_follow_the_operands_the_ops_read() {
        let constant = Source {
            reg_type: RegisterType::Constant,
            temp_index: 0,
            swizzle: Swizzle::IDENTITY,
            negate: false,
            abs: false,
        };
        // DP4 reads src0 and src1: the constant in src1 is read.
        let mut dp4 = vertex::VertexInstruction::idle(0);
        dp4.vector = VectorOpcode::Dp4;
        dp4.vec_mask = WriteMask(8);
        dp4.vec_dst_temp = Some(0);
        dp4.sources[1] = constant;
        dp4.const_index = 40;
        // MOV reads src0 only: a constant in src2 is not read.
        let mut mov = vertex::VertexInstruction::idle(1);
        mov.vector = VectorOpcode::Mov;
        mov.vec_mask = WriteMask(15);
        mov.vec_dst_temp = Some(1);
        mov.sources[2] = constant;
        mov.const_index = 7;
        // A relative read.
        let mut rel = dp4;
        rel.slot = 2;
        rel.const_index = 3;
        rel.index_const = true;
        rel.end = true;
        let program = VertexProgram {
            start_slot: 0,
            instructions: vec![dp4, mov, rel],
        };
        assert_eq!(
            constants_read(&program),
            vec![
                ConstantRead {
                    index: 3,
                    relative: true
                },
                ConstantRead {
                    index: 40,
                    relative: false
                }
            ]
        );
    }
}
