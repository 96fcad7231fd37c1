//! `Gpu::render_triangles` on the recompiled programs of draw 0 of the bundled sample capture
//! (`traces/samples/basic.rrc.gz`: one triangle, a perspective transform in c[32..35], COL0
//! per vertex, a fragment program that outputs COL0), rendered at 64 × 64 and checked pixel by
//! pixel against a rasterisation computed here: clip position → NDC → window coordinates →
//! perspective-correct barycentric interpolation of COL0. Pixels clearly inside the triangle
//! must hold the interpolated colour, pixels clearly outside must stay at the clear value 0.
//!
//! Assumptions of the reference (wgpu/WebGPU conventions, WebGPU spec "Coordinate Systems" and
//! "Rasterization"): the viewport is the whole target, window x = (ndc.x + 1) / 2 · W and
//! window y = (1 − ndc.y) / 2 · H (y down: NDC y = +1 is row 0, which `render_triangles`
//! returns first), pixel (x, y) is sampled at its centre (x + 0.5, y + 0.5), and `@location`
//! varyings are interpolated perspective-correctly (WGSL's default `perspective, center`).
//! Pixels whose centre lies within `EDGE` (in barycentric terms) of an edge are not checked:
//! the tie-breaking rule there is the rasteriser's.

use crate::gpu_support;

use rsxtrace_capture::fetch::fetch_draw;
use rsxtrace_capture::frame::{Draw, Frame, Primitive};
use rsxtrace_capture::rrc::read_file;
use rsxtrace_gpu::{Gpu, VP_CONSTANTS};
use rsxtrace_program::fragment;
use rsxtrace_program::vertex::{self, RegisterType, VectorOpcode};
use rsxtrace_replay::interp::vertex::{run_vertex, ConstantBank, VertexEnvironment, VertexOptions};
use rsxtrace_wgsl::fragment::FragmentTranslateOptions;
use rsxtrace_wgsl::vertex::VertexTranslateOptions;

const SIZE: u32 = 64;
/// Barycentric margin around the edges inside which pixels are not checked.
const EDGE: f64 = 1e-3;
/// Largest accepted difference between the device's interpolated colour and the reference's
/// (the device interpolates in f32 with its own barycentric setup).
const TOLERANCE: f32 = 2e-3;
/// Position input (v[0]) and colour input (v[3]) of the sample's vertex program.
const POS: usize = 0;
const COLOR: usize = 3;

type Attrs = [[f32; 4]; 16];

/// Draw 0 of the sample: its decoded programs, vertices and constants.
struct Sample {
    draw: Draw,
    vertex_program: vertex::VertexProgram,
    fragment_program: fragment::FragmentProgram,
    vertices: Vec<Attrs>,
    constants: Box<[[f32; 4]; VP_CONSTANTS]>,
}

fn sample() -> Sample {
    let path = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    let capture = read_file(&path).expect("read the sample capture");
    let frame = Frame::from_capture(&capture).expect("frame model");
    let draw = frame.draws.first().expect("draw 0").clone();
    let vertex_program = vertex::decode_from_memory(&draw.vertex_program, draw.vp_start as usize)
        .expect("decode the vertex program");
    let ucode = &draw
        .fragment_program
        .as_ref()
        .expect("draw 0 has a fragment program")
        .ucode;
    let fragment_program = fragment::decode(ucode).expect("decode the fragment program");
    let memory = frame.memory(0).expect("memory of draw 0");
    let fetched = fetch_draw(&draw.vertex_inputs, &memory).expect("fetch the vertices");
    let mut vertices = vec![[[0f32; 4]; 16]; fetched.len()];
    for column in &fetched.attributes {
        for (v, value) in vertices.iter_mut().zip(&column.values) {
            v[usize::from(column.attribute)] = *value;
        }
    }
    let mut constants = Box::new([[0f32; 4]; VP_CONSTANTS]);
    for (i, c) in constants.iter_mut().enumerate() {
        *c = draw.constants.get(i).unwrap_or([0.0; 4]);
    }
    Sample {
        draw,
        vertex_program,
        fragment_program,
        vertices,
        constants,
    }
}

