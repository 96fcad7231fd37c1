//! The headless device: backend choice, adapter, device with the features the executor uses,
//! the capability report, and the error-scope and wait helpers every run goes through.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use crate::cache::PipelineCache;
use crate::error::GpuError;
use rsxtrace_wgsl::WgslModule;

/// Which wgpu backend to open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// Vulkan, then GL when Vulkan has no adapter.
    #[default]
    Auto,
    /// Vulkan only (lavapipe on machines without a GPU).
    Vulkan,
    /// GL only (Mesa llvmpipe through EGL surfaceless). GL cannot render to `Rgba32Float`
    /// (stack-notes.md 1(a)), so only vertex compute works there.
    Gl,
}

impl Backend {
    /// The backends to try, in order, with their names.
    fn order(self) -> &'static [(wgpu::Backends, &'static str)] {
        const VULKAN: (wgpu::Backends, &str) = (wgpu::Backends::VULKAN, "vulkan");
        const GL: (wgpu::Backends, &str) = (wgpu::Backends::GL, "gl");
        match self {
            Backend::Auto => &[VULKAN, GL],
            Backend::Vulkan => &[VULKAN],
            Backend::Gl => &[GL],
        }
    }
}

/// How to open the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuOptions {
    /// The backend to open.
    pub backend: Backend,
    /// Leave `FLOAT32_BLENDABLE` off even where the adapter has it, so the device blends no
    /// `Rgba32Float` target, as a device without it (tests of the path such devices take).
    pub without_float32_blending: bool,
}

/// What the opened adapter is and can do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuInfo {
    /// Adapter name (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)").
    pub adapter: String,
    /// Backend name ("vulkan" or "gl").
    pub backend: String,
    /// Device type as wgpu reports it ("Cpu", "DiscreteGpu", ...).
    pub device_type: String,
    /// Driver name and version text.
    pub driver: String,
    /// `SHADER_F16` is enabled on the device (`enable f16;` modules run).
    pub shader_f16: bool,
    /// `FLOAT32_FILTERABLE` is enabled (linear filtering of `Rgba32Float` textures).
    pub float32_filterable: bool,
    /// `ADDRESS_MODE_CLAMP_TO_BORDER` is enabled.
    pub clamp_to_border: bool,
    /// `Rgba32Float` can be a render target (needed by fragment evaluation).
    pub rgba32float_renderable: bool,
    /// `max_color_attachments` of the device.
    pub max_color_attachments: u32,
    /// `max_color_attachment_bytes_per_sample` of the device (5 `Rgba32Float` targets need 80).
    pub max_color_attachment_bytes_per_sample: u32,
    /// `max_storage_buffer_binding_size` of the device.
    pub max_storage_buffer_binding_size: u64,
}

impl fmt::Display for GpuInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, {}, {}): shader_f16={} float32_filterable={} clamp_to_border={} \
             rgba32float_renderable={} max_color_attachments={} \
             max_color_attachment_bytes_per_sample={} max_storage_buffer_binding_size={}",
            self.adapter,
            self.backend,
            self.device_type,
            self.driver,
            self.shader_f16,
            self.float32_filterable,
            self.clamp_to_border,
            self.rgba32float_renderable,
            self.max_color_attachments,
            self.max_color_attachment_bytes_per_sample,
            self.max_storage_buffer_binding_size
        )
    }
}

/// An opened device with its pipeline cache. Cheap to share by reference across threads.
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) limits: wgpu::Limits,
    pub(crate) info: GpuInfo,
    pub(crate) cache: PipelineCache,
    /// Textures `run_fragment_eval` uploaded, by content (`upload_cache`).
    pub(crate) uploads: Mutex<crate::upload_cache::UploadCache>,
    /// Errors no scope caught (reported by the next scoped operation instead of panicking).
    uncaptured: Arc<Mutex<Vec<String>>>,
    /// What callers keep with the device ([`Gpu::kept`]), one value per type.
    kept: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
    _instance: wgpu::Instance,
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu").field("info", &self.info).finish()
    }
}

impl Gpu {
    /// Opens a headless device (no surface) on the first backend of `options.backend` that has
    /// an adapter. Enables `SHADER_F16`, `FLOAT32_FILTERABLE`, `ADDRESS_MODE_CLAMP_TO_BORDER`,
    /// `DEPTH32FLOAT_STENCIL8` and `FLOAT32_BLENDABLE` when the adapter has them, and the
    /// adapter's own limits (so 5 `Rgba32Float` targets fit where the adapter allows it).
    /// `WGPU_*` environment variables other than the backend choice are honoured (stack-notes.md
    /// 1, "Environment variables").
    pub fn new(options: GpuOptions) -> Result<Gpu, GpuError> {
        let mut tried = Vec::new();
        let mut details = Vec::new();
        for &(backends, name) in options.backend.order() {
            let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
            desc.backends = backends;
            let instance = wgpu::Instance::new(desc);
            let request = instance.request_adapter(&wgpu::RequestAdapterOptions {
                compatible_surface: None,
                ..Default::default()
            });
            tried.push(name);
            match pollster::block_on(request) {
                Ok(adapter) => return Self::open(instance, adapter, &options),
                Err(e) => details.push(format!("{name}: {e}")),
            }
        }
        Err(GpuError::NoAdapter {
            tried: tried.join(", "),
            details: details.join("; "),
        })
    }

