//! Vertex programs through `vp_compute`: constants, inputs and outputs in storage buffers
//! (ABI.md "Vertex programs"), dispatched in batches the device limits allow, read back into
//! [`VertexResult`]s.

use rsxtrace_wgsl::WgslModule;
use wgpu::util::DeviceExt;

use crate::abi::{
    require_entry, texture_layout_entries, vertex_texture_units, VERTEX_TEXTURE_UNITS, VP_WORKGROUP,
};
use crate::cache::{ComputeEntry, PipelineKey, PipelineState};
use crate::device::Gpu;
use crate::error::GpuError;
use crate::raster_target::{bound_unit_entries, check_bound_units, UploadedTexture};

/// Number of transform constants (ABI.md binding 0).
pub const VP_CONSTANTS: usize = 468;
/// Input attributes per vertex.
pub const VP_INPUTS: usize = 16;
/// Output registers per vertex.
pub const VP_OUTPUTS: usize = 16;

/// Bytes of one vec4.
const VEC4: u64 = 16;
/// Bytes of one vertex's inputs.
const INPUT_STRIDE: u64 = VP_INPUTS as u64 * VEC4;
/// Bytes of one vertex's outputs: 16 registers and the `written` vec4 (ABI.md binding 3).
const OUTPUT_STRIDE: u64 = (VP_OUTPUTS as u64 + 1) * VEC4;
/// Upper bound on vertices per dispatch whatever the limits say, so one batch's buffers stay
/// around 64 MiB.
const MAX_BATCH: u64 = 1 << 18;

/// The textures bound on vertex texture units 0..4 (ABI.md "Vertex textures"): every unit
/// the module samples must be bound, with the dimension it declares (1D units are declared,
/// and must be uploaded, as 2D textures one texel high).
pub type VertexTextures<'a> = [Option<&'a UploadedTexture>; VERTEX_TEXTURE_UNITS as usize];

/// One job of [`Gpu::run_vertex_compute_batch`]: the arguments of one
/// [`Gpu::run_vertex_compute_textured`] call.
#[derive(Clone, Copy)]
pub struct VertexJob<'a> {
    pub module: &'a WgslModule,
    pub constants: &'a [[f32; 4]; VP_CONSTANTS],
    pub inputs: &'a [[[f32; 4]; VP_INPUTS]],
    pub branch_bits: u32,
    /// Vertex textures (none for a module without TXL).
    pub textures: VertexTextures<'a>,
}

/// One vertex's outputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexResult {
    /// Output registers in NV40 numbering (0 HPOS, 1 COL0, ... 7..15 TEX0..TEX8); unwritten
    /// ones hold (0, 0, 0, 1).
    pub registers: [[f32; 4]; VP_OUTPUTS],
    /// Bit r set when register r was written.
    pub written: u16,
}

/// Vertex jobs submitted by [`Gpu::submit_vertex_batch`], to finish with
/// [`Gpu::finish_vertex_batch`].
pub struct SubmittedVertexBatch {
    /// Per job: its result when known already (a pipeline error), else `None`.
    results: Vec<Option<Result<Vec<VertexResult>, GpuError>>>,
    /// The jobs in the submission, in the order of its readbacks.
    batched: Vec<usize>,
    /// The readback buffers and the submission, or why it failed.
    submitted: Result<Readbacks, GpuError>,
}

/// Readback buffers (with the bytes to read from each) and the submission that fills them
/// (`None`: nothing was submitted).
type Readbacks = (Vec<(wgpu::Buffer, u64)>, Option<wgpu::SubmissionIndex>);

impl Gpu {
    /// Runs `module`'s `vp_compute` over `inputs` (16 attributes per vertex) with the transform
    /// constants `constants` and the branch bits `branch_bits`, and returns every vertex's
    /// outputs in input order. Large inputs are split into several dispatches.
    pub fn run_vertex_compute(
        &self,
        module: &WgslModule,
        constants: &[[f32; 4]; VP_CONSTANTS],
        inputs: &[[[f32; 4]; VP_INPUTS]],
        branch_bits: u32,
    ) -> Result<Vec<VertexResult>, GpuError> {
        self.run_vertex_compute_textured(module, constants, inputs, branch_bits, [None; 4])
    }

