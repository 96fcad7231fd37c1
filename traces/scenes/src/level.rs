//! The synthetic level in `traces/level/` (issue 8): a camera, placements of meshes, draws
//! placed by something else, an identity-world sky dome, a draw without c32..c35 and a
//! full-screen fog pass reading `MainInv`, built with the capture builder, with its ground
//! truth. `tests/level_current.rs` checks that the checked-in files equal what [`build`]
//! makes; regenerate them with
//! `RSXTRACE_UPDATE_SAMPLES=1 cargo test -p rsxtrace --test integration level_current::`.
//!
//! Conventions: world matrices and the view-projection are row-vector (`v x W x VP`,
//! `docs/probes.md`); the vertex program computes clip component k as dot(c[32+k], v), so
//! every draw's c32..c35 are the rows of `(W x VP)^T` (the "transposed" convention).

mod fog;
mod geometry;

pub use fog::{fog_program, FogParams, FogProgram};
pub use geometry::{MeshData, STRIDE};

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::{
    BuildError, CaptureBuilder, IndexType, SurfaceDesc, SurfaceTarget, TextureDesc,
};
use rsxtrace_capture::rrc::{self, Capture, Location};
use rsxtrace_program::vertex::{self, InputAttribute as VpInput, OutputRegister};
use rsxtrace_verify::probe::matrix::{self, compose, Mat4};
use rsxtrace_verify::probe::placement::{placements_to_json, Placement};
use serde_json::{json, Value};
use std::path::Path;

/// Files of the level, relative to `traces/level/`.
pub const CAPTURE_FILE: &str = "level.rrc.gz";
/// The placements file.
pub const PLACEMENTS_FILE: &str = "placements.json";
/// The directory of mesh files.
pub const MESHES_DIR: &str = "meshes";
/// The fog program's container.
pub const FOG_FILE: &str = "fog.fpo";
/// The view-projection file.
pub const VIEW_PROJECTION_FILE: &str = "view_projection.json";
/// The ground truth.
pub const GROUND_TRUTH_FILE: &str = "ground_truth.json";

/// Render target size.
const WIDTH: u16 = 256;
const HEIGHT: u16 = 256;
/// Side of the depth and scene textures the fog pass samples.
const TEXTURE_SIDE: u32 = 32;

/// Primitive code of `SET_BEGIN_END` (rrc-format.md 4.2).
const TRIANGLES: u32 = 5;
const QUADS: u32 = 8;
/// Vertex array type code of float (rrc-format.md 4.3).
const TYPE_F: u32 = 2;

/// Guest memory layout (main memory): vertex pool, index pool, textures, programs.
const VERTEX_POOL: u32 = 0x0010_0000;
const INDEX_POOL: u32 = 0x0020_0000;
const TEXTURE_POOL: u32 = 0x0030_0000;
const PROGRAM_POOL: u32 = 0x0000_1000;

/// Which inverse the fog pass's `MainInv` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FogSpace {
    /// `inverse(V x P)`: the rebuilt position is in world space.
    #[default]
    World,
    /// `inverse(P)`: the rebuilt position is in view space.
    View,
}

impl FogSpace {
    /// `"world"` or `"view"`.
    pub fn name(self) -> &'static str {
        match self {
            FogSpace::World => "world",
            FogSpace::View => "view",
        }
    }
}

/// Variants of the level for the wrong-hypothesis tests.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct LevelOptions {
    /// The space of `MainInv`.
    pub fog_space: FogSpace,
    /// Move placement `index` by `offset` (world units) in the placements file only, so
    /// the capture no longer agrees with it.
    pub moved_placement: Option<(usize, [f64; 3])>,
}

/// The built level: everything `traces/level/` holds except its README.
#[derive(Clone, Debug)]
pub struct Level {
    /// The capture.
    pub capture: Capture,
    /// The placements file's text.
    pub placements_json: String,
    /// Mesh files: name without extension, vertex bytes.
    pub meshes: Vec<(String, Vec<u8>)>,
    /// The fog program's `CgBinaryProgram`.
    pub fog_container: Vec<u8>,
    /// The camera's view-projection, row-vector.
    pub view_projection: Mat4,
    /// The ground truth (format in `traces/level/README.md`).
    pub ground_truth: Value,
}

