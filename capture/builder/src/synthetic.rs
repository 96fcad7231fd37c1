//! A generated frame at game scale for benchmarks: many draws with varied vertex formats,
//! indexed and non-indexed, a constant upload per draw, texture blocks, and pseudo-random
//! payloads so compression cannot shrink it to nothing.

use rsxtrace_rrc::{BufferState, Capture, DisplayBuffersState, Location};

use crate::builder::CaptureBuilder;
use crate::error::BuildError;
use crate::render_state::{SurfaceDesc, SurfaceTarget};
use crate::rng::Rng;
use crate::texture::TextureDesc;
use crate::vertex_input::IndexType;
use crate::vertex_ucode::mvp_vertex_program;

/// `MOV R0, f[COL0]` with END: the raw guest bytes of the ps3autotests `primitives.fpo`
/// program (rsx-microcode.md B.1: words `3e010100 c8011c9d c8000001 c8003fe1`).
pub const FRAGMENT_MOV_COL0: [u8; 16] = [
    0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00, 0x3f, 0xe1,
];

/// First transform constant of the MVP rows the synthetic vertex program reads.
pub const MVP_CONSTANT: u32 = 32;

/// A bump allocator over one guest space.
struct Bump {
    location: Location,
    next: u32,
}

impl Bump {
    fn alloc(&mut self, len: usize) -> Result<u32, BuildError> {
        let at = self.next;
        let end = u64::from(at) + len as u64;
        // 128-byte aligned, leaving a gap so separate buffers stay separate regions.
        let next = (end + 0x80 + 0x7F) & !0x7F;
        self.next = u32::try_from(next).map_err(|_| BuildError::InvalidArgument {
            what: "synthetic frame size",
            detail: format!("{} memory exhausted", self.location.name()),
        })?;
        Ok(at)
    }
}

/// The vertex layouts the generator cycles through: (type, size, host bytes) per stream.
#[derive(Clone, Copy)]
enum Layout {
    /// Position F x3 and colour UB x4 in two arrays, non-indexed.
    SplitFloat3Ub4,
    /// Position F x4 and colour F x4 interleaved (stride 32), indexed u16.
    InterleavedFloat4,
    /// Position SF x4 (stride 8) and colour UB x4, indexed u32 with primitive restart.
    HalfWithRestart,
    /// Position S1 x3 (8 bytes) and colour CMP, non-indexed in two ranges.
    ShortCmp,
}

/// A frame of `draws` draws whose captured memory totals roughly `approx_bytes`.
///
/// # Panics
/// If the data does not fit the 32-bit guest address spaces (a budget of several GiB); use
/// [`try_large_frame`] to get that as an error instead.
pub fn large_frame(draws: usize, approx_bytes: usize, seed: u64) -> Capture {
    match build(draws, approx_bytes, seed) {
        Ok(c) => c,
        Err(e) => panic!("synthetic::large_frame({draws}, {approx_bytes}, {seed}): {e}"),
    }
}

/// [`large_frame`] returning the builder's error instead of panicking.
pub fn try_large_frame(
    draws: usize,
    approx_bytes: usize,
    seed: u64,
) -> Result<Capture, BuildError> {
    build(draws, approx_bytes, seed)
}

fn build(draws: usize, approx_bytes: usize, seed: u64) -> Result<Capture, BuildError> {
    let mut rng = Rng(seed);
    let mut b = CaptureBuilder::new(&format!(
        "synthetic_{draws}_{approx_bytes}_{seed}_capture.rrc.gz"
    ));
    let buffer = |offset| BufferState {
        width: 1280,
        height: 720,
        pitch: 5120,
        offset,
    };
    b.set_display_buffers(DisplayBuffersState::of(&[buffer(0), buffer(0x0038_4000)]));
    b.initial_transform_program(0, &mvp_vertex_program(MVP_CONSTANT))?;

    let mut local = Bump {
        location: Location::Local,
        next: 0x0100_0000,
    };
    let mut main = Bump {
        location: Location::Main,
        next: 0,
    };

    let colour = SurfaceTarget {
        location: Location::Local,
        offset: 0,
        pitch: 5120,
    };
    b.set_surface(&SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (11, 10),
        color_target: 1,
        colors: [colour, colour, colour, colour],
        zeta: SurfaceTarget {
            location: Location::Local,
            offset: 0x0070_8000,
            pitch: 5120,
        },
        clip: (0, 0, 1280, 720),
    });
    b.set_viewport(
        0,
        0,
        1280,
        720,
        (0.0, 1.0),
        [640.0, 360.0, 0.5, 0.0],
        [640.0, -360.0, 0.5, 0.0],
    );
    b.set_scissor(0, 0, 1280, 720);
    b.set_depth(true, 0x203, true);
    b.clear_surface(0xF3, 0xFF20_2020, 0xFFFF_FF00);
    b.set_vertex_program(
        &mvp_vertex_program(MVP_CONSTANT),
        0,
        0,
        0b1001, // v0 position, v3 colour
        0x1,    // output mask: front diffuse (o[1])
    )?;
    let fp_offset = local.alloc(FRAGMENT_MOV_COL0.len())?;
    b.set_fragment_program(Location::Local, fp_offset, &FRAGMENT_MOV_COL0, 0x0200_0040)?;

    let per_draw = (approx_bytes / draws.max(1)).max(64);
    let layouts = [
        Layout::SplitFloat3Ub4,
        Layout::InterleavedFloat4,
        Layout::HalfWithRestart,
        Layout::ShortCmp,
    ];
    for draw in 0..draws {
        let mvp: Vec<[f32; 4]> = (0..4)
            .map(|_| [rng.unit(), rng.unit(), rng.unit(), rng.unit()])
            .collect();
        b.set_transform_constants(MVP_CONSTANT, &mvp)?;

        // Every fourth draw samples a texture taking a quarter of its budget.
        let mut budget = per_draw;
        if draw % 4 == 0 {
            let side = (((per_draw / 4) / 4) as f64).sqrt().max(1.0) as u16;
            let side = side.clamp(1, 2048);
            let bytes = usize::from(side) * usize::from(side) * 4;
            let offset = local.alloc(bytes)?;
            b.put_memory(Location::Local, offset, &rng.bytes(bytes))?;
            b.set_texture(
                0,
                &TextureDesc {
                    offset,
                    width: side,
                    height: side,
                    pitch: u32::from(side) * 4,
                    byte_size: bytes as u32,
                    ..TextureDesc::default()
                },
            )?;
            budget = budget.saturating_sub(bytes);
        } else if draw % 4 == 1 {
            b.disable_texture(0)?;
        }

        let layout = layouts[(rng.below(layouts.len() as u64)) as usize];
        draw_one(&mut b, &mut rng, layout, budget, &mut local, &mut main)?;
    }
    Ok(b.finish())
}

