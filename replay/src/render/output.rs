//! What a frame render returns: the output image, per-draw snapshots, warnings and timings,
//! and the options both renderers take.

use crate::texture::cache::CacheStats;
use std::ops::Range;
use std::path::Path;

/// Options of both renderers.
#[derive(Clone, Debug, Default)]
pub struct RenderOptions {
    /// Render only these draws (indices into `Frame::draws`); earlier draws are skipped, so
    /// their effects on the surfaces are missing, but the clears before the range are applied.
    /// `None` = every draw.
    pub draws: Option<Range<usize>>,
    /// Keep a snapshot of the output target after each rendered draw.
    pub per_draw: bool,
    /// Decode every draw's textures anew instead of through the frame's texture cache
    /// (`texture::cache`; for measuring the cache and checking it changes nothing).
    pub no_texture_cache: bool,
    /// How the CPU renderer splits a draw's rasterization into screen tiles run in parallel
    /// (`render::cpu::tiles`); every choice gives the same image bit for bit.
    pub tiling: Tiling,
    /// Render only this band of the output image's rows ([`super::band`]): draws into the
    /// output surface are cut to it when that is exact ([`super::band::BandPlan`]), and the
    /// image's other rows are transparent black. `None` = the whole image.
    pub band: Option<super::band::Band>,
    /// Shade every covered quad, even those whose fragments are all sure to fail the depth
    /// test (CPU renderer, `render::cpu::early_depth`): for measuring early depth rejection
    /// and checking that it changes nothing.
    pub no_early_depth: bool,
    /// Write the GPU render's targets back and drop them at every switch of surface state,
    /// instead of keeping them on the device until their bytes are needed as memory
    /// (`render::gpu`): for measuring and checking that keeping changes nothing.
    pub no_kept_surfaces: bool,
    /// GPU render: count every draw's samples that pass the depth and stencil tests (an
    /// occlusion query around each) and give them as [`RenderedFrame::draw_shading`]'s
    /// `fragments_passed`, what the CPU render counts anyway: the two renderers' counts can
    /// then be compared draw by draw. Without it, only draws an occlusion query of the frame
    /// counts are counted.
    pub count_samples: bool,
    /// CPU render: count each fragment that passes every test into these per-pixel counts
    /// (the draws rendering into their target; `overdraw --passed`). Ignored on the GPU.
    pub passed_counts: Option<std::sync::Arc<super::overdraw::PassedCounts>>,
}

/// Screen tiling of the CPU renderer's draws (`render::cpu::tiles`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tiling {
    /// Bands of 32 rows, except for draws too small to gain from them.
    #[default]
    Auto,
    /// Every draw on one tile (serial coverage and per-fragment operations).
    Off,
    /// Bands of this many rows (rounded up to even) for every draw that spans two or more:
    /// for tests of the tiled path.
    Rows(u32),
}

/// An 8-bit RGBA image, row 0 at the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rgba8Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes, R, G, B, A per pixel.
    pub pixels: Vec<u8>,
}

impl Rgba8Image {
    /// No pixels (0 × 0).
    pub fn empty() -> Rgba8Image {
        Rgba8Image {
            width: 0,
            height: 0,
            pixels: Vec::new(),
        }
    }

    /// A `width` x `height` image filled with `rgba`.
    pub fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Rgba8Image {
        let count = width as usize * height as usize;
        Rgba8Image {
            width,
            height,
            pixels: rgba.iter().copied().cycle().take(count * 4).collect(),
        }
    }

    /// The pixel at (`x`, `y`), or `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let at = (y as usize * self.width as usize + x as usize) * 4;
        let p = self.pixels.get(at..at + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// Encode as PNG.
    pub fn to_png(&self) -> Result<Vec<u8>, png::EncodingError> {
        let mut out = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
            encoder.set_color(png::ColorType::Rgba);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header()?;
            writer.write_image_data(&self.pixels)?;
        }
        Ok(out)
    }