    fn open(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
        options: &GpuOptions,
    ) -> Result<Gpu, GpuError> {
        let adapter_info = adapter.get_info();
        // DEPTH32FLOAT_STENCIL8 and FLOAT32_BLENDABLE: raster_pipeline.rs (Z24S8 targets kept
        // in float depth, blending into Rgba32Float targets).
        let wanted = wgpu::Features::SHADER_F16
            | wgpu::Features::FLOAT32_FILTERABLE
            | wgpu::Features::ADDRESS_MODE_CLAMP_TO_BORDER
            | wgpu::Features::DEPTH32FLOAT_STENCIL8
            | wgpu::Features::FLOAT32_BLENDABLE;
        let mut features = adapter.features() & wanted;
        if options.without_float32_blending {
            features.remove(wgpu::Features::FLOAT32_BLENDABLE);
        }
        let limits = adapter.limits();
        let rgba32 = adapter.get_texture_format_features(wgpu::TextureFormat::Rgba32Float);
        let label = format!("{} ({:?})", adapter_info.name, adapter_info.backend);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("rsxtrace-gpu"),
            required_features: features,
            required_limits: limits.clone(),
            memory_hints: memory_hints(adapter_info.device_type),
            ..Default::default()
        }))
        .map_err(|e| GpuError::Device {
            adapter: label.clone(),
            reason: e.to_string(),
        })?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&uncaptured);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            lock(&sink).push(e.to_string());
        }));
        let info = GpuInfo {
            adapter: adapter_info.name.clone(),
            backend: adapter_info.backend.to_str().to_string(),
            device_type: format!("{:?}", adapter_info.device_type),
            driver: format!("{} {}", adapter_info.driver, adapter_info.driver_info)
                .trim()
                .to_string(),
            shader_f16: features.contains(wgpu::Features::SHADER_F16),
            float32_filterable: features.contains(wgpu::Features::FLOAT32_FILTERABLE),
            clamp_to_border: features.contains(wgpu::Features::ADDRESS_MODE_CLAMP_TO_BORDER),
            rgba32float_renderable: rgba32
                .allowed_usages
                .contains(wgpu::TextureUsages::RENDER_ATTACHMENT),
            max_color_attachments: limits.max_color_attachments,
            max_color_attachment_bytes_per_sample: limits.max_color_attachment_bytes_per_sample,
            max_storage_buffer_binding_size: limits.max_storage_buffer_binding_size,
        };
        Ok(Gpu {
            device,
            queue,
            limits,
            info,
            cache: PipelineCache::default(),
            uploads: crate::upload_cache::new_cache(),
            uncaptured,
            kept: Mutex::default(),
            _instance: instance,
        })
    }

    /// The value of type `T` kept with this device, created with `T::default()` on first use:
    /// for what a caller derives once and reuses while the device lives, as the device keeps
    /// its pipelines (the frame render keeps its recompiled programs there, so that a second
    /// frame on the same device does not recompile them).
    pub fn kept<T: Any + Default + Send + Sync>(&self) -> Arc<T> {
        let mut kept = lock(&self.kept);
        let value = kept
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()));
        // Stored under its own type's id, so the downcast holds; a fresh value otherwise.
        Arc::clone(value)
            .downcast::<T>()
            .unwrap_or_else(|_| Arc::new(T::default()))
    }

    /// What the adapter is and can do.
    pub fn info(&self) -> &GpuInfo {
        &self.info
    }

    /// The underlying wgpu device (for callers that render with `vp_main`/`fp_main` themselves).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The device's queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Number of pipelines in the cache (compute and render).
    pub fn cached_pipelines(&self) -> usize {
        self.cache.len()
    }

    /// Drops the cached pipelines built from `module`: for a module run once (a mutant of the
    /// negative control), so that it does not take the place of pipelines used again. (The
    /// cache keeps the most recently used pipelines of each kind in any case.)
    pub fn forget_pipelines(&self, module: &WgslModule) {
        self.cache.forget(module);
    }

    /// "adapter (backend)" for error messages.
    pub(crate) fn label(&self) -> String {
        format!("{} ({})", self.info.adapter, self.info.backend)
    }

    /// An [`GpuError::Unsupported`] naming this adapter.
    pub(crate) fn unsupported(&self, what: impl Into<String>) -> GpuError {
        GpuError::Unsupported {
            adapter: self.label(),
            what: what.into(),
        }
    }

    /// Runs `f` inside validation and out-of-memory error scopes; any error wgpu raised in it
    /// (or earlier, uncaptured) becomes [`GpuError::Wgpu`] naming `stage`.
    pub(crate) fn scoped<T>(&self, stage: &str, f: impl FnOnce() -> T) -> Result<T, GpuError> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let validation = pollster::block_on(validation.pop());
        let oom = pollster::block_on(oom.pop());
        if let Some(e) = validation.or(oom) {
            return Err(GpuError::Wgpu {
                stage: stage.to_string(),
                message: e.to_string(),
            });
        }
        let stray = std::mem::take(&mut *lock(&self.uncaptured));
        if !stray.is_empty() {
            return Err(GpuError::Wgpu {
                stage: stage.to_string(),
                message: stray.join("; "),
            });
        }
        Ok(out)
    }

    /// Maps `buffer` (MAP_READ) after all submitted work, copies out its first `len` bytes and
    /// unmaps it.
    pub(crate) fn read_buffer(
        &self,
        buffer: &wgpu::Buffer,
        len: u64,
        stage: &str,
    ) -> Result<Vec<u8>, GpuError> {
        let err = |message: String| GpuError::Readback {
            stage: stage.to_string(),
            message,
        };
        let slice = buffer.slice(..len);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            // The receiver outlives the poll below; a send error only means it gave up.
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| err(e.to_string()))?;
        rx.recv()
            .map_err(|e| err(e.to_string()))?
            .map_err(|e| err(e.to_string()))?;
        let bytes = {
            let view = slice.get_mapped_range().map_err(|e| err(e.to_string()))?;
            view.to_vec()
        };
        buffer.unmap();
        Ok(bytes)
    }
}

