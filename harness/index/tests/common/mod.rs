//! Shared by the index tests: the bundled captures, a small scene built here with what the
//! samples lack (a shadow pass into a square depth-only target, a vertex program reading
//! constants through A0, a fragment program reading FOGC), and a database of them all.

#![allow(dead_code)]

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget};
use rsxtrace_capture::rrc::Location;
use rsxtrace_index::{index_file, CaptureReport, Database};
use rsxtrace_program::fragment::{self, InputAttribute};
use rsxtrace_program::vertex;
use std::path::{Path, PathBuf};

/// The bundled samples and the level, in the order they are indexed.
pub fn bundled() -> Vec<PathBuf> {
    let ws = rsxtrace_testkit::workspace!();
    let samples = ws.samples_dir();
    let mut out: Vec<PathBuf> = ["basic", "game", "primitives", "texture_formats"]
        .iter()
        .map(|n| samples.join(format!("{n}.rrc.gz")))
        .collect();
    out.push(ws.root().join("traces/level/level.rrc.gz"));
    out
}

/// The scene's file name.
pub const SCENE: &str = "workbench_scene.rrc.gz";
/// Side of the scene's shadow map.
pub const SHADOW_SIDE: u16 = 1024;

/// What the scene was built with.
pub struct SceneTruth {
    /// The light matrix of each shadow draw (draws 0, 1, 2): rows c0..c3.
    pub light: Vec<[[f32; 4]; 4]>,
    /// Draws of the colour pass (after the shadow draws), each reading c[A0+32] and FOGC.
    pub colour_draws: usize,
}

fn light(k: usize) -> [[f32; 4]; 4] {
    let s = 0.01 * (k + 1) as f32;
    [
        [s, 0.0, 0.0, 0.25 * k as f32],
        [0.0, 0.0, -s, 0.5],
        [0.0, -0.005, 0.0, 0.75],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

/// `mvp_vertex_program(32)` whose `DP4` with `c[32]` reads `c[A0+32]` instead.
fn indexed_vertex_program() -> Vec<u32> {
    let mut p = vertex::decode_words(&mvp_vertex_program(32)).unwrap();
    let insn = p
        .instructions
        .iter_mut()
        .find(|i| i.const_index == 32)
        .unwrap();
    insn.index_const = true;
    vertex::encode(&p)
}

/// `MOV R0, f[FOGC]`: FRAGMENT_MOV_COL0 reading the fog coordinate.
fn fogc_fragment_program() -> Vec<u8> {
    let mut p = fragment::decode(&FRAGMENT_MOV_COL0).unwrap();
    p.instructions[0].input = InputAttribute::FOGC;
    fragment::encode(&p)
}

/// Build the scene: three shadow draws into a 1024x1024 depth-only target (vertex program
/// reading c0..c3, the light matrix), then two colour draws into a 256x256 A8R8G8B8 target.
pub fn scene() -> (rsxtrace_capture::rrc::Capture, SceneTruth) {
    let mut b = CaptureBuilder::new(SCENE);
    let triangle: Vec<u8> = [
        0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0,
    ]
    .iter()
    .flat_map(|v| v.to_be_bytes())
    .collect();
    b.put_memory(Location::Main, 0x1000, &triangle).unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
        .unwrap();
    let target = |offset| SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: u32::from(SHADOW_SIDE) * 4,
    };
    b.set_surface(&SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (10, 10),
        color_target: 0,
        colors: [target(0); 4],
        zeta: target(0x0040_0000),
        clip: (0, 0, SHADOW_SIDE, SHADOW_SIDE),
    });
    b.set_color_mask(0);
    b.set_depth(true, 0x0203, true);
    b.set_vertex_program(&mvp_vertex_program(0), 0, 0, 0b1, 0b1)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x0080_0000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    let mut truth = SceneTruth {
        light: Vec::new(),
        colour_draws: 2,
    };
    for k in 0..3 {
        let m = light(k);
        b.set_transform_constants(0, &m).unwrap();
        truth.light.push(m);
        b.draw_arrays(5, &[(0, 3)]).unwrap();
    }
    b.set_surface(&SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (8, 8),
        color_target: 1,
        colors: [SurfaceTarget {
            location: Location::Local,
            offset: 0x0100_0000,
            pitch: 1024,
        }; 4],
        zeta: SurfaceTarget {
            location: Location::Local,
            offset: 0x0110_0000,
            pitch: 1024,
        },
        clip: (0, 0, 256, 256),
    });
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&indexed_vertex_program(), 0, 0, 0b1, 0b1)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x0080_0100, &fogc_fragment_program(), 0x40)
        .unwrap();
    for k in 0..truth.colour_draws {
        b.set_transform_constants(32, &light(k + 5)).unwrap();
        b.draw_arrays(5, &[(0, 3)]).unwrap();
    }
    (b.finish(), truth)
}

/// The captures of the test database, in index order: the bundled ones, then the scene
/// (written under `dir`).
pub fn captures(dir: &Path) -> Vec<PathBuf> {
    let mut out = bundled();
    let path = dir.join(SCENE);
    std::fs::write(&path, rsxtrace_capture::rrc::write_v6(&scene().0)).unwrap();
    out.push(path);
    out
}

/// A database of [`captures`] in `dir`, with the reports.
pub fn database(dir: &Path) -> (Database, Vec<CaptureReport>) {
    let mut db = Database::open(&dir.join("index.sqlite")).unwrap();
    let reports = captures(dir)
        .iter()
        .map(|p| index_file(&mut db, p, &|_| {}).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect();
    (db, reports)
}
