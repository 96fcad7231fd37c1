//! Screen bands (`rsxtrace_replay::render::band`, `replay --shard K/N`): for N in {1, 2, 3, 7}
//! the N bands of a frame, merged, are byte for byte the whole frame's image on the CPU
//! render, for every bundled sample (the game sample on a slice of its draws), and for N = 3
//! on the GPU render (the basic sample and a smaller slice of the game's); each band's rows
//! outside it are transparent black. Builder scenes check the plan: a render-to-texture frame
//! cuts only the draw into the output surface, and a frame that samples the output surface
//! after drawing into it, or draws into the output's depth buffer from an offscreen pass
//! after it, renders whole with the reason said.

use crate::gpu_support;
use crate::render_support;

use render_support::{tex_program, vertex_program, FP_MOV_COL0};
use rsxtrace_capture::builder::{CaptureBuilder, SurfaceDesc, SurfaceTarget, TextureDesc};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{read_file, Capture, Location};
use rsxtrace_replay::render::band::{self, Band, BandOutcome, PartInfo};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{cpu, gpu, RenderError, RenderOptions, RenderedFrame};
use std::ops::Range;

/// Surface size of the builder scenes.
const W: u16 = 16;
const H: u16 = 16;
const COLOR: u32 = 0x0010_0000;
const ZETA: u32 = 0x0020_0000;
const OFFSCREEN: u32 = 0x0030_0000;

type Render<'a> = dyn Fn(&RenderOptions) -> Result<RenderedFrame, RenderError> + 'a;

/// Render `draws` whole and as N bands for each N of `counts`; every merge must equal the
/// whole image. Returns the bands' outcomes of the last N.
fn merged_equals_whole(
    what: &str,
    render: &Render<'_>,
    draws: Option<Range<usize>>,
    counts: &[usize],
) -> Vec<BandOutcome> {
    let options = RenderOptions {
        draws,
        ..Default::default()
    };
    let whole = render(&options).unwrap_or_else(|e| panic!("{what}: whole render: {e}"));
    assert!(whole.band.is_none());
    assert!(whole.skipped.is_empty(), "{what}: {:?}", whole.skipped);
    let first = whole.image.pixels.get(..4).expect("a pixel");
    assert!(
        whole.image.pixels.chunks(4).any(|p| p != first),
        "{what}: the whole image is flat, nothing to compare"
    );
    let mut outcomes = Vec::new();
    for &count in counts {
        outcomes.clear();
        let mut parts = Vec::new();
        for index in 1..=count {
            let part = render(&RenderOptions {
                band: Some(Band { index, count }),
                ..options.clone()
            })
            .unwrap_or_else(|e| panic!("{what}: band {index}/{count}: {e}"));
            let outcome = part.band.clone().expect("a band outcome");
            let image = &part.image;
            assert_eq!(
                (image.width, image.height),
                (whole.image.width, whole.image.height)
            );
            assert_eq!(outcome.rows, band::shard_rows(index, count, image.height));
            let row = image.width as usize * 4;
            for (y, pixels) in image.pixels.chunks(row).enumerate() {
                if !outcome.rows.contains(&(y as u32)) {
                    assert!(
                        pixels.iter().all(|&b| b == 0),
                        "{what}: band {index}/{count} has pixels in row {y}, outside it"
                    );
                }
            }
            let info = PartInfo {
                shard: format!("{index}/{count}"),
                rows: outcome.rows.clone(),
                width: image.width,
                height: image.height,
                frame: what.to_string(),
            };
            parts.push((format!("part {index}"), part.image, info));
            outcomes.push(outcome);
        }
        let merged = band::merge(&parts).unwrap_or_else(|e| panic!("{what}: merge: {e}"));
        assert!(
            merged == whole.image,
            "{what}: the {count} bands merged differ from the whole image (first difference \
             at byte {:?})",
            merged
                .pixels
                .iter()
                .zip(&whole.image.pixels)
                .position(|(a, b)| a != b)
        );
    }
    outcomes
}

fn scene(path: &str) -> (Frame, FrameEvents) {
    let capture = read_file(&rsxtrace_testkit::workspace!().sample(path)).expect("sample");
    scene_of(&capture)
}

