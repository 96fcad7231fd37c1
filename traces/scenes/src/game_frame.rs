//! The game-scale frame in `traces/` (issue 6): thousands of draws and hundreds of thousands
//! of vertices with many distinct programs, made with the capture builder.
//!
//! What it holds, all from one seed ([`GameFrameOptions::seed`]):
//! - 48 vertex and 48 fragment programs made by rsxtrace's own encoders
//!   (`vertex_programs`, `fragment_programs`): arithmetic, scalar functions, 2D texturing
//!   on several units, IFE and REP flow control, R and H exports;
//! - shared meshes (`assets`): indexed triangle lists and restart-joined strips (u16) and
//!   non-indexed quads, interleaved and split vertex layouts, drawn part by part by many draws;
//!   textures of six formats (A8R8G8B8, R5G6B5, A4R4G4B4, B8, DXT1, DXT45);
//! - materials (a vertex program, a fragment program, its textures and render state) drawn in
//!   batches, as a game sorts its draws; per draw, the model-view-projection in c32..c35
//!   (world x the one camera) and, for programs with a tint, one of three tints patched into
//!   that draw's copy of the fragment microcode; a final batch of screen-space quads without depth test.
//!
//! Larger scales ([`crate::large_capture`], [`crate::game_scale`]) grow the assets, add a
//! shadow pass and, for `game_scale`, full mip chains (`mip_chains`) and particles streamed
//! through a ring buffer that wraps (`ring`); none of it changes the committed frame.
//!
//! Every constant a vertex program reads is uploaded before its first draw, so every draw can
//! be run. [`build`] with [`GameFrameOptions::corpus`] set mixes the corpus's programs in
//! (read at run time, never committed): see [`corpus`]. The committed file is
//! `traces/samples/game.rrc.gz` ([`GAME`]); `tests/game_frame_current.rs` checks that it equals
//! what [`build`] makes with the default options.

pub(crate) mod assets;
pub mod corpus;
pub(crate) mod fragment_programs;
pub(crate) mod mip_chains;
pub(crate) mod ring;
pub(crate) mod rng;
pub(crate) mod vertex_programs;

use assets::{Bump, Mesh, Texture, Topology};
use rng::Rng;
use rsxtrace_capture::builder::methods as m;
use rsxtrace_capture::builder::{
    BuildError, CaptureBuilder, IndexType, SurfaceDesc, SurfaceTarget,
};
use rsxtrace_capture::rrc::{Capture, Location};
use std::path::PathBuf;

pub use ring::StreamedDraw;

/// File name of the game frame, relative to `traces/samples/`.
pub const GAME: &str = "game.rrc.gz";

/// Programs of each stage the generator makes.
pub const PROGRAMS_PER_STAGE: usize = 48;

/// What to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameFrameOptions {
    /// Mix in the programs of this corpus directory (`../shared/corpus`); `None` for the
    /// committed frame.
    pub corpus: Option<PathBuf>,
    /// Number of draws.
    pub draws: usize,
    /// Seed of every choice.
    pub seed: u64,
}

impl Default for GameFrameOptions {
    fn default() -> Self {
        GameFrameOptions {
            corpus: None,
            draws: 2_400,
            seed: 0x6A3E_F7A3,
        }
    }
}

/// How big the frame's assets are and which passes it has: [`Scale::GAME`] for the committed
/// frame, larger ones for [`crate::large_capture`]. Every field of [`Scale::GAME`] keeps the
/// committed frame byte for byte what it was (the generator draws the same random numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scale {
    /// Meshes (topologies and layouts cycle; every other one in main memory).
    pub meshes: usize,
    /// A mesh has `cells.0 + below(cells.1)` grid cells a side.
    pub cells: (u32, usize),
    /// Textures, of sides picked from `texture_sides`.
    pub textures: usize,
    /// Texture sides to pick from.
    pub texture_sides: [u16; 3],
    /// Put half of the textures in main memory (the committed frame keeps them all local).
    pub textures_in_both_memories: bool,
    /// Texel noise.
    pub texture_grain: assets::Grain,
    /// Materials beyond one per program.
    pub extra_materials: usize,
    /// Draws of a depth-only pass into a square shadow map before the main pass (0: none).
    pub shadow_draws: usize,
    /// Textures with full mip chains, mostly DXT, the rest swizzled ([`mip_chains`]), in
    /// place of the one-level textures of `texture_grain` (sides from `texture_sides`).
    pub mip_chains: bool,
    /// Streamed draws through a ring buffer ([`ring`]); `None`: none.
    pub streaming: Option<Streaming>,
}