    /// [`run_vertex_compute`](Self::run_vertex_compute) with `textures` on the vertex texture
    /// units the module's TXL instructions sample (group 2).
    pub fn run_vertex_compute_textured(
        &self,
        module: &WgslModule,
        constants: &[[f32; 4]; VP_CONSTANTS],
        inputs: &[[[f32; 4]; VP_INPUTS]],
        branch_bits: u32,
        textures: VertexTextures<'_>,
    ) -> Result<Vec<VertexResult>, GpuError> {
        let entry = self.vertex_pipeline(module)?;
        check_vertex_textures(&entry, &textures)?;
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let batch = self.vertex_batch()?;
        let mut results = Vec::with_capacity(inputs.len());
        // `batch` is at most MAX_BATCH: it fits usize.
        for chunk in inputs.chunks(batch as usize) {
            let (readback, out_bytes) = self.scoped("running vp_compute", || {
                let mut encoder = self.vertex_encoder();
                let recorded = self.record_vertex_job(
                    &mut encoder,
                    &entry,
                    &VertexJob {
                        module,
                        constants,
                        inputs: chunk,
                        branch_bits,
                        textures,
                    },
                );
                self.queue.submit([encoder.finish()]);
                recorded
            })?;
            let bytes = self.read_buffer(&readback, out_bytes, "reading vp_outputs")?;
            let base = results.len();
            for (v, vertex) in bytes.chunks_exact(OUTPUT_STRIDE as usize).enumerate() {
                results.push(parse_vertex(vertex, base + v)?);
            }
        }
        Ok(results)
    }