fn scene_of(capture: &Capture) -> (Frame, FrameEvents) {
    let frame = Frame::from_capture(capture).expect("frame");
    let events = FrameEvents::from_capture(capture, &frame);
    (frame, events)
}

/// The game sample's first draws (its whole 2,400 draws take too long for a debug test).
const GAME_DRAWS: Range<usize> = 0..40;

/// Fewer on the GPU, where every render builds its pipelines anew (lavapipe compiles each).
const GAME_DRAWS_GPU: Range<usize> = 0..10;

#[test]
fn cpu_bands_merge_to_the_whole_sample_frames() {
    for (path, draws) in [
        ("basic.rrc.gz", None),
        ("primitives.rrc.gz", None),
        ("texture_formats.rrc.gz", None),
        ("game.rrc.gz", Some(GAME_DRAWS)),
    ] {
        let (frame, events) = scene(path);
        let render = |o: &RenderOptions| cpu::render_frame(&frame, &events, o);
        let outcomes = merged_equals_whole(path, &render, draws, &[1, 2, 3, 7]);
        // The samples draw straight into their output surface: every band cuts draws.
        for o in &outcomes {
            assert_eq!(o.refused, None, "{path}");
            assert!(o.banded_draws > 0, "{path}: no draw cut to {:?}", o.rows);
        }
    }
}

#[test]
fn gpu_bands_merge_to_the_whole_sample_frames() {
    let Some(device) = gpu_support::gpu("gpu_bands_merge_to_the_whole_sample_frames") else {
        return;
    };
    for (path, draws) in [
        ("basic.rrc.gz", None),
        ("game.rrc.gz", Some(GAME_DRAWS_GPU)),
    ] {
        let (frame, events) = scene(path);
        let render = |o: &RenderOptions| gpu::render_frame(&device, &frame, &events, o);
        for o in merged_equals_whole(path, &render, draws, &[3]) {
            assert_eq!(o.refused, None, "{path}");
        }
    }
}

fn target(offset: u32) -> SurfaceTarget {
    SurfaceTarget {
        location: Location::Local,
        offset,
        pitch: u32::from(W) * 4,
    }
}

/// A `W` × `H` A8R8G8B8 surface at `color` with the Z24S8 zeta surface.
fn surface(color: u32) -> SurfaceDesc {
    SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (4, 4),
        color_target: 1,
        colors: [target(color), target(0), target(0), target(0)],
        zeta: target(ZETA),
        clip: (0, 0, W, H),
    }
}

/// [`surface`] with 4 samples square centred (antialias 4): a 2W × 2H grid in memory.
fn multisampled(color: u32) -> SurfaceDesc {
    let wide = |offset| SurfaceTarget {
        pitch: u32::from(W) * 8,
        ..target(offset)
    };
    SurfaceDesc {
        antialias: 4,
        colors: [wide(color), target(0), target(0), target(0)],
        zeta: wide(ZETA),
        ..surface(color)
    }
}

/// A builder drawing into COLOR: viewport = identity on window pixels, full scissor, the
/// pass-through vertex program and `MOV R0, f[COL0]`.
fn builder(name: &str) -> CaptureBuilder {
    let mut b = CaptureBuilder::new(name);
    b.set_surface(&surface(COLOR));
    b.set_viewport(0, 0, W, H, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, W, H);
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    b
}

/// A triangle (window pixels) in `rgba`, texture coordinates = position / size, its vertex
/// data at `at` in main memory.
fn triangle(b: &mut CaptureBuilder, at: u32, corners: [(f32, f32); 3], rgba: [f32; 4]) {
    let corners = corners.map(|c| (c, rgba));
    primitive(b, at, 5, &corners); // TRIANGLES
}

