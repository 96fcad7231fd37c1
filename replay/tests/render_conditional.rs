//! Occlusion queries and conditional rendering (`render::conditional`): the frame model
//! decodes the counting switch, the report area and the report commands; both renderers count
//! the samples of the draws a query covers (the CPU render its written fragments, the GPU
//! render an occlusion query on the device) and draw a draw after `SET_RENDER_ENABLE` mode 2
//! only when its report, as it is at that command, holds a count: from a query of the frame,
//! else from the captured memory, else (unknown) drawn with a warning. A range that starts
//! after the queries, a band cut, and the GPU's count of every draw's samples when asked.

use crate::gpu_support;
use crate::render_support::*;
use rsxtrace_capture::builder::CaptureBuilder;
use rsxtrace_capture::frame::state::{REPORT_AREA_LOCAL, REPORT_AREA_MAIN};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{Capture, Entry, Location, MemoryBlock};
use rsxtrace_replay::render::band::Band;
use rsxtrace_replay::render::conditional::{ConditionalDraw, ReportSource};
use rsxtrace_replay::render::state::{FrameEvents, ReportOp};
use rsxtrace_replay::render::{RenderOptions, RenderedFrame};

const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
const BLUE: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const RED8: [u8; 4] = [255, 0, 0, 255];
const GREEN8: [u8; 4] = [0, 255, 0, 255];
const BLUE8: [u8; 4] = [0, 0, 255, 255];

/// `SET_DEPTH_FUNC` LESS.
const LESS: u32 = 0x201;

/// A quad over pixels `rect` at depth `z` in `rgba`, its vertices at `at`.
fn quad(b: &mut CaptureBuilder, at: u32, rect: [f32; 4], z: f32, rgba: [f32; 4]) {
    let vertices = corners(rect).map(|(x, y)| [[x, y, z, 1.0], rgba, [0.0; 4]]);
    draw_vertices(b, at, 8, &vertices);
}

/// A report in the main report area as `GET_REPORT` writes it (`CellGcmReportData`:
/// big-endian timer, value, padding) at IO offset 0x0E000000 + `offset`, attached to the
/// capture's first command (RPCS3's captures attach only what draws read, so a report is in
/// one only when a draw's data lies over it; a trace may hold it).
fn attach_report(capture: &mut Capture, offset: u32, value: u32) {
    attach_report_at(capture, 1, 0x0E00_0000 + offset, value);
}

/// A report holding `value` at `offset` of `location` (0 local, 1 main), attached to the
/// capture's first command.
fn attach_report_at(capture: &mut Capture, location: u32, offset: u32, value: u32) {
    let mut bytes = vec![0u8; 16];
    bytes[8..12].copy_from_slice(&value.to_be_bytes());
    let id = capture
        .blocks
        .iter()
        .map(|b| b.id)
        .chain(capture.data.iter().map(|d| d.id))
        .max()
        .unwrap_or(0)
        + 1;
    capture.data.push(Entry {
        id,
        value: bytes.into(),
    });
    capture.blocks.push(Entry {
        id,
        value: MemoryBlock {
            offset,
            location,
            data_id: id,
        },
    });
    capture.commands[0].memory.push(id);
}

/// An 8x8 frame, depth cleared to 1.0, colour to black:
/// - draw 0: a red occluder over the whole surface at z 0.2 (depth test LESS, written);
/// - draw 1: query A (report 0x10, local area): a quad at z 0.5 behind it, colour and depth
///   writes off: 0 samples;
/// - draw 2: query B (report 0x20): a 2x2 quad at z 0.1 in front: 4 samples;
/// - draws 3..=7 at z 0.05, conditional: 3 green on report A (not drawn), 4 blue on report
///   B (drawn), 5 green on main-area report 0x30 that memory holds as 0 (not drawn), 6 blue
///   on main-area report 0x40 nobody wrote and memory lacks (unknown: drawn), 7 blue on
///   main-area report 0x50 that memory holds as 3 (drawn).
///
/// Z-cull is on, as games keep it.
fn capture() -> Capture {
    capture_with_zcull(true)
}