    /// Runs several `vp_compute` jobs with one submission and one wait for all of them, where
    /// [`run_vertex_compute`](Self::run_vertex_compute) submits and waits once per job: the
    /// per-draw round trip that dominates replaying many small draws. Each job's result is
    /// what `run_vertex_compute` returns for it. Jobs too large for one dispatch, and every
    /// job when the batch as a whole fails (a validation error names no job), run one by one,
    /// so each error belongs to its own job.
    pub fn run_vertex_compute_batch(
        &self,
        jobs: &[VertexJob<'_>],
    ) -> Vec<Result<Vec<VertexResult>, GpuError>> {
        let submitted = self.submit_vertex_batch(jobs);
        self.finish_vertex_batch(submitted, jobs)
    }

    /// The first half of [`run_vertex_compute_batch`](Self::run_vertex_compute_batch): records
    /// and submits the jobs that fit one dispatch, without waiting. Work submitted later
    /// does not delay [`finish_vertex_batch`](Self::finish_vertex_batch), which waits for this
    /// submission alone: a caller can submit the next draws' vertex stages before the raster
    /// work of the current ones, and find them done when it needs them.
    pub fn submit_vertex_batch(&self, jobs: &[VertexJob<'_>]) -> SubmittedVertexBatch {
        let mut results: Vec<Option<Result<Vec<VertexResult>, GpuError>>> =
            jobs.iter().map(|_| None).collect();
        let Ok(batch) = self.vertex_batch() else {
            // Every job runs alone when finished (the error is each one's own).
            return SubmittedVertexBatch {
                results,
                batched: Vec::new(),
                submitted: Ok((Vec::new(), None)),
            };
        };
        let mut batched = Vec::new();
        for (i, job) in jobs.iter().enumerate() {
            // Empty and oversized jobs are left to run alone when finished.
            if job.inputs.is_empty() || job.inputs.len() as u64 > batch {
                continue;
            }
            match self
                .vertex_pipeline(job.module)
                .and_then(|entry| check_vertex_textures(&entry, &job.textures).map(|_| entry))
            {
                Ok(entry) => batched.push((i, entry)),
                Err(e) => results[i] = Some(Err(e)),
            }
        }
        let submitted = if batched.is_empty() {
            Ok((Vec::new(), None))
        } else {
            self.scoped("running vp_compute (batch)", || {
                let mut encoder = self.vertex_encoder();
                let readbacks: Vec<(wgpu::Buffer, u64)> = batched
                    .iter()
                    .map(|(i, entry)| self.record_vertex_job(&mut encoder, entry, &jobs[*i]))
                    .collect();
                let index = self.queue.submit([encoder.finish()]);
                (readbacks, Some(index))
            })
        };
        SubmittedVertexBatch {
            results,
            batched: batched.into_iter().map(|(i, _)| i).collect(),
            submitted,
        }
    }

    /// The second half of [`run_vertex_compute_batch`](Self::run_vertex_compute_batch): waits
    /// for `submitted`'s own submission (not for work submitted after it), reads its results
    /// back, and runs alone the jobs it left out. `jobs` must be the ones it was submitted
    /// with, in order.
    pub fn finish_vertex_batch(
        &self,
        submitted: SubmittedVertexBatch,
        jobs: &[VertexJob<'_>],
    ) -> Vec<Result<Vec<VertexResult>, GpuError>> {
        let single = |job: &VertexJob<'_>| {
            self.run_vertex_compute_textured(
                job.module,
                job.constants,
                job.inputs,
                job.branch_bits,
                job.textures,
            )
        };
        let SubmittedVertexBatch {
            mut results,
            batched,
            submitted,
        } = submitted;
        let read = submitted.and_then(|(readbacks, index)| {
            let Some(index) = index else {
                // Nothing submitted: nothing to wait for.
                return Ok(Vec::new());
            };
            let buffers: Vec<(&wgpu::Buffer, u64)> =
                readbacks.iter().map(|(b, n)| (b, *n)).collect();
            // Parsed straight from the mapped bytes (no copy of them first).
            self.read_buffers_after(&buffers, Some(index), "reading vp_outputs", parse_vertices)
        });
        match read {
            Ok(parsed) => {
                for (&i, vertices) in batched.iter().zip(parsed) {
                    if let Some(slot) = results.get_mut(i) {
                        *slot = Some(vertices);
                    }
                }
            }
            Err(_) => {
                for &i in &batched {
                    if let (Some(slot), Some(job)) = (results.get_mut(i), jobs.get(i)) {
                        *slot = Some(single(job));
                    }
                }
            }
        }
        results
            .into_iter()
            .zip(jobs)
            .map(|(r, job)| r.unwrap_or_else(|| single(job)))
            .collect()
    }

    /// Runs an instrumented module (`rsxtrace_wgsl::vertex::translate_instrumented`) on the
    /// one vertex `input` (with `textures` on the vertex texture units it samples) and returns
    /// its outputs and the record buffer (`rsxtrace_wgsl::vertex::record`), with room for
    /// `capacity` records.
    pub fn run_vertex_trace(
        &self,
        module: &WgslModule,
        constants: &[[f32; 4]; VP_CONSTANTS],
        input: &[[f32; 4]; VP_INPUTS],
        branch_bits: u32,
        textures: VertexTextures<'_>,
        capacity: u32,
    ) -> Result<(VertexResult, Vec<u32>), GpuError> {
        if !declares_binding(module, 4) {
            return Err(GpuError::argument(
                "module",
                "is not instrumented (no rsx_trace buffer at group 0 binding 4)",
            ));
        }
        use rsxtrace_wgsl::vertex::record;
        let bytes =
            self.record_buffer_bytes(capacity, record::HEADER_WORDS, record::RECORD_WORDS)?;
        let words = record::buffer(capacity);
        let entry = self.vertex_pipeline(module)?;
        check_vertex_textures(&entry, &textures)?;
        let inputs = [*input];
        let (readback, out_bytes, trace_readback) =
            self.scoped("running vp_compute (traced)", || {
                let mut encoder = self.vertex_encoder();
                let trace = self
                    .device
                    .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("rsx_trace"),
                        contents: bytemuck::cast_slice(&words),
                        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                    });
                let trace_readback = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("rsx_trace readback"),
                    size: bytes,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                let (readback, out_bytes) = self.record_vertex_job_traced(
                    &mut encoder,
                    &entry,
                    &VertexJob {
                        module,
                        constants,
                        inputs: &inputs,
                        branch_bits,
                        textures,
                    },
                    Some(&trace),
                );
                encoder.copy_buffer_to_buffer(&trace, 0, &trace_readback, 0, bytes);
                self.queue.submit([encoder.finish()]);
                (readback, out_bytes, trace_readback)
            })?;
        let out = self.read_buffers(
            &[(&readback, out_bytes), (&trace_readback, bytes)],
            "reading vp_outputs and rsx_trace",
        )?;
        let result = out
            .first()
            .and_then(|b| b.get(..OUTPUT_STRIDE as usize))
            .ok_or_else(|| GpuError::argument("vp_outputs", "no vertex came back"))
            .and_then(|b| parse_vertex(b, 0))?;
        let trace = out.get(1).map(|b| words_of(b)).unwrap_or_default();
        Ok((result, trace))
    }

