//! `Gpu::raster_draws`: several draws in one submission, some attaching a depth target and
//! some not, keep their order and the depth the earlier ones wrote; indexed draws draw the
//! triangles they index, and indices past the vertices are errors; a draw that tests depth
//! bounds reads the depth the draws before it left; a draw in runs of one facing draws each
//! run with its face's pipeline and stencil reference, in order; counted draws give the
//! samples that pass (`raster_draws_counted`).

use crate::common;

use rsxtrace_gpu::{
    ColorTargetDesc, Compare, DepthFormat, DepthStencilDesc, FaceRuns, RasterDraw,
    RasterPipelineDesc, RasterTargets, StencilDesc, StencilFaceDesc, StencilOperation,
    TargetFormat, Topology, MAX_RASTER_TARGETS,
};
use rsxtrace_wgsl::WgslModule;

/// Position at location 0, colour at location 1.
const SOURCE: &str = "
struct V { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex
fn vs(@location(0) p: vec4<f32>, @location(1) c: vec4<f32>) -> V {
    return V(p, c);
}
@fragment
fn fs(v: V) -> @location(0) vec4<f32> {
    return v.c;
}
";

/// Two triangles covering x in [x0, x1] of the target at depth `z`, coloured `c`.
fn rect(x0: f32, x1: f32, z: f32, c: [f32; 4]) -> Vec<[f32; 4]> {
    [
        (x0, -1.0),
        (x1, -1.0),
        (x1, 1.0),
        (x0, -1.0),
        (x1, 1.0),
        (x0, 1.0),
    ]
    .iter()
    .flat_map(|&(x, y)| [[x, y, z, 1.0], c])
    .collect()
}

/// The pipeline of [`SOURCE`] into one `Rgba32Float` target, with a depth test (`Less`,
/// writing) into a `Depth32Stencil8` target when `with_depth`.
fn pipeline(with_depth: bool) -> RasterPipelineDesc {
    RasterPipelineDesc {
        vertex_entry: "vs".into(),
        fragment_entry: "fs".into(),
        vertex_attributes: 2,
        topology: Topology::TriangleList,
        cull: Default::default(),
        front_face: Default::default(),
        targets: vec![Some(ColorTargetDesc {
            format: TargetFormat::Rgba32Float,
            blend: None,
            write_mask: 0xF,
        })],
        depth_stencil: with_depth.then_some(DepthStencilDesc {
            format: DepthFormat::Depth32Stencil8,
            compare: Compare::Less,
            write: true,
            stencil: None,
            bias: Default::default(),
        }),
        depth_bounds: false,
        colors_before: 0,
    }
}

/// A draw of `vertices` (with `indices`, when given) by `module` under `desc`, whole target,
/// no textures.
fn raster_draw<'a>(
    module: &'a WgslModule,
    desc: &'a RasterPipelineDesc,
    vertices: &'a [[f32; 4]],
    indices: Option<&'a [u32]>,
) -> RasterDraw<'a> {
    RasterDraw {
        module,
        desc,
        vertices,
        indices,
        textures: [None; 16],
        viewport: None,
        scissor: None,
        stencil_reference: 0,
        blend_constant: [0.0; 4],
        depth_bounds: None,
        faces: None,
    }
}

/// A 4 × 1 `Rgba32Float` target cleared to 0 and a `Depth32Stencil8` target at depth 1,
/// stencil 0.
fn cleared_targets(
    gpu: &rsxtrace_gpu::Gpu,
) -> (rsxtrace_gpu::ColorTarget, rsxtrace_gpu::DepthTarget) {
    let color = gpu
        .create_color_target(TargetFormat::Rgba32Float, 4, 1)
        .expect("colour target");
    let depth = gpu
        .create_depth_target(DepthFormat::Depth32Stencil8, 4, 1)
        .expect("depth target");
    gpu.write_color_target(&color, &[[0.0; 4]; 4])
        .expect("clear");
    gpu.write_depth_target(&depth, &[1.0; 4], Some(&[0; 4]))
        .expect("clear depth");
    (color, depth)
}

