//! The vertex stage of one draw on the device: the vertex program decoded from the draw's
//! transform program memory at `vp_start`, recompiled (`rsxtrace_wgsl::vertex::translate_textured`,
//! cached per program and the state of the vertex texture units its TXL instructions sample),
//! run over the fetched vertices with `vp_compute` (`Gpu::run_vertex_compute_batch`) with the
//! draw's constants, branch bits and vertex textures (uploaded by the caller).
//!
//! Constants the capture does not hold are read as zero. Which constants a program reads is
//! found statically ([`constants_read`]): every source of a reachable instruction that reads
//! the constant file, with its index, or "relative" when the index is added to an address
//! register (then every unknown constant may be read). Each draw that may read an unknown
//! constant gets one warning naming them. (The interpreter reports the reads it actually made;
//! the static scan can name a constant a branch never reaches.)

use std::collections::{BTreeSet, HashMap};

use rsxtrace_capture::fetch::fetch_distinct;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_gpu::{
    Gpu, SubmittedVertexBatch, UploadedTexture, VertexJob, VP_CONSTANTS, VP_INPUTS,
};
use rsxtrace_program::vertex::{decode_from_memory, RegisterType, VertexProgram};
use rsxtrace_wgsl::WgslModule;

use super::kept::KeptModules;
use crate::interp::vertex::nonexistent_output_notes;
use crate::raster::primitive_starts_distinct;
use crate::render::cpu::vertex::PositionOutputs;
use crate::texture::vertex_units::{translation_state, txl_units, VERTEX_UNITS};

/// What the vertex stage gives the rasterizer.
#[derive(Clone, Debug, Default)]
pub(crate) struct VertexStage {
    /// Output registers of each distinct vertex, by processing position.
    pub outputs: PositionOutputs,
    /// Positions where a new primitive sequence starts (restarts and draw ranges).
    pub starts: Vec<usize>,
    /// Unknown constants the program may read (a warning for the draw).
    pub unknown_constants: Option<String>,
    /// One warning per input attribute whose value the capture does not hold (read as
    /// RPCS3's replay reads it; `rsxtrace_capture::fetch::AttributeData::unknown_note`), and
    /// per write to an output register that does not exist.
    pub attribute_warnings: Vec<String>,
}

/// The constants a program reads: fixed indices, and whether any read is relative.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ConstantReads {
    /// Fixed indices.
    pub fixed: BTreeSet<usize>,
    /// Some read adds an address register to its index.
    pub relative: bool,
}

/// The constants `program` reads (see the module documentation).
pub(crate) fn constants_read(program: &VertexProgram) -> ConstantReads {
    let mut reads = ConstantReads::default();
    for i in &program.instructions {
        let mut used = [false; 3];
        if i.vector_active() {
            used = i.vector.reads();
        }
        if i.scalar_active() && i.scalar.reads_src2() {
            used[2] = true;
        }
        let reads_constant = i
            .sources
            .iter()
            .zip(used)
            .any(|(s, u)| u && s.reg_type == RegisterType::Constant);
        if !reads_constant {
            continue;
        }
        if i.index_const {
            reads.relative = true;
        } else {
            reads.fixed.insert(usize::from(i.const_index));
        }
    }
    reads
}

/// The warning text for the unknown constants among `reads`, or `None` when all are known.
pub(crate) fn unknown_constant_warning(
    reads: &ConstantReads,
    known: impl Fn(usize) -> bool,
) -> Option<String> {
    let fixed: Vec<usize> = reads.fixed.iter().copied().filter(|&c| !known(c)).collect();
    let unknown_any = reads.relative && (0..VP_CONSTANTS).any(|c| !known(c));
    if fixed.is_empty() && !unknown_any {
        return None;
    }
    let mut parts = Vec::new();
    if !fixed.is_empty() {
        let list: Vec<String> = fixed.iter().map(|c| format!("c[{c}]")).collect();
        parts.push(format!(
            "reads vertex constant{} {}, which the capture does not hold (read as 0)",
            if fixed.len() == 1 { "" } else { "s" },
            list.join(", ")
        ));
    }
    if unknown_any {
        let count = (0..VP_CONSTANTS).filter(|&c| !known(c)).count();
        parts.push(format!(
            "reads constants relative to an address register while {count} constants are \
             unknown (read as 0)"
        ));
    }
    Some(parts.join("; "))
}

/// A recompiled vertex program, the constants it reads and the vertex texture units it
/// samples.
pub(crate) struct CompiledVertex {
    pub module: WgslModule,
    pub reads: ConstantReads,
    /// Warnings about the program itself (`interp::vertex::nonexistent_output_notes`).
    pub notes: Vec<String>,
    /// Bit u: a TXL samples vertex texture unit u.
    pub txl_units: u8,
}