impl Gpu {
    /// [`read_buffer`](Self::read_buffer) for several buffers with one wait: each mapped,
    /// then one poll for all, then each copied out and unmapped, in order.
    pub(crate) fn read_buffers(
        &self,
        buffers: &[(&wgpu::Buffer, u64)],
        stage: &str,
    ) -> Result<Vec<Vec<u8>>, GpuError> {
        self.read_buffers_with(buffers, stage, <[u8]>::to_vec)
    }

    /// [`read_buffers`](Self::read_buffers) handing each buffer's mapped bytes to `read`
    /// instead of copying them out: what `read` returns, in order.
    pub(crate) fn read_buffers_with<T>(
        &self,
        buffers: &[(&wgpu::Buffer, u64)],
        stage: &str,
        read: impl FnMut(&[u8]) -> T,
    ) -> Result<Vec<T>, GpuError> {
        self.read_buffers_after(buffers, None, stage, read)
    }

    /// [`read_buffers_with`](Self::read_buffers_with) waiting only for submission `after`
    /// (the one that wrote the buffers; `None`: everything submitted), so that work submitted
    /// since does not delay the read.
    pub(crate) fn read_buffers_after<T>(
        &self,
        buffers: &[(&wgpu::Buffer, u64)],
        after: Option<wgpu::SubmissionIndex>,
        stage: &str,
        mut read: impl FnMut(&[u8]) -> T,
    ) -> Result<Vec<T>, GpuError> {
        let err = |message: String| GpuError::Readback {
            stage: stage.to_string(),
            message,
        };
        let mut receivers = Vec::with_capacity(buffers.len());
        for (buffer, len) in buffers {
            let (tx, rx) = std::sync::mpsc::channel();
            buffer
                .slice(..*len)
                .map_async(wgpu::MapMode::Read, move |r| {
                    // The receiver outlives the poll below; a send error only means it gave up.
                    let _ = tx.send(r);
                });
            receivers.push(rx);
        }
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: after,
                timeout: None,
            })
            .map_err(|e| err(e.to_string()))?;
        let mut out = Vec::with_capacity(buffers.len());
        for ((buffer, len), rx) in buffers.iter().zip(receivers) {
            rx.recv()
                .map_err(|e| err(e.to_string()))?
                .map_err(|e| err(e.to_string()))?;
            let value = {
                let slice = buffer.slice(..*len);
                let view = slice.get_mapped_range().map_err(|e| err(e.to_string()))?;
                read(&view)
            };
            buffer.unmap();
            out.push(value);
        }
        Ok(out)
    }
}

/// Locks a mutex, recovering the data if another thread panicked while holding it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Size of the device memory blocks buffers are sub-allocated from on a CPU device.
const CPU_DEVICE_MEMORY_BLOCK: u64 = 4 << 20;

/// The allocation strategy for a device of type `device_type`. A CPU device (lavapipe)
/// allocates device memory with the C heap's `malloc`; under wgpu's default strategy its
/// 128–256 MiB blocks are created and destroyed as a frame's per-draw buffers come and go
/// (the allocator keeps one empty block, `gpu-allocator` `free`), and each new block is a
/// fresh `mmap` the kernel zero-fills page by page on first touch: a quarter of a game-scale
/// replay's time went to page faults. Blocks of 4 MiB come from the heap and are reused
/// (BENCHMARKS.md "Game scale at issue 14's three sizes"). A real GPU keeps wgpu's default.
fn memory_hints(device_type: wgpu::DeviceType) -> wgpu::MemoryHints {
    if device_type == wgpu::DeviceType::Cpu {
        wgpu::MemoryHints::Manual {
            suballocated_device_memory_block_size: CPU_DEVICE_MEMORY_BLOCK..CPU_DEVICE_MEMORY_BLOCK,
        }
    } else {
        wgpu::MemoryHints::Performance
    }
}
