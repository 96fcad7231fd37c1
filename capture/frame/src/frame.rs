//! The register state machine: applies the method stream to the captured register file, tracks
//! transform uploads, immediate attributes and draw scopes, and builds the [`Frame`].

use crate::clause::DrawRanges;
use crate::draw::{Draw, DrawProblem, Primitive};
use crate::error::FrameError;
use crate::fragment::{read_fragment_program, FragmentProgram, ProgramAddress};
use crate::immediate::{classify, ImmediateAttributes};
use crate::memory::{MemoryIndex, MemoryView};
use crate::methods::{method_def, reg};
use crate::problem::FrameProblem;
use crate::push_buffer::PushBuffers;
use crate::regions::Regions;
use crate::state::vertex::{inline_stride, vertex_inputs};
use crate::state::{r, RasterState, ShaderControl, Surface, Texture};
use crate::stream::packets;
use crate::transform::{scan_vertex_program, TransformConstants, TransformState, VpScan};
use crate::write_rules;
use rsxtrace_fetch::{DrawRange, IndexArray, IndexType, VertexSource};
use rsxtrace_rrc::{
    Capture, Location, REGISTER_COUNT, TRANSFORM_PROGRAM_WORDS, TRANSFORM_PROGRAM_WORDS_OLD,
};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Counts for `rsxtrace info`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FrameStats {
    /// Recorded commands (including the initial NOP and continuation entries).
    pub commands: usize,
    /// Method calls in the rebuilt stream.
    pub method_calls: usize,
    /// Draws.
    pub draws: usize,
    /// Memory block attachments over all commands.
    pub memory_blocks: usize,
    /// Bytes over all attachments.
    pub memory_bytes: u64,
    /// Bytes of the capture's distinct data blobs.
    pub memory_data_bytes: u64,
    /// Distinct `vp_hash` values.
    pub distinct_vertex_programs: usize,
    /// Distinct `fp_hash` values (draws whose program was read).
    pub distinct_fragment_programs: usize,
    /// Draws with at least one problem.
    pub draws_with_problems: usize,
    /// Frame-level problems.
    pub frame_problems: usize,
}

/// A decoded capture: its draws, the memory index and the final register file.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Draws in END order.
    pub draws: Vec<Draw>,
    /// Structural problems in the stream.
    pub problems: Vec<FrameProblem>,
    /// Recorded commands.
    pub command_count: usize,
    /// Method calls in the stream.
    pub method_call_count: usize,
    /// Constant writes dropped because their index was past 467.
    pub dropped_constant_writes: u64,
    /// The register file after the whole stream.
    pub final_registers: Vec<u32>,
    /// The tile and Z-cull regions bound through the frame.
    pub regions: Regions,
    memory: MemoryIndex,
    memory_data_bytes: u64,
}

#[derive(Debug, Default)]
struct Scope {
    begin: usize,
    primitive: Option<Primitive>,
    arrays: DrawRanges,
    indexed: DrawRanges,
    inline: Vec<u32>,
    elements: Vec<u32>,
    /// `SET_VERTEX_DATA*` writes inside the scope (immediate mode).
    push: PushBuffers,
    /// The parts closed by execution barriers (`crate::clause`), in order; the ranges above
    /// are the last part's.
    parts: Vec<ClausePart>,
}

/// The ranges of a BEGIN/END before an execution barrier, with the deferred state they draw
/// with: the vertex bases and array offsets, and the transform constants, before the barrier.
#[derive(Debug)]
struct ClausePart {
    arrays: DrawRanges,
    indexed: DrawRanges,
    registers: Vec<(u16, u32)>,
    constants: Arc<TransformConstants>,
}

pub(crate) fn range(v: u32) -> DrawRange {
    // first = bits 0..23, count = bits 24..31 + 1 (rrc-format.md 4.2).
    DrawRange {
        first: v & 0x00FF_FFFF,
        count: (v >> 24) + 1,
    }
}

