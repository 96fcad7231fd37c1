//! One invocation of a captured draw, as verify runs it: the fragment invocation at a chosen
//! pixel ([`draw_pixel`]: the 2×2 quad with the inputs the draw's own vertices, rasterization
//! and shading rules give it, `divergence::fragment_stage::rasterize`, and the textures it
//! samples, bound from the capture as verify binds them), or the vertex invocation of a chosen
//! vertex ([`draw_vertex`]: its fetched attributes, the draw's constants with the capture's
//! gaps filled as verify fills them, and its branch bits), or the vertex invocation of a
//! standalone vertex program ([`program_vertex`]: batch's input set K). What `rsxtrace debug
//! (CAPTURE --draw N | PROGRAM) (--pixel X,Y | --vertex K)` serves to gdb or traces.

use crate::divergence::clock::Clock;
use crate::divergence::fragment_stage::{bind_draw, draw_program, rasterize};
use crate::divergence::vertex_stage::{prepare_timed, Prepared, VertexInterp};
use crate::divergence::Outcome;
use rsxtrace_capture::frame::Frame;
use rsxtrace_gpu::{TextureBinding, TEXTURE_UNITS};
use rsxtrace_program::fragment::FragmentProgram;
use rsxtrace_replay::interp::fragment::QuadInputs;
use rsxtrace_replay::texture::cache::TextureCache;
use rsxtrace_replay::texture::CaptureSampler;
use rsxtrace_replay::wgsl::fragment::{TextureDim, TextureLod};

/// Everything an invocation runs with.
pub struct PixelInvocation {
    /// The draw's fragment program.
    pub program: FragmentProgram,
    /// Its microcode as captured.
    pub ucode: Vec<u8>,
    /// `SHADER_CONTROL`.
    pub control: u32,
    /// The quad and the pixel's lane in it.
    pub quad: QuadInputs,
    /// Lane of the pixel.
    pub lane: usize,
    /// The units it samples, decoded from the capture.
    pub sampler: CaptureSampler,
    /// A line per sampled unit (format, size).
    pub units: Vec<String>,
    /// The same units bound for the device, with the dimensions and LOD state the
    /// recompiler bakes in (as verify binds them).
    pub device: DeviceTextures,
}

/// The sampled units as verify binds them on the device.
pub struct DeviceTextures {
    /// Device bindings.
    pub gpu: [Option<TextureBinding>; TEXTURE_UNITS as usize],
    /// Dimension of every unit.
    pub dims: [TextureDim; 16],
    /// LOD state of every unit.
    pub lod: [TextureLod; 16],
}

/// The invocation of draw `draw` at pixel (`x`, `y`) (window coordinates, as verify reports
/// pixels), or why there is none (no program, a pixel the draw does not cover, textures the
/// capture cannot give).
pub fn draw_pixel(
    frame: &Frame,
    draw: usize,
    (x, y): (u32, u32),
) -> Result<PixelInvocation, String> {
    let d = frame
        .draws
        .get(draw)
        .ok_or_else(|| format!("draw {draw}: the frame has {} draws", frame.draws.len()))?;
    let program = draw_program(d)?;
    let ucode = d
        .fragment_program
        .as_ref()
        .map(|p| p.ucode.clone())
        .unwrap_or_default();
    let vi = match prepare_timed(frame, draw, &Clock::default(), &TextureCache::default()) {
        Prepared::Ready(vi) => vi,
        Prepared::NotCompared(Outcome::Skipped { reason }) => return Err(reason),
        Prepared::NotCompared(Outcome::Failed { error }) => return Err(error),
        Prepared::NotCompared(o) => return Err(format!("vertex stage: {}", o.name())),
    };
    let raster = rasterize(d, &vi, usize::MAX);
    let lane = ((y & 1) * 2 + (x & 1)) as usize;
    let quad = raster
        .quads
        .iter()
        .find(|q| q.origin == [x & !1, y & !1] && q.inputs.coverage & (1 << lane) != 0)
        .ok_or_else(|| {
            let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
            for q in &raster.quads {
                (x0, y0) = (x0.min(q.origin[0]), y0.min(q.origin[1]));
                (x1, y1) = (x1.max(q.origin[0] + 1), y1.max(q.origin[1] + 1));
            }
            if raster.quads.is_empty() {
                format!("draw {draw} covers no pixel")
            } else {
                format!(
                    "draw {draw} does not cover pixel {x},{y} (its pixels lie in x {x0}..={x1}, y {y0}..={y1})"
                )
            }
        })?
        .inputs;
    let bound = bind_draw(frame, draw, &program, &TextureCache::default())?;
    let units = (0..16u8)
        .filter(|u| program.texture_units_read() & (1 << u) != 0)
        .map(|u| {
            let t = &d.textures[usize::from(u)];
            let f = &t.format;
            format!(
                "unit {u}: {} ({:#04x}{}) {}x{}, {} levels, offset {:#x}",
                f.base_format.name.unwrap_or("unknown format"),
                f.format,
                if f.linear { ", linear" } else { ", swizzled" },
                t.width,
                t.height,
                f.mip_count,
                t.offset
            )
        })
        .collect();
    Ok(PixelInvocation {
        program,
        ucode,
        control: d.shader_control.raw,
        quad,
        lane,
        sampler: bound.sampler,
        units,
        device: DeviceTextures {
            gpu: bound.gpu,
            dims: bound.dims,
            lod: bound.lod,
        },
    })
}

