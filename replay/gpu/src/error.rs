//! The executor's error type: what can go wrong between asking for an adapter and reading the
//! results back.

/// Why a GPU operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No adapter on any of the backends tried.
    #[error(
        "no GPU adapter found (backends tried: {tried}): install a Vulkan driver, e.g. \
         `apt-get install mesa-vulkan-drivers libvulkan1` (lavapipe), or use --backend gl with \
         Mesa's llvmpipe EGL; details: {details}"
    )]
    NoAdapter {
        /// The backends tried, in order (e.g. "vulkan, gl").
        tried: String,
        /// wgpu's reason for each backend.
        details: String,
    },
    /// The adapter refused the device (features or limits).
    #[error("adapter {adapter} refused the device: {reason}")]
    Device {
        /// Adapter name and backend.
        adapter: String,
        /// wgpu's message.
        reason: String,
    },
    /// The adapter cannot do what the call needs (names the missing feature, format or limit).
    #[error("adapter {adapter} cannot {what}")]
    Unsupported {
        /// Adapter name and backend.
        adapter: String,
        /// What is missing.
        what: String,
    },
    /// The module does not follow `replay/wgsl/ABI.md` (names the entry point or binding).
    #[error("module {hash:016x} breaks the ABI: {what}")]
    Abi {
        /// The module's hash.
        hash: u64,
        /// What is wrong.
        what: String,
    },
    /// A caller-supplied argument is out of range (names the argument).
    #[error("invalid argument {name}: {what}")]
    Argument {
        /// The argument (e.g. `inputs`, `textures[3].levels[1]`).
        name: String,
        /// What is wrong.
        what: String,
    },
    /// wgpu reported a validation or out-of-memory error while doing `stage`.
    #[error("wgpu error while {stage}: {message}")]
    Wgpu {
        /// What the executor was doing (e.g. "creating compute pipeline vp_compute").
        stage: String,
        /// wgpu's message.
        message: String,
    },
    /// Waiting for the device or mapping a readback buffer failed.
    #[error("readback failed while {stage}: {message}")]
    Readback {
        /// What was being read back.
        stage: String,
        /// wgpu's message.
        message: String,
    },
    /// The GPU produced a value the ABI forbids (names the vertex or pixel).
    #[error("bad result at {at}: {what}")]
    BadResult {
        /// Vertex or pixel.
        at: String,
        /// What is wrong.
        what: String,
    },
}

impl GpuError {
    /// Shorthand for [`GpuError::Argument`].
    pub(crate) fn argument(name: impl Into<String>, what: impl Into<String>) -> Self {
        GpuError::Argument {
            name: name.into(),
            what: what.into(),
        }
    }
}