/// Primitive `kind` (`SET_BEGIN_END`) over `vertices` (window pixels, colour), texture
/// coordinates = position / size, its vertex data at `at` in main memory.
fn primitive(b: &mut CaptureBuilder, at: u32, kind: u32, vertices: &[((f32, f32), [f32; 4])]) {
    let mut bytes = Vec::new();
    for &((x, y), rgba) in vertices {
        for v in [x, y, 0.5, 1.0].into_iter().chain(rgba).chain([
            x / f32::from(W),
            y / f32::from(H),
            0.0,
            1.0,
        ]) {
            bytes.extend(v.to_be_bytes());
        }
    }
    b.put_memory(Location::Main, at, &bytes).unwrap();
    for (attribute, from) in [(0, 0), (3, 16), (8, 32)] {
        b.set_vertex_array(attribute, 2, 4, 48, 0, Location::Main, at + from)
            .unwrap();
    }
    b.set_vertex_attrib_input_mask(0b1_0000_1001);
    b.draw_arrays(kind, &[(0, vertices.len() as u32)]).unwrap();
}

/// Texture unit 0 over `offset` (the surface as an A8R8G8B8 texture, nearest) and the
/// fragment program `TEX R0, f[TEX0], TEX0`.
fn sample_from(b: &mut CaptureBuilder, offset: u32) {
    b.put_memory(
        Location::Local,
        offset,
        &vec![0u8; usize::from(W) * usize::from(H) * 4],
    )
    .unwrap();
    let texture = TextureDesc {
        offset,
        location: Location::Local,
        width: W,
        height: H,
        pitch: u32::from(W) * 4,
        filter: 0x0101_0000,
        byte_size: u32::from(W) * u32::from(H) * 4,
        ..TextureDesc::default()
    };
    b.set_texture(0, &texture).unwrap();
    b.set_fragment_program(Location::Local, 0x2000, &tex_program(), 0x40)
        .unwrap();
}

const SLANTED: [(f32, f32); 3] = [(1.0, 0.5), (15.0, 6.0), (3.0, 15.5)];
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

fn cpu_bands(capture: &Capture, counts: &[usize]) -> Vec<BandOutcome> {
    let (frame, events) = scene_of(capture);
    let render = |o: &RenderOptions| cpu::render_frame(&frame, &events, o);
    merged_equals_whole("builder scene", &render, None, counts)
}

#[test]
fn a_band_edge_on_an_odd_row_keeps_quads_whole() {
    // A vertical line shaded by `DDY R0, f[COL0]`, its colour rising down the line: a line's
    // helper lanes copy its first covered lane, so the derivative of a row whose quad partner
    // row fell outside the band would read 0. The band edges of 3 bands of 16 rows lie on
    // rows 5 and 10; the draws are cut to even rows around them.
    let mut p = rsxtrace_program::fragment::decode(&FP_MOV_COL0).unwrap();
    p.instructions[0].opcode = rsxtrace_program::fragment::FpOpcode::Ddy;
    let mut b = builder("ddy-line.rrc");
    b.set_fragment_program(
        Location::Local,
        0x3000,
        &rsxtrace_program::fragment::encode(&p),
        0x40,
    )
    .unwrap();
    b.clear_surface(0xF0, 0xFF00_0000, 0);
    let top = ((4.5, 0.0), [0.0, 0.0, 0.0, 1.0]);
    let bottom = ((4.5, 16.0), [1.0, 0.5, 0.25, 1.0]);
    primitive(&mut b, 0x1_0000, 2, &[top, bottom]); // LINES
    for o in cpu_bands(&b.finish(), &[3]) {
        assert_eq!((o.refused, o.banded_draws), (None, 1));
    }
}

#[test]
fn multisampled_output_and_window_offset_bands_merge_exactly() {
    // The bands are image rows; a resolved 4-sample output holds two sample rows per image
    // row, and the odd window offset y moves the draws' rows against the surface's.
    let mut b = builder("msaa-offset.rrc");
    // Rows long enough for the offset: the clip's size lands from the offset on.
    let mut desc = multisampled(COLOR);
    desc.colors[0].pitch = (u32::from(W) + 3) * 8;
    desc.zeta.pitch = desc.colors[0].pitch;
    b.set_surface(&desc);
    b.set_viewport(
        0,
        0,
        2 * W,
        2 * H,
        (0.0, 1.0),
        [0.0; 4],
        [2.0, 2.0, 1.0, 0.0],
    );
    b.set_scissor(0, 0, 2 * W, 2 * H);
    b.method(0x02B8 / 4, 3 | (5 << 16)).unwrap(); // SET_WINDOW_OFFSET x 3, y 5
    b.clear_surface(0xF0, 0xFF20_4060, 0);
    triangle(&mut b, 0x1_0000, SLANTED, RED);
    triangle(
        &mut b,
        0x2_0000,
        [(0.0, 13.0), (12.0, 1.0), (9.0, 14.0)],
        GREEN,
    );
    let capture = b.finish();
    for o in cpu_bands(&capture, &[2, 3, 7]) {
        assert_eq!(o.refused, None);
        assert_eq!(o.banded_draws, 2);
    }
    let Some(device) =
        gpu_support::gpu("multisampled_output_and_window_offset_bands_merge_exactly")
    else {
        return;
    };
    let (frame, events) = scene_of(&capture);
    let render = |o: &RenderOptions| gpu::render_frame(&device, &frame, &events, o);
    merged_equals_whole("multisampled scene (GPU)", &render, None, &[3, 7]);
}