/// [`capture`] with Z-cull (`SET_ZCULL_EN`) on or off.
fn capture_with_zcull(zcull: bool) -> Capture {
    let mut b = pixel_scene("conditional.rrc", 8, 2);
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    b.clear_surface(0xF3, 0xFF00_0000, 0xFFFF_FF00);
    b.set_zcull(zcull, zcull);
    b.set_depth(true, LESS, true);
    quad(&mut b, 0x1_0000, [0.0, 0.0, 8.0, 8.0], 0.2, RED);
    b.set_color_mask(0);
    b.set_depth(true, LESS, false);
    b.begin_occlusion_query(REPORT_AREA_LOCAL);
    quad(&mut b, 0x2_0000, [0.0, 0.0, 4.0, 8.0], 0.5, GREEN);
    b.end_occlusion_query(0x10);
    b.begin_occlusion_query(REPORT_AREA_LOCAL);
    quad(&mut b, 0x3_0000, [0.0, 0.0, 2.0, 2.0], 0.1, GREEN);
    b.end_occlusion_query(0x20);
    b.set_color_mask(0x0101_0101);
    b.set_conditional_render(Some((REPORT_AREA_LOCAL, 0x10)));
    quad(&mut b, 0x4_0000, [0.0, 0.0, 4.0, 4.0], 0.05, GREEN);
    b.set_conditional_render(Some((REPORT_AREA_LOCAL, 0x20)));
    quad(&mut b, 0x5_0000, [4.0, 0.0, 8.0, 4.0], 0.05, BLUE);
    b.set_conditional_render(Some((REPORT_AREA_MAIN, 0x30)));
    quad(&mut b, 0x6_0000, [0.0, 4.0, 4.0, 8.0], 0.05, GREEN);
    b.set_conditional_render(Some((REPORT_AREA_MAIN, 0x40)));
    quad(&mut b, 0x7_0000, [4.0, 4.0, 8.0, 8.0], 0.05, BLUE);
    b.set_conditional_render(Some((REPORT_AREA_MAIN, 0x50)));
    quad(&mut b, 0x8_0000, [0.0, 4.0, 2.0, 8.0], 0.05, BLUE);
    b.set_conditional_render(None);
    let mut capture = b.finish();
    attach_report(&mut capture, 0x30, 0);
    attach_report(&mut capture, 0x50, 3);
    capture
}

fn cpu(capture: &Capture, options: &RenderOptions) -> RenderedFrame {
    let frame = Frame::from_capture(capture).unwrap();
    let events = FrameEvents::from_capture(capture, &frame);
    cpu_render_tiled(&frame, &events, options).unwrap()
}

fn gpu(g: &rsxtrace_gpu::Gpu, capture: &Capture, options: &RenderOptions) -> RenderedFrame {
    let frame = Frame::from_capture(capture).unwrap();
    let events = FrameEvents::from_capture(capture, &frame);
    rsxtrace_replay::render::gpu::render_frame(g, &frame, &events, options).unwrap()
}

fn decided(
    draw: usize,
    source: ReportSource,
    samples: Option<u64>,
    drawn: bool,
) -> ConditionalDraw {
    ConditionalDraw {
        draw,
        report_offset: [0x10, 0x20, 0x30, 0x40, 0x50][draw - 3],
        report_dma: if draw < 5 {
            REPORT_AREA_LOCAL
        } else {
            REPORT_AREA_MAIN
        },
        source,
        samples,
        exact: samples.is_some(),
        drawn,
        counted_with_zcull_off: false,
    }
}

/// The whole frame's outcome, the same on both renderers.
fn check_whole_frame(out: &RenderedFrame, what: &str) {
    assert!(out.skipped.is_empty(), "{what}: {:?}", out.skipped);
    // Queries at commands: find them in the outcome rather than hard-coding the stream.
    let command_of = |d: usize| match out.conditional[d].source {
        ReportSource::Query { command } => command,
        other => panic!("{what}: draw {} decided by {other:?}", d + 3),
    };
    let expected = vec![
        decided(
            3,
            ReportSource::Query {
                command: command_of(0),
            },
            Some(0),
            false,
        ),
        decided(
            4,
            ReportSource::Query {
                command: command_of(1),
            },
            Some(4),
            true,
        ),
        decided(5, ReportSource::Memory, Some(0), false),
        ConditionalDraw {
            exact: false,
            ..decided(6, ReportSource::Unknown, None, true)
        },
        decided(7, ReportSource::Memory, Some(3), true),
    ];
    assert_eq!(out.conditional, expected, "{what}");
    assert!(command_of(0) < command_of(1), "{what}");
    // 8 draws, two not drawn.
    assert_eq!(out.draws_rendered, 6, "{what}");
    let notes: Vec<_> = out
        .warnings
        .iter()
        .filter(|w| w.message.contains("conditional rendering"))
        .collect();
    assert_eq!(notes.len(), 1, "{what}: {:?}", out.warnings);
    assert_eq!(notes[0].draw, Some(6), "{what}");
    assert!(
        notes[0].message.contains("offset 0x40") && notes[0].message.contains("as if it passed"),
        "{what}: {}",
        notes[0].message
    );
    let px = |x, y| out.image.pixel(x, y).unwrap();
    assert_eq!(px(1, 1), RED8, "{what}: draw 3 (report A counted 0) drawn");
    assert_eq!(
        px(5, 1),
        BLUE8,
        "{what}: draw 4 (report B counted 4) not drawn"
    );
    assert_eq!(px(3, 5), RED8, "{what}: draw 5 (memory holds 0) drawn");
    assert_eq!(px(5, 5), BLUE8, "{what}: draw 6 (unknown) not drawn");
    assert_eq!(px(1, 5), BLUE8, "{what}: draw 7 (memory holds 3) not drawn");
}