    fn vertex_encoder(&self) -> wgpu::CommandEncoder {
        self.device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("vp_compute"),
            })
    }

    /// Records one dispatch of `job` (its inputs fit one dispatch) into `encoder`: its
    /// constants, parameters and inputs uploaded, `vp_compute` run, the outputs copied into a
    /// readback buffer, which is returned with the byte count to read.
    fn record_vertex_job(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        entry: &ComputeEntry,
        job: &VertexJob<'_>,
    ) -> (wgpu::Buffer, u64) {
        self.record_vertex_job_traced(encoder, entry, job, None)
    }

    /// [`Gpu::record_vertex_job`] with an instrumented module's record buffer bound.
    fn record_vertex_job_traced(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        entry: &ComputeEntry,
        job: &VertexJob<'_>,
        trace: Option<&wgpu::Buffer>,
    ) -> (wgpu::Buffer, u64) {
        let count = job.inputs.len() as u32;
        let out_bytes = u64::from(count) * OUTPUT_STRIDE;
        let init = |label, contents: &[u8], usage| {
            self.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                })
        };
        let plain = |label, usage| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: out_bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        let constants = init(
            "vp_constants",
            bytemuck::cast_slice(job.constants.as_slice()),
            wgpu::BufferUsages::STORAGE,
        );
        let params: [u32; 4] = [count, job.branch_bits, 0, 0];
        let params = init(
            "vp_params",
            bytemuck::cast_slice(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let inputs = init(
            "vp_inputs",
            bytemuck::cast_slice(job.inputs),
            wgpu::BufferUsages::STORAGE,
        );
        let outputs = plain(
            "vp_outputs",
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let readback = plain(
            "vp_outputs readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("vp group 0"),
            layout: &entry.group0,
            entries: &[
                buffer_entry(0, &constants),
                buffer_entry(1, &params),
                buffer_entry(2, &inputs),
                buffer_entry(3, &outputs),
            ]
            .into_iter()
            .chain(trace.map(|t| buffer_entry(4, t)))
            .collect::<Vec<_>>(),
        });
        // Checked by `check_bound_units`: every declared unit is bound.
        let group2 = entry.group2.as_ref().map(|layout| {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("vp group 2 (vertex textures)"),
                layout,
                entries: &bound_unit_entries(&entry.units, &job.textures),
            })
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("vp_compute"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&entry.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            if let Some(g) = &group2 {
                pass.set_bind_group(2, g, &[]);
            }
            pass.dispatch_workgroups(count.div_ceil(VP_WORKGROUP), 1, 1);
        }
        encoder.copy_buffer_to_buffer(&outputs, 0, &readback, 0, out_bytes);
        (readback, out_bytes)
    }

    /// The most vertices one dispatch may hold under the device limits.
    fn vertex_batch(&self) -> Result<u64, GpuError> {
        let l = &self.limits;
        let by_groups = u64::from(l.max_compute_workgroups_per_dimension) * u64::from(VP_WORKGROUP);
        // Both the inputs and the outputs of a dispatch are one storage binding each.
        let by_binding = l.max_storage_buffer_binding_size.min(l.max_buffer_size)
            / OUTPUT_STRIDE.max(INPUT_STRIDE);
        let batch = by_groups.min(by_binding).min(MAX_BATCH);
        if batch == 0 {
            return Err(self.unsupported(format!(
                "run vp_compute: limits allow no vertex per dispatch \
                 (max_compute_workgroups_per_dimension {}, max_storage_buffer_binding_size {})",
                l.max_compute_workgroups_per_dimension, l.max_storage_buffer_binding_size
            )));
        }
        Ok(batch)
    }

    /// The cached `vp_compute` pipeline of `module`.
    fn vertex_pipeline(&self, module: &WgslModule) -> Result<ComputeEntry, GpuError> {
        let key = PipelineKey::new(module, "vp_compute", PipelineState::VertexCompute);
        self.cache.compute(key, || {
            require_entry(module, "vp_compute", naga::ShaderStage::Compute)?;
            let units = vertex_texture_units(module)?;
            let filterable = self.info.float32_filterable;
            self.scoped("creating compute pipeline vp_compute", || {
                let storage = |binding, read_only| {
                    storage_entry(binding, wgpu::ShaderStages::COMPUTE, read_only, None)
                };
                let group0 =
                    self.device
                        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                            label: Some("vp group 0"),
                            entries: &[
                                storage(0, true),
                                uniform_entry(1, wgpu::ShaderStages::COMPUTE),
                                storage(2, true),
                                storage(3, false),
                            ]
                            .into_iter()
                            .chain(declares_binding(module, 4).then(|| storage(4, false)))
                            .collect::<Vec<_>>(),
                        });
                let group2 = (!units.is_empty()).then(|| {
                    self.device
                        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                            label: Some("vp group 2 (vertex textures)"),
                            entries: &texture_layout_entries(
                                &units,
                                filterable,
                                wgpu::ShaderStages::COMPUTE,
                            ),
                        })
                });
                let layouts = match &group2 {
                    Some(g2) => vec![Some(&group0), None, Some(g2)],
                    None => vec![Some(&group0)],
                };
                let layout = self
                    .device
                    .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some("vp_compute"),
                        bind_group_layouts: &layouts,
                        immediate_size: 0,
                    });
                let shader = self.wgsl_module("vertex program", &module.source);
                let pipeline =
                    self.device
                        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                            label: Some("vp_compute"),
                            layout: Some(&layout),
                            module: &shader,
                            entry_point: Some("vp_compute"),
                            compilation_options: Default::default(),
                            cache: None,
                        });
                ComputeEntry {
                    pipeline,
                    group0,
                    group2,
                    units,
                }
            })
        })
    }
}