impl Frame {
    /// Decode a capture. Only a register-state snapshot of no known size is an error; what in
    /// the command list cannot be applied is skipped and listed in [`Frame::problems`] (in
    /// command order), per-draw problems (missing memory, bad program addresses) on the draws.
    pub fn from_capture(capture: &Capture) -> Result<Frame, FrameError> {
        let rs = &capture.reg_state;
        if rs.registers.len() != REGISTER_COUNT {
            return Err(FrameError::BadRegState {
                what: "registers",
                len: rs.registers.len(),
                expected: "16384",
            });
        }
        let plen = rs.transform_program.len();
        if plen != TRANSFORM_PROGRAM_WORDS && plen != TRANSFORM_PROGRAM_WORDS_OLD {
            return Err(FrameError::BadRegState {
                what: "transform_program",
                len: plen,
                expected: "2176 or 2048",
            });
        }
        let (memory, mut memory_problems) = MemoryIndex::build(capture);
        let (regions, region_problems) = Regions::from_capture(capture);
        memory_problems.extend(region_problems);
        let mut m = Machine {
            regs: rs.registers.clone(),
            transform: TransformState::new(
                &rs.transform_program,
                rs.transform_constants.as_deref(),
            ),
            immediate: ImmediateAttributes::default(),
            scope: None,
            draws: Vec::new(),
            problems: memory_problems,
            vp_cache: HashMap::new(),
            memory: &memory,
        };
        let mut calls = 0usize;
        // The last program upload, to recognise the recorder's copies of its tail.
        let mut last_program = None;
        for packet in packets(&capture.commands) {
            let packet = match packet {
                Ok(packet) => packet,
                Err(e) => {
                    m.problems.push(FrameProblem::Stream(e));
                    continue;
                }
            };
            calls += packet.len();
            let first = packet.reg;
            if (reg::SET_TRANSFORM_PROGRAM..reg::SET_TRANSFORM_PROGRAM + 32).contains(&first) {
                // A copy of a non-increment upload's tail made by RPCS3's recorder: the live
                // run uploaded those words once (RPCS3's own replay uploads them again, past
                // the program, `Packet::repeats_tail_of`).
                let repeat = last_program
                    .as_ref()
                    .is_some_and(|previous| packet.repeats_tail_of(previous));
                last_program = Some(packet);
                if repeat {
                    continue;
                }
                let mut load = m.regs[reg::SET_TRANSFORM_PROGRAM_LOAD as usize];
                for piece in packet.uploads() {
                    if let Some(problem) = m.transform.upload_program(&piece, &mut load) {
                        m.problems.push(problem);
                    }
                }
                m.regs[reg::SET_TRANSFORM_PROGRAM_LOAD as usize] = load;
                for c in packet.calls() {
                    if let Some(x) = m.regs.get_mut(c.reg as usize) {
                        *x = c.value;
                    }
                }
                continue;
            }
            for c in packet.calls() {
                m.call(c.command_index, c.reg, c.value);
            }
        }
        if let Some(s) = m.scope.take() {
            m.problems
                .push(FrameProblem::UnclosedDraw { begin: s.begin });
        }
        m.problems.sort_by_key(FrameProblem::command);
        let memory_data_bytes = capture.memory_bytes();
        let Machine {
            regs,
            transform,
            draws,
            problems,
            ..
        } = m;
        Ok(Frame {
            draws,
            problems,
            command_count: capture.commands.len(),
            method_call_count: calls,
            dropped_constant_writes: transform.dropped_constant_writes,
            final_registers: regs,
            regions,
            memory,
            memory_data_bytes,
        })
    }