/// A level that cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum LevelError {
    /// The capture builder refused a call.
    #[error("capture builder: {0}")]
    Build(#[from] BuildError),
    /// The fog program could not be written.
    #[error("fog program: {0}")]
    Fog(String),
    /// An option names something the level does not have.
    #[error("{0}")]
    Option(String),
}

/// The camera: view, projection and their product, row-vector.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World to view.
    pub view: Mat4,
    /// View to clip; depth 0 at the near plane and 1 at the far plane (viewport z scale 1,
    /// offset 0), so a depth-buffer value is clip z / w.
    pub projection: Mat4,
    /// `view x projection`.
    pub view_projection: Mat4,
}

/// The level's camera: at (4, 6, 28), turned 8 degrees left and 12 down, 60-degree vertical
/// field of view, square aspect, near 0.5, far 1000.
pub fn camera() -> Camera {
    let pitch = compose([1.0; 3], [1.0, 0.0, 0.0], -12.0, [0.0; 3]);
    let yaw = compose([1.0; 3], [0.0, 1.0, 0.0], 8.0, [4.0, 6.0, 28.0]);
    let camera_world = matrix::mul(&pitch, &yaw);
    let view = matrix::inverse(&camera_world).unwrap_or(matrix::IDENTITY);
    let f = 1.0 / 30f64.to_radians().tan();
    let (near, far) = (0.5, 1000.0);
    // Column-vector form: z_clip = a z + b, w_clip = -z, so that z = -near gives depth 0
    // and z = -far depth 1.
    let a = far / (near - far);
    let b = far * near / (near - far);
    let projection_columns: Mat4 = [
        [f, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, a, b],
        [0.0, 0.0, -1.0, 0.0],
    ];
    let projection = matrix::transpose(&projection_columns);
    Camera {
        view,
        projection,
        view_projection: matrix::mul(&view, &projection),
    }
}

/// What a draw is, in the ground truth.
#[derive(Clone, Debug, PartialEq)]
struct DrawTruth {
    kind: &'static str,
    placement: Option<String>,
    mesh: Option<&'static str>,
    verdict: Option<Value>,
}

/// The placements: 33 instances of the three meshes, each with its own rotation, scale and
/// translation. `pillar_06`'s world is `wedge_05`'s (a twin only mesh identity separates).
pub fn placements() -> Vec<Placement> {
    let names = ["crate", "wedge", "pillar"];
    let axes = [
        [0.0, 1.0, 0.0],
        [0.2, 1.0, 0.1],
        [0.0, 1.0, -0.3],
        [1.0, 0.3, 0.0],
    ];
    let scales = [
        [1.0, 1.0, 1.0],
        [1.5, 1.5, 1.5],
        [2.0, 1.0, 1.0],
        [0.75, 0.75, 0.75],
        [1.0, 2.5, 1.0],
        [1.25, 1.0, 0.8],
    ];
    let mut out: Vec<Placement> = Vec::with_capacity(33);
    for i in 0..33usize {
        let kind = i % 3;
        let n = i / 3;
        let x = (i % 11) as f64 * 5.5 - 27.0 + (i as f64 * 0.37).sin();
        let z = -((i / 11) as f64) * 13.0 - 8.0 + (i as f64 * 0.71).cos() * 2.0;
        let y = if kind == 0 { 0.5 } else { 0.0 };
        let degrees = 11.0 * i as f64 + 7.0;
        let mut world = compose(
            scales[i % scales.len()],
            axes[i % axes.len()],
            degrees,
            [x, y, z],
        );
        if names[kind] == "pillar" && n == 6 {
            if let Some(twin) = out.iter().find(|p| p.id == "wedge_05") {
                world = twin.world;
            }
        }
        out.push(Placement {
            id: format!("{}_{n:02}", names[kind]),
            mesh: Some(names[kind].to_string()),
            world,
        });
    }
    out
}