impl Gpu {
    /// Bytes of an instrumented module's record buffer with room for `capacity` records,
    /// checked against the storage binding limit before anything is allocated.
    pub(crate) fn record_buffer_bytes(
        &self,
        capacity: u32,
        header_words: usize,
        record_words: usize,
    ) -> Result<u64, GpuError> {
        let bytes = (header_words as u64 + u64::from(capacity) * record_words as u64) * 4;
        let max_binding = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size);
        if bytes > max_binding {
            return Err(GpuError::argument(
                "capacity",
                format!(
                    "{capacity} records need {bytes} bytes, the binding limit is {max_binding}"
                ),
            ));
        }
        Ok(bytes)
    }
}

/// Checks that every vertex texture unit `entry`'s module samples is bound in `textures` with
/// the dimension the module declares.
fn check_vertex_textures(
    entry: &ComputeEntry,
    textures: &VertexTextures<'_>,
) -> Result<(), GpuError> {
    check_bound_units(&entry.units, textures, "vertex textures")
}

/// Little-endian 32-bit words of a read-back buffer.
pub(crate) fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Whether `module` declares a resource at group 0 binding `binding` (an instrumented
/// module's record buffer).
pub(crate) fn declares_binding(module: &WgslModule, binding: u32) -> bool {
    module.module.global_variables.iter().any(|(_, g)| {
        g.binding
            .as_ref()
            .is_some_and(|b| b.group == 0 && b.binding == binding)
    })
}

/// A whole-buffer bind group entry.
pub(crate) fn buffer_entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

/// A storage buffer layout entry.
pub(crate) fn storage_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    read_only: bool,
    min_binding_size: Option<wgpu::BufferSize>,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size,
        },
        count: None,
    }
}