#[test]
fn render_to_texture_cuts_only_the_draw_into_the_output() {
    // Draws 0 and 1 render an offscreen texture, draw 2 samples it into COLOR (the output).
    let mut b = builder("rtt.rrc");
    b.set_surface(&surface(OFFSCREEN));
    b.clear_surface(0xF0, 0xFF00_00FF, 0);
    triangle(&mut b, 0x1_0000, SLANTED, RED);
    triangle(
        &mut b,
        0x2_0000,
        [(0.0, 16.0), (16.0, 16.0), (16.0, 0.0)],
        GREEN,
    );
    b.set_surface(&surface(COLOR));
    sample_from(&mut b, OFFSCREEN);
    triangle(
        &mut b,
        0x3_0000,
        [(0.0, 0.0), (32.0, 0.0), (0.0, 32.0)],
        RED,
    );
    let outcomes = cpu_bands(&b.finish(), &[1, 2, 3, 7]);
    for o in outcomes {
        assert_eq!(o.refused, None);
        assert_eq!(o.banded_draws, 1, "{:?}", o.rows);
    }
}

#[test]
fn sampling_the_output_after_drawing_into_it_renders_whole() {
    // Draw 0 renders into COLOR, draw 1 samples COLOR and writes COLOR again.
    let mut b = builder("feedback.rrc");
    b.clear_surface(0xF0, 0xFF00_00FF, 0);
    triangle(&mut b, 0x1_0000, SLANTED, RED);
    sample_from(&mut b, COLOR);
    triangle(
        &mut b,
        0x2_0000,
        [(0.0, 16.0), (16.0, 16.0), (16.0, 0.0)],
        GREEN,
    );
    for o in cpu_bands(&b.finish(), &[2, 3]) {
        assert_eq!(o.banded_draws, 0);
        let why = o.refused.expect("a refusal");
        assert!(
            why.contains("draw 1 samples texture unit 0 from local memory 0x100000"),
            "{why}"
        );
    }
}

#[test]
fn an_offscreen_pass_on_the_outputs_depth_buffer_renders_whole() {
    // Draw 0 renders into COLOR with the depth test on ZETA; draw 1 renders an offscreen
    // target with the same depth buffer, so it would test the band's depth only.
    let mut b = builder("shared-depth.rrc");
    b.clear_surface(0xF3, 0xFF00_00FF, 0xFFFF_FF00);
    b.set_depth(true, 0x0201, true); // LESS
    triangle(&mut b, 0x1_0000, SLANTED, RED);
    b.set_surface(&surface(OFFSCREEN));
    triangle(
        &mut b,
        0x2_0000,
        [(0.0, 16.0), (16.0, 16.0), (16.0, 0.0)],
        GREEN,
    );
    b.set_surface(&surface(COLOR));
    sample_from(&mut b, OFFSCREEN);
    triangle(
        &mut b,
        0x3_0000,
        [(0.0, 0.0), (32.0, 0.0), (0.0, 32.0)],
        RED,
    );
    for o in cpu_bands(&b.finish(), &[3]) {
        assert_eq!(o.banded_draws, 0);
        let why = o.refused.expect("a refusal");
        assert!(
            why.contains("draw 1 renders whole into local memory 0x200000"),
            "{why}"
        );
    }
}