/// The world matrices of the draws placed by something else, with their kind of verdict.
fn others(placements: &[Placement]) -> Vec<(&'static str, Mat4, Value)> {
    let find = |id: &str| placements.iter().find(|p| p.id == id).map(|p| p.world);
    let mut out = Vec::new();
    if let Some(mut w) = find("crate_02") {
        w[3][0] += 7.0;
        w[3][2] -= 3.0;
        out.push((
            "crate",
            w,
            json!({"kind": "near", "placement": "crate_02", "differs": "translation"}),
        ));
    }
    if let Some(w) = find("crate_05") {
        // Twice the scale: rows 0..2 doubled, the translation kept.
        let mut s = w;
        for row in s.iter_mut().take(3) {
            for v in row.iter_mut().take(3) {
                *v *= 2.0;
            }
        }
        out.push((
            "crate",
            s,
            json!({"kind": "near", "placement": "crate_05", "differs": "scale"}),
        ));
    }
    out.push((
        "pillar",
        compose([1.0; 3], [1.0, 0.0, 1.0], 25.0, [-31.0, 0.0, -4.0]),
        json!({"kind": "rigid"}),
    ));
    let mut sheared = compose([1.0; 3], [0.0, 1.0, 0.0], 40.0, [12.0, 0.0, -20.0]);
    sheared[1][0] += 0.6;
    out.push(("wedge", sheared, json!({"kind": "sheared"})));
    out
}

fn f32_rows(m: &Mat4) -> [[f32; 4]; 4] {
    m.map(|r| r.map(|v| v as f32))
}

fn rows_json(m: &Mat4) -> Value {
    json!(m.iter().map(|r| r.to_vec()).collect::<Vec<_>>())
}

fn be_floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

/// The MVP vertex program writing TEX0 from v[8] instead of COL0 from v[3] (the fog quad).
fn textured_vertex_program() -> Result<Vec<u32>, BuildError> {
    let mut program =
        vertex::decode_words(&mvp_vertex_program(32)).map_err(|e| BuildError::InvalidArgument {
            what: "vertex program",
            detail: e.to_string(),
        })?;
    if let Some(first) = program.instructions.first_mut() {
        first.input = VpInput(8);
        first.output = Some(OutputRegister(7)); // TEX0 (rsx-microcode.md B.8 outputs)
    }
    Ok(vertex::encode(&program))
}

fn surface() -> SurfaceDesc {
    let target = |offset| SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: u32::from(WIDTH) * 4,
    };
    SurfaceDesc {
        color_format: 8, // A8R8G8B8
        depth_format: 2, // Z24S8
        surface_type: 1, // pitch
        antialias: 0,
        log2_size: (8, 8),
        color_target: 1,
        colors: [
            target(0),
            target(0x0004_0000),
            target(0x0008_0000),
            target(0x000C_0000),
        ],
        zeta: target(0x0020_0000),
        clip: (0, 0, WIDTH, HEIGHT),
    }
}

/// A linear A8R8G8B8 texture at `offset` (main memory), nearest filtering, clamped.
fn texture(offset: u32, bytes: u32) -> TextureDesc {
    TextureDesc {
        offset,
        location: Location::Main,
        format: 0x85 | 0x20, // A8R8G8B8, linear
        dimension: 2,
        cubemap: false,
        mipmaps: 1,
        width: TEXTURE_SIDE as u16,
        height: TEXTURE_SIDE as u16,
        depth: 1,
        pitch: TEXTURE_SIDE * 4,
        address: 0x0003_0303, // clamp to edge on s, t, r
        // Enabled; min LOD 0, max LOD 12.0 in 4.8 fixed point (bits 7..18).
        control0: 0x8000_0000 | ((12 << 8) << 7),
        remap: 0x0000_AAE4,            // identity remap (A R G B)
        filter: (1 << 16) | (1 << 24), // nearest min and mag
        border_color: 0,
        byte_size: bytes,
        border_texels: false,
    }
}

/// The depth texture: for each texel centre, the depth (clip z / w) of the ground plane
/// y = 0 seen by the camera, or 1 where the ray misses it, as 24 bits in R, G, B (A = 0xFF).
fn depth_texture(camera: &Camera) -> Vec<u8> {
    let inverse = matrix::inverse(&camera.view_projection).unwrap_or(matrix::IDENTITY);
    let unproject = |x: f64, y: f64, z: f64| {
        let p = matrix::row_times(&[x, y, z, 1.0], &inverse);
        [p[0] / p[3], p[1] / p[3], p[2] / p[3]]
    };
    let mut out = Vec::with_capacity((TEXTURE_SIDE * TEXTURE_SIDE * 4) as usize);
    for ty in 0..TEXTURE_SIDE {
        for tx in 0..TEXTURE_SIDE {
            let u = (f64::from(tx) + 0.5) / f64::from(TEXTURE_SIDE);
            let v = (f64::from(ty) + 0.5) / f64::from(TEXTURE_SIDE);
            let (x, y) = (2.0 * u - 1.0, 1.0 - 2.0 * v);
            let near = unproject(x, y, 0.0);
            let far = unproject(x, y, 1.0);
            let t = near[1] / (near[1] - far[1]);
            let depth = if (0.0..=1.0).contains(&t) {
                let hit = [
                    near[0] + t * (far[0] - near[0]),
                    0.0,
                    near[2] + t * (far[2] - near[2]),
                ];
                let clip =
                    matrix::row_times(&[hit[0], hit[1], hit[2], 1.0], &camera.view_projection);
                clip[2] / clip[3]
            } else {
                1.0
            };
            let d24 = (depth.clamp(0.0, 1.0) * 16_777_216.0)
                .round()
                .min(16_777_215.0) as u32;
            out.extend_from_slice(&[0xFF, (d24 >> 16) as u8, (d24 >> 8) as u8, d24 as u8]);
        }
    }
    out
}