#[test]
fn the_frame_model_decodes_counting_the_report_area_and_the_report_commands() {
    let capture = capture();
    let frame = Frame::from_capture(&capture).unwrap();
    let counting: Vec<bool> = frame
        .draws
        .iter()
        .map(|d| d.raster.occlusion.zpass_pixel_count)
        .collect();
    assert_eq!(
        counting,
        [false, true, true, false, false, false, false, false]
    );
    assert_eq!(
        frame.draws[3].raster.occlusion.report_dma,
        REPORT_AREA_LOCAL
    );
    assert_eq!(frame.draws[5].raster.occlusion.report_dma, REPORT_AREA_MAIN);
    let first = frame.draws[3].raster.render_enable;
    assert!(first.conditional());
    assert_eq!(first.report_offset, 0x10);
    let events = FrameEvents::from_capture(&capture, &frame);
    let ops: Vec<(usize, ReportOp)> = events
        .reports
        .iter()
        .map(|e| (e.before_draw, e.op))
        .collect();
    let get = |offset| ReportOp::Get {
        report_type: 1,
        offset,
        report_dma: REPORT_AREA_LOCAL,
    };
    let clear = ReportOp::Clear { report_type: 1 };
    let enable = |mode, offset, report_dma| ReportOp::RenderEnable {
        mode,
        offset,
        report_dma,
    };
    assert_eq!(
        ops,
        [
            (1, clear),
            (2, get(0x10)),
            (2, clear),
            (3, get(0x20)),
            (3, enable(2, 0x10, REPORT_AREA_LOCAL)),
            (4, enable(2, 0x20, REPORT_AREA_LOCAL)),
            (5, enable(2, 0x30, REPORT_AREA_MAIN)),
            (6, enable(2, 0x40, REPORT_AREA_MAIN)),
            (7, enable(2, 0x50, REPORT_AREA_MAIN)),
            (8, enable(1, 0, REPORT_AREA_MAIN)),
        ]
    );
    assert_eq!(events.initial_render_enable, Some(enable(0, 0, 0)));
}

/// `SET_RENDER_ENABLE` mode 2 decides from the report as it is at that command, as RPCS3
/// evaluates it (`nv4097::set_render_mode`): an 8x8 frame that begins under conditional
/// rendering on a report set before the capture (draw 0, red, whole surface: unknown, drawn);
/// a query counts 4 samples (draw 1) into report 0x10 and mode 2 on it lets draw 2 (green,
/// left half) render; a second query then writes 0 to the same report (draw 3, depth test
/// NEVER), and draw 4 (blue, right half) still renders on the first one's count; a write of
/// mode 0 changes nothing, and mode 2 on the report again, now 0, leaves draw 5 (white, top
/// half) out.
fn decided_at_the_command() -> Capture {
    let mut b = pixel_scene("decided-at-the-command.rrc", 8, 2);
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    b.set_depth(false, LESS, false);
    quad(&mut b, 0x1_0000, [0.0, 0.0, 8.0, 8.0], 0.5, RED);
    b.set_color_mask(0);
    b.begin_occlusion_query(REPORT_AREA_LOCAL);
    quad(&mut b, 0x2_0000, [0.0, 0.0, 2.0, 2.0], 0.5, RED);
    b.end_occlusion_query(0x10);
    b.set_color_mask(0x0101_0101);
    b.set_conditional_render(Some((REPORT_AREA_LOCAL, 0x10)));
    quad(&mut b, 0x3_0000, [0.0, 0.0, 4.0, 8.0], 0.5, GREEN);
    b.set_depth(true, 0x200, false); // NEVER
    b.begin_occlusion_query(REPORT_AREA_LOCAL);
    quad(&mut b, 0x4_0000, [0.0, 0.0, 8.0, 8.0], 0.5, RED);
    b.end_occlusion_query(0x10);
    b.set_depth(false, LESS, false);
    quad(&mut b, 0x5_0000, [4.0, 0.0, 8.0, 8.0], 0.5, BLUE);
    b.method(0x1E98 / 4, 0).unwrap(); // SET_RENDER_ENABLE mode 0
    b.set_conditional_render(Some((REPORT_AREA_LOCAL, 0x10)));
    quad(&mut b, 0x6_0000, [0.0, 0.0, 8.0, 4.0], 0.5, [1.0; 4]);
    let mut capture = b.finish();
    // Conditional rendering on report 0x70 from before the capture.
    let regs = &mut capture.reg_state.registers;
    regs[0x1E98 / 4] = (2 << 24) | 0x70;
    regs[0x01A8 / 4] = REPORT_AREA_LOCAL;
    capture
}