/// A 16-byte uniform buffer layout entry (`VpParams`, `FpParams`).
pub(crate) fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: wgpu::BufferSize::new(VEC4),
        },
        count: None,
    }
}

/// Every vertex's result from consecutive 272-byte output records.
fn parse_vertices(bytes: &[u8]) -> Result<Vec<VertexResult>, GpuError> {
    let records = bytes.chunks_exact(OUTPUT_STRIDE as usize);
    let mut out = Vec::with_capacity(records.len());
    for (v, vertex) in records.enumerate() {
        out.push(parse_vertex(vertex, v)?);
    }
    Ok(out)
}

/// One vertex's result from its 272 output bytes (ABI.md binding 3).
fn parse_vertex(bytes: &[u8], vertex: usize) -> Result<VertexResult, GpuError> {
    let mut registers = [[0f32; 4]; VP_OUTPUTS];
    let mut vec4s = bytes.chunks_exact(VEC4 as usize);
    for reg in registers.iter_mut() {
        if let Some(src) = vec4s.next() {
            *reg = read_vec4(src);
        }
    }
    let bits = vec4s
        .next()
        .and_then(|w| w.get(0..4))
        .and_then(|w| w.try_into().ok())
        .map(u32::from_le_bytes)
        .ok_or_else(|| GpuError::BadResult {
            at: format!("vertex {vertex}"),
            what: "output record is short".to_string(),
        })?;
    let written = u16::try_from(bits).map_err(|_| GpuError::BadResult {
        at: format!("vertex {vertex}"),
        what: format!(
            "the vertex program faulted: {} (written mask {bits:#x})",
            rsxtrace_wgsl::vertex::fault_names(bits).join(", ")
        ),
    })?;
    Ok(VertexResult { registers, written })
}

/// One vec4 from 16 little-endian bytes (missing bytes read as 0).
pub(crate) fn read_vec4(bytes: &[u8]) -> [f32; 4] {
    let mut v = [0f32; 4];
    for (dst, src) in v.iter_mut().zip(bytes.chunks_exact(4)) {
        let mut word = [0u8; 4];
        word.copy_from_slice(src);
        *dst = f32::from_le_bytes(word);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(regs: impl Fn(usize) -> [f32; 4], written: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        for r in 0..VP_OUTPUTS {
            for c in regs(r) {
                bytes.extend_from_slice(&c.to_le_bytes());
            }
        }
        bytes.extend_from_slice(&written.to_le_bytes());
        bytes.extend_from_slice(&[0; 12]);
        bytes
    }

    #[test]
    fn records_parse_registers_and_written_bits() {
        let bytes = record(|r| [r as f32, -0.5, 2.0, r as f32 * 4.0], 0x8081);
        let v = parse_vertex(&bytes, 0).unwrap();
        assert_eq!(v.registers[0], [0.0, -0.5, 2.0, 0.0]);
        assert_eq!(v.registers[15], [15.0, -0.5, 2.0, 60.0]);
        assert_eq!(v.written, 0x8081);
    }

    #[test]
    fn bad_records_are_errors_naming_the_vertex() {
        let bytes = record(|_| [0.0; 4], 0x8002_0001);
        let err = parse_vertex(&bytes, 7).unwrap_err().to_string();
        assert_eq!(
            err,
            "bad result at vertex 7: the vertex program faulted: the step limit reached \
             without END, unknown fault bits 0x80000000 (written mask 0x80020001)"
        );
        let err = parse_vertex(&bytes[..100], 3).unwrap_err().to_string();
        assert!(err.contains("vertex 3") && err.contains("short"), "{err}");
    }
}