    /// Guest memory as seen by draw `draw_index` (every block attached up to its END).
    pub fn memory(&self, draw_index: usize) -> Option<MemoryView<'_>> {
        let d = self.draws.get(draw_index)?;
        Some(self.memory.view_at(d.end_command))
    }

    /// The index of every captured memory block ([`MemoryIndex::blocks`] lists them).
    pub fn memory_index(&self) -> &MemoryIndex {
        &self.memory
    }

    /// Guest memory as seen at any command.
    pub fn memory_at(&self, command: usize) -> MemoryView<'_> {
        self.memory.view_at(command)
    }

    /// Counts for `rsxtrace info`.
    pub fn stats(&self) -> FrameStats {
        let vps: HashSet<u64> = self.draws.iter().map(|d| d.vp_hash).collect();
        let fps: HashSet<u64> = self
            .draws
            .iter()
            .filter_map(|d| d.fragment_program.as_ref().map(|p| p.hash))
            .collect();
        FrameStats {
            commands: self.command_count,
            method_calls: self.method_call_count,
            draws: self.draws.len(),
            memory_blocks: self.memory.attachments(),
            memory_bytes: self.memory.attached_bytes(),
            memory_data_bytes: self.memory_data_bytes,
            distinct_vertex_programs: vps.len(),
            distinct_fragment_programs: fps.len(),
            draws_with_problems: self.draws.iter().filter(|d| !d.problems.is_empty()).count(),
            frame_problems: self.problems.len(),
        }
    }
}

struct Machine<'a> {
    regs: Vec<u32>,
    transform: TransformState,
    immediate: ImmediateAttributes,
    scope: Option<Scope>,
    draws: Vec<Draw>,
    problems: Vec<FrameProblem>,
    vp_cache: HashMap<(u64, u32), VpScan>,
    memory: &'a MemoryIndex,
}