/// The vertex invocation of vertex `k` (processing order) of draw `draw`: the prepared draw
/// (program, transform program memory, constants, branch bits, input mask) and the vertex's
/// position in its inputs.
pub fn draw_vertex(
    frame: &Frame,
    draw: usize,
    k: usize,
) -> Result<(Box<VertexInterp>, usize), String> {
    let vi = match prepare_timed(frame, draw, &Clock::default(), &TextureCache::default()) {
        Prepared::Ready(vi) => vi,
        Prepared::NotCompared(Outcome::Skipped { reason }) => return Err(reason),
        Prepared::NotCompared(Outcome::Failed { error }) => return Err(error),
        Prepared::NotCompared(o) => return Err(format!("vertex stage: {}", o.name())),
    };
    if k >= vi.inputs.len() {
        return Err(format!(
            "draw {draw} has {} vertices; vertex {k} does not exist",
            vi.inputs.len()
        ));
    }
    Ok((vi, k))
}

/// The vertex invocation of input set `k` of the vertex program in the file at `path` (a
/// container, raw microcode in a `.vpo`/`.rvp`-named file, an RPCS3 cache entry, an
/// executable: whatever `rsxtrace batch` reads; the first vertex program when it holds
/// several): the program loaded at slot 0 of transform program memory, with the inputs,
/// constants and branch bits `rsxtrace batch` checks it with (`batch::inputs`: sets 0..256
/// built from edge values, the rest seeded by the program's content key). Also returns the
/// program's name for messages.
pub fn program_vertex(
    path: &std::path::Path,
    k: usize,
) -> Result<(Box<VertexInterp>, usize, String), String> {
    use crate::batch::catalog::catalog;
    use crate::batch::check::{load_vertex, vertex_interp};
    use crate::batch::inputs::VERTEX_SETS;
    use crate::divergence::Stage;
    let found = rsxtrace_program::source::discover(&[path.to_path_buf()]);
    let entries = catalog(&found);
    let Some(entry) = entries.iter().find(|e| e.stage == Stage::Vertex) else {
        let why = found
            .problems
            .first()
            .map(|p| format!(": {}", p.reason))
            .unwrap_or_default();
        return Err(format!("{} holds no vertex program{why}", path.display()));
    };
    if k >= VERTEX_SETS {
        return Err(format!(
            "vertex {k} does not exist: a standalone program runs on {VERTEX_SETS} input sets (0..{VERTEX_SETS})"
        ));
    }
    let (program, words) = load_vertex(entry).map_err(|e| format!("{}: {e}", entry.name()))?;
    Ok((
        Box::new(vertex_interp(entry, program, words)),
        k,
        entry.name(),
    ))
}