#[test]
fn draws_switching_attachments_in_one_submission_keep_order_and_depth() {
    let Some(gpu) = common::gpu("raster_draws_switching_attachments") else {
        return;
    };
    let (color, depth) = cleared_targets(&gpu);
    let module = common::module(SOURCE);
    let (with, without) = (pipeline(true), pipeline(false));
    let mut colors = [None; MAX_RASTER_TARGETS];
    colors[0] = Some(&color);
    let on_depth = RasterTargets {
        colors,
        depth: Some(&depth),
    };
    let colour_only = RasterTargets {
        colors,
        depth: None,
    };
    let (green, blue, red) = (
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 0.0, 0.0, 1.0],
    );
    // Near over the left three pixels; blue over the right half without depth; red far over
    // everything, behind the near rectangle.
    let near = rect(-1.0, 0.5, 0.2, green);
    let overlay = rect(0.0, 1.0, 0.9, blue);
    let far = rect(-1.0, 1.0, 0.6, red);
    let draw = |desc, vertices| raster_draw(&module, desc, vertices, None);
    gpu.raster_draws(&[
        (on_depth, draw(&with, &near)),
        (colour_only, draw(&without, &overlay)),
        (on_depth, draw(&with, &far)),
    ])
    .expect("one submission of draws that switch attachments");
    let got = gpu.read_color_target(&color).expect("readback");
    assert_eq!(got, vec![green, green, blue, red]);
    let z = gpu.read_depth_target(&depth).expect("depth readback").depth;
    assert_eq!(z, vec![0.2, 0.2, 0.2, 0.6]);
}

#[test]
fn indexed_triangles_draw_as_the_same_triangles_listed_and_bad_indices_are_errors() {
    let Some(gpu) = common::gpu("raster_draws_indexed") else {
        return;
    };
    let module = common::module(SOURCE);
    let desc = pipeline(false);
    let green = [0.0, 1.0, 0.0, 1.0];
    let listed = rect(-1.0, 0.5, 0.5, green);
    // The same two triangles over their four distinct corners.
    let corners: Vec<[f32; 4]> = [0, 1, 2, 5]
        .iter()
        .flat_map(|&v| [listed[2 * v], listed[2 * v + 1]])
        .collect();
    let draw = |vertices, indices| raster_draw(&module, &desc, vertices, indices);
    let render = |d: RasterDraw<'_>| {
        let color = gpu
            .create_color_target(TargetFormat::Rgba32Float, 4, 1)
            .expect("colour target");
        gpu.write_color_target(&color, &[[0.0; 4]; 4])
            .expect("clear");
        let mut colors = [None; MAX_RASTER_TARGETS];
        colors[0] = Some(&color);
        let targets = RasterTargets {
            colors,
            depth: None,
        };
        gpu.raster_draws(&[(targets, d)])
            .map(|()| gpu.read_color_target(&color).expect("readback"))
    };
    let want = render(draw(&listed, None)).expect("listed");
    assert_eq!(want, vec![green, green, green, [0.0; 4]]);
    let indexed = render(draw(&corners, Some(&[0, 1, 2, 0, 2, 3]))).expect("indexed");
    assert_eq!(indexed, want);
    for (indices, what) in [
        (
            &[0u32, 1, 2, 0, 2, 4][..],
            "index 5 is 4, past the 4 vertices",
        ),
        (&[0, 1, 2, 0, 2][..], "not whole"),
    ] {
        let e = render(draw(&corners, Some(indices))).expect_err(what);
        let text = e.to_string();
        assert!(text.contains("indices") && text.contains(what), "{text}");
    }
}

