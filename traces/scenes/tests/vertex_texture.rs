//! Vertex texture fetch (TXL) on every path, on the displaced grid of
//! `rsxtrace_scenes::vertex_texture` (a mip-mapped float texture at an explicit level of
//! detail, point-sampled as vertex units are): the interpreter's positions equal the texels
//! worked out here by hand; verify compares the recompiled `vp_compute` with the interpreter (the stage
//! runs, it is not skipped) and finds it clean, and a translation that samples the wrong level
//! diverges; the GPU render draws the same image as the CPU render, which differs from the
//! grid drawn without its texture.

use rsxtrace_capture::frame::Frame;
use rsxtrace_gpu::{Gpu, GpuError, GpuOptions};
use rsxtrace_replay::exec::{execute_draw, ExecOptions, OutputValue};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, Rgba8Image};
use rsxtrace_scenes::vertex_texture::{capture, texel, vertices, CELLS, LOD, UNIT};
use rsxtrace_verify::divergence::{verify_frame, Outcome, Stage, VerifyOptions};

fn gpu(test: &str) -> Option<Gpu> {
    rsxtrace_testkit::device::open_or_skip(
        test,
        || Gpu::new(GpuOptions::default()),
        |e| matches!(e, GpuError::NoAdapter { .. }),
    )
}

fn frame() -> Frame {
    Frame::from_capture(&capture().expect("the scene builds")).expect("frame model")
}

/// The texel under (u, v) in level `level` (side `4 >> level`), wrap repeat: what a vertex
/// unit reads, point-sampled whatever its FILTER register says
/// (`rsxtrace_replay::texture::vertex_units`).
fn nearest(level: u32, u: f32, v: f32) -> [f32; 4] {
    let side = (4u32 >> level).max(1) as i32;
    let tx = ((u * side as f32).floor() as i32).rem_euclid(side) as u32;
    let ty = ((v * side as f32).floor() as i32).rem_euclid(side) as u32;
    texel(level, tx, ty)
}

#[test]
fn the_interpreter_displaces_each_vertex_by_the_nearest_texel_of_the_nearest_level() {
    let f = frame();
    let out = execute_draw(&f, 0, &ExecOptions::default()).expect("the draw runs");
    assert!(
        out.texture_warnings.is_empty(),
        "{:?}",
        out.texture_warnings
    );
    assert_eq!(out.vertices.len(), CELLS * CELLS * 6);
    // The unit's FILTER asks for trilinear filtering, but a vertex unit point-samples the
    // nearest level: LOD 0.6 rounds to level 1.
    const { assert!(LOD > 0.5 && LOD < 1.5) };
    for (v, p) in out.vertices.iter().zip(vertices()) {
        let t = nearest(1, p[0], p[1]);
        let want = [p[0] + t[0], p[1] + t[1], p[2] + t[2], 1.0 + t[3]];
        let OutputValue::F32(got) = v.output("HPOS").expect("HPOS written").value else {
            panic!("f32 arithmetic")
        };
        for c in 0..4 {
            assert!(
                (got[c] - want[c]).abs() <= 1e-6,
                "vertex {}: HPOS {got:?}, by hand {want:?}",
                v.position
            );
        }
    }
    // The displacement is real: some vertex moves by more than 1/100.
    assert!(out.vertices.iter().zip(vertices()).any(|(v, p)| {
        let OutputValue::F32(got) = v.output("HPOS").unwrap().value else {
            return false;
        };
        (got[0] - p[0]).abs() > 0.01
    }));
}

#[test]
fn verify_compares_the_vertex_stage_and_finds_it_clean() {
    let Some(gpu) = gpu("verify_compares_the_vertex_stage_and_finds_it_clean") else {
        return;
    };
    let f = frame();
    let report = verify_frame(&f, &VerifyOptions::default(), &gpu, None).expect("verify runs");
    let draw = &report.draws[0];
    let vertex = draw
        .stages
        .iter()
        .find(|s| s.stage == Stage::Vertex)
        .expect("a vertex stage");
    assert_eq!(vertex.outcome, Outcome::Clean, "{vertex:#?}");
    assert_eq!(vertex.elements, CELLS * CELLS * 6);
    assert!(vertex.registers.iter().any(|r| r.register == "HPOS"));
    let fragment = draw
        .stages
        .iter()
        .find(|s| s.stage == Stage::Fragment)
        .expect("a fragment stage");
    assert_eq!(fragment.outcome, Outcome::Clean, "{fragment:#?}");
}

/// A wrong translation of draw 0: its TXL reads its level of detail from c[1].x = 8 (the
/// coarsest level) instead of c[0].x.
fn wrong_lod(draw: usize, p: &mut rsxtrace_program::vertex::VertexProgram) {
    if draw == 0 {
        for i in &mut p.instructions {
            if i.vector == rsxtrace_program::vertex::VectorOpcode::Txl {
                i.const_index = 1;
            }
        }
    }
}

#[test]
fn a_txl_at_the_wrong_level_diverges() {
    let Some(gpu) = gpu("a_txl_at_the_wrong_level_diverges") else {
        return;
    };
    let f = frame();
    let options = VerifyOptions {
        vertex_hook: Some(wrong_lod),
        ..VerifyOptions::default()
    };
    let report = verify_frame(&f, &options, &gpu, None).expect("verify runs");
    let vertex = report.draws[0]
        .stages
        .iter()
        .find(|s| s.stage == Stage::Vertex)
        .unwrap();
    assert_eq!(vertex.outcome, Outcome::Diverged, "{vertex:#?}");
}

/// Pixels with a channel that differs by more than `by_more_than`.
fn differing_pixels(a: &Rgba8Image, b: &Rgba8Image, by_more_than: i32) -> usize {
    a.pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .filter(|(x, y)| {
            x.iter()
                .zip(y.iter())
                .any(|(p, q)| (i32::from(*p) - i32::from(*q)).abs() > by_more_than)
        })
        .count()
}