/// The scene texture: a blue-to-green gradient.
fn scene_texture() -> Vec<u8> {
    let mut out = Vec::with_capacity((TEXTURE_SIDE * TEXTURE_SIDE * 4) as usize);
    for ty in 0..TEXTURE_SIDE {
        for tx in 0..TEXTURE_SIDE {
            out.extend_from_slice(&[0xFF, (tx * 8) as u8, (ty * 8) as u8, 0xC0]);
        }
    }
    out
}

/// The fog parameters of the level: fog from 10 to 80 units in front along -z (the camera
/// looks down -z), in a band of heights from -2 to 6.
pub const FOG: FogParams = FogParams {
    distance: [-10.0, -80.0],
    height: [-2.0, 6.0],
    colour: [0.62, 0.66, 0.72, 0.4157],
};

/// The three meshes the level places, with their indices: the crate (a unit cube of 24
/// vertices), the wedge (a ramp of 18) and the pillar (an open cylinder of 26).
pub fn meshes() -> [MeshData; 3] {
    [geometry::crate_box(), geometry::wedge(), geometry::pillar()]
}

/// Build the level.
pub fn build(options: &LevelOptions) -> Result<Level, LevelError> {
    let cam = camera();
    let vp = cam.view_projection;
    let placements = placements();
    let meshes = meshes();
    let sky = geometry::sky_dome();

    let mut b = CaptureBuilder::new(CAPTURE_FILE);
    let (width, height) = (u32::from(WIDTH), u32::from(HEIGHT));
    crate::samples::show_target(&mut b, width, height, width * 4, 0);
    b.set_surface(&surface());
    let (w, h) = (f32::from(WIDTH), f32::from(HEIGHT));
    b.set_viewport(
        0,
        0,
        WIDTH,
        HEIGHT,
        (0.0, 1.0),
        [w / 2.0, h / 2.0, 0.0, 0.0],
        [w / 2.0, -h / 2.0, 1.0, 0.0],
    );
    b.set_scissor(0, 0, WIDTH, HEIGHT);
    b.set_depth(true, 0x0201, true); // LESS
    b.clear_surface(0xF3, 0xFF40_4860, 0xFFFF_FF00);
    b.set_fragment_program(
        Location::Main,
        PROGRAM_POOL,
        &FRAGMENT_MOV_COL0,
        0x0200_0040,
    )?;

    // Geometry in guest memory: each mesh's vertices then one spare vertex of zeros (RPCS3
    // captures an element past the highest index, rrc-format.md 3.3), then its indices.
    let mut vertex_at = VERTEX_POOL;
    let mut index_at = INDEX_POOL;
    let mut place = |b: &mut CaptureBuilder, m: &MeshData| -> Result<(u32, u32), BuildError> {
        let mut bytes = m.vertex_bytes();
        bytes.extend_from_slice(&[0u8; STRIDE as usize]);
        let v = vertex_at;
        b.put_memory(Location::Main, v, &bytes)?;
        vertex_at = (v + bytes.len() as u32 + 0xFF) & !0xFF;
        let i = index_at;
        let indices = m.index_bytes();
        b.put_memory(Location::Main, i, &indices)?;
        index_at = (i + indices.len() as u32 + 0xFF) & !0xFF;
        Ok((v, i))
    };
    let mut mesh_at = Vec::new();
    for m in &meshes {
        mesh_at.push(place(&mut b, m)?);
    }
    let sky_at = place(&mut b, &sky)?;
    let hud = geometry::MeshData {
        name: "hud",
        vertices: vec![
            [-0.9, 0.8, 0.0, 0.0, 0.0, 1.0],
            [-0.6, 0.8, 0.0, 0.0, 0.0, 1.0],
            [-0.6, 0.9, 0.0, 0.0, 0.0, 1.0],
            [-0.9, 0.9, 0.0, 0.0, 0.0, 1.0],
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
    };
    let hud_at = place(&mut b, &hud)?;

    let set_mesh = |b: &mut CaptureBuilder, (v, i): (u32, u32)| -> Result<(), BuildError> {
        b.set_vertex_array(0, TYPE_F, 3, STRIDE, 0, Location::Main, v)?;
        // The colour input reads the normal, interleaved in the same vertices.
        b.set_vertex_array(3, TYPE_F, 3, STRIDE, 0, Location::Main, v + 12)?;
        b.set_index_array(Location::Main, i, IndexType::U16)
    };
    let mut truth: Vec<DrawTruth> = Vec::new();

    // Draw 0: a HUD quad whose vertex program reads c0..c3, before any c32..c35 exists.
    b.set_vertex_program(&mvp_vertex_program(0), 0, 0, 0b1001, 0b1)?;
    b.set_transform_constants(0, &f32_rows(&matrix::IDENTITY))?;
    set_mesh(&mut b, hud_at)?;
    b.draw_indexed(TRIANGLES, &[(0, 6)])?;
    truth.push(DrawTruth {
        kind: "no_constants",
        placement: None,
        mesh: None,
        verdict: None,
    });

    // Draw 1: the sky dome, world = identity, so c32..c35 = VP^T.
    b.set_vertex_program(&mvp_vertex_program(32), 0, 0, 0b1001, 0b1)?;
    b.set_transform_constants(32, &f32_rows(&matrix::transpose(&vp)))?;
    set_mesh(&mut b, sky_at)?;
    b.draw_indexed(TRIANGLES, &[(0, sky.indices.len() as u32)])?;
    truth.push(DrawTruth {
        kind: "sky",
        placement: None,
        mesh: None,
        verdict: Some(json!({"kind": "identity"})),
    });

    // The placed draws, in file order; crate_03 and pillar_02 draw part of their mesh.
    let mesh_index = |name: &str| meshes.iter().position(|m| m.name == name);
    for p in &placements {
        let Some(k) = p.mesh.as_deref().and_then(mesh_index) else {
            continue;
        };
        let m = &meshes[k];
        b.set_transform_constants(
            32,
            &f32_rows(&matrix::transpose(&matrix::mul(&p.world, &vp))),
        )?;
        set_mesh(&mut b, mesh_at[k])?;
        let range = match p.id.as_str() {
            "crate_03" => (6, 12),  // faces 1 and 2: vertices 4..11
            "pillar_02" => (0, 36), // the first 12 triangles: vertices 0..13
            _ => (0, m.indices.len() as u32),
        };
        b.draw_indexed(TRIANGLES, &[range])?;
        truth.push(DrawTruth {
            kind: "placed",
            placement: Some(p.id.clone()),
            mesh: Some(m.name),
            verdict: Some(json!({"kind": "placement"})),
        });
    }

    // Draws placed by something else.
    for (mesh, world, verdict) in others(&placements) {
        let Some(k) = mesh_index(mesh) else { continue };
        b.set_transform_constants(32, &f32_rows(&matrix::transpose(&matrix::mul(&world, &vp))))?;
        set_mesh(&mut b, mesh_at[k])?;
        b.draw_indexed(TRIANGLES, &[(0, meshes[k].indices.len() as u32)])?;
        truth.push(DrawTruth {
            kind: "other",
            placement: None,
            mesh: Some(meshes[k].name),
            verdict: Some(verdict),
        });
    }

    // The fog pass: a full-screen quad in clip space (c32..c35 = identity), TEX0 = (u, v)
    // with v down, scene colour at unit 0 and depth bytes at unit 1.
    let main_inv = match options.fog_space {
        FogSpace::World => matrix::inverse(&vp),
        FogSpace::View => matrix::inverse(&cam.projection),
    }
    .ok_or_else(|| LevelError::Fog("the camera matrix is singular".into()))?;
    let fog = fog_program(&f32_rows(&main_inv), &FOG).map_err(LevelError::Fog)?;
    let scene = scene_texture();
    let depth = depth_texture(&cam);
    let scene_at = TEXTURE_POOL;
    let depth_at = TEXTURE_POOL + 0x1_0000;
    b.put_memory(Location::Main, scene_at, &scene)?;
    b.put_memory(Location::Main, depth_at, &depth)?;
    b.set_texture(0, &texture(scene_at, scene.len() as u32))?;
    b.set_texture(1, &texture(depth_at, depth.len() as u32))?;
    b.set_vertex_program(&textured_vertex_program()?, 0, 0, 0b1_0000_0001, 0x4001)?;
    b.set_transform_constants(32, &f32_rows(&matrix::IDENTITY))?;
    b.set_fragment_program(
        Location::Main,
        PROGRAM_POOL + 0x100,
        &fog.ucode,
        fog.control,
    )?;
    b.set_depth(false, 0x0201, false);
    let quad = be_floats(&[
        -1.0, -1.0, 0.0, 0.0, 1.0, //
        1.0, -1.0, 0.0, 1.0, 1.0, //
        1.0, 1.0, 0.0, 1.0, 0.0, //
        -1.0, 1.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 0.0, 0.0, 0.0, // spare element
    ]);
    let quad_at = vertex_at;
    b.put_memory(Location::Main, quad_at, &quad)?;
    b.disable_vertex_array(3)?;
    b.set_vertex_array(0, TYPE_F, 3, 20, 0, Location::Main, quad_at)?;
    b.set_vertex_array(8, TYPE_F, 2, 20, 0, Location::Main, quad_at + 12)?;
    b.draw_arrays(QUADS, &[(0, 4)])?;
    let fog_draw = truth.len();
    truth.push(DrawTruth {
        kind: "fog",
        placement: None,
        mesh: None,
        verdict: None,
    });
    b.flip(0);
    let capture = b.finish();

    // The placements file, with the optional moved placement.
    let mut file_placements = placements.clone();
    if let Some((index, offset)) = options.moved_placement {
        let p = file_placements
            .get_mut(index)
            .ok_or_else(|| LevelError::Option(format!("no placement {index} to move")))?;
        for (k, d) in offset.iter().enumerate() {
            p.world[3][k] += d;
        }
    }

    let draws: Vec<Value> = truth
        .iter()
        .enumerate()
        .map(|(draw, t)| {
            json!({
                "draw": draw,
                "kind": t.kind,
                "placement": t.placement,
                "mesh": t.mesh,
                "verdict": t.verdict,
            })
        })
        .collect();
    let mut ground_truth = json!({
        "view_projection": rows_json(&vp),
        "view": rows_json(&cam.view),
        "projection": rows_json(&cam.projection),
        "convention": "transposed",
        "draws": draws,
        "fog": {
            "program": FOG_FILE,
            "uniform": "MainInv",
            "space": options.fog_space.name(),
            "main_inv": rows_json(&main_inv),
            "draws": [fog_draw],
            "scene_texture_unit": 0,
            "depth_texture_unit": 1,
            "distance": FOG.distance,
            "height": FOG.height,
            "colour": FOG.colour,
        },
    });
    if let (Some((index, offset)), Some(map)) =
        (options.moved_placement, ground_truth.as_object_mut())
    {
        map.insert(
            "moved_placement".into(),
            json!({"id": placements.get(index).map(|p| p.id.clone()), "offset": offset}),
        );
    }
    Ok(Level {
        capture,
        placements_json: placements_to_json(&file_placements),
        meshes: meshes
            .iter()
            .map(|m| (m.name.to_string(), m.vertex_bytes()))
            .collect(),
        fog_container: fog.container,
        view_projection: vp,
        ground_truth,
    })
}

/// The view-projection file's text.
pub fn view_projection_json(vp: &Mat4) -> String {
    let mut text = serde_json::to_string_pretty(&json!({ "view_projection": rows_json(vp) }))
        .unwrap_or_default();
    text.push('\n');
    text
}

/// The files of `level` as (path relative to the level directory, bytes), README excluded.
pub fn files(level: &Level) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![
        (CAPTURE_FILE.to_string(), rrc::write_v6(&level.capture)),
        (
            PLACEMENTS_FILE.to_string(),
            level.placements_json.clone().into_bytes(),
        ),
        (FOG_FILE.to_string(), level.fog_container.clone()),
        (
            VIEW_PROJECTION_FILE.to_string(),
            view_projection_json(&level.view_projection).into_bytes(),
        ),
        (GROUND_TRUTH_FILE.to_string(), {
            let mut t = serde_json::to_string_pretty(&level.ground_truth).unwrap_or_default();
            t.push('\n');
            t.into_bytes()
        }),
    ];
    for (name, bytes) in &level.meshes {
        out.push((format!("{MESHES_DIR}/{name}.bin"), bytes.clone()));
    }
    out
}