#[test]
fn the_report_decides_as_it_is_at_the_command() {
    let check = |out: &RenderedFrame, what: &str| {
        let decided: Vec<(usize, ReportSource, Option<u64>, bool)> = out
            .conditional
            .iter()
            .map(|c| (c.draw, c.source, c.samples, c.drawn))
            .collect();
        let (first, second) = match (decided[2].1, decided[5].1) {
            (ReportSource::Query { command: a }, ReportSource::Query { command: b }) => (a, b),
            other => panic!("{what}: {other:?}"),
        };
        assert!(first < second, "{what}");
        assert_eq!(
            decided,
            [
                (0, ReportSource::Unknown, None, true),
                (1, ReportSource::Unknown, None, true),
                (2, ReportSource::Query { command: first }, Some(4), true),
                (3, ReportSource::Query { command: first }, Some(4), true),
                (4, ReportSource::Query { command: first }, Some(4), true),
                (5, ReportSource::Query { command: second }, Some(0), false),
            ],
            "{what}"
        );
        let px = |x, y| out.image.pixel(x, y).unwrap();
        assert_eq!(px(1, 1), GREEN8, "{what}");
        assert_eq!(px(5, 1), BLUE8, "{what}");
        assert_eq!(px(1, 5), GREEN8, "{what}");
    };
    let capture = decided_at_the_command();
    check(&cpu(&capture, &RenderOptions::default()), "CPU");
    if let Some(g) = gpu_support::gpu("the_report_decides_as_it_is_at_the_command") {
        check(&gpu(&g, &capture, &RenderOptions::default()), "GPU");
    }
}

#[test]
fn queries_decide_conditional_draws_on_the_cpu() {
    let out = cpu(&capture(), &RenderOptions::default());
    check_whole_frame(&out, "CPU");
    // Query B's draw passed its 4 fragments; a draw not drawn passed none.
    assert_eq!(out.draw_shading[2].shading.fragments_passed, 4);
    assert_eq!(out.draw_shading[3].shading.fragments_passed, 0);
}

#[test]
fn queries_decide_conditional_draws_on_the_gpu() {
    let Some(g) = gpu_support::gpu("queries_decide_conditional_draws_on_the_gpu") else {
        return;
    };
    let out = gpu(&g, &capture(), &RenderOptions::default());
    check_whole_frame(&out, "GPU");
}