/// [`SOURCE`] with the depth bounds test: the depth target's value from before the draw
/// (group 0 binding `DEPTH_BEFORE_BINDING`) within the bounds (binding `DEPTH_BOUNDS_BINDING`).
const BOUNDED: &str = "
struct V { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@group(0) @binding(3) var before: texture_depth_2d;
@group(0) @binding(4) var<uniform> bounds: vec4<f32>;
@vertex
fn vs(@location(0) p: vec4<f32>, @location(1) c: vec4<f32>) -> V {
    return V(p, c);
}
@fragment
fn fs(v: V) -> @location(0) vec4<f32> {
    let d = textureLoad(before, vec2<i32>(v.p.xy), 0);
    if (!(d >= bounds.x && d <= bounds.y)) {
        discard;
    }
    return v.c;
}
";

#[test]
fn depth_bounds_draws_read_the_depth_the_draws_before_them_left() {
    assert_eq!(
        (
            rsxtrace_gpu::DEPTH_BEFORE_BINDING,
            rsxtrace_gpu::DEPTH_BOUNDS_BINDING
        ),
        (3, 4)
    );
    let Some(gpu) = common::gpu("raster_draws_depth_bounds") else {
        return;
    };
    let (color, depth) = cleared_targets(&gpu);
    let (plain, bounded) = (common::module(SOURCE), common::module(BOUNDED));
    let writes = pipeline(true);
    let mut tests = pipeline(true);
    tests.depth_bounds = true;
    if let Some(d) = &mut tests.depth_stencil {
        (d.compare, d.write) = (Compare::Always, false);
    }
    let mut colors = [None; MAX_RASTER_TARGETS];
    colors[0] = Some(&color);
    let targets = RasterTargets {
        colors,
        depth: Some(&depth),
    };
    let (green, blue, red) = (
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 0.0, 0.0, 1.0],
    );
    let bound = |vertices, lo, hi| RasterDraw {
        depth_bounds: Some([lo, hi]),
        faces: None,
        ..raster_draw(&bounded, &tests, vertices, None)
    };
    // The left half stores 0.3; red within [0.2, 0.5] covers it only; then, in the same
    // submission, the right half stores 0.4 (a depth test LESS keeps 0.3 on the left), and
    // blue within [0.35, 0.45] covers the right half only: a copy from before the first
    // bounded draw would have kept it out.
    let (near, red_all, right, blue_all) = (
        rect(-1.0, 0.0, 0.3, green),
        rect(-1.0, 1.0, 0.9, red),
        rect(-0.5, 1.0, 0.4, green),
        rect(-1.0, 1.0, 0.9, blue),
    );
    gpu.raster_draws(&[
        (targets, raster_draw(&plain, &writes, &near, None)),
        (targets, bound(&red_all, 0.2, 0.5)),
        (targets, raster_draw(&plain, &writes, &right, None)),
        (targets, bound(&blue_all, 0.35, 0.45)),
    ])
    .expect("one submission");
    let got = gpu.read_color_target(&color).expect("readback");
    assert_eq!(got, vec![red, red, blue, blue]);
    // A pipeline that tests depth bounds needs a depth target and bounds with each draw.
    let mut no_depth = tests.clone();
    no_depth.depth_stencil = None;
    let colour_only = RasterTargets {
        colors,
        depth: None,
    };
    let unbounded = raster_draw(&bounded, &tests, &red_all, None);
    for (t, d) in [
        (
            colour_only,
            raster_draw(&bounded, &no_depth, &red_all, None),
        ),
        (targets, unbounded),
    ] {
        let e = gpu.raster_draws(&[(t, d)]).expect_err("refused");
        assert!(e.to_string().contains("depth"), "{e}");
    }
}

