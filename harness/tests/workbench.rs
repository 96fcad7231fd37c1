//! The reverse engineer's workbench through the CLI: `find`, `export gltf` and
//! `textures --dump` on the level, the samples and a capture built here with the odd cases
//! (a vertex program without a position output, an unsupported texture format, a DXT1 cube map
//! with mip levels, a 3D texture).
//!
//! Every expectation comes from the builders' inputs, not from the code under test: the
//! level's meshes (`rsxtrace_scenes::level::meshes`, the index and vertex bytes the level was
//! built from) and its ground truth, the texture-format sample's stored fields
//! (`texture_rules`), the texel and block bytes written here. Every exported GLB goes through
//! the Khronos glTF Validator (`rsxtrace_testkit::gltf_validator`).

use crate::texture_rules;

use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program;
use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget, TextureDesc};
use rsxtrace_capture::rrc::Location;
use rsxtrace_program::fragment::{self, FpOpcode, InputAttribute as FpInput};
use rsxtrace_program::vertex::{self, InputAttribute as VpInput, OutputRegister};
use rsxtrace_scenes::level;
use rsxtrace_scenes::texture_formats as tf;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Output;

fn workspace() -> rsxtrace_testkit::Workspace {
    rsxtrace_testkit::workspace!()
}

fn level_capture() -> PathBuf {
    workspace().level_dir().join(level::CAPTURE_FILE)
}

fn run(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .output()
        .expect("run rsxtrace")
}