/// With Z-cull off the queries count as before (no source ties the hardware's count to
/// Z-cull), but RPCS3 counts nothing (`ZCULL_control::check_state`): the draw drawn on
/// query B's samples is marked and warned about on both renderers; the one left out on
/// query A's 0 is not (RPCS3 leaves it out too).
#[test]
fn counts_made_with_zcull_off_are_marked_as_rpcs3_would_not_count_them() {
    let capture = capture_with_zcull(false);
    let frame = Frame::from_capture(&capture).unwrap();
    assert!(frame.draws.iter().all(|d| !d.raster.occlusion.zcull));
    assert!(Frame::from_capture(&capture_with_zcull(true))
        .unwrap()
        .draws
        .iter()
        .all(|d| d.raster.occlusion.zcull));
    let check = |out: &RenderedFrame, what: &str| {
        let marks: Vec<(usize, bool, bool)> = out
            .conditional
            .iter()
            .map(|c| (c.draw, c.drawn, c.counted_with_zcull_off))
            .collect();
        assert_eq!(
            marks,
            [
                (3, false, true),
                (4, true, true),
                (5, false, false),
                (6, true, false),
                (7, true, false)
            ],
            "{what}"
        );
        let zcull: Vec<_> = out
            .warnings
            .iter()
            .filter(|w| w.message.contains("SET_ZCULL_EN off"))
            .collect();
        assert_eq!(zcull.len(), 1, "{what}: {:?}", out.warnings);
        assert_eq!(zcull[0].draw, Some(4), "{what}");
        assert!(zcull[0].message.contains("RPCS3"), "{what}");
        // The image is the same as with Z-cull on.
        assert_eq!(out.image.pixel(5, 1), Some(BLUE8), "{what}");
    };
    check(&cpu(&capture, &RenderOptions::default()), "CPU");
    if let Some(g) = gpu_support::gpu("counts_made_with_zcull_off") {
        check(&gpu(&g, &capture, &RenderOptions::default()), "GPU");
    }
}

/// A range that starts after the queries rendered none of the draws they counted: their
/// reports may hold samples the replay did not see, so the draws on them are drawn and
/// warned; the reports in memory still decide.
#[test]
fn a_range_after_the_queries_knows_no_count() {
    let check = |out: &RenderedFrame, what: &str| {
        let sources: Vec<(ReportSource, bool)> = out
            .conditional
            .iter()
            .map(|c| (c.source, c.drawn))
            .collect();
        assert_eq!(
            sources,
            [
                (ReportSource::Unknown, true),
                (ReportSource::Unknown, true),
                (ReportSource::Memory, false),
                (ReportSource::Unknown, true),
                (ReportSource::Memory, true),
            ],
            "{what}"
        );
        // No occluder in the range: draw 3's green quad is there.
        assert_eq!(out.image.pixel(1, 1), Some(GREEN8), "{what}");
    };
    let options = RenderOptions {
        draws: Some(3..8),
        ..RenderOptions::default()
    };
    check(&cpu(&capture(), &options), "CPU");
    if let Some(g) = gpu_support::gpu("a_range_after_the_queries_knows_no_count") {
        check(&gpu(&g, &capture(), &options), "GPU");
    }
}

/// A band of the frame counts only its rows' samples: the plan refuses to cut the frame,
/// which then renders whole with the whole frame's decisions.
#[test]
fn a_band_does_not_cut_a_frame_whose_queries_decide_draws() {
    let options = RenderOptions {
        band: Some(Band { index: 2, count: 2 }),
        ..RenderOptions::default()
    };
    let out = cpu(&capture(), &options);
    let band = out.band.as_ref().unwrap();
    let refused = band.refused.as_deref().unwrap_or_default();
    assert!(refused.contains("occlusion query"), "{refused:?}");
    assert_eq!(out.conditional.iter().filter(|c| c.drawn).count(), 3);
}

/// With `RenderOptions::count_samples` the GPU render counts every draw's samples (an
/// occlusion query around each), as the CPU render does anyway: the same count per draw here
/// (whole pixels, no edge to round differently), 0 for the draws conditional rendering left
/// out; without it, no counts.
#[test]
fn the_gpu_counts_every_draws_samples_when_asked() {
    let Some(g) = gpu_support::gpu("the_gpu_counts_every_draws_samples_when_asked") else {
        return;
    };
    let capture = capture();
    let passed = |out: &RenderedFrame| -> Vec<(usize, u64)> {
        out.draw_shading
            .iter()
            .map(|d| (d.draw, d.shading.fragments_passed))
            .collect()
    };
    let counted = RenderOptions {
        count_samples: true,
        ..RenderOptions::default()
    };
    let on_gpu = gpu(&g, &capture, &counted);
    let on_cpu = cpu(&capture, &RenderOptions::default());
    assert_eq!(passed(&on_gpu), passed(&on_cpu));
    // The occluder's 64 pixels, query B's 4, the drawn flares' quarters (the second over
    // pixels the first flare left) and draw 7's 8 pixels.
    assert_eq!(
        passed(&on_gpu),
        [
            (0, 64),
            (1, 0),
            (2, 4),
            (3, 0),
            (4, 16),
            (5, 0),
            (6, 16),
            (7, 8)
        ]
    );
    assert!(gpu(&g, &capture, &RenderOptions::default())
        .draw_shading
        .is_empty());
}