/// Write the level's files under `dir`.
pub fn write(level: &Level, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join(MESHES_DIR))?;
    for (name, bytes) in files(level) {
        std::fs::write(dir.join(name), bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_program::fragment;
    use rsxtrace_replay::interp::fragment::{attr, run_single_quad, FragmentState, QuadInputs};
    use rsxtrace_replay::texture::{SampleRequest, Sampler};

    /// Unit 0: a constant scene colour; unit 1: the depth bytes of one point.
    struct Textures {
        scene: [f32; 4],
        depth: [u8; 3],
    }

    impl Sampler for Textures {
        fn sample(&self, unit: u8, _request: &SampleRequest) -> [f32; 4] {
            match unit {
                0 => self.scene,
                1 => {
                    let [r, g, b] = self.depth.map(|v| f32::from(v) / 255.0);
                    [r, g, b, 1.0]
                }
                _ => [0.0; 4],
            }
        }
    }

    fn smoothstep(t: f64) -> f64 {
        let t = t.clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    }

    /// The notes' fog formula at position `p`.
    fn expected(p: [f64; 3], scene: [f32; 4]) -> [f64; 3] {
        let [a1, a2] = FOG.distance.map(f64::from);
        let [a3, a4] = FOG.height.map(f64::from);
        let h = (a4 - a3) / 2.0;
        let f = smoothstep((p[2] - a1) / (a2 - a1))
            * smoothstep((p[1] - a3) / h)
            * smoothstep((a4 - p[1]) / h)
            * f64::from(FOG.colour[3]);
        std::array::from_fn(|k| {
            let s = f64::from(scene[k]);
            s + f * (f64::from(FOG.colour[k]) - s)
        })
    }

    #[test]
    fn fog_program_rebuilds_the_position_through_main_inv() {
        let cam = camera();
        let scene = [0.2f32, 0.4, 0.6, 1.0];
        // A point about 58 units ahead, 1.5 up: inside the distance and height bands.
        let world = [3.0, 1.5, -30.0];
        let clip = matrix::row_times(&[world[0], world[1], world[2], 1.0], &cam.view_projection);
        let ndc = [clip[0] / clip[3], clip[1] / clip[3], clip[2] / clip[3]];
        let (u, v) = ((ndc[0] + 1.0) / 2.0, (1.0 - ndc[1]) / 2.0);
        let d24 = (ndc[2] * 16_777_216.0).round() as u32;
        let textures = Textures {
            scene,
            depth: [(d24 >> 16) as u8, (d24 >> 8) as u8, d24 as u8],
        };
        let view = matrix::row_times(&[world[0], world[1], world[2], 1.0], &cam.view);
        let mut outputs = Vec::new();
        for (space, position) in [
            (FogSpace::World, world),
            (FogSpace::View, [view[0], view[1], view[2]]),
        ] {
            let main_inv = match space {
                FogSpace::World => matrix::inverse(&cam.view_projection),
                FogSpace::View => matrix::inverse(&cam.projection),
            }
            .unwrap();
            let fog = fog_program(&f32_rows(&main_inv), &FOG).unwrap();
            let program = fragment::decode(&fog.ucode).unwrap();
            let mut quad = QuadInputs {
                coverage: 1,
                ..Default::default()
            };
            quad.lanes[0].attributes[attr::TEX0] = [u as f32, v as f32, 0.0, 1.0];
            let out = run_single_quad(&program, &FragmentState::new(fog.control), &quad, &textures)
                .unwrap();
            let got = out.lanes[0].colors[0];
            let want = expected(position, scene);
            for k in 0..3 {
                assert!(
                    (got[k] - want[k]).abs() < 2e-3,
                    "{space:?}: {got:?} against {want:?}"
                );
            }
            assert_eq!(got[3], 1.0);
            outputs.push(got);
        }
        // In world space the point is in the fog; in view space the band moves with the
        // camera, and the point's view-space height is outside it.
        assert!(
            (outputs[0][0] - f64::from(scene[0])).abs() > 0.02,
            "{outputs:?}"
        );
        assert!((outputs[0][0] - outputs[1][0]).abs() > 0.02, "{outputs:?}");
    }
}