/// A shared [`CompiledVertex`].
pub(crate) type VertexModule = std::sync::Arc<CompiledVertex>;

/// The vertex texture units bound to one draw's vertex stage.
pub(crate) type BoundVertexTextures = [Option<std::sync::Arc<UploadedTexture>>; VERTEX_UNITS];

/// Recompiled vertex programs by (transform program memory, start slot, state of the vertex
/// texture units the program samples).
#[derive(Default)]
pub(crate) struct VertexPrograms {
    /// The TXL units of each program (decoded once).
    units: HashMap<(usize, u32), u8>,
    modules: HashMap<(usize, u32, rsxtrace_wgsl::vertex::VertexTextureUnits), VertexModule>,
}

impl VertexPrograms {
    /// The module and constant reads of `draw`'s vertex program (taken from `kept` when an
    /// earlier frame on the device recompiled the same program); the units of `null_units`
    /// (bit u = unit u) sample the null texture and are translated with the null unit's state
    /// (`texture::lod::null_unit_lod`).
    pub(crate) fn get(
        &mut self,
        draw: &Draw,
        kept: &KeptModules,
        null_units: u8,
    ) -> Result<VertexModule, String> {
        // The memory is shared (`Arc`) between draws while it is unchanged, so its address
        // with the start slot identifies the program for the life of the frame.
        let program_key = (
            std::sync::Arc::as_ptr(&draw.vertex_program) as usize,
            draw.vp_start,
        );
        let decode = || {
            decode_from_memory(&draw.vertex_program, draw.vp_start as usize)
                .map_err(|e| format!("vertex program: {e}"))
        };
        let mut decoded = None;
        let units = match self.units.get(&program_key) {
            Some(u) => *u,
            None => {
                let program = decode()?;
                let u = txl_units(&program);
                self.units.insert(program_key, u);
                decoded = Some(program);
                u
            }
        };
        let mut state = translation_state(&draw.vertex_textures, units);
        for (u, lod) in state.lod.iter_mut().enumerate() {
            if null_units & units & (1 << u) != 0 {
                *lod = crate::texture::lod::null_unit_lod();
            }
        }
        let key = (program_key.0, program_key.1, state);
        if let Some(m) = self.modules.get(&key) {
            return Ok(m.clone());
        }
        let entry = kept.vertex(&draw.vertex_program, draw.vp_start, state, || {
            let program = match decoded {
                Some(p) => p,
                None => decode()?,
            };
            let module = rsxtrace_wgsl::vertex::translate_textured(
                &program,
                &draw.vertex_program,
                &Default::default(),
                &state,
            )
            .map_err(|e| format!("vertex program translation: {e}"))?;
            Ok(std::sync::Arc::new(CompiledVertex {
                module,
                reads: constants_read(&program),
                notes: nonexistent_output_notes(&program),
                txl_units: units,
            }))
        })?;
        self.modules.insert(key, entry.clone());
        Ok(entry)
    }
}

/// A draw's vertex stage ready to run on the device: its inputs and constants, fetched and
/// laid out on the CPU (in parallel across draws), then run with other draws' in one batch
/// ([`run_batch`]).
pub(crate) struct Prepared {
    entry: VertexModule,
    textures: BoundVertexTextures,
    inputs: Vec<[[f32; 4]; VP_INPUTS]>,
    /// Each position's row in `inputs` (`None`: one per position).
    rows: Option<Vec<u32>>,
    constants: Box<[[f32; 4]; VP_CONSTANTS]>,
    branch_bits: u32,
    starts: Vec<usize>,
    unknown_constants: Option<String>,
    attribute_warnings: Vec<String>,
}

/// Prepared vertex stages submitted to the device ([`submit_batch`]), to collect with
/// [`PendingStages::finish`].
pub(crate) struct PendingStages {
    prepared: Vec<Prepared>,
    submitted: SubmittedVertexBatch,
}

/// The device's jobs for `prepared`.
fn jobs(prepared: &[Prepared]) -> Vec<VertexJob<'_>> {
    prepared
        .iter()
        .map(|p| VertexJob {
            module: &p.entry.module,
            constants: &p.constants,
            inputs: &p.inputs,
            branch_bits: p.branch_bits,
            textures: std::array::from_fn(|u| p.textures[u].as_deref()),
        })
        .collect()
}

/// Submits the prepared vertex stages to `gpu` as one batch, without waiting for them.
pub(crate) fn submit_batch(gpu: &Gpu, prepared: Vec<Prepared>) -> PendingStages {
    let submitted = gpu.submit_vertex_batch(&jobs(&prepared));
    PendingStages {
        prepared,
        submitted,
    }
}