    /// Write as a PNG file.
    pub fn write_png(&self, path: impl AsRef<Path>) -> Result<(), RenderError> {
        let path = path.as_ref();
        let bytes = self.to_png().map_err(|e| RenderError::Png {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        std::fs::write(path, bytes).map_err(|e| RenderError::Png {
            path: path.display().to_string(),
            message: e.to_string(),
        })
    }

    /// Read an 8-bit RGBA or RGB PNG (RGB gets alpha 255).
    pub fn read_png(path: impl AsRef<Path>) -> Result<Rgba8Image, RenderError> {
        let path = path.as_ref();
        let fail = |message: String| RenderError::Png {
            path: path.display().to_string(),
            message,
        };
        let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
        let decoder = png::Decoder::new(std::io::BufReader::new(file));
        let mut reader = decoder.read_info().map_err(|e| fail(e.to_string()))?;
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| fail(e.to_string()))?;
        let data = buf.get(..info.buffer_size()).unwrap_or_default();
        let pixels = match (info.color_type, info.bit_depth) {
            (png::ColorType::Rgba, png::BitDepth::Eight) => data.to_vec(),
            (png::ColorType::Rgb, png::BitDepth::Eight) => data
                .chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect(),
            other => return Err(fail(format!("unsupported PNG layout {other:?}"))),
        };
        Ok(Rgba8Image {
            width: info.width,
            height: info.height,
            pixels,
        })
    }
}

/// Which surface the output image shows.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OutputSource {
    /// The buffer the capture says was displayed.
    Displayed {
        /// Guest address of the displayed buffer.
        address: u32,
    },
    /// The last colour target drawn to (the capture does not say what was displayed).
    LastColorTarget {
        /// Guest address (location offset) of the target.
        address: u32,
        /// RSX colour format name.
        format: String,
    },
    /// No draw writes colour (a depth-only frame): there is no output image, only the
    /// targets an observer reads (`replay --target`, `history --target`); the image is empty.
    NoColorTarget,
}

/// The output surface a render needs: `None` (an empty image) is allowed only when a target
/// read at the end of the render, or a watched pixel, stands in for the output image.
pub(crate) fn output_or_error(
    frame: &rsxtrace_capture::frame::Frame,
    output: Option<super::surface::OutputSurface>,
    reads_targets: bool,
) -> Result<Option<super::surface::OutputSurface>, super::RenderError> {
    match output {
        Some(o) => Ok(Some(o)),
        None if reads_targets => Ok(None),
        None => Err(super::RenderError::NothingToRender(
            super::surface::no_output_reason(frame),
        )),
    }
}

/// The output target after one draw.
#[derive(Clone, Debug)]
pub struct DrawSnapshot {
    /// Draw index.
    pub draw: usize,
    /// The output target after the draw.
    pub image: Rgba8Image,
}

/// Something the user should know about a draw that was still rendered.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RenderWarning {
    /// Draw index (`None`: the frame as a whole).
    pub draw: Option<usize>,
    /// What happened, e.g. "reads vertex constant `c[40]`, which the capture does not hold
    /// (read as 0)".
    pub message: String,
}

/// Where the time went, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct RenderTimings {
    /// Decoding programs and state, fetching vertices, decoding textures. On the CPU the
    /// vertex stage runs ahead on a thread of its own (`render::cpu::ahead`): what the frame
    /// waited for it is counted here, not the time it took beside the render.
    pub setup: f64,
    /// Translating programs and creating pipelines (GPU) or preparing programs (CPU).
    pub pipelines: f64,
    /// Executing the draws.
    pub render: f64,
    /// Reading targets back and converting them.
    pub readback: f64,
}