#[test]
fn the_gpu_render_samples_the_vertex_texture_as_the_cpu_render_does() {
    let Some(gpu) = gpu("the_gpu_render_samples_the_vertex_texture_as_the_cpu_render_does") else {
        return;
    };
    let c = capture().unwrap();
    let f = Frame::from_capture(&c).unwrap();
    let events = FrameEvents::from_capture(&c, &f);
    let options = RenderOptions::default();
    let cpu = rsxtrace_replay::render::cpu::render_frame(&f, &events, &options).unwrap();
    let on_gpu = rsxtrace_replay::render::gpu::render_frame(&gpu, &f, &events, &options).unwrap();
    for r in [&cpu, &on_gpu] {
        assert!(r.skipped.is_empty(), "{:?}", r.skipped);
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    }
    // Edge pixels may fall either way between two renderers' coverage rules; the grid's
    // colours and places agree everywhere else.
    let total = cpu.image.pixels.len() / 4;
    let off = differing_pixels(&cpu.image, &on_gpu.image, 2);
    assert!(off * 100 <= total, "{off} of {total} pixels differ");
    // Without its texture (unit disabled: RPCS3's null texture reads 0) the grid is drawn
    // undisplaced and uncoloured by the texels: a different image.
    let mut f_plain = f.clone();
    std::sync::Arc::make_mut(&mut f_plain.draws[0].vertex_textures)[usize::from(UNIT)]
        .control0
        .enabled = false;
    let plain =
        rsxtrace_replay::render::gpu::render_frame(&gpu, &f_plain, &events, &options).unwrap();
    assert!(differing_pixels(&plain.image, &on_gpu.image, 2) > 100);
}

#[test]
fn a_vertex_unit_that_cannot_be_decoded_reads_zeros_on_both_renderers() {
    let Some(gpu) = gpu("a_vertex_unit_that_cannot_be_decoded_reads_zeros") else {
        return;
    };
    // The unit's texels moved past the captured memory, its s and t reading an odd border
    // colour: it cannot be decoded, and both renderers read (0, 0, 0, 0) there (the GPU
    // recompiles the vertex program with the null unit's state, adding no border).
    let c = capture().unwrap();
    let mut f = Frame::from_capture(&c).unwrap();
    let events = FrameEvents::from_capture(&c, &f);
    {
        let t = &mut std::sync::Arc::make_mut(&mut f.draws[0].vertex_textures)[usize::from(UNIT)];
        t.offset = 0x0F00_0000;
        t.address.wrap_s.raw = 4;
        t.address.wrap_t.raw = 4;
        t.border_color = 0xFF80_40C0;
    }
    let options = RenderOptions::default();
    let cpu = rsxtrace_replay::render::cpu::render_frame(&f, &events, &options).unwrap();
    let on_gpu = rsxtrace_replay::render::gpu::render_frame(&gpu, &f, &events, &options).unwrap();
    assert!(
        on_gpu
            .warnings
            .iter()
            .any(|w| w.message.contains("vertex texture unit")),
        "{:?}",
        on_gpu.warnings
    );
    let total = cpu.image.pixels.len() / 4;
    let off = differing_pixels(&cpu.image, &on_gpu.image, 2);
    assert!(off * 100 <= total, "{off} of {total} pixels differ");
}

#[test]
fn batch_proves_a_vertex_program_with_txl_on_pattern_textures() {
    use rsxtrace_verify::batch::catalog::Entry;
    use rsxtrace_verify::batch::check::check;
    use rsxtrace_verify::batch::Status;
    use rsxtrace_verify::divergence::context::Context;
    use rsxtrace_verify::divergence::tolerance::Tolerances;
    let Some(gpu) = gpu("batch_proves_a_vertex_program_with_txl_on_pattern_textures") else {
        return;
    };
    let words = rsxtrace_program::vertex::encode(&rsxtrace_scenes::vertex_texture::program());
    let entry = Entry::new(
        rsxtrace_verify::divergence::Stage::Vertex,
        0x7e57,
        words.iter().flat_map(|w| w.to_be_bytes()).collect(),
        0,
    );
    let cx = Context::new(&gpu, Tolerances::default(), 1024);
    let checked = check(0, &entry, Some(&cx));
    assert_eq!(checked.status, Status::Proven, "{:?}", checked.reason);
    let module = checked.module.expect("recompiled");
    assert!(module.source.contains("textureSampleLevel(rsx_vtex1"));
}

#[test]
fn explain_matches_every_step_of_a_txl_vertex_and_names_a_wrong_level() {
    use rsxtrace_verify::divergence::context::Context;
    use rsxtrace_verify::divergence::tolerance::Tolerances;
    use rsxtrace_verify::explain::vertex::explain_vertex;
    let Some(gpu) = gpu("explain_matches_every_step_of_a_txl_vertex_and_names_a_wrong_level")
    else {
        return;
    };
    let f = frame();
    let cx = Context::new(&gpu, Tolerances::default(), 1024);
    let e = explain_vertex(&f, 0, 7, None, &cx).expect("explains");
    assert!(e.divergence.is_none(), "{e:#?}");
    assert_eq!(e.steps_matched, 4, "TXL, ADD, MOV, MAD");
    // The wrong level: the first divergent instruction is the TXL, slot 0.
    let mut wrong = rsxtrace_scenes::vertex_texture::program();
    wrong_lod(0, &mut wrong);
    let e = explain_vertex(&f, 0, 7, Some(&wrong), &cx).expect("explains");
    let d = e.divergence.expect("a divergence");
    assert_eq!(d.slot, 0, "{d:#?}");
}