impl Machine<'_> {
    fn call(&mut self, command: usize, reg_index: u16, value: u32) {
        if write_rules::refused(reg_index, value) {
            let kept = r(&self.regs, reg_index);
            if kept != value {
                self.problems.push(FrameProblem::RefusedWrite {
                    command,
                    method: method_def(reg_index).map_or("?", |(def, _)| def.name),
                    value,
                    kept,
                });
            }
            return;
        }
        if self.ends_part(reg_index) {
            self.close_part();
        }
        if let Some(x) = self.regs.get_mut(reg_index as usize) {
            *x = value;
        }
        if (reg::SET_TRANSFORM_CONSTANT..reg::SET_TRANSFORM_CONSTANT + 32).contains(&reg_index) {
            let load = self.regs[reg::SET_TRANSFORM_CONSTANT_LOAD as usize];
            self.transform
                .write_constant(reg_index, value, load, command);
            return;
        }
        if let Some((family, attribute, word)) = classify(reg_index) {
            // Inside BEGIN/END the write is pushed first, with the register value before it
            // (RPCS3 NV47/HW/common.cpp push_vertex_data).
            if let Some(scope) = &mut self.scope {
                let mask = r(&self.regs, reg::SET_VERTEX_ATTRIB_INPUT_MASK);
                scope
                    .push
                    .write(family, attribute, word, value, &self.immediate, mask);
            }
            self.immediate.write(reg_index, value);
            return;
        }
        let outside = || FrameProblem::DrawMethodOutsideScope {
            command,
            method: method_def(reg_index).map_or("?", |(def, _)| def.name),
        };
        match reg_index {
            reg::SET_BEGIN_END => self.begin_end(command, value),
            reg::DRAW_ARRAYS => match &mut self.scope {
                Some(s) => s.arrays.append(range(value)),
                None => self.problems.push(outside()),
            },
            reg::DRAW_INDEX_ARRAY => match &mut self.scope {
                Some(s) => s.indexed.append(range(value)),
                None => self.problems.push(outside()),
            },
            reg::INLINE_ARRAY => match &mut self.scope {
                Some(s) => s.inline.push(value),
                None => self.problems.push(outside()),
            },
            // Two indices per word, low half first (RPCS3 nv4097 set_array_element16).
            reg::ARRAY_ELEMENT16 => match &mut self.scope {
                Some(s) => s.elements.extend([value & 0xFFFF, value >> 16]),
                None => self.problems.push(outside()),
            },
            reg::ARRAY_ELEMENT32 => match &mut self.scope {
                Some(s) => s.elements.push(value),
                None => self.problems.push(outside()),
            },
            _ => {}
        }
    }

    /// Whether a write to `reg_index` is an execution barrier of the open clause
    /// (`crate::clause::defers`): a range was drawn since BEGIN or the last barrier (RPCS3
    /// applies the write at once otherwise, "current_draw_clause.empty()"). As in RPCS3, a
    /// write that changes nothing is a barrier too: the ranges after it are a new part, whose
    /// repeat of an earlier part's range is drawn again, not dropped as a duplicate.
    fn ends_part(&self, reg_index: u16) -> bool {
        self.scope.as_ref().is_some_and(|s| {
            !(s.arrays.is_empty() && s.indexed.is_empty())
                && crate::clause::defers(reg_index)
                && self.constant_write_lands(reg_index)
        })
    }

    /// False for a `SET_TRANSFORM_CONSTANT` word past c[467], which RPCS3's handler drops
    /// before it inserts the barrier (`set_transform_constant::impl`: "Out-of-bounds write is
    /// a NOP"); true for every other register.
    fn constant_write_lands(&self, reg_index: u16) -> bool {
        let Some(k) = reg_index.checked_sub(reg::SET_TRANSFORM_CONSTANT) else {
            return true;
        };
        if k >= 32 {
            return true;
        }
        let load = u64::from(r(&self.regs, reg::SET_TRANSFORM_CONSTANT_LOAD));
        load + u64::from(k / 4) < crate::transform::CONSTANT_COUNT as u64
    }

    /// Close the open clause's current part at a barrier: its ranges, with the deferred
    /// registers and the constants as they are before the barrier's write.
    fn close_part(&mut self) {
        let registers = crate::clause::deferred_draw_registers()
            .map(|reg_index| (reg_index, r(&self.regs, reg_index)))
            .collect();
        let constants = Arc::clone(&self.transform.constants);
        if let Some(s) = &mut self.scope {
            s.parts.push(ClausePart {
                arrays: std::mem::take(&mut s.arrays),
                indexed: std::mem::take(&mut s.indexed),
                registers,
                constants,
            });
        }
    }

    /// The draws of a closed clause at END: each part closed by a barrier with its own
    /// deferred registers and constants and END's state otherwise (RPCS3 draws the whole
    /// clause at END, re-applying each barrier's write between the parts), then the last part
    /// with END's state; a last part left empty by a barrier draws nothing.
    fn finish_clause(&mut self, end: usize, mut s: Scope) {
        let parts = std::mem::take(&mut s.parts);
        let split = !parts.is_empty();
        let mut next = 0u32;
        for p in parts {
            let saved: Vec<(u16, u32)> = p
                .registers
                .iter()
                .map(|&(reg_index, _)| (reg_index, r(&self.regs, reg_index)))
                .collect();
            let set = |regs: &mut Vec<u32>, values: &[(u16, u32)]| {
                for &(reg_index, v) in values {
                    if let Some(x) = regs.get_mut(usize::from(reg_index)) {
                        *x = v;
                    }
                }
            };
            set(&mut self.regs, &p.registers);
            let constants = std::mem::replace(&mut self.transform.constants, p.constants);
            let part = Scope {
                begin: s.begin,
                primitive: s.primitive,
                arrays: p.arrays,
                indexed: p.indexed,
                ..Scope::default()
            };
            let draw = self.build_draw(end, part, next);
            self.draws.push(draw);
            self.transform.constants = constants;
            set(&mut self.regs, &saved);
            next += 1;
        }
        let empty = s.arrays.is_empty()
            && s.indexed.is_empty()
            && s.inline.is_empty()
            && s.elements.is_empty()
            && s.push.vertex_count() == 0;
        if !(split && empty) {
            let draw = self.build_draw(end, s, next);
            self.draws.push(draw);
        }
    }

    fn begin_end(&mut self, command: usize, value: u32) {
        let prim = value & 0xFF;
        if prim != 0 {
            if let Some(open) = self.scope.take() {
                self.problems.push(FrameProblem::BeginWhileOpen {
                    command,
                    open: open.begin,
                });
            }
            let primitive = Primitive::from_raw(prim);
            if primitive.is_none() {
                self.problems
                    .push(FrameProblem::InvalidPrimitive { command, value });
            }
            self.scope = Some(Scope {
                begin: command,
                primitive,
                ..Scope::default()
            });
            return;
        }
        match self.scope.take() {
            None => self
                .problems
                .push(FrameProblem::EndWithoutBegin { command }),
            Some(Scope {
                primitive: None, ..
            }) => {}
            Some(s) => self.finish_clause(command, s),
        }
    }

    fn build_draw(&mut self, end: usize, s: Scope, part: u32) -> Draw {
        let regs = &self.regs[..];
        let mut problems = Vec::new();
        let Scope {
            begin,
            primitive,
            arrays,
            indexed,
            inline,
            elements,
            push,
            parts: _,
        } = s;
        let (arrays, indexed) = (arrays.into_vec(), indexed.into_vec());
        let primitive = primitive.unwrap_or(Primitive::Points);

        // Vertex source.
        let mut kinds = Vec::new();
        for (name, present) in [
            ("arrays", !arrays.is_empty()),
            ("indexed", !indexed.is_empty()),
            ("inline", !inline.is_empty()),
            ("elements", !elements.is_empty()),
        ] {
            if present {
                kinds.push(name);
            }
        }
        if kinds.len() > 1 {
            problems.push(DrawProblem::MixedSources {
                sources: kinds.join(", "),
            });
        }
        let dma = r(regs, reg::SET_INDEX_ARRAY_DMA);
        let index_array = if indexed.is_empty() {
            None
        } else {
            let ty = match (dma >> 4) & 0xFF {
                0 => Some(IndexType::U32),
                1 => Some(IndexType::U16),
                _ => None,
            };
            let location = match dma & 0xF {
                0 => Some(Location::Local),
                1 => Some(Location::Main),
                _ => None,
            };
            match (ty, location) {
                (Some(ty), Some(location)) => Some(IndexArray {
                    ty,
                    offset: r(regs, reg::SET_INDEX_ARRAY_ADDRESS) & 0x1FFF_FFFF,
                    location,
                }),
                _ => {
                    problems.push(DrawProblem::IndexDma { raw: dma });
                    None
                }
            }
        };
        let is_indexed = !indexed.is_empty();
        let sum = |rs: &[DrawRange]| rs.iter().map(|r| r.count as u64).sum::<u64>();
        let pushed = push.vertex_count();
        let (source, ranges, mut vertex_count) = if kinds.is_empty() && pushed > 0 {
            // Immediate mode: no draw command, attribute 0 pushed vertices. RPCS3 draws them as
            // one range (0, count) (nv4097.cpp set_begin_end), so `ranges` holds that range.
            let count = u32::try_from(pushed).unwrap_or(u32::MAX);
            let mask = r(regs, reg::SET_VERTEX_ATTRIB_INPUT_MASK);
            (
                VertexSource::Immediate {
                    count,
                    streams: push.streams(&self.immediate, mask),
                },
                vec![DrawRange { first: 0, count }],
                u64::from(count),
            )
        } else if !inline.is_empty() {
            (VertexSource::Inline { words: inline }, Vec::new(), 0)
        } else if !elements.is_empty() {
            let n = elements.len() as u64;
            (VertexSource::Elements { indices: elements }, Vec::new(), n)
        } else if let (true, Some(index)) = (is_indexed, index_array) {
            let n = sum(&indexed);
            (
                VertexSource::Indexed {
                    index,
                    ranges: indexed.clone(),
                },
                indexed,
                n,
            )
        } else if is_indexed {
            let n = sum(&indexed);
            (VertexSource::Arrays { ranges: Vec::new() }, indexed, n)
        } else {
            let n = sum(&arrays);
            (
                VertexSource::Arrays {
                    ranges: arrays.clone(),
                },
                arrays,
                n,
            )
        };
        let (inputs, bad) = vertex_inputs(regs, self.immediate.values(), source);
        for (attribute, size) in bad {
            problems.push(DrawProblem::ArraySize { attribute, size });
        }
        if let VertexSource::Inline { words } = &inputs.source {
            let stride = inline_stride(&inputs.arrays);
            if stride == 0 {
                problems.push(DrawProblem::InlineWithoutArrays);
            } else {
                vertex_count = words.len() as u64 * 4 / stride as u64;
            }
        }

        // Vertex program.
        let vp_start = r(regs, reg::SET_TRANSFORM_PROGRAM_START);
        let key = (self.transform.program_version, vp_start);
        let program = &self.transform.program;
        let scan = *self
            .vp_cache
            .entry(key)
            .or_insert_with(|| scan_vertex_program(program, vp_start));
        if scan.start_out_of_range {
            problems.push(DrawProblem::VertexProgramStart { start: vp_start });
        } else if scan.end_slot.is_none() {
            problems.push(DrawProblem::VertexProgramNoEnd { start: vp_start });
        }

        // Fragment program.
        let fp_raw = r(regs, reg::SET_SHADER_PROGRAM);
        let fp_address = ProgramAddress::from_raw(fp_raw);
        let fragment_program: Option<Arc<FragmentProgram>> = match fp_address {
            None => {
                problems.push(DrawProblem::FragmentAddress { raw: fp_raw });
                None
            }
            Some(addr) => match read_fragment_program(&self.memory.view_at(end), addr) {
                Ok(mut p) => match self.draws.last().and_then(|d| d.fragment_program.as_ref()) {
                    // The same program as the draw before's: shared.
                    Some(before) if **before == p => Some(Arc::clone(before)),
                    _ => {
                        p.ucode.shrink_to_fit();
                        Some(Arc::new(p))
                    }
                },
                Err(e) => {
                    problems.push(DrawProblem::FragmentProgram(e));
                    None
                }
            },
        };

        let raster = RasterState::from_regs(regs);
        problems.extend(
            raster
                .invalid()
                .into_iter()
                .map(|(method, value)| DrawProblem::InvalidState { method, value }),
        );
        Draw {
            index: self.draws.len(),
            begin_command: begin,
            end_command: end,
            part,
            primitive,
            indexed: is_indexed,
            ranges,
            index_array,
            vertex_count,
            vp_start,
            vp_hash: scan.hash,
            vp_end_slot: scan.end_slot,
            transform_branch_bits: r(regs, reg::SET_TRANSFORM_BRANCH_BITS),
            vertex_program: Arc::clone(&self.transform.program),
            constants: Arc::clone(&self.transform.constants),
            fp_address,
            fragment_program,
            shader_control: ShaderControl::from_raw(r(regs, reg::SET_SHADER_CONTROL)),
            shader_packer: r(regs, reg::SET_SHADER_PACKER),
            vertex_inputs: inputs,
            output_mask: r(regs, reg::SET_VERTEX_ATTRIB_OUTPUT_MASK),
            textures: shared(
                self.draws.last().map(|d| &d.textures),
                std::array::from_fn(|i| Texture::fragment(regs, i as u16)),
            ),
            vertex_textures: shared(
                self.draws.last().map(|d| &d.vertex_textures),
                std::array::from_fn(|i| Texture::vertex(regs, i as u16)),
            ),
            surface: Surface::from_regs(regs),
            raster: shared(self.draws.last().map(|d| &d.raster), raster),
            problems,
        }
    }
}

/// `value` shared: the draw before's when equal (most draws change no texture unit and no
/// fixed-function state; a frame then holds one copy of each, not 6.5 KB per draw).
fn shared<T: PartialEq>(before: Option<&Arc<T>>, value: T) -> Arc<T> {
    match before {
        Some(b) if **b == value => Arc::clone(b),
        _ => Arc::new(value),
    }
}