fn dot4(a: [f32; 4], b: [f32; 4]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

/// The sample's vertex program is `MOV o[COL0], v[3]` and `DP4 o[HPOS].{w,z,y,x}, v[0],
/// c[35..32]` (checked here, so that the reference below computes what the program does).
fn check_program_shape(s: &Sample) {
    let insns = &s.vertex_program.instructions;
    assert_eq!(insns.len(), 5, "vertex program length");
    let mov = &insns[0];
    assert_eq!(mov.vector, VectorOpcode::Mov);
    assert_eq!(
        (mov.output.map(|o| o.0), mov.input.0),
        (Some(1), COLOR as u8)
    );
    let mut rows: Vec<(u8, u16)> = insns[1..]
        .iter()
        .map(|i| {
            assert_eq!(i.vector, VectorOpcode::Dp4);
            assert_eq!(i.output.map(|o| o.0), Some(0), "DP4 writes HPOS");
            assert_eq!(i.input.0, POS as u8);
            assert_eq!(i.sources[1].reg_type, RegisterType::Constant);
            (i.vec_mask.0, i.const_index)
        })
        .collect();
    rows.sort_unstable();
    assert_eq!(rows, vec![(1, 32), (2, 33), (4, 34), (8, 35)]);
    let fp = &s.fragment_program.instructions;
    assert_eq!(fp.len(), 1, "fragment program: MOV R0, f[COL0]");
    assert_eq!((fp[0].dest.index, fp[0].input.0), (0, 1));
}

/// Clip position of a vertex: the four DP4 rows of c[32..35].
fn clip(s: &Sample, v: &Attrs) -> [f32; 4] {
    std::array::from_fn(|r| dot4(v[POS], s.constants[32 + r]))
}

/// The reference rasterisation of one triangle.
struct Reference {
    /// Window-space x, y of the three vertices.
    window: [[f64; 2]; 3],
    /// Clip w of the three vertices.
    w: [f64; 3],
    /// COL0 of the three vertices.
    colour: [[f64; 4]; 3],
}

impl Reference {
    fn new(clip: [[f32; 4]; 3], colour: [[f32; 4]; 3]) -> Reference {
        let size = f64::from(SIZE);
        let window = clip.map(|c| {
            let (x, y, w) = (f64::from(c[0]), f64::from(c[1]), f64::from(c[3]));
            [(x / w + 1.0) / 2.0 * size, (1.0 - y / w) / 2.0 * size]
        });
        Reference {
            window,
            w: clip.map(|c| f64::from(c[3])),
            colour: colour.map(|c| c.map(f64::from)),
        }
    }

    /// Screen-space barycentric coordinates of the point (x, y).
    fn barycentric(&self, x: f64, y: f64) -> [f64; 3] {
        let [a, b, c] = self.window;
        let edge = |p: [f64; 2], q: [f64; 2], x: f64, y: f64| {
            (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])
        };
        let area = edge(a, b, c[0], c[1]);
        [
            edge(b, c, x, y) / area,
            edge(c, a, x, y) / area,
            edge(a, b, x, y) / area,
        ]
    }

    /// COL0 at (x, y), perspective-correct (`perspective`) or linear in screen space.
    fn colour_at(&self, x: f64, y: f64, perspective: bool) -> [f64; 4] {
        let mut b = self.barycentric(x, y);
        if perspective {
            for (bi, w) in b.iter_mut().zip(self.w) {
                *bi /= w;
            }
            let sum: f64 = b.iter().sum();
            for bi in &mut b {
                *bi /= sum;
            }
        }
        std::array::from_fn(|k| (0..3).map(|i| b[i] * self.colour[i][k]).sum())
    }
}

/// Renders `vertices` with the sample's programs and checks every pixel against the
/// reference; returns (pixels checked inside, largest difference between perspective-correct
/// and screen-linear colours among them).
fn render_and_check(gpu: &Gpu, s: &Sample, vertices: &[Attrs], name: &str) -> (usize, f64) {
    let vp = rsxtrace_wgsl::vertex::translate(
        &s.vertex_program,
        &s.draw.vertex_program,
        &VertexTranslateOptions::default(),
    )
    .expect("translate the vertex program");
    let fp = rsxtrace_wgsl::fragment::translate(
        &s.fragment_program,
        &FragmentTranslateOptions::with_control(s.draw.shader_control.raw),
    )
    .expect("translate the fragment program");
    let image = gpu
        .render_triangles_with_branch_bits(
            &vp,
            &fp,
            vertices,
            &s.constants,
            s.draw.transform_branch_bits,
            SIZE,
            SIZE,
        )
        .unwrap_or_else(|e| panic!("{name}: render_triangles: {e}"));
    assert_eq!(image.len(), (SIZE * SIZE) as usize);

    // The hand-computed clip positions agree with the reference interpreter's HPOS.
    let bank = ConstantBank::from_transform(&s.draw.constants);
    let out = run_vertex(
        &s.vertex_program,
        &s.draw.vertex_program,
        &VertexEnvironment::new(&bank),
        vertices,
        &VertexOptions::default(),
    )
    .expect("interpreter");
    let clips: Vec<[f32; 4]> = vertices.iter().map(|v| clip(s, v)).collect();
    for (k, (lane, c)) in out.lanes.iter().zip(&clips).enumerate() {
        let hpos = lane.registers[0].map(|x| x as f32);
        assert_eq!(hpos, *c, "{name}: vertex {k} HPOS");
    }

    let mut inside = 0;
    let mut outside = 0;
    let mut perspective_effect = 0f64;
    let mut bad = Vec::new();
    for (t, tri) in clips.chunks_exact(3).enumerate() {
        let col = [0, 1, 2].map(|i| vertices[3 * t + i][COLOR]);
        let r = Reference::new([tri[0], tri[1], tri[2]], col);
        println!(
            "{name}: triangle {t}: window {:?}, w {:?}",
            r.window.map(|p| p.map(|c| (c * 100.0).round() / 100.0)),
            r.w
        );
        for y in 0..SIZE {
            for x in 0..SIZE {
                let (cx, cy) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
                let b = r.barycentric(cx, cy);
                let got = image[(y * SIZE + x) as usize];
                if b.iter().all(|&bi| bi > EDGE) {
                    inside += 1;
                    let want = r.colour_at(cx, cy, true);
                    let linear = r.colour_at(cx, cy, false);
                    for k in 0..4 {
                        perspective_effect = perspective_effect.max((want[k] - linear[k]).abs());
                    }
                    if (0..4).any(|k| (got[k] - want[k] as f32).abs() > TOLERANCE) {
                        bad.push(format!(
                            "({x}, {y}) inside: device {got:?}, expected {want:?} (linear {linear:?})"
                        ));
                    }
                } else if b.iter().any(|&bi| bi < -EDGE) {
                    outside += 1;
                    if got != [0.0; 4] {
                        bad.push(format!("({x}, {y}) outside: device {got:?}, expected 0"));
                    }
                }
            }
        }
    }
    // A few pixel centres, for the record.
    for (x, y) in [(32u32, 32u32), (20, 40), (44, 40), (32, 22), (2, 2)] {
        println!(
            "{name}: pixel ({x}, {y}) = {:?}",
            image[(y * SIZE + x) as usize]
        );
    }
    println!(
        "{name}: {inside} pixels inside checked, {outside} outside, largest perspective-vs-linear \
         difference {perspective_effect:.4}"
    );
    assert!(
        bad.is_empty(),
        "{name}: {} pixels wrong, first: {:#?}",
        bad.len(),
        &bad[..bad.len().min(10)]
    );
    (inside, perspective_effect)
}