fn draw_one(
    b: &mut CaptureBuilder,
    rng: &mut Rng,
    layout: Layout,
    budget: usize,
    local: &mut Bump,
    main: &mut Bump,
) -> Result<(), BuildError> {
    const TRIANGLES: u32 = 5;
    let vertices = |bytes_per_vertex: usize| (budget / bytes_per_vertex).clamp(3, 60_000) as u32;
    match layout {
        Layout::SplitFloat3Ub4 => {
            let n = vertices(16);
            let pos = main.alloc(n as usize * 12)?;
            b.put_memory(Location::Main, pos, &rng.floats_be(n as usize * 3))?;
            let col = main.alloc(n as usize * 4)?;
            b.put_memory(Location::Main, col, &rng.bytes(n as usize * 4))?;
            b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, pos)?;
            b.set_vertex_array(3, 4, 4, 4, 0, Location::Main, col)?;
            b.draw_arrays(TRIANGLES, &[(0, n)])
        }
        Layout::InterleavedFloat4 => {
            let n = vertices(40).min(0xFFFE);
            // RPCS3 captures stride * (max - min + 1) + element bytes for indexed draws: one
            // element past the last vertex, so each indexed buffer gets one spare stride.
            let buf = local.alloc((n as usize + 1) * 32)?;
            b.put_memory(Location::Local, buf, &rng.floats_be((n as usize + 1) * 8))?;
            let count = (n * 3 / 2).max(3);
            let idx: Vec<u8> = (0..count)
                .flat_map(|_| (rng.below(u64::from(n)) as u16).to_be_bytes())
                .collect();
            let ib = main.alloc(idx.len())?;
            b.put_memory(Location::Main, ib, &idx)?;
            b.set_vertex_array(0, 2, 4, 32, 0, Location::Local, buf)?;
            b.set_vertex_array(3, 2, 4, 32, 0, Location::Local, buf + 16)?;
            b.set_index_array(Location::Main, ib, IndexType::U16)?;
            b.set_restart_index(false, 0xFFFF);
            b.draw_indexed(TRIANGLES, &[(0, count)])
        }
        Layout::HalfWithRestart => {
            let n = vertices(20);
            let pos = local.alloc((n as usize + 1) * 8)?;
            b.put_memory(Location::Local, pos, &rng.bytes((n as usize + 1) * 8))?;
            let col = local.alloc((n as usize + 1) * 4)?;
            b.put_memory(Location::Local, col, &rng.bytes((n as usize + 1) * 4))?;
            let count = (n * 3 / 2).max(3);
            let idx: Vec<u8> = (0..count)
                .flat_map(|i| {
                    let v = if i % 64 == 63 {
                        u32::MAX
                    } else {
                        rng.below(u64::from(n)) as u32
                    };
                    v.to_be_bytes()
                })
                .collect();
            let ib = main.alloc(idx.len())?;
            b.put_memory(Location::Main, ib, &idx)?;
            b.set_vertex_array(0, 3, 4, 8, 0, Location::Local, pos)?;
            b.set_vertex_array(3, 4, 4, 4, 0, Location::Local, col)?;
            b.set_index_array(Location::Main, ib, IndexType::U32)?;
            b.set_restart_index(true, u32::MAX);
            b.draw_indexed(TRIANGLES, &[(0, count)])
        }
        Layout::ShortCmp => {
            let n = vertices(12).max(6);
            let pos = main.alloc(n as usize * 8)?;
            b.put_memory(Location::Main, pos, &rng.bytes(n as usize * 8))?;
            let col = main.alloc(n as usize * 4)?;
            b.put_memory(Location::Main, col, &rng.bytes(n as usize * 4))?;
            b.set_vertex_array(0, 1, 3, 8, 0, Location::Main, pos)?;
            b.set_vertex_array(3, 6, 1, 4, 0, Location::Main, col)?;
            let half = n / 2;
            b.draw_arrays(TRIANGLES, &[(0, half), (half + 1, n - half - 1)])
        }
    }
}