/// The counter with counts read later (the GPU render's protocol): a report that counted a
/// draw not read yet is "at least" until the counts are read, then exact; a draw read as
/// unknown leaves its reports "at least".
#[test]
fn counts_read_later_decide_once_read() {
    use rsxtrace_replay::render::conditional::OcclusionCounter;
    let capture = capture();
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    let memory = frame.memory(3).unwrap();
    // Draws 0..3 rendered, the two queries' draws (1, 2) counted later.
    let run = |read: &dyn Fn(usize) -> Option<u64>| {
        let mut c = OcclusionCounter::new(&events);
        for (index, draw) in frame.draws.iter().enumerate().take(3) {
            c.before(&events, index);
            c.count_later(index, draw);
        }
        c.before(&events, 3);
        assert!(c.needs_counts());
        let before = c.decide(3, &memory).unwrap();
        assert_eq!(
            (before.source, before.samples, before.drawn),
            (ReportSource::Unknown, Some(0), true)
        );
        c.resolve(read);
        assert!(!c.needs_counts());
        let after = c.decide(3, &memory).unwrap();
        c.before(&events, 4);
        (after, c.decide(4, &memory).unwrap())
    };
    let (a, b) = run(&|d| Some(if d == 2 { 4 } else { 0 }));
    assert!(matches!(a.source, ReportSource::Query { .. }));
    assert_eq!((a.samples, a.exact, a.drawn), (Some(0), true, false));
    assert_eq!((b.samples, b.exact, b.drawn), (Some(4), true, true));
    // Draw 1 read as unknown: report A may hold samples (drawn, unknown); report B, after
    // its own clear, is exact.
    let (a, b) = run(&|d| (d == 2).then_some(4));
    assert_eq!((a.source, a.drawn), (ReportSource::Unknown, true));
    assert_eq!((b.samples, b.exact, b.drawn), (Some(4), true, true));
}

#[test]
fn reports_in_main_and_local_memory_decide_as_rpcs3_reads_them() {
    // The report context DMA may also name main memory (0xFEED0001: IO offset `offset`) or
    // local memory (0xFEED0000: `offset`), as RPCS3's `rsx::get_address` resolves them; a
    // report there is read from the captured memory. Four conditional quads: main and local
    // reports holding 0 (not drawn) and 5 (drawn).
    let mut b = pixel_scene("report_dmas.rrc", 8, 2);
    b.set_fragment_program(Location::Local, 0x1000, &FP_MOV_COL0, 0x40)
        .unwrap();
    b.clear_surface(0xF3, 0xFF00_0000, 0xFFFF_FF00);
    let cases = [
        (0xFEED_0001, 0x100, [0.0, 0.0, 4.0, 4.0]),
        (0xFEED_0000, 0x200, [4.0, 0.0, 8.0, 4.0]),
        (0xFEED_0001, 0x300, [0.0, 4.0, 4.0, 8.0]),
        (0xFEED_0000, 0x400, [4.0, 4.0, 8.0, 8.0]),
    ];
    for (k, (dma, offset, rect)) in cases.into_iter().enumerate() {
        b.set_conditional_render(Some((dma, offset)));
        quad(&mut b, 0x1_0000 * (k as u32 + 1), rect, 0.5, GREEN);
    }
    b.set_conditional_render(None);
    let mut capture = b.finish();
    attach_report_at(&mut capture, 1, 0x100, 0);
    attach_report_at(&mut capture, 0, 0x200, 0);
    attach_report_at(&mut capture, 1, 0x300, 5);
    attach_report_at(&mut capture, 0, 0x400, 5);
    let check = |out: &RenderedFrame, what: &str| {
        for (x, y, drawn) in [(1, 1, false), (6, 1, false), (1, 6, true), (6, 6, true)] {
            let want = if drawn {
                [0, 255, 0, 255]
            } else {
                [0, 0, 0, 255]
            };
            assert_eq!(out.image.pixel(x, y), Some(want), "{what}: ({x}, {y})");
        }
    };
    check(&cpu(&capture, &RenderOptions::default()), "cpu");
    if let Some(g) = gpu_support::gpu("reports_in_main_and_local_memory_decide_as_rpcs3_reads_them")
    {
        check(&gpu(&g, &capture, &RenderOptions::default()), "gpu");
    }
}