#[test]
fn draw_0_of_the_sample_renders_its_interpolated_colour() {
    let s = sample();
    assert_eq!(s.draw.primitive, Primitive::Triangles);
    assert_eq!(s.vertices.len(), 3);
    check_program_shape(&s);
    let Some(gpu) = gpu_support::gpu("draw_0_of_the_sample_renders_its_interpolated_colour") else {
        return;
    };
    let (inside, _) = render_and_check(&gpu, &s, &s.vertices, "sample draw 0");
    // The triangle spans about a sixth of the target.
    assert!(inside > 500, "only {inside} pixels inside");
    // A second render of the same pair of modules reuses the cached pipeline.
    let cached = gpu.cached_pipelines();
    assert!(cached >= 1, "the render pipeline is cached");
    render_and_check(&gpu, &s, &s.vertices, "sample draw 0, again");
    assert_eq!(gpu.cached_pipelines(), cached);
}

/// The same programs with the vertices moved to different depths (clip w 2.5, 4 and 2), so
/// that perspective-correct and screen-linear interpolation differ by several hundredths:
/// the device must match the perspective-correct reference.
#[test]
fn varyings_are_interpolated_perspective_correctly() {
    let s = sample();
    check_program_shape(&s);
    let Some(gpu) = gpu_support::gpu("varyings_are_interpolated_perspective_correctly") else {
        return;
    };
    let mut vertices = s.vertices.clone();
    for (v, z) in vertices.iter_mut().zip([0.5f32, -1.0, 1.0]) {
        v[POS][2] = z;
    }
    let ws: Vec<f32> = vertices.iter().map(|v| clip(&s, v)[3]).collect();
    assert_eq!(ws, vec![2.5, 4.0, 2.0]);
    let (inside, effect) = render_and_check(&gpu, &s, &vertices, "moved depths");
    assert!(inside > 300, "only {inside} pixels inside");
    assert!(
        effect > 20.0 * f64::from(TOLERANCE),
        "the vertices do not separate perspective from linear interpolation ({effect})"
    );
}

/// Vertex counts that are not whole triangles are refused, naming the argument.
#[test]
fn partial_triangles_are_refused() {
    let s = sample();
    let Some(gpu) = gpu_support::gpu("partial_triangles_are_refused") else {
        return;
    };
    let vp = rsxtrace_wgsl::vertex::translate(&s.vertex_program, &[], &Default::default())
        .expect("translate");
    let fp = rsxtrace_wgsl::fragment::translate(
        &s.fragment_program,
        &FragmentTranslateOptions::with_control(s.draw.shader_control.raw),
    )
    .expect("translate");
    let err = gpu
        .render_triangles(&vp, &fp, &s.vertices[..2], &s.constants, SIZE, SIZE)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("vertices") && err.contains("2 vertices"),
        "{err}"
    );
    // Swapped modules break the ABI (no vp_main in a fragment module).
    let err = gpu
        .render_triangles(&fp, &vp, &s.vertices, &s.constants, SIZE, SIZE)
        .unwrap_err()
        .to_string();
    assert!(err.contains("vp_main is missing"), "{err}");
}