/// Run, expect exit 0, parse stdout as JSON.
fn json(args: &[&str]) -> Value {
    let out = run(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The level's draws of mesh `name` (ground truth).
fn level_draws_of(name: &str) -> BTreeSet<u64> {
    let truth: Value = serde_json::from_slice(
        &std::fs::read(workspace().level_dir().join(level::GROUND_TRUTH_FILE)).unwrap(),
    )
    .unwrap();
    truth["draws"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["mesh"] == name)
        .map(|d| d["draw"].as_u64().unwrap())
        .collect()
}

fn draws_of(hit_use: &Value) -> BTreeSet<u64> {
    hit_use["draws"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect()
}

// ---------------------------------------------------------------------------------- find

#[test]
fn find_names_the_index_buffer_of_every_draw_of_a_mesh() {
    let crate_mesh = &level::meshes()[0];
    assert_eq!(crate_mesh.name, "crate");
    let indices = crate_mesh.index_bytes();
    let path = level_capture();
    let report = json(&[
        "find",
        path.to_str().unwrap(),
        "--hex",
        &hex(&indices),
        "--json",
    ]);
    assert_eq!(report["pattern"]["len"], indices.len());
    let hits = report["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{report:#}");
    let hit = &hits[0];
    assert_eq!(hit["kind"], "memory");
    assert_eq!(hit["location"], "main");
    let uses = hit["uses"].as_array().unwrap();
    let index_use = uses
        .iter()
        .find(|u| u["role"]["kind"] == "index_buffer")
        .expect("an index buffer use");
    assert_eq!(draws_of(index_use), level_draws_of("crate"), "{hit:#}");
    assert_eq!(index_use["element"], 0);

    // From element 6 on (crate_03 draws elements 6..18): the hit is at element 6.
    let tail = &indices[12..];
    let report = json(&[
        "find",
        path.to_str().unwrap(),
        "--hex",
        &hex(tail),
        "--json",
    ]);
    let hit = &report["hits"][0];
    let index_use = hit["uses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["role"]["kind"] == "index_buffer")
        .unwrap();
    assert_eq!(index_use["element"], 6);
    assert_eq!(hit["address"].as_u64().unwrap() % 2, 0);

    // The text table says it in words.
    let out = run(&["find", path.to_str().unwrap(), "--hex", &hex(&indices)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("index buffer of draws 2, 5, 8, 11, 14"),
        "{text}"
    );
    assert!(text.contains("at element 0"), "{text}");
}

#[test]
fn find_names_the_vertex_arrays_and_the_decoded_positions() {
    let crate_mesh = &level::meshes()[0];
    let vertices = crate_mesh.vertex_bytes();
    let path = level_capture();
    // Vertex 4's position and normal, at any alignment inside the interleaved buffer.
    let pattern = &vertices[4 * 24..4 * 24 + 24];
    let report = json(&[
        "find",
        path.to_str().unwrap(),
        "--hex",
        &hex(pattern),
        "--json",
    ]);
    let hit = &report["hits"][0];
    let uses = hit["uses"].as_array().unwrap();
    let position = uses
        .iter()
        .find(|u| u["role"] == serde_json::json!({"kind": "attribute", "attribute": 0}))
        .expect("attribute 0");
    assert_eq!(position["element"], 4);
    assert_eq!(draws_of(position), level_draws_of("crate"));
    let normal = uses
        .iter()
        .find(|u| u["role"] == serde_json::json!({"kind": "attribute", "attribute": 3}))
        .expect("attribute 3 (the normal, read as colour)");
    assert_eq!(
        normal["element"], 3,
        "12 bytes before element 4 of attribute 3"
    );
    assert_eq!(normal["offset_in_element"], 12);

    // Decoded: vertex 5's position as little-endian floats, as a PC tool writes it.
    let le: Vec<u8> = crate_mesh.vertices[5][..3]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let report = json(&[
        "find",
        path.to_str().unwrap(),
        "--hex",
        &hex(&le),
        "--decoded",
        "--json",
    ]);
    let decoded: Vec<&Value> = report["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["kind"] == "decoded")
        .collect();
    let at_5 = decoded
        .iter()
        .find(|h| h["uses"][0]["element"] == 5 && h["uses"][0]["component"] == 0)
        .unwrap_or_else(|| panic!("vertex 5 decoded: {report:#}"));
    assert_eq!(
        at_5["uses"][0]["role"],
        serde_json::json!({"kind": "attribute", "attribute": 0})
    );
    assert!(report["searched"]["decoded_streams"].as_u64().unwrap() > 0);
}

#[test]
fn find_a_texture_from_the_builders_texels() {
    let cells = tf::cells();
    let argb = cells.iter().position(|c| c.name == "A8R8G8B8").unwrap();
    let (texels, _) = tf::texture_bytes(&cells[argb]);
    let path = workspace().sample(tf::FILE);
    let report = json(&[
        "find",
        path.to_str().unwrap(),
        "--hex",
        &hex(&texels),
        "--json",
    ]);
    // Six quads sample these very bytes (each its own copy): the plain one and the rule
    // quads built from the same A8R8G8B8 cell.
    let expected: BTreeSet<u64> = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.format == 0x85 && c.linear)
        .map(|(i, _)| i as u64)
        .collect();
    assert_eq!(expected.len(), 6);
    let mut found = BTreeSet::new();
    for hit in report["hits"].as_array().unwrap() {
        for u in hit["uses"].as_array().unwrap() {
            assert_eq!(u["role"], serde_json::json!({"kind": "texture", "unit": 0}));
            assert_eq!(u["draws"].as_array().unwrap().len(), 1, "{hit:#}");
            found.extend(draws_of(u));
        }
    }
    assert_eq!(found, expected, "{report:#}");
}

#[test]
fn find_by_hash_names_blocks_and_draw_regions() {
    let crate_mesh = &level::meshes()[0];
    let indices = crate_mesh.index_bytes();
    let path = level_capture();
    let xxh3 = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&indices));
    let report = json(&["find", path.to_str().unwrap(), "--xxh3", &xxh3, "--json"]);
    let hit = &report["hits"][0];
    assert_eq!(hit["kind"], "block", "{report:#}");
    assert_eq!(hit["len"], indices.len());
    let index_use = hit["uses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["role"]["kind"] == "index_buffer")
        .unwrap();
    assert_eq!(draws_of(index_use), level_draws_of("crate"));

    // SHA-256 of the positions a crate draw's attribute 0 reads (vertices 0..=23 at stride
    // 24, the last one 12 bytes): a draw region, not a block.
    let vertices = crate_mesh.vertex_bytes();
    let region = &vertices[..23 * 24 + 12];
    let sha = hex(&Sha256::digest(region));
    let report = json(&["find", path.to_str().unwrap(), "--sha256", &sha, "--json"]);
    let hits = report["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{report:#}");
    assert_eq!(hits[0]["kind"], "region");
    assert_eq!(
        hits[0]["uses"][0]["role"],
        serde_json::json!({"kind": "attribute", "attribute": 0})
    );
    // crate_03 reads only vertices 4..=11: not this region.
    let mut whole = level_draws_of("crate");
    whole.remove(&11);
    assert_eq!(draws_of(&hits[0]["uses"][0]), whole);
}

/// Vertex programs are uploaded through the command stream, not captured as memory: `find`
/// searches them as a container holds them (big-endian words from the start slot through END).
#[test]
fn find_names_the_draws_that_run_a_vertex_program() {
    let dir = tempfile::tempdir().unwrap();
    let path = odd_capture(dir.path());
    let p = path.to_str().unwrap();
    let (no_position, textured) = odd_vertex_programs();
    let be = |words: &[u32]| -> Vec<u8> { words.iter().flat_map(|w| w.to_be_bytes()).collect() };

    // Slot 1 of draw 1's program: one hit, at byte 16 of it.
    let slot1 = &be(&textured)[16..32];
    assert_ne!(slot1, &be(&no_position)[16..32]);
    let report = json(&["find", p, "--hex", &hex(slot1), "--json"]);
    let hits: Vec<&Value> = report["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["kind"] == "vertex_program")
        .collect();
    assert_eq!(hits.len(), 1, "{report:#}");
    assert_eq!(hits[0]["location"], Value::Null);
    assert_eq!(hits[0]["address"], 16);
    let hit_use = &hits[0]["uses"][0];
    assert_eq!(hit_use["role"]["kind"], "vertex_program");
    assert_eq!(hit_use["element"], 1);
    assert_eq!(draws_of(hit_use), BTreeSet::from([1]));
    assert_eq!(report["searched"]["vertex_programs"], 2);

    // The SHA-256 of draw 0's whole program.
    let sha = hex(&Sha256::digest(be(&no_position)));
    let report = json(&["find", p, "--sha256", &sha, "--json"]);
    let hits = report["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{report:#}");
    assert_eq!(hits[0]["kind"], "vertex_program");
    assert_eq!(hits[0]["len"], no_position.len() * 4);
    assert_eq!(draws_of(&hits[0]["uses"][0]), BTreeSet::from([0]));

    // The table names it.
    let out = run(&["find", p, "--hex", &hex(slot1)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("vertex program of draw 1 at slot 1"),
        "{text}"
    );
}

#[test]
fn the_find_transcript_in_the_docs_is_true() {
    let doc = std::fs::read_to_string(workspace().root().join("docs/workbench.md")).unwrap();
    let command = "    $ rsxtrace find traces/level/level.rrc.gz --hex ";
    let start = doc
        .find(command)
        .expect("the transcript in docs/workbench.md");
    let mut lines = doc[start..].lines();
    let first = lines.next().unwrap();
    let hex = first[command.len()..].trim_matches('"');
    let expected: Vec<&str> = lines
        .take_while(|l| l.starts_with("    "))
        .map(|l| &l[4..])
        .collect();
    let out = run(&["find", level_capture().to_str().unwrap(), "--hex", hex]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let got: Vec<&str> = text.lines().collect();
    assert_eq!(got, expected);
}

#[test]
fn find_refuses_bad_patterns_and_reports_no_hit() {
    let path = level_capture();
    let p = path.to_str().unwrap();
    for args in [
        vec!["find", p, "--hex", "zz"],
        vec!["find", p, "--hex", "abc"],
        vec!["find", p, "--xxh3", "1234"],
        vec!["find", p, "--xxh3", "00112233445566ff", "--decoded"],
        vec!["find", p],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let report = json(&[
        "find",
        p,
        "--hex",
        "0123456789abcdeffedcba9876543210",
        "--json",
    ]);
    assert_eq!(report["hits"].as_array().unwrap().len(), 0);
    let out = run(&["find", p, "--hex", "0123456789abcdeffedcba9876543210"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 hits"));
}

// --------------------------------------------------------------------------- export gltf

struct Glb {
    doc: gltf::Gltf,
}

/// One exported mesh: positions, indices and extras.
type ExportedMesh = (Vec<[f32; 3]>, Vec<u32>, Value);

impl Glb {
    fn read(path: &Path) -> Glb {
        let bytes = std::fs::read(path).unwrap();
        Glb {
            doc: gltf::Gltf::from_slice(&bytes).expect("a GLB the gltf crate reads"),
        }
    }

    fn extras(mesh: &gltf::Mesh<'_>) -> Value {
        serde_json::from_str(mesh.extras().as_ref().expect("mesh extras").get()).unwrap()
    }

    /// `draw -> (positions, indices, extras)`.
    fn meshes(&self) -> HashMap<u64, ExportedMesh> {
        let blob = self.doc.blob.as_deref().expect("a BIN chunk");
        let mut out = HashMap::new();
        for mesh in self.doc.meshes() {
            let extras = Glb::extras(&mesh);
            let primitive = mesh.primitives().next().expect("a primitive");
            let reader = primitive.reader(|_| Some(blob));
            let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
            let indices: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
            out.insert(
                extras["draw"].as_u64().unwrap(),
                (positions, indices, extras),
            );
        }
        out
    }
}

/// Validate with the Khronos validator: zero errors (skips loudly when it is not installed).
fn assert_valid(files: &[&Path]) {
    let Some(reports) = rsxtrace_testkit::gltf_validator::validate(&workspace(), files) else {
        return;
    };
    for r in reports {
        assert_eq!(r.errors, 0, "{}: {:#?}", r.file.display(), r.issues);
    }
}

fn export(capture: &Path, out: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "export",
        "gltf",
        capture.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    json(&args)
}

#[test]
fn the_levels_meshes_export_in_object_space_as_they_were_built() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("level.glb");
    let report = export(&level_capture(), &glb, &["--space", "object"]);
    assert_valid(&[&glb]);
    let draws = json(&["draws", level_capture().to_str().unwrap(), "--json"]);
    let meshes = level::meshes();
    let exported = Glb::read(&glb).meshes();
    assert_eq!(exported.len(), 40, "every draw of the level is a mesh");
    assert!(
        report["skipped"].as_array().unwrap().is_empty(),
        "{report:#}"
    );
    let mut checked = 0;
    for mesh in &meshes {
        for draw in level_draws_of(mesh.name) {
            let (positions, indices, extras) = &exported[&draw];
            let range = &draws[draw as usize]["ranges"][0];
            let first = range["first"].as_u64().unwrap() as usize;
            let count = range["count"].as_u64().unwrap() as usize;
            // The vertices the draw's index range uses, from the mesh the level was built from.
            let used: BTreeSet<u16> = mesh.indices[first..first + count].iter().copied().collect();
            assert_eq!(positions.len(), used.len(), "draw {draw} ({})", mesh.name);
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for &i in &used {
                for k in 0..3 {
                    lo[k] = lo[k].min(mesh.vertices[i as usize][k]);
                    hi[k] = hi[k].max(mesh.vertices[i as usize][k]);
                }
            }
            let (mut glo, mut ghi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
            for p in positions {
                for k in 0..3 {
                    glo[k] = glo[k].min(p[k]);
                    ghi[k] = ghi[k].max(p[k]);
                }
            }
            assert_eq!((glo, ghi), (lo, hi), "draw {draw} bounds");
            // Every triangle is the mesh's own, in its winding.
            assert_eq!(indices.len(), count, "draw {draw}: a triangle list");
            for (t, tri) in indices.chunks(3).enumerate() {
                for (k, &v) in tri.iter().enumerate() {
                    let want = mesh.vertices[mesh.indices[first + 3 * t + k] as usize];
                    assert_eq!(positions[v as usize], [want[0], want[1], want[2]]);
                }
            }
            assert_eq!(extras["space"], "object");
            assert_eq!(extras["vp_hash"], draws[draw as usize]["vp_hash"]);
            assert_eq!(extras["fp_hash"], draws[draw as usize]["fp_hash"]);
            let attributes = extras["attributes"].as_array().unwrap();
            let position = attributes.iter().find(|a| a["gltf"] == "POSITION").unwrap();
            assert_eq!(
                (position["attribute"].as_u64(), position["guess"].as_bool()),
                (Some(0), Some(true))
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 37, "33 placements and 4 other draws");
}

/// `--space world --view-proj F`: every placed draw's vertices come out where the level put
/// them: the mesh's vertex times its placement's world matrix (row-vector convention), from
/// the clip position and the inverse of the camera's view-projection.
#[test]
fn world_space_positions_are_where_the_level_placed_its_meshes() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("world.glb");
    let vp = workspace().level_dir().join(level::VIEW_PROJECTION_FILE);
    let report = export(
        &level_capture(),
        &glb,
        &["--space", "world", "--view-proj", vp.to_str().unwrap()],
    );
    assert_eq!(report["space"], "world");
    assert_valid(&[&glb]);
    let draws = json(&["draws", level_capture().to_str().unwrap(), "--json"]);
    let exported = Glb::read(&glb).meshes();
    let meshes = level::meshes();
    let placements: Value = serde_json::from_slice(
        &std::fs::read(workspace().level_dir().join(level::PLACEMENTS_FILE)).unwrap(),
    )
    .unwrap();
    let truth: Value = serde_json::from_slice(
        &std::fs::read(workspace().level_dir().join(level::GROUND_TRUTH_FILE)).unwrap(),
    )
    .unwrap();
    let mut checked = 0;
    for d in truth["draws"].as_array().unwrap() {
        let Some(id) = d["placement"].as_str() else {
            continue;
        };
        let draw = d["draw"].as_u64().unwrap();
        let placement = placements
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .unwrap();
        let w: Vec<f64> = placement["world"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let mesh = meshes.iter().find(|m| m.name == d["mesh"]).unwrap();
        let first = draws[draw as usize]["ranges"][0]["first"].as_u64().unwrap() as usize;
        let v = mesh.vertices[mesh.indices[first] as usize];
        let p = [f64::from(v[0]), f64::from(v[1]), f64::from(v[2]), 1.0];
        let want: [f64; 4] = std::array::from_fn(|j| (0..4).map(|k| p[k] * w[4 * k + j]).sum());
        let (positions, _, extras) = &exported[&draw];
        assert_eq!(extras["space"], "world");
        let got = positions[0];
        for k in 0..3 {
            let want = want[k] / want[3];
            assert!(
                (f64::from(got[k]) - want).abs() < 1e-3 * want.abs().max(1.0),
                "draw {draw} ({id}): {got:?} against {want} in {k}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 33);
    // World space without a view-projection is refused.
    let out = run(&[
        "export",
        "gltf",
        level_capture().to_str().unwrap(),
        "--out",
        glb.to_str().unwrap(),
        "--space",
        "world",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn clip_space_positions_are_the_vertex_programs_output() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("clip.glb");
    let report = export(&level_capture(), &glb, &[]);
    assert_eq!(report["space"], "clip");
    assert_valid(&[&glb]);
    let draws = json(&["draws", level_capture().to_str().unwrap(), "--json"]);
    let exported = Glb::read(&glb).meshes();
    let crate_mesh = &level::meshes()[0];
    for draw in level_draws_of("crate") {
        let (positions, _, extras) = &exported[&draw];
        let mvp = &draws[draw as usize]["mvp"];
        let row = |k: usize| -> [f64; 4] { std::array::from_fn(|j| mvp[k][j].as_f64().unwrap()) };
        // The first vertex of the draw's range, through c32..c35: clip = (dot(row k, v)).
        let range_first = draws[draw as usize]["ranges"][0]["first"].as_u64().unwrap() as usize;
        let v = crate_mesh.vertices[crate_mesh.indices[range_first] as usize];
        let p = [f64::from(v[0]), f64::from(v[1]), f64::from(v[2]), 1.0];
        let clip: [f64; 4] = std::array::from_fn(|k| (0..4).map(|j| row(k)[j] * p[j]).sum::<f64>());
        let got = positions[0];
        for k in 0..3 {
            let want = clip[k] / clip[3];
            assert!(
                (f64::from(got[k]) - want).abs() < 1e-4 * want.abs().max(1.0),
                "draw {draw}: {got:?} against {want} in {k}"
            );
        }
        assert_eq!(extras["attributes"][0]["output"], "HPOS");
    }
    // The fog pass is a full-screen quad in clip space.
    let (positions, indices, _) = &exported[&39];
    assert_eq!(indices.len(), 6, "a quad as two triangles");
    for p in positions {
        assert_eq!((p[0].abs(), p[1].abs(), p[2]), (1.0, 1.0, 0.0));
    }
}

#[test]
fn primitives_become_lists_on_the_hardwares_rules() {
    let sample = workspace().sample("primitives.rrc.gz");
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("primitives.glb");
    let report = export(&sample, &glb, &[]);
    assert_valid(&[&glb]);
    let draws = json(&["draws", sample.to_str().unwrap(), "--json"]);
    for mesh in report["meshes"].as_array().unwrap() {
        let draw = &draws[mesh["draw"].as_u64().unwrap() as usize];
        let n = draw["vertex_count"].as_u64().unwrap();
        let (mode, count) = match draw["primitive"].as_str().unwrap() {
            "points" => ("points", n),
            "lines" => ("lines", n / 2),
            "line_strip" => ("lines", n - 1),
            "line_loop" => ("lines", n),
            "triangles" => ("triangles", n / 3),
            "triangle_strip" | "triangle_fan" | "polygon" => ("triangles", n - 2),
            "quads" => ("triangles", n / 4 * 2),
            "quad_strip" => ("triangles", (n - 2) / 2 * 2),
            other => panic!("{other}"),
        };
        assert_eq!(mesh["mode"], mode, "{mesh:#}");
        assert_eq!(mesh["primitives"], count, "{mesh:#}");
    }
}

#[test]
fn every_sample_exports_to_a_valid_file() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace();
    let mut files = Vec::new();
    for (sample, extra) in [
        ("basic.rrc.gz", vec![]),
        ("texture_formats.rrc.gz", vec![]),
        ("game.rrc.gz", vec!["--draws", "0..120"]),
        (
            "game.rrc.gz",
            vec!["--draws", "0..120", "--space", "object"],
        ),
    ] {
        let out = dir.path().join(format!("{}-{}.glb", sample, files.len()));
        let report = export(&ws.sample(sample), &out, &extra);
        assert!(!report["meshes"].as_array().unwrap().is_empty());
        files.push(out);
    }
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    assert_valid(&paths);
    // The texture-format quads carry their texture as the base colour, from TEXCOORD_0.
    let glb = Glb::read(&files[1]);
    assert_eq!(glb.doc.materials().count(), 36);
    assert!(glb.doc.textures().count() >= 29);
    for material in glb.doc.materials() {
        let info = material
            .pbr_metallic_roughness()
            .base_color_texture()
            .expect("a base colour texture");
        assert_eq!(info.tex_coord(), 0);
    }
}

// ------------------------------------------------------------- the capture with odd cases

const ODD_DXT_BASE: u32 = 0x0040_0000;
const ODD_VOLUME_BASE: u32 = 0x0041_0000;

/// Face `f`, level `l` colour of the DXT1 cube (R5G6B5, all texels c0).
fn dxt_face_colour(f: u32, l: u32) -> u16 {
    (((f * 5 + 3) as u16) << 11) | (((l * 40 + 10) as u16) << 5) | (f as u16 * 4 + l as u16)
}

fn dxt_block(c0: u16) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..2].copy_from_slice(&c0.to_le_bytes());
    // c1 = 0 < c0: four-colour mode; every index 0 = c0.
    b
}

/// The cube's stored bytes: each face 128-byte aligned (swizzled layout), level 0 of 2x2 blocks
/// then level 1 of one block.
fn dxt_cube_bytes() -> Vec<u8> {
    let mut out = vec![0u8; 128 * 5 + 40];
    for f in 0..6u32 {
        let at = 128 * f as usize;
        for b in 0..4 {
            out[at + 8 * b..at + 8 * b + 8].copy_from_slice(&dxt_block(dxt_face_colour(f, 0)));
        }
        out[at + 32..at + 40].copy_from_slice(&dxt_block(dxt_face_colour(f, 1)));
    }
    out
}

/// The 3D texture's texel (x, y, z): A, R, G, B.
fn volume_texel(x: u32, y: u32, z: u32) -> [u8; 4] {
    [0xFF, (x * 60) as u8, (y * 60) as u8, (z * 200 + 20) as u8]
}

fn surface() -> SurfaceDesc {
    let target = |offset| SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: 256,
    };
    SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (6, 6),
        color_target: 1,
        colors: [target(0), target(0x4000), target(0x8000), target(0xC000)],
        zeta: target(0x1_0000),
        clip: (0, 0, 64, 64),
    }
}

/// The odd capture's vertex programs: draw 0's (every output of the MVP program moved from
/// HPOS to COL0) and draw 1's (TEX0 from v[8]).
fn odd_vertex_programs() -> (Vec<u32>, Vec<u32>) {
    let mut no_position = vertex::decode_words(&mvp_vertex_program(32)).unwrap();
    for insn in &mut no_position.instructions {
        if insn.output == Some(OutputRegister(0)) {
            insn.output = Some(OutputRegister(1));
        }
    }
    let mut textured = vertex::decode_words(&mvp_vertex_program(32)).unwrap();
    textured.instructions[0].input = VpInput(8);
    textured.instructions[0].output = Some(OutputRegister(7));
    (vertex::encode(&no_position), vertex::encode(&textured))
}

/// Draw 0: a triangle whose vertex program writes no position. Draw 1: a textured quad with
/// an unsupported format at unit 0 (the unit its program samples), a DXT1 cube map with two
/// levels at unit 1 and a 3D texture at unit 2.
fn odd_capture(dir: &Path) -> PathBuf {
    let path = dir.join("odd.rrc");
    let mut b = CaptureBuilder::new("odd.rrc");
    b.set_surface(&surface());
    b.set_viewport(
        0,
        0,
        64,
        64,
        (0.0, 1.0),
        [32.0, 32.0, 0.5, 0.0],
        [32.0, -32.0, 0.5, 0.0],
    );
    b.set_scissor(0, 0, 64, 64);
    let (no_position, textured) = odd_vertex_programs();
    b.set_vertex_program(&no_position, 0, 0, 0b1001, 0b10)
        .unwrap();
    let identity = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    b.set_transform_constants(32, &identity).unwrap();
    b.set_fragment_program(Location::Local, 0x3_0000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_be_bytes()).collect() };
    b.put_memory(
        Location::Main,
        0x1_0000,
        &floats(&[
            -0.5, -0.5, 0.0, 0.0, 0.0, //
            0.5, -0.5, 0.0, 1.0, 0.0, //
            0.5, 0.5, 0.0, 1.0, 1.0, //
            -0.5, 0.5, 0.0, 0.0, 1.0,
        ]),
    )
    .unwrap();
    b.set_vertex_array(0, 2, 3, 20, 0, Location::Main, 0x1_0000)
        .unwrap();
    b.set_vertex_array(3, 2, 2, 20, 0, Location::Main, 0x1_000C)
        .unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();

    // Draw 1: TEX0 from v[8], sampled at unit 0 by the fragment program.
    b.set_vertex_program(&textured, 0, 0, 0b1_0000_0001, 0x4001)
        .unwrap();
    let mut tex = fragment::decode(&FRAGMENT_MOV_COL0).unwrap();
    tex.instructions[0].opcode = FpOpcode::Tex;
    tex.instructions[0].input = FpInput(4);
    tex.instructions[0].texture_unit = 0;
    b.set_fragment_program(Location::Local, 0x3_1000, &fragment::encode(&tex), 0x40)
        .unwrap();
    b.disable_vertex_array(3).unwrap();
    b.set_vertex_array(8, 2, 2, 20, 0, Location::Main, 0x1_000C)
        .unwrap();
    let plain = TextureDesc {
        location: Location::Local,
        dimension: 2,
        mipmaps: 1,
        width: 4,
        height: 4,
        depth: 1,
        address: 0x0003_0303,
        control0: (12 << 8) << 7,
        remap: 0xAAE4,
        filter: (1 << 16) | (1 << 24),
        ..TextureDesc::default()
    };
    // 0x96 is no texture format.
    b.put_memory(Location::Local, 0x3F_0000, &[0x55; 64])
        .unwrap();
    b.set_texture(
        0,
        &TextureDesc {
            offset: 0x3F_0000,
            format: 0x96 | 0x20,
            pitch: 16,
            byte_size: 64,
            ..plain
        },
    )
    .unwrap();
    let cube = dxt_cube_bytes();
    b.put_memory(Location::Local, ODD_DXT_BASE, &cube).unwrap();
    b.set_texture(
        1,
        &TextureDesc {
            offset: ODD_DXT_BASE,
            format: 0x86,
            cubemap: true,
            mipmaps: 2,
            width: 8,
            height: 8,
            byte_size: cube.len() as u32,
            ..plain
        },
    )
    .unwrap();
    let volume: Vec<u8> = (0..2)
        .flat_map(|z| (0..4).flat_map(move |y| (0..4).flat_map(move |x| volume_texel(x, y, z))))
        .collect();
    b.put_memory(Location::Local, ODD_VOLUME_BASE, &volume)
        .unwrap();
    b.set_texture(
        2,
        &TextureDesc {
            offset: ODD_VOLUME_BASE,
            format: 0x85 | 0x20,
            dimension: 3,
            depth: 2,
            pitch: 16,
            byte_size: volume.len() as u32,
            ..plain
        },
    )
    .unwrap();
    b.draw_arrays(8, &[(0, 4)]).unwrap();
    b.write_rrc(&path).unwrap();
    path
}

#[test]
fn bad_draws_attributes_and_formats_are_left_out_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let capture = odd_capture(dir.path());
    let glb = dir.path().join("odd.glb");
    let report = export(
        &capture,
        &glb,
        &["--draws", "0..5", "--attr", "normal=9", "--attr", "bogus=1"],
    );
    assert_valid(&[&glb]);
    let skipped = report["skipped"].as_array().unwrap();
    let reasons: Vec<(u64, &str)> = skipped
        .iter()
        .map(|s| (s["draw"].as_u64().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    assert!(
        reasons
            .iter()
            .any(|(d, r)| *d == 0 && r.contains("writes no position")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|(d, r)| *d == 2 && r.contains("draws 2..5 do not exist")),
        "{reasons:?}"
    );
    let meshes = report["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 1);
    let warnings = meshes[0]["warnings"].as_array().unwrap();
    let said = |what: &str| warnings.iter().any(|w| w.as_str().unwrap().contains(what));
    assert!(
        said("normal=9: attribute 9 is not an input"),
        "{warnings:?}"
    );
    assert!(said("texture unit 0: unknown format 0xb6"), "{warnings:?}");
    assert!(report["warnings"][0]
        .as_str()
        .unwrap()
        .contains("unknown attribute name \"bogus\""));
    // The text output says the same.
    let out = run(&[
        "export",
        "gltf",
        capture.to_str().unwrap(),
        "--out",
        glb.to_str().unwrap(),
        "--draws",
        "0..5",
    ]);
    assert_eq!(out.status.code(), Some(0));
    // Warnings go to standard error, as every command's do.
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("warning: draw 0 left out: the vertex program writes no position"),
        "{text}"
    );
    // Nothing exportable at all is an error.
    let out = run(&[
        "export",
        "gltf",
        capture.to_str().unwrap(),
        "--out",
        glb.to_str().unwrap(),
        "--draws",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to export"));
}

/// `--draws` that runs past the frame exports what exists and names the rest; one that starts
/// past it is refused with the other commands' message.
#[test]
fn export_draws_past_the_frame() {
    let basic = workspace().sample("basic.rrc.gz");
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("b.glb");
    let export = |range: &str| {
        run(&[
            "export",
            "gltf",
            basic.to_str().unwrap(),
            "--out",
            glb.to_str().unwrap(),
            "--draws",
            range,
        ])
    };
    let out = export("1..100000");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("draws 3..100000 do not exist"), "{text}");
    for range in ["3..", "7..9", "3"] {
        let out = export(range);
        assert_eq!(out.status.code(), Some(2), "{range}");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(
            text.contains("do not exist: the capture has 3 draws (0..3)"),
            "{range}: {text}"
        );
    }
}

/// A vertex program that displaces a quad by a vertex texture (TXL R0 from unit 0 at v[0];
/// ADD o[HPOS], v[0], R0) and the 2 x 2 W32_Z32_Y32_X32_FLOAT texture it samples, texel
/// (i, j) = (0.1 (1 + i + 2 j), 0, 0.5, 0) with nearest filtering: each corner of the quad lies
/// in its own texel.
fn displaced_capture(dir: &Path) -> PathBuf {
    use rsxtrace_program::vertex::{
        RegisterType, VectorOpcode, VertexInstruction, VertexProgram, WriteMask,
    };
    let mut txl = VertexInstruction::idle(0);
    txl.vector = VectorOpcode::Txl;
    txl.vec_dst_temp = Some(0);
    txl.vec_mask = WriteMask(0xF);
    txl.sources[1].reg_type = RegisterType::Constant; // LOD c[0].x = 0; unit = temp bits 0..1
    let mut add = VertexInstruction::idle(1);
    add.vector = VectorOpcode::Add;
    add.output = Some(OutputRegister(0));
    add.vec_result = true;
    add.vec_mask = WriteMask(0xF);
    add.sources[2].reg_type = RegisterType::Temp; // src0 + src2 = v[0] + R0
    add.end = true;
    let words = vertex::encode(&VertexProgram {
        start_slot: 0,
        instructions: vec![txl, add],
    });
    let path = dir.join("displaced.rrc");
    let mut b = CaptureBuilder::new("displaced.rrc");
    b.set_surface(&surface());
    b.set_vertex_program(&words, 0, 0, 0b1, 0b1).unwrap();
    b.set_transform_constants(0, &[[0.0; 4]]).unwrap();
    b.set_fragment_program(Location::Local, 0x3_0000, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_be_bytes()).collect() };
    b.put_memory(
        Location::Main,
        0x1_0000,
        &floats(&[
            0.25, 0.25, 0.0, //
            0.75, 0.25, 0.0, //
            0.75, 0.75, 0.0, //
            0.25, 0.75, 0.0,
        ]),
    )
    .unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1_0000)
        .unwrap();
    let texels: Vec<f32> = (0..4)
        .flat_map(|k| [0.1 * (1 + k) as f32, 0.0, 0.5, 0.0])
        .collect();
    b.put_memory(Location::Local, 0x3E_0000, &floats(&texels))
        .unwrap();
    b.set_vertex_texture(
        0,
        &TextureDesc {
            offset: 0x3E_0000,
            format: 0x9B | 0x20,
            width: 2,
            height: 2,
            pitch: 32,
            byte_size: 64,
            filter: (1 << 16) | (1 << 24),
            ..TextureDesc::default()
        },
    )
    .unwrap();
    b.draw_arrays(8, &[(0, 4)]).unwrap();
    b.write_rrc(&path).unwrap();
    path
}

#[test]
fn a_draw_that_samples_a_vertex_texture_exports_with_it_bound() {
    let dir = tempfile::tempdir().unwrap();
    let capture = displaced_capture(dir.path());
    let glb = dir.path().join("displaced.glb");
    let report = export(&capture, &glb, &[]);
    assert!(
        report["skipped"].as_array().unwrap().is_empty(),
        "{report:#}"
    );
    assert_valid(&[&glb]);
    let meshes = Glb::read(&glb).meshes();
    let (positions, indices, _) = &meshes[&0];
    assert_eq!(indices.len(), 6, "a quad as two triangles");
    // Each corner (x, y) sits in texel k = i + 2 j of the 2 x 2 texture.
    let corners = [
        (0.25, 0.25, 0),
        (0.75, 0.25, 1),
        (0.75, 0.75, 3),
        (0.25, 0.75, 2),
    ];
    let mut want: Vec<[f32; 3]> = corners
        .iter()
        .map(|&(x, y, k)| [x + 0.1 * (1 + k) as f32, y, 0.5])
        .collect();
    let mut got = positions.clone();
    let key = |p: &[f32; 3]| (p[1].to_bits(), p[0].to_bits());
    want.sort_by_key(key);
    got.sort_by_key(key);
    assert_eq!(got, want);
}

// ----------------------------------------------------------------------- textures --dump

fn read_png(path: &Path) -> (u32, u32, png::BitDepth, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    buf.truncate(info.buffer_size());
    (info.width, info.height, info.bit_depth, buf)
}

/// Channel `c` of pixel `i` of a PNG, as 0..1.
fn channel(bit_depth: png::BitDepth, data: &[u8], i: usize, c: usize) -> f32 {
    match bit_depth {
        png::BitDepth::Sixteen => {
            let at = (i * 4 + c) * 2;
            f32::from(u16::from_be_bytes([data[at], data[at + 1]])) / 65535.0
        }
        _ => f32::from(data[i * 4 + c]) / 255.0,
    }
}

#[test]
fn every_texture_format_dumps_to_the_builders_pixels() {
    let dir = tempfile::tempdir().unwrap();
    let sample = workspace().sample(tf::FILE);
    let index = json(&[
        "textures",
        sample.to_str().unwrap(),
        "--dump",
        dir.path().to_str().unwrap(),
        "--json",
    ]);
    let on_disk: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("index.json")).unwrap()).unwrap();
    assert_eq!(on_disk, index);
    let textures = index["textures"].as_array().unwrap();
    // 36 quads; the six A8R8G8B8 rule quads share one texture, X16 and HILO8 their rule quad.
    assert_eq!(textures.len(), 29, "{index:#}");
    assert!(index["skipped"].as_array().unwrap().is_empty());
    let cells = tf::cells();
    let mut checked = 0;
    for t in textures {
        let first = &t["uses"][0];
        let cell = &cells[first["draw"].as_u64().unwrap() as usize];
        // The name is the xxh3 of the stored bytes the builder wrote.
        let (stored, _) = tf::texture_bytes(cell);
        assert_eq!(
            t["hash"].as_str().unwrap(),
            format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&stored)),
            "{}",
            cell.name
        );
        assert_eq!(t["format_code"], u64::from(cell.format));
        let file = t["files"][0]["file"].as_str().unwrap();
        let (w, h, depth, data) = read_png(&dir.path().join(file));
        assert_eq!((w, h), (tf::TEXELS, tf::TEXELS));
        let wide = t["bit_depth"] == 16;
        assert_eq!(wide, depth == png::BitDepth::Sixteen);
        let step = if wide { 1.5 / 65535.0 } else { 1.0 / 255.0 };
        for y in 0..tf::TEXELS {
            for x in 0..tf::TEXELS {
                let want = texture_rules::format_rule(cell.format, tf::fields(cell, x, y));
                let i = (y * tf::TEXELS + x) as usize;
                for c in 0..4 {
                    let got = channel(depth, &data, i, c);
                    let want = want[c].clamp(0.0, 1.0);
                    assert!(
                        (got - want).abs() <= step + 1e-6,
                        "{} texel ({x}, {y}) channel {c}: got {got}, want {want}",
                        cell.name
                    );
                }
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 29);
    // The six A8R8G8B8 quads: one texture, each use with its own remap.
    let argb = textures
        .iter()
        .find(|t| t["format"] == "a8r8g8b8" && t["layout"] == "linear")
        .unwrap();
    let uses: Vec<u64> = argb["uses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["draw"].as_u64().unwrap())
        .collect();
    assert_eq!(uses, vec![4, 29, 30, 31, 32, 33]);
    let remapped = &argb["uses"][2];
    assert_eq!(
        (
            remapped["remap"].as_str(),
            remapped["default_remap"].as_bool()
        ),
        (Some("0x0000896c"), Some(false))
    );
    // DXT: a DDS holding the builder's block.
    for (code, fourcc) in [(0x86u8, b"DXT1"), (0x87, b"DXT3"), (0x88, b"DXT5")] {
        let cell = cells.iter().find(|c| c.format == code).unwrap();
        let t = textures.iter().find(|t| t["format_code"] == code).unwrap();
        let dds = std::fs::read(dir.path().join(t["dds"].as_str().unwrap())).unwrap();
        assert_eq!(&dds[..4], b"DDS ");
        assert_eq!(&dds[84..88], fourcc);
        assert_eq!(&dds[128..], &tf::texture_bytes(cell).0[..], "{}", cell.name);
    }
}

#[test]
fn cube_faces_slices_and_mips_dump_as_separate_files() {
    let dir = tempfile::tempdir().unwrap();
    let capture = odd_capture(dir.path());
    let out = dir.path().join("dump");
    let index = json(&[
        "textures",
        capture.to_str().unwrap(),
        "--dump",
        out.to_str().unwrap(),
        "--mips",
        "--draw",
        "1",
        "--json",
    ]);
    // Unit 0's format is not one: left out, named.
    let skipped = index["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{index:#}");
    assert_eq!(
        (skipped[0]["draw"].as_u64(), skipped[0]["unit"].as_u64()),
        (Some(1), Some(0))
    );
    assert!(skipped[0]["reason"]
        .as_str()
        .unwrap()
        .contains("unsupported texture format 0x96"));
    let textures = index["textures"].as_array().unwrap();
    assert_eq!(textures.len(), 2);
    // The cube: 6 faces x 2 levels, each face and level a solid colour.
    let cube = textures.iter().find(|t| t["dimension"] == "cube").unwrap();
    let files = cube["files"].as_array().unwrap();
    assert_eq!(files.len(), 12);
    for f in files {
        let (face, level) = (
            f["layer"].as_u64().unwrap() as u32,
            f["level"].as_u64().unwrap() as u32,
        );
        let name = f["file"].as_str().unwrap();
        let suffix = ["px", "nx", "py", "ny", "pz", "nz"][face as usize];
        assert!(name.contains(&format!("-{suffix}")), "{name}");
        assert_eq!(name.contains("-mip1"), level == 1, "{name}");
        let (w, h, depth, data) = read_png(&out.join(name));
        assert_eq!((w, h), (8 >> level, 8 >> level));
        let want = texture_rules::rgb565(dxt_face_colour(face, level));
        for i in 0..(w * h) as usize {
            for (c, want) in want.iter().enumerate() {
                let got = channel(depth, &data, i, c);
                assert!((got - want).abs() <= 1.0 / 255.0, "{name} pixel {i}");
            }
            assert_eq!(channel(depth, &data, i, 3), 1.0);
        }
    }
    // Its DDS: a cube map with both levels, the blocks as stored, face after face.
    let dds = std::fs::read(out.join(cube["dds"].as_str().unwrap())).unwrap();
    let caps2 = u32::from_le_bytes(dds[112..116].try_into().unwrap());
    assert_eq!(caps2 & 0xFE00, 0xFE00, "cube map with all six faces");
    assert_eq!(
        u32::from_le_bytes(dds[28..32].try_into().unwrap()),
        2,
        "mip count"
    );
    let stored = dxt_cube_bytes();
    let mut want = Vec::new();
    for f in 0..6 {
        want.extend_from_slice(&stored[128 * f..128 * f + 40]);
    }
    assert_eq!(&dds[128..], &want[..]);
    // The 3D texture: two slices.
    let volume = textures.iter().find(|t| t["dimension"] == "3d").unwrap();
    let files = volume["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "two slices, one level");
    for f in files.iter().filter(|f| f["level"] == 0) {
        let z = f["slice"].as_u64().unwrap() as u32;
        let name = f["file"].as_str().unwrap();
        assert!(name.ends_with(&format!("-z{z}.png")), "{name}");
        let (_, _, _, data) = read_png(&out.join(name));
        for y in 0..4 {
            for x in 0..4 {
                let [a, r, g, b] = volume_texel(x, y, z);
                let i = ((y * 4 + x) * 4) as usize;
                assert_eq!(&data[i..i + 4], &[r, g, b, a], "slice {z} ({x}, {y})");
            }
        }
    }
    // Without --mips, level 0 only; the text names what was left out.
    let plain = dir.path().join("plain");
    let run_out = run(&[
        "textures",
        capture.to_str().unwrap(),
        "--dump",
        plain.to_str().unwrap(),
    ]);
    assert_eq!(run_out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&run_out.stderr);
    assert!(
        text.contains("warning: draw 1 fragment texture unit 0 left out: texture unit 0: unsupported texture format 0x96"),
        "{text}"
    );
    let pngs = std::fs::read_dir(&plain)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "png")
        })
        .count();
    assert_eq!(pngs, 6 + 2);
    // A draw that does not exist is an error.
    let out = run(&[
        "textures",
        capture.to_str().unwrap(),
        "--dump",
        plain.to_str().unwrap(),
        "--draw",
        "7",
    ]);
    assert_eq!(out.status.code(), Some(2));
}
