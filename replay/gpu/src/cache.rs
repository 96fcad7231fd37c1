//! The pipeline cache: compute and render pipelines (with their bind group layouts) keyed by
//! (module hash, source hash, entry point, state), built once per key and kept while among
//! the [`PIPELINE_CAPACITY`] most recently used of their kind.
//!
//! Bounded because every pipeline holds its compiled shader (about half a megabyte on
//! lavapipe): `verify --mutate N` builds a pipeline per mutant and `batch` one per program,
//! and neither uses it again, so an unbounded cache grew with N.

use std::sync::Mutex;

use hashlink::LruCache;

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
            source: PipelineKey::source_hash(module),
            entry,
            state,
        }
    }

    fn source_hash(module: &WgslModule) -> u64 {
        xxhash_rust::xxh3::xxh3_64(module.source.as_bytes())
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

/// Pipelines of each kind kept: more than the distinct (program, state) pairs of a game
/// frame's draws (the game-scale sample's replay builds 162 in all), so that a frame rarely
/// builds one twice, and at most a few hundred megabytes of compiled shaders on lavapipe.
pub(crate) const PIPELINE_CAPACITY: usize = 512;

/// Both caches.
pub(crate) struct PipelineCache {
    compute: Mutex<LruCache<PipelineKey, ComputeEntry>>,
    render: Mutex<LruCache<PipelineKey, RenderEntry>>,
}

impl Default for PipelineCache {
    fn default() -> Self {
        PipelineCache::with_capacity(PIPELINE_CAPACITY)
    }
}

impl PipelineCache {
    /// Caches keeping `capacity` pipelines of each kind (at least one).
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        PipelineCache {
            compute: Mutex::new(LruCache::new(capacity.max(1))),
            render: Mutex::new(LruCache::new(capacity.max(1))),
        }
    }

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

    /// Drops every pipeline built from `module` (any entry point and state).
    pub(crate) fn forget(&self, module: &WgslModule) {
        let (hash, source) = (module.hash, PipelineKey::source_hash(module));
        forget_in(&self.compute, hash, source);
        forget_in(&self.render, hash, source);
    }
}

fn forget_in<V>(map: &Mutex<LruCache<PipelineKey, V>>, hash: u64, source: u64) {
    let mut map = lock(map);
    let gone: Vec<PipelineKey> = map
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| k.module == hash && k.source == source)
        .collect();
    for k in gone {
        map.remove(&k);
    }
}

fn get_or_build<V: Clone>(
    map: &Mutex<LruCache<PipelineKey, V>>,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn key(module: u64, entry: &'static str) -> PipelineKey {
        PipelineKey {
            module,
            source: 7,
            entry,
            state: PipelineState::VertexCompute,
        }
    }

    #[test]
    fn the_least_recently_used_pipeline_goes_first() {
        let map = Mutex::new(LruCache::new(2));
        let builds = std::cell::Cell::new(0);
        let get = |m: u64| {
            get_or_build(&map, key(m, "vp_compute"), || {
                builds.set(builds.get() + 1);
                Ok(m)
            })
            .unwrap()
        };
        assert_eq!((get(1), get(2), get(1)), (1, 2, 1));
        // 3 evicts 2 (1 was used after it), so 1 is still kept and 2 is built again.
        get(3);
        get(1);
        get(2);
        assert_eq!(builds.get(), 4);
    }

    #[test]
    fn forgetting_a_module_drops_its_pipelines_only() {
        let map = Mutex::new(LruCache::new(8));
        for (m, entry) in [(1, "vp_compute"), (1, "fp_eval"), (2, "vp_compute")] {
            get_or_build(&map, key(m, entry), || Ok(m)).unwrap();
        }
        forget_in(&map, 1, 7);
        let left: Vec<u64> = lock(&map).iter().map(|(k, _)| k.module).collect();
        assert_eq!(left, [2]);
        forget_in(&map, 2, 8);
        assert_eq!(
            lock(&map).len(),
            1,
            "another source with the same hash stays"
        );
    }
}