/// How much geometry is streamed through the ring buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Streaming {
    /// Bytes of the ring, in main memory.
    pub ring_bytes: u32,
    /// Share of the materials, in percent, whose scene draws stream particle quads.
    pub percent: usize,
}

impl Scale {
    /// The committed game frame.
    pub const GAME: Scale = Scale {
        meshes: 28,
        cells: (6, 10),
        textures: 18,
        texture_sides: [32, 64, 128],
        textures_in_both_memories: false,
        texture_grain: assets::Grain::Smooth,
        extra_materials: 16,
        shadow_draws: 0,
        mip_chains: false,
        streaming: None,
    };
}

/// Why the frame cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum GameFrameError {
    /// The builder refused a call.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A corpus program could not be read.
    #[error("corpus: {0}")]
    Corpus(String),
    /// The generator could not make enough programs.
    #[error("the generator made only {got} distinct {stage} programs")]
    TooFewPrograms {
        /// Stage.
        stage: &'static str,
        /// How many.
        got: usize,
    },
}

/// A vertex program the frame binds: words and the constants (other than c32..c35) it reads.
#[derive(Clone, Debug)]
struct VertexBinding {
    words: Vec<u32>,
    input_mask: u32,
    output_mask: u32,
    constants: Vec<(u16, [f32; 4])>,
    /// Where the draw's model-view-projection goes (4 rows from here).
    mvp: u16,
    /// Attributes the program reads that the meshes do not provide, set as immediates.
    immediates: Vec<u32>,
}

/// A fragment program the frame binds.
#[derive(Clone, Debug)]
struct FragmentBinding {
    ucode: Vec<u8>,
    control: u32,
    units: Vec<u8>,
    tint_slot: Option<u32>,
}

/// One material: programs, textures and render state.
#[derive(Clone, Debug)]
struct Material {
    vp: usize,
    fp: usize,
    textures: Vec<(u8, usize)>,
    /// A unit left bound from an earlier material although this program does not sample it
    /// (a wasted bind, as games leave them).
    stale_unit: Option<u8>,
    blend: bool,
    cull: bool,
    depth_func: u32,
    /// Its scene draws stream particle quads through the ring buffer.
    streamed: bool,
}

type Mat4 = [[f64; 4]; 4];

fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [[0.0; 4]; 4];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    out
}

/// The camera's projection x view in the column-vector convention (clip = P V v): 60 degrees
/// vertical, 16:9, near 0.5, far 400, OpenGL-style clip space; the eye at (0, 12, 60) looking
/// at the origin.
fn camera() -> Mat4 {
    let f = 1.0 / 30f64.to_radians().tan();
    let (near, far) = (0.5, 400.0);
    let proj = [
        [f / (16.0 / 9.0), 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [
            0.0,
            0.0,
            (far + near) / (near - far),
            2.0 * far * near / (near - far),
        ],
        [0.0, 0.0, -1.0, 0.0],
    ];
    let pitch = (12.0f64 / 60.0).atan();
    let (s, c) = pitch.sin_cos();
    let eye_distance = (12.0f64 * 12.0 + 60.0 * 60.0).sqrt();
    // Rotate about x by the pitch, then move the world back by the eye distance.
    let view = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, c, -s, 0.0],
        [0.0, s, c, -eye_distance],
        [0.0, 0.0, 0.0, 1.0],
    ];
    mul(&proj, &view)
}