impl PendingStages {
    /// Waits for the batch (its own submission only) and gives each stage; `Err` is the
    /// reason that draw is skipped.
    pub(crate) fn finish(self, gpu: &Gpu) -> Vec<Result<VertexStage, String>> {
        let PendingStages {
            prepared,
            submitted,
        } = self;
        let results = gpu.finish_vertex_batch(submitted, &jobs(&prepared));
        prepared
            .into_iter()
            .zip(results)
            .map(|(p, r)| {
                let results = r.map_err(|e| format!("vertex program on the GPU: {e}"))?;
                Ok(VertexStage {
                    outputs: PositionOutputs::new(
                        results.iter().map(|r| r.registers).collect(),
                        p.rows,
                    ),
                    starts: p.starts,
                    unknown_constants: p.unknown_constants,
                    attribute_warnings: p.attribute_warnings,
                })
            })
            .collect()
    }
}

/// Fetches draw `index`'s vertex inputs and constants for its vertex program (`entry`, from
/// [`VertexPrograms::get`]), to run with `textures` on its vertex texture units. `Err` is the
/// reason the draw is skipped.
pub(crate) fn prepare(
    entry: &VertexModule,
    textures: BoundVertexTextures,
    frame: &Frame,
    index: usize,
) -> Result<Prepared, String> {
    let draw = frame
        .draws
        .get(index)
        .ok_or_else(|| format!("no draw {index}"))?;
    let memory = frame
        .memory(index)
        .ok_or_else(|| format!("no memory view for draw {index}"))?;
    let reads = &entry.reads;
    // Each distinct vertex of an indexed draw runs once, as on the CPU (`render::cpu::vertex`).
    let fetched =
        fetch_distinct(&draw.vertex_inputs, &memory).map_err(|e| format!("vertex fetch: {e}"))?;
    let vertices = &fetched.vertices;
    let mut inputs = vec![[[0.0f32; 4]; VP_INPUTS]; vertices.len()];
    for column in &vertices.attributes {
        let a = usize::from(column.attribute);
        if a >= VP_INPUTS {
            continue;
        }
        for (v, value) in inputs.iter_mut().zip(&column.values) {
            v[a] = *value;
        }
    }
    let mut constants = Box::new([[0.0f32; 4]; VP_CONSTANTS]);
    for (i, c) in constants.iter_mut().enumerate() {
        if let Some(v) = draw.constants.get(i) {
            *c = v;
        }
    }
    let unknown_constants = unknown_constant_warning(reads, |c| draw.constants.is_known(c));
    Ok(Prepared {
        entry: entry.clone(),
        textures,
        inputs,
        constants,
        branch_bits: draw.transform_branch_bits,
        starts: primitive_starts_distinct(&fetched),
        unknown_constants,
        attribute_warnings: vertices
            .unknown_notes()
            .into_iter()
            .chain(entry.notes.iter().cloned())
            .collect(),
        rows: fetched.rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_program::vertex::{
        OutputRegister, Source, VectorOpcode, VertexInstruction, WriteMask,
    };

    fn dp4(slot: usize, constant: u16, relative: bool) -> VertexInstruction {
        let idle = VertexInstruction::idle(slot);
        let c = Source {
            reg_type: RegisterType::Constant,
            ..idle.sources[1]
        };
        VertexInstruction {
            vector: VectorOpcode::Dp4,
            output: Some(OutputRegister(0)),
            vec_result: true,
            vec_mask: WriteMask(0x8),
            sources: [idle.sources[0], c, idle.sources[2]],
            const_index: constant,
            index_const: relative,
            ..idle
        }
    }

    #[test]
    fn reads_are_found_per_source_and_relative_reads_flagged() {
        let p = VertexProgram {
            start_slot: 0,
            instructions: vec![dp4(0, 32, false), dp4(1, 33, false)],
        };
        let r = constants_read(&p);
        assert_eq!(r.fixed.iter().copied().collect::<Vec<_>>(), [32, 33]);
        assert!(!r.relative);
        // src1 is not read by MOV: no constant read.
        let mut mov = dp4(0, 40, false);
        mov.vector = VectorOpcode::Mov;
        let p = VertexProgram {
            start_slot: 0,
            instructions: vec![mov, dp4(1, 7, true)],
        };
        let r = constants_read(&p);
        assert!(r.fixed.is_empty());
        assert!(r.relative);
    }

    #[test]
    fn warnings_name_unknown_constants_only() {
        let reads = ConstantReads {
            fixed: [32, 33, 40].into_iter().collect(),
            relative: false,
        };
        assert_eq!(unknown_constant_warning(&reads, |_| true), None);
        assert_eq!(
            unknown_constant_warning(&reads, |c| c != 40).as_deref(),
            Some("reads vertex constant c[40], which the capture does not hold (read as 0)")
        );
        let relative = ConstantReads {
            fixed: BTreeSet::new(),
            relative: true,
        };
        let w = unknown_constant_warning(&relative, |c| c < 400).unwrap();
        assert!(w.contains("68 constants are unknown"), "{w}");
    }
}
