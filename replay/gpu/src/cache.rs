//! The pipeline cache: compute and render pipelines (with their bind group layouts) keyed by
//! (module hash, source hash, entry point, state), built once per key.

use std::collections::HashMap;
use std::sync::Mutex;

use rsxtrace_wgsl::WgslModule;

use crate::device::lock;
use crate::error::GpuError;
use crate::texture::TextureDimension;

/// Pipeline state beyond the module and entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum PipelineState {
    /// `vp_compute`: nothing beyond the ABI.
    VertexCompute,
    /// `fp_eval` into 5 `Rgba32Float` targets; `filterable` = textures bound as filterable
    /// floats with filtering samplers (`FLOAT32_FILTERABLE`).
    FragmentEval { filterable: bool },
    /// `vp_main` + `fp_main` (`render_triangles`): nothing beyond the two modules, no textures.
    Render,
    /// A state-driven raster pipeline (`raster_pipeline.rs`): `desc` is the digest of its
    /// `RasterPipelineDesc`; `filterable` as for `FragmentEval`.
    Raster { desc: u64, filterable: bool },
}

/// What identifies a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PipelineKey {
    /// [`WgslModule::hash`] (microcode and options).
    pub module: u64,
    /// XXH3-64 of the WGSL text, so hand-made modules with equal `hash` never collide.
    pub source: u64,
    /// The entry point.
    pub entry: &'static str,
    /// The state.
    pub state: PipelineState,
}

impl PipelineKey {
    pub(crate) fn new(module: &WgslModule, entry: &'static str, state: PipelineState) -> Self {
        PipelineKey {
            module: module.hash,
            source: xxhash_rust::xxh3::xxh3_64(module.source.as_bytes()),
            entry,
            state,
        }
    }
}

/// A compute pipeline, the layout of its group 0 and, when the module samples vertex
/// textures, of its group 2 with the units it binds (ABI.md "Vertex textures").
#[derive(Clone, Debug)]
pub(crate) struct ComputeEntry {
    pub pipeline: wgpu::ComputePipeline,
    pub group0: wgpu::BindGroupLayout,
    pub group2: Option<wgpu::BindGroupLayout>,
    pub units: Vec<UnitSlot>,
}

/// One texture unit a fragment module declares (ABI.md "Textures").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UnitSlot {
    /// Unit number 0..15.
    pub unit: u32,
    /// Dimension of the declared texture, when the texture binding is declared.
    pub texture: Option<TextureDimension>,
    /// The sampler binding is declared.
    pub sampler: bool,
}

/// A render pipeline, its two group layouts and the texture units it binds.
#[derive(Clone, Debug)]
pub(crate) struct RenderEntry {
    pub pipeline: wgpu::RenderPipeline,
    pub group0: wgpu::BindGroupLayout,
    pub group1: wgpu::BindGroupLayout,
    pub units: Vec<UnitSlot>,
}

/// Both caches.
#[derive(Default)]
pub(crate) struct PipelineCache {
    compute: Mutex<HashMap<PipelineKey, ComputeEntry>>,
    render: Mutex<HashMap<PipelineKey, RenderEntry>>,
}

impl PipelineCache {
    /// The compute pipeline for `key`, built by `build` on first use. The lock is held while
    /// building so that two threads never compile the same pipeline.
    pub(crate) fn compute(
        &self,
        key: PipelineKey,
        build: impl FnOnce() -> Result<ComputeEntry, GpuError>,
    ) -> Result<ComputeEntry, GpuError> {
        get_or_build(&self.compute, key, build)
    }

    /// The render pipeline for `key`, built by `build` on first use.
    pub(crate) fn render(
        &self,
        key: PipelineKey,
        build: impl FnOnce() -> Result<RenderEntry, GpuError>,
    ) -> Result<RenderEntry, GpuError> {
        get_or_build(&self.render, key, build)
    }

    /// Number of cached pipelines.
    pub(crate) fn len(&self) -> usize {
        lock(&self.compute).len() + lock(&self.render).len()
    }
}

fn get_or_build<V: Clone>(
    map: &Mutex<HashMap<PipelineKey, V>>,
    key: PipelineKey,
    build: impl FnOnce() -> Result<V, GpuError>,
) -> Result<V, GpuError> {
    let mut map = lock(map);
    if let Some(v) = map.get(&key) {
        return Ok(v.clone());
    }
    let v = build()?;
    map.insert(key, v.clone());
    Ok(v)
}