/// A placement: rotation about y, uniform scale, translation (column-vector convention).
fn world(rng: &mut Rng) -> Mat4 {
    let yaw = f64::from(rng.range(0.0, std::f32::consts::TAU));
    let scale = f64::from(rng.range(2.0, 12.0));
    let (s, c) = yaw.sin_cos();
    let t = [
        f64::from(rng.range(-50.0, 50.0)),
        f64::from(rng.range(-2.0, 4.0)),
        f64::from(rng.range(-60.0, 30.0)),
    ];
    [
        [c * scale, 0.0, s * scale, t[0]],
        [0.0, scale, 0.0, t[1]],
        [-s * scale, 0.0, c * scale, t[2]],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

/// The constant rows c[32+k] = row k of the column-vector matrix (DP4 per clip component).
fn rows(m: &Mat4) -> Vec<[f32; 4]> {
    m.iter().map(|r| r.map(|v| v as f32)).collect()
}

/// The screen-space transform for the final 2D pass: x, z of the grid to clip x, y at depth 0.
fn screen(rng: &mut Rng) -> Mat4 {
    let (x, y) = (
        f64::from(rng.range(-0.9, 0.5)),
        f64::from(rng.range(-0.9, 0.5)),
    );
    let size = f64::from(rng.range(0.1, 0.4));
    [
        [size, 0.0, 0.0, x],
        [0.0, 0.0, size, y],
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

fn our_programs(
    rng: &mut Rng,
) -> Result<(Vec<VertexBinding>, Vec<FragmentBinding>), GameFrameError> {
    let vps = vertex_programs::generate(rng, PROGRAMS_PER_STAGE);
    if vps.len() < PROGRAMS_PER_STAGE {
        return Err(GameFrameError::TooFewPrograms {
            stage: "vertex",
            got: vps.len(),
        });
    }
    let fps = fragment_programs::generate(rng, PROGRAMS_PER_STAGE);
    if fps.len() < PROGRAMS_PER_STAGE {
        return Err(GameFrameError::TooFewPrograms {
            stage: "fragment",
            got: fps.len(),
        });
    }
    let vps = vps
        .into_iter()
        .map(|p| VertexBinding {
            words: p.words,
            input_mask: vertex_programs::INPUT_MASK,
            output_mask: vertex_programs::OUTPUT_MASK,
            constants: p.constants,
            mvp: vertex_programs::MVP,
            immediates: Vec::new(),
        })
        .collect();
    let fps = fps
        .into_iter()
        .map(|p| FragmentBinding {
            ucode: p.ucode,
            control: p.control,
            units: p.units,
            tint_slot: p.tint_slot,
        })
        .collect();
    Ok((vps, fps))
}

fn set_up_surface(b: &mut CaptureBuilder) {
    let colour = SurfaceTarget {
        location: Location::Local,
        offset: 0,
        pitch: 5120,
    };
    b.set_surface(&SurfaceDesc {
        color_format: 8, // A8R8G8B8
        depth_format: 2, // Z24S8
        surface_type: 1,
        antialias: 0,
        log2_size: (11, 10),
        color_target: 1,
        colors: [colour, colour, colour, colour],
        zeta: SurfaceTarget {
            location: Location::Local,
            offset: 0x0038_4000,
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
    b.set_depth(true, 0x0203, true); // LEQUAL
    b.clear_surface(0xF3, 0xFF40_5060, 0xFFFF_FF00);
}

/// Bind a texture to a unit, with FORMAT bit 3 set (CELL_GCM_TEXTURE_BORDER_COLOR: no border
/// texels stored; rrc-format.md 4.7, RPCS3 `TextureUtils.cpp`).
fn bind_texture(b: &mut CaptureBuilder, unit: u8, t: &Texture) -> Result<(), BuildError> {
    b.set_texture(u32::from(unit), &t.desc)?;
    b.method(
        m::TEXTURE_FORMAT + m::TEXTURE_UNIT_STRIDE * u32::from(unit),
        t.desc.format_word() | 8,
    )
}

fn bind_mesh(
    b: &mut CaptureBuilder,
    mesh: &Mesh,
    bound: &mut [bool; 16],
) -> Result<(), BuildError> {
    let mut used = [false; 16];
    for a in &mesh.arrays {
        b.set_vertex_array(
            a.attribute,
            a.type_code,
            a.size,
            a.stride,
            0,
            mesh.location,
            a.offset,
        )?;
        used[a.attribute as usize & 15] = true;
    }
    for (attr, was) in bound.iter_mut().enumerate() {
        if *was && !used[attr] {
            b.disable_vertex_array(attr as u32)?;
        }
        *was = used[attr];
    }
    if let Some(ib) = mesh.index_offset {
        b.set_index_array(mesh.location, ib, IndexType::U16)?;
        b.set_restart_index(
            mesh.topology == Topology::IndexedStrips,
            u32::from(assets::RESTART),
        );
    }
    Ok(())
}

/// Side of the shadow map in texels (a power of two: the surface's log2 size is exact).
const SHADOW_MAP_SIDE: u16 = 2048;
/// Bytes of the Z24S8 shadow map (never captured: a depth-only target is written, not read).
const SHADOW_MAP_BYTES: usize = SHADOW_MAP_SIDE as usize * SHADOW_MAP_SIDE as usize * 4;

/// The light's projection x view: an orthographic box 160 units wide looking down at the
/// origin from 100 units up (column-vector convention, as [`camera`]).
fn light() -> Mat4 {
    let half = 80.0;
    let (near, far) = (1.0, 200.0);
    let ortho = [
        [1.0 / half, 0.0, 0.0, 0.0],
        [0.0, 1.0 / half, 0.0, 0.0],
        [0.0, 0.0, -2.0 / (far - near), -(far + near) / (far - near)],
        [0.0, 0.0, 0.0, 1.0],
    ];
    // Looking down -y: world x -> light x, world -z -> light y, world y -> light -z.
    let view = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, -1.0, 0.0],
        [0.0, -1.0, 0.0, 100.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    mul(&ortho, &view)
}

/// A depth-only pass into a square shadow map, as a game renders its shadow casters first:
/// no colour target, colour writes off, depth test and writes on, one vertex and fragment
/// program, the light's matrix x the caster's world in c32..c35.
struct ShadowPass<'a> {
    draws: usize,
    vp: &'a VertexBinding,
    fp: &'a FragmentBinding,
    fp_offset: u32,
    meshes: &'a [Mesh],
    zeta_offset: u32,
}

impl ShadowPass<'_> {
    /// Record the pass, then restore the main surface; returns the draws made.
    fn draw(
        &self,
        b: &mut CaptureBuilder,
        rng: &mut Rng,
        bound_arrays: &mut [bool; 16],
        current_mesh: &mut Option<usize>,
    ) -> Result<usize, BuildError> {
        let side = SHADOW_MAP_SIDE;
        let unused = SurfaceTarget {
            location: Location::Local,
            offset: 0,
            pitch: 64,
        };
        b.set_surface(&SurfaceDesc {
            color_format: 8,
            depth_format: 2, // Z24S8
            surface_type: 1,
            antialias: 0,
            log2_size: (11, 11),
            color_target: 0, // none: depth only
            colors: [unused; 4],
            zeta: SurfaceTarget {
                location: Location::Local,
                offset: self.zeta_offset,
                pitch: u32::from(side) * 4,
            },
            clip: (0, 0, side, side),
        });
        let half = f32::from(side) / 2.0;
        b.set_viewport(
            0,
            0,
            side,
            side,
            (0.0, 1.0),
            [half, half, 0.5, 0.0],
            [half, -half, 0.5, 0.0],
        );
        b.set_scissor(0, 0, side, side);
        b.set_color_mask(0);
        b.set_depth(true, 0x0203, true); // LEQUAL
        b.set_blend(false, (1, 1), (0, 0), (0x8006, 0x8006));
        b.set_cull(true, 0x0404, 0x0901); // front faces culled, as shadow casters often are
        b.clear_surface(0x03, 0, 0xFFFF_FF00);
        b.set_vertex_program(
            &self.vp.words,
            0,
            0,
            self.vp.input_mask,
            self.vp.output_mask,
        )?;
        for &(index, value) in &self.vp.constants {
            b.set_transform_constants(u32::from(index), &[value])?;
        }
        for &attr in &self.vp.immediates {
            b.set_vertex_data_4f(attr, [0.5, 0.5, 0.5, 1.0])?;
        }
        b.set_fragment_program(
            Location::Local,
            self.fp_offset,
            &self.fp.ucode,
            self.fp.control,
        )?;
        let light = light();
        for _ in 0..self.draws {
            let mesh_index = rng.below(self.meshes.len());
            let mesh = &self.meshes[mesh_index];
            if *current_mesh != Some(mesh_index) {
                bind_mesh(b, mesh, bound_arrays)?;
                *current_mesh = Some(mesh_index);
            }
            b.set_transform_constants(u32::from(self.vp.mvp), &rows(&mul(&light, &world(rng))))?;
            let part = mesh.parts[rng.below(mesh.parts.len())];
            if mesh.index_offset.is_some() {
                b.draw_indexed(mesh.primitive, &[part])?;
            } else {
                b.draw_arrays(mesh.primitive, &[part])?;
            }
        }
        set_up_surface(b);
        b.set_color_mask(0x0101_0101);
        Ok(self.draws)
    }
}

/// Build the frame.
pub fn build(options: &GameFrameOptions) -> Result<Capture, GameFrameError> {
    build_scaled(options, &Scale::GAME)
}

/// Build the frame with assets and passes of `scale`.
pub(crate) fn build_scaled(
    options: &GameFrameOptions,
    scale: &Scale,
) -> Result<Capture, GameFrameError> {
    build_logged(options, scale).map(|(capture, _)| capture)
}

/// Build the frame with assets and passes of `scale`; with it, what each streamed draw wrote.
pub(crate) fn build_logged(
    options: &GameFrameOptions,
    scale: &Scale,
) -> Result<(Capture, Vec<StreamedDraw>), GameFrameError> {
    let mut rng = Rng::new(options.seed);
    let mut b = CaptureBuilder::new(GAME);
    let mut local = Bump {
        location: Location::Local,
        next: 0x0100_0000,
    };
    let mut main = Bump {
        location: Location::Main,
        next: 0x0010_0000,
    };
    crate::samples::show_target(&mut b, 1280, 720, 5120, 0);
    set_up_surface(&mut b);

    let (mut vps, mut fps) = our_programs(&mut rng)?;
    if let Some(dir) = &options.corpus {
        let extra = corpus::load(dir).map_err(GameFrameError::Corpus)?;
        vps.extend(extra.vertex.into_iter().map(|p| VertexBinding {
            words: p.words,
            input_mask: p.input_mask,
            output_mask: p.output_mask,
            constants: p.constants,
            mvp: p.mvp,
            immediates: p.immediates,
        }));
        fps.extend(extra.fragment.into_iter().map(|p| FragmentBinding {
            ucode: p.ucode,
            control: p.control,
            units: p.units,
            tint_slot: None,
        }));
    }

    // The dynamic vertex buffer and the particles' static index buffer, first in main
    // memory: vertex data must lie in the low 256 MB (offsets are masked to 28 bits,
    // rrc-format.md 4.2).
    let mut stream = match scale.streaming {
        Some(s) => Some((
            ring::Ring::new(&mut main, s.ring_bytes)?,
            ring::put_quad_indices(&mut b, &mut main)?,
        )),
        None => None,
    };

    // Assets: meshes over both memories (28 in the committed frame), textures (18); meshes
    // first, so that their vertex data lies low.
    let topologies = [
        Topology::IndexedTriangles,
        Topology::IndexedStrips,
        Topology::Quads,
    ];
    let layouts = [assets::Layout::Interleaved, assets::Layout::Split];
    let mut meshes = Vec::new();
    for k in 0..scale.meshes {
        let topology = topologies[k % topologies.len()];
        let layout = layouts[(k / 3) % layouts.len()];
        let cells = scale.cells.0 + rng.below(scale.cells.1) as u32;
        let mem = if k % 2 == 0 { &mut local } else { &mut main };
        meshes.push(assets::mesh(
            &mut b, &mut rng, mem, topology, layout, cells,
        )?);
    }
    let (sides, grain) = (&scale.texture_sides, scale.texture_grain);
    let textures = if scale.mip_chains {
        let half = scale.textures / 2;
        let mut t = mip_chains::textures(&mut b, &mut rng, &mut local, half, sides)?;
        t.extend(mip_chains::textures(
            &mut b,
            &mut rng,
            &mut main,
            scale.textures - half,
            sides,
        )?);
        t
    } else if scale.textures_in_both_memories {
        let half = scale.textures / 2;
        let mut t = assets::textures(&mut b, &mut rng, &mut local, half, sides, grain)?;
        t.extend(assets::textures(
            &mut b,
            &mut rng,
            &mut main,
            scale.textures - half,
            sides,
            grain,
        )?);
        t
    } else {
        assets::textures(&mut b, &mut rng, &mut local, scale.textures, sides, grain)?
    };

    // Materials: every program of both stages is used; textures on the sampled units.
    // Every fourth material takes a corpus fragment program and every fourth (offset by two)
    // a corpus vertex program, when the corpus is mixed in; without it the choice is k % 48.
    let material_count = PROGRAMS_PER_STAGE + scale.extra_materials;
    let extra_vp = vps.len() - PROGRAMS_PER_STAGE;
    let extra_fp = fps.len() - PROGRAMS_PER_STAGE;
    let mut next_texture = 0usize;
    let materials: Vec<Material> = (0..material_count)
        .map(|k| {
            let fp = if extra_fp > 0 && k % 4 == 3 {
                PROGRAMS_PER_STAGE + (k / 4) % extra_fp
            } else {
                k % PROGRAMS_PER_STAGE
            };
            let mut material = Material {
                vp: if extra_vp > 0 && k % 4 == 1 {
                    PROGRAMS_PER_STAGE + (k / 4) % extra_vp
                } else {
                    (k * 7) % PROGRAMS_PER_STAGE
                },
                fp,
                textures: fps[fp]
                    .units
                    .iter()
                    .map(|&u| {
                        // Mip chains are dealt out in turn, so that the first materials
                        // drawn bind every texture; otherwise picked at random.
                        let t = if scale.mip_chains {
                            next_texture += 1;
                            (next_texture - 1) % textures.len()
                        } else {
                            rng.below(textures.len())
                        };
                        (u, t)
                    })
                    .collect(),
                stale_unit: rng.chance(15).then_some(4 + rng.below(4) as u8),
                blend: rng.chance(25),
                cull: rng.chance(70),
                depth_func: if rng.chance(80) { 0x0203 } else { 0x0201 },
                streamed: false,
            };
            // Drawn only when streaming (the committed frame draws no more numbers).
            if let Some(streaming) = scale.streaming {
                material.streamed = rng.chance(streaming.percent);
                // Particles blend and leave the depth buffer alone.
                material.blend |= material.streamed;
            }
            material
        })
        .collect();

    // Fragment programs live in local memory: one copy per program, and a ring of per-draw
    // copies for programs whose tint is patched per draw.
    let mut fp_offsets = Vec::with_capacity(fps.len());
    for p in &fps {
        let at = local.alloc(p.ucode.len())?;
        b.put_memory(Location::Local, at, &p.ucode)?;
        fp_offsets.push(at);
    }
    const RING: usize = 64;
    // Material instances: a few tints per program, as a game's materials share a shader
    // (a handful of distinct microcode copies, not one per draw).
    const TINTS: [[f32; 4]; 3] = [
        [1.0, 0.875, 0.75, 1.0],
        [0.625, 0.8125, 1.25, 1.0],
        [1.375, 1.125, 0.5, 1.0],
    ];
    // Each ring entry holds the largest program, rounded up to 256 bytes.
    let ring_stride = (fps.iter().map(|p| p.ucode.len()).max().unwrap_or(0) + 0xFF) & !0xFF;
    let ring_base = local.alloc(RING * ring_stride)?;
    let mut streamed = Vec::new();

    let camera = camera();
    let screen_draws = options.draws / 20;
    let scene_draws = options.draws - screen_draws;
    let mut loaded_vp: Option<usize> = None;
    let mut bound_units = [false; 16];
    let mut bound_arrays = [false; 16];
    let mut current_mesh: Option<usize> = None;
    let mut drawn = 0usize;
    if scale.shadow_draws > 0 {
        let shadow = ShadowPass {
            draws: scale.shadow_draws.min(scene_draws),
            vp: &vps[0],
            fp: &fps[0],
            fp_offset: fp_offsets[0],
            meshes: &meshes,
            zeta_offset: local.alloc(SHADOW_MAP_BYTES)?,
        };
        drawn = shadow.draw(&mut b, &mut rng, &mut bound_arrays, &mut current_mesh)?;
        loaded_vp = Some(0);
    }
    let mut material_index = 0usize;
    while drawn < options.draws {
        let material = &materials[material_index % materials.len()];
        material_index += 1;
        let batch = (8 + rng.below(40)).min(options.draws - drawn);
        let two_d = drawn >= scene_draws;

        // Vertex program and its constants.
        let vp = &vps[material.vp];
        if loaded_vp != Some(material.vp) {
            b.set_vertex_program(&vp.words, 0, 0, vp.input_mask, vp.output_mask)?;
            loaded_vp = Some(material.vp);
        }
        for &(index, value) in &vp.constants {
            b.set_transform_constants(u32::from(index), &[value])?;
        }
        for &attr in &vp.immediates {
            b.set_vertex_data_4f(attr, [0.5, 0.5, 0.5, 1.0])?;
        }
        // Textures: bind the sampled units, disable what is left over (except a stale one).
        let fp = &fps[material.fp];
        let mut wanted = [false; 16];
        for &(unit, t) in &material.textures {
            bind_texture(&mut b, unit, &textures[t])?;
            wanted[usize::from(unit) & 15] = true;
        }
        if let Some(unit) = material.stale_unit {
            if !wanted[usize::from(unit)] {
                bind_texture(&mut b, unit, &textures[usize::from(unit) % textures.len()])?;
                wanted[usize::from(unit)] = true;
            }
        }
        for (unit, was) in bound_units.iter_mut().enumerate() {
            if *was && !wanted[unit] {
                b.disable_texture(unit as u32)?;
            }
            *was = wanted[unit];
        }
        // Render state.
        if two_d {
            b.set_depth(false, 0x0207, false);
            b.set_blend(true, (0x0302, 0x0302), (0x0303, 0x0303), (0x8006, 0x8006));
            b.set_cull(false, 0x0405, 0x0901);
        } else {
            b.set_depth(true, material.depth_func, !material.blend);
            // SRC_ALPHA, ONE_MINUS_SRC_ALPHA, FUNC_ADD.
            b.set_blend(
                material.blend,
                (0x0302, 0x0302),
                (0x0303, 0x0303),
                (0x8006, 0x8006),
            );
            b.set_cull(material.cull, 0x0405, 0x0901);
        }
        b.set_fragment_program(
            Location::Local,
            fp_offsets[material.fp],
            &fp.ucode,
            fp.control,
        )?;

        for _ in 0..batch {
            // Particles through the ring for a streamed material's scene draws; quads for
            // the 2D pass; otherwise any mesh.
            let particles = match &mut stream {
                Some((ring, quad_indices)) if material.streamed && !two_d => {
                    let (mesh, log) = stream_particles(&mut b, &mut rng, ring, *quad_indices)?;
                    streamed.push(StreamedDraw { draw: drawn, ..log });
                    bind_mesh(&mut b, &mesh, &mut bound_arrays)?;
                    current_mesh = None;
                    Some(mesh)
                }
                _ => None,
            };
            let mesh = match &particles {
                Some(mesh) => mesh,
                None => {
                    let mesh_index = if two_d {
                        3 * rng.below(meshes.len() / 3) + 2
                    } else {
                        rng.below(meshes.len())
                    };
                    if current_mesh != Some(mesh_index) {
                        bind_mesh(&mut b, &meshes[mesh_index], &mut bound_arrays)?;
                        current_mesh = Some(mesh_index);
                    }
                    &meshes[mesh_index]
                }
            };
            let transform = if two_d {
                screen(&mut rng)
            } else {
                mul(&camera, &world(&mut rng))
            };
            b.set_transform_constants(u32::from(vp.mvp), &rows(&transform))?;
            if let Some(slot) = fp.tint_slot {
                let mut ucode = fp.ucode.clone();
                let tint = TINTS[rng.below(TINTS.len())];
                rsxtrace_program::container::set_uniform(&mut ucode, &[slot * 16], tint).map_err(
                    |e| BuildError::InvalidArgument {
                        what: "tint slot",
                        detail: e.to_string(),
                    },
                )?;
                let at = ring_base + ((drawn % RING) * ring_stride) as u32;
                b.set_fragment_program(Location::Local, at, &ucode, fp.control)?;
            }
            let part = match particles {
                Some(_) => mesh.parts[0],
                None => mesh.parts[rng.below(mesh.parts.len())],
            };
            if mesh.index_offset.is_some() {
                b.draw_indexed(mesh.primitive, &[part])?;
            } else {
                b.draw_arrays(mesh.primitive, &[part])?;
            }
            drawn += 1;
        }
    }
    b.flip(0);
    Ok((b.finish(), streamed))
}

/// Write one batch of particle quads at the ring's head: the mesh to bind, and the log entry
/// (its draw index still to fill in).
fn stream_particles(
    b: &mut CaptureBuilder,
    rng: &mut Rng,
    ring: &mut ring::Ring,
    quad_indices: u32,
) -> Result<(Mesh, StreamedDraw), BuildError> {
    let quads = 8 + rng.below(ring::MAX_QUADS as usize - 7) as u32;
    let (bytes, first_position) = ring::particles(rng, quads);
    let (offset, wrapped) =
        ring.push(bytes.len() as u32)
            .ok_or_else(|| BuildError::InvalidArgument {
                what: "ring buffer",
                detail: format!("{} bytes do not fit in {}", bytes.len(), ring.size),
            })?;
    b.put_memory(ring.location, offset, &bytes)?;
    let mesh = ring::streamed_mesh(ring.location, offset, quad_indices, quads);
    let log = StreamedDraw {
        draw: 0,
        location: ring.location,
        offset,
        vertices: 4 * quads,
        wrapped,
        first_position,
    };
    Ok((mesh, log))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camera_maps_the_origin_in_front_of_the_eye() {
        // The origin is 61.19 units in front of the eye: clip w = 61.19 > 0, and it projects
        // to the screen centre (x = y = 0).
        let c = camera();
        let w = c[3][3];
        assert!((w - (12.0f64 * 12.0 + 60.0 * 60.0).sqrt()).abs() < 1e-9);
        assert!(c[0][3].abs() < 1e-12 && c[1][3].abs() < 1e-12);
        let z_ndc = c[2][3] / w;
        assert!((-1.0..1.0).contains(&z_ndc));
    }

    #[test]
    fn a_small_frame_builds_and_decodes() {
        let capture = build(&GameFrameOptions {
            draws: 60,
            ..GameFrameOptions::default()
        })
        .unwrap();
        let frame = rsxtrace_capture::frame::Frame::from_capture(&capture).unwrap();
        assert_eq!(frame.draws.len(), 60);
        assert!(frame.draws.iter().all(|d| d.problems.is_empty()));
    }
}