/// [`SOURCE`] writing one minus the colour target's value from before the draw (group 0
/// binding `COLOR_BEFORE_BINDING`).
const INVERTS: &str = "
struct V { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@group(0) @binding(5) var before: texture_2d<f32>;
@vertex
fn vs(@location(0) p: vec4<f32>, @location(1) c: vec4<f32>) -> V {
    return V(p, c);
}
@fragment
fn fs(v: V) -> @location(0) vec4<f32> {
    return vec4<f32>(1.0) - textureLoad(before, vec2<i32>(v.p.xy), 0);
}
";

#[test]
fn colour_targets_read_before_the_draw_are_copied_again_for_each() {
    assert_eq!(rsxtrace_gpu::COLOR_BEFORE_BINDING, 5);
    let Some(gpu) = common::gpu("raster_draws_colors_before") else {
        return;
    };
    let color = gpu
        .create_color_target(TargetFormat::Rgba32Float, 4, 1)
        .expect("colour target");
    let start = [[0.25, 0.5, 0.75, 1.0]; 4];
    gpu.write_color_target(&color, &start).expect("fill");
    let module = common::module(INVERTS);
    let mut desc = pipeline(false);
    desc.colors_before = 1;
    let mut colors = [None; MAX_RASTER_TARGETS];
    colors[0] = Some(&color);
    let targets = RasterTargets {
        colors,
        depth: None,
    };
    let left = rect(-1.0, 0.0, 0.5, [0.0; 4]);
    let all = rect(-1.0, 1.0, 0.5, [0.0; 4]);
    // The left half inverted, then everything: the left half back, the right inverted once.
    gpu.raster_draws(&[
        (targets, raster_draw(&module, &desc, &left, None)),
        (targets, raster_draw(&module, &desc, &all, None)),
    ])
    .expect("one submission");
    let got = gpu.read_color_target(&color).expect("readback");
    let inverted = [0.75, 0.5, 0.25, 0.0];
    assert_eq!(got, vec![start[0], start[0], inverted, inverted]);
    // A slot read before the draw must have a target.
    desc.colors_before = 0b10;
    let e = gpu
        .raster_draws(&[(targets, raster_draw(&module, &desc, &all, None))])
        .expect_err("refused");
    assert!(e.to_string().contains("colors[1]"), "{e}");
}

#[test]
fn face_runs_draw_each_run_with_its_faces_pipeline_and_reference_in_order() {
    let Some(gpu) = common::gpu("raster_draws_face_runs") else {
        return;
    };
    let (color, depth) = cleared_targets(&gpu);
    let module = common::module(SOURCE);
    // Stencil ALWAYS / REPLACE on both device faces, no depth test; the back runs' pipeline
    // writes only the low bits.
    let with_stencil = |write_mask: u8| {
        let mut desc = pipeline(true);
        let face = StencilFaceDesc {
            compare: Compare::Always,
            fail: StencilOperation::Keep,
            depth_fail: StencilOperation::Keep,
            pass: StencilOperation::Replace,
        };
        desc.depth_stencil = desc.depth_stencil.map(|d| DepthStencilDesc {
            compare: Compare::Always,
            write: false,
            stencil: Some(StencilDesc {
                front: face,
                back: face,
                read_mask: 0xFF,
                write_mask,
            }),
            ..d
        });
        desc
    };
    let (front, back) = (with_stencil(0xFF), with_stencil(0x0F));
    let mut colors = [None; MAX_RASTER_TARGETS];
    colors[0] = Some(&color);
    let targets = RasterTargets {
        colors,
        depth: Some(&depth),
    };
    // Front over everything (0x11), back over the right three pixels (0x22 through 0x0F:
    // 0x12), front over the rightmost pixel (0x11).
    let mut vertices = rect(-1.0, 1.0, 0.5, [0.0; 4]);
    vertices.extend(rect(-0.5, 1.0, 0.5, [0.0; 4]));
    vertices.extend(rect(0.5, 1.0, 0.5, [0.0; 4]));
    let runs = [(0, false), (6, true), (12, false)];
    let mut draw = raster_draw(&module, &front, &vertices, None);
    draw.stencil_reference = 0x11;
    draw.faces = Some(FaceRuns {
        back_desc: &back,
        back_reference: 0x22,
        runs: &runs,
    });
    gpu.raster_draws(&[(targets, draw)]).expect("draw");
    let got = gpu.read_depth_target(&depth).expect("readback");
    assert_eq!(got.stencil, Some(vec![0x11, 0x12, 0x12, 0x11]));

    // Runs must start at increasing whole primitives; the back pipeline may differ only in
    // its depth/stencil state.
    for (runs, what) in [
        (&[(0, false), (0, true)][..], "faces.runs[1]"),
        (&[(0, false), (4, true)][..], "faces.runs[1]"),
        (&[(0, false), (24, true)][..], "faces.runs[1]"),
    ] {
        let mut bad = draw;
        bad.faces = Some(FaceRuns {
            runs,
            ..draw.faces.unwrap()
        });
        let e = gpu.raster_draws(&[(targets, bad)]).expect_err("refused");
        assert!(e.to_string().contains(what), "{e}");
    }
    let mut other = back.clone();
    other.targets[0] = None;
    let mut bad = draw;
    bad.faces = Some(FaceRuns {
        back_desc: &other,
        ..draw.faces.unwrap()
    });
    let e = gpu.raster_draws(&[(targets, bad)]).expect_err("refused");
    assert!(e.to_string().contains("back_desc"), "{e}");
}

/// `Gpu::raster_draws_counted`: each counted draw's samples that pass the depth test, read
/// back after the submission; a draw not counted has no count, and a counted draw whose
/// scissor leaves no pixel counts 0.
#[test]
fn counted_draws_give_the_samples_that_pass() {
    let Some(gpu) = common::gpu("counted_draws_give_the_samples_that_pass") else {
        return;
    };
    let (color, depth) = cleared_targets(&gpu);
    let module = common::module(SOURCE);
    let with = pipeline(true);
    let mut colors = [None; MAX_RASTER_TARGETS];
    colors[0] = Some(&color);
    let targets = RasterTargets {
        colors,
        depth: Some(&depth),
    };
    let c = [1.0; 4];
    // Near over the left three pixels (3 pass); far over all four, behind them (1 passes:
    // the rightmost pixel); the same far rectangle not counted; one scissored to nothing.
    let near = rect(-1.0, 0.5, 0.2, c);
    let far = rect(-1.0, 1.0, 0.6, c);
    let draw = |vertices| raster_draw(&module, &with, vertices, None);
    let mut empty = draw(&far);
    empty.scissor = Some([0, 0, 0, 0]);
    let draws = [
        (targets, draw(&near)),
        (targets, draw(&far)),
        (targets, draw(&far)),
        (targets, empty),
    ];
    let counts = gpu
        .raster_draws_counted(&draws, &[true, true, false, true])
        .expect("draws");
    let read = gpu.read_sample_counts(&counts).expect("counts");
    assert_eq!(read, [Some(3), Some(1), None, Some(0)]);
}