/// A rendered frame.
#[derive(Clone, Debug)]
pub struct RenderedFrame {
    /// The output image (see [`OutputSource`]).
    pub image: Rgba8Image,
    /// What the image shows.
    pub source: OutputSource,
    /// Draws rendered.
    pub draws_rendered: usize,
    /// Draws skipped, with the reason (a draw that cannot be rendered at all).
    pub skipped: Vec<(usize, String)>,
    /// Snapshots after each draw when [`RenderOptions::per_draw`] was set.
    pub per_draw: Vec<DrawSnapshot>,
    /// Warnings (constants the capture does not hold, unsupported state approximated...).
    pub warnings: Vec<RenderWarning>,
    /// Timings.
    pub timings: RenderTimings,
    /// What the texture cache did (CPU render; zeros when it was off or the GPU rendered).
    pub texture_cache: CacheStats,
    /// Draws whose coverage and per-fragment operations ran on two or more screen tiles in
    /// parallel (CPU renderer, [`RenderOptions::tiling`]; 0 on the GPU).
    pub tiled_draws: usize,
    /// What [`RenderOptions::band`] did (`None` without a band).
    pub band: Option<super::band::BandOutcome>,
    /// What the CPU renderer's fragment stage did (zeros on the GPU).
    pub shading: ShadingStats,
    /// The same per rendered draw, in frame order (CPU render; on the GPU, with
    /// [`RenderOptions::count_samples`], `fragments_passed` only, else empty).
    pub draw_shading: Vec<DrawShading>,
    /// What the GPU render moved between its device targets and the surface memory (zeros
    /// on the CPU).
    pub surface_traffic: SurfaceTraffic,
    /// Every draw under conditional rendering in the range, in order: whether it was drawn
    /// and the report that decided it ([`super::conditional`]).
    pub conditional: Vec<super::conditional::ConditionalDraw>,
}

/// What the GPU render moved between its device targets and the frame's surface memory,
/// counted per target (a colour or depth surface).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SurfaceTraffic {
    /// Targets created on the device and filled from the surface memory.
    pub uploads: u64,
    /// Targets read back from the device into the surface memory.
    pub readbacks: u64,
    /// Targets bound again as they were left on the device (neither read back nor filled).
    pub kept_binds: u64,
    /// Kept targets written back and dropped because another target or a transfer wrote
    /// over their bytes.
    pub aliased: u64,
    /// Kept targets written back and dropped to stay within the device memory budget.
    pub evicted: u64,
}

/// What the CPU renderer's fragment stage did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ShadingStats {
    /// 2x2 quads the fragment program ran on.
    pub quads_shaded: u64,
    /// Quads left unshaded because each of their fragments was sure to fail the depth test
    /// (`render::cpu::early_depth`).
    pub quads_rejected_early: u64,
    /// Fragments (samples, on a multisampled surface) that passed every test and were
    /// written (`render::history::FragmentOutcome::Written`): what an occlusion query
    /// (`ZPASS_PIXEL_CNT`) would count for the draw.
    pub fragments_passed: u64,
}

impl std::ops::AddAssign for ShadingStats {
    fn add_assign(&mut self, other: ShadingStats) {
        self.quads_shaded += other.quads_shaded;
        self.quads_rejected_early += other.quads_rejected_early;
        self.fragments_passed += other.fragments_passed;
    }
}

impl ShadingStats {
    /// What was added to these counts since `before`.
    pub fn since(self, before: ShadingStats) -> ShadingStats {
        ShadingStats {
            quads_shaded: self.quads_shaded.saturating_sub(before.quads_shaded),
            quads_rejected_early: self
                .quads_rejected_early
                .saturating_sub(before.quads_rejected_early),
            fragments_passed: self
                .fragments_passed
                .saturating_sub(before.fragments_passed),
        }
    }
}

/// What the CPU renderer's fragment stage did for one draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DrawShading {
    /// The draw.
    pub draw: usize,
    /// Its counts (all zero for a draw that writes nothing: its fragments are not run).
    #[serde(flatten)]
    pub shading: ShadingStats,
}

/// Why a frame could not be rendered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The frame has no draw to render (or none in the requested range).
    #[error("nothing to render: {0}")]
    NothingToRender(String),
    /// A draw could not be rendered in a way that makes the frame meaningless.
    #[error("draw {draw}: {message}")]
    Draw {
        /// Draw index.
        draw: usize,
        /// What went wrong.
        message: String,
    },
    /// The GPU device failed.
    #[error("GPU: {0}")]
    Gpu(String),
    /// Something this renderer does not do.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A PNG could not be read or written.
    #[error("{path}: {message}")]
    Png {
        /// File.
        path: String,
        /// Error.
        message: String,
    },
}
