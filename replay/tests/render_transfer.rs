//! Image transfers between draws on both renderers: a surface is rendered (an 8×8 A8R8G8B8
//! pattern), then copied (`NV0039`), scaled (`NV3089` 2:1 through `NV3062`, FOH and ZOH, and
//! to R5G6B5), swizzled (`NV3089` 1:1 through `NV309E`), or sent inline (`NV308A`, the pattern
//! as COLOR words), and a later draw samples the
//! destination. Every expected pixel is computed here from the documented rules
//! (`render::transfer::apply`'s module doc; RPCS3 `nv0039.cpp`, `nv3089.cpp`), not by the
//! code under test: the FOH 2:1 reduction is the rounded mean of each 2×2 block, ZOH picks the
//! texel under `(2i + 1, 2j + 1)`, R5G6B5 truncates, and the swizzled destination is checked
//! byte for byte by reading it back as a linear texture and de-interleaving the Z-order bits.

use crate::gpu_support;

use crate::render_support;
use render_support::*;
use rsxtrace_capture::builder::{
    CaptureBuilder, MemoryCopyDesc, ScaledImageDesc, SurfaceDesc, SurfaceTarget, TextureDesc,
    TransferSurfaceDesc, TransferSwizzleDesc,
};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{BufferState, Capture, DisplayBuffersState, Location};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::{RenderOptions, RenderedFrame};

pub(crate) const W: u16 = 8;
pub(crate) const H: u16 = 8;
pub(crate) const COLOR: u32 = 0x0010_0000;
const ZETA: u32 = 0x0020_0000;
/// The rendered source surface (8×8 A8R8G8B8, pitch 32).
pub(crate) const SOURCE: u32 = 0x0030_0000;
/// The pattern texture draw 0 copies into SOURCE.
pub(crate) const PATTERN: u32 = 0x0038_0000;
/// Transfer destinations.
pub(crate) const DEST: u32 = 0x0040_0000;

/// `MOV o[COL0], v[3]; MOV o[TEX0], v[8]; MOV o[HPOS], v[0]`.
fn target(offset: u32, pitch: u32) -> SurfaceTarget {
    SurfaceTarget {
        location: Location::Local,
        offset,
        pitch,
    }
}

/// An 8×8 A8R8G8B8 surface at `offset` (pitch 32), no depth test.
pub(crate) fn surface(offset: u32) -> SurfaceDesc {
    SurfaceDesc {
        color_format: 8,
        depth_format: 2,
        surface_type: 1,
        antialias: 0,
        log2_size: (3, 3),
        color_target: 1,
        colors: [
            target(offset, 32),
            target(0, 64),
            target(0, 64),
            target(0, 64),
        ],
        zeta: target(ZETA, 32),
        clip: (0, 0, W, H),
    }
}

/// The pattern: texel (x, y) is bytes A, R, G, B with A = 255 and R, G, B from a small
/// deterministic sequence (all different, none saturated).
fn pattern() -> Vec<u8> {
    let mut s = 0x1234_5678u32;
    let mut next = || {
        s = s.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (s >> 16) as u8
    };
    (0..64)
        .flat_map(|_| [255, next(), next(), next()])
        .collect()
}

/// Pattern texel (x, y) as bytes A, R, G, B.
fn texel(p: &[u8], x: usize, y: usize) -> [u8; 4] {
    let at = (y * 8 + x) * 4;
    [p[at], p[at + 1], p[at + 2], p[at + 3]]
}

/// A full-surface quad with texture coordinates = pixel position / 8 (each pixel centre reads
/// the texel under it), vertex data at `at` in main memory.
pub(crate) fn quad(b: &mut CaptureBuilder, at: u32) {
    let vertices = corners([0.0, 0.0, 8.0, 8.0])
        .map(|(x, y)| [[x, y, 0.5, 1.0], [1.0; 4], [x / 8.0, y / 8.0, 0.0, 1.0]]);
    draw_vertices(b, at, 8, &vertices);
}

/// Texture unit 0: `w`×`h` texels of `format` (nearest) at `offset`, `pitch` bytes a row
/// (`linear` sets the LN flag), with zero bytes placed there (the capture attaches them; the
/// render reads what the frame rendered or copied on top).
#[allow(clippy::too_many_arguments)]
pub(crate) fn bind(
    b: &mut CaptureBuilder,
    offset: u32,
    format: u8,
    linear: bool,
    w: u16,
    h: u16,
    pitch: u32,
    bytes: u32,
) {
    b.put_memory(Location::Local, offset, &vec![0u8; bytes as usize])
        .unwrap();
    let texture = TextureDesc {
        offset,
        location: Location::Local,
        format: format | if linear { 0x20 } else { 0 },
        width: w,
        height: h,
        pitch: if linear { pitch } else { 0 },
        filter: 0x0101_0000,
        byte_size: bytes,
        ..TextureDesc::default()
    };
    b.set_texture(0, &texture).unwrap();
}

/// Draw 0 renders the pattern into SOURCE (a nearest read of the pattern texture at every
/// pixel centre), then `transfer` runs, then draw 1 renders COLOR sampling `sample`.
pub(crate) fn scene(
    name: &str,
    transfer: impl FnOnce(&mut CaptureBuilder),
    sample: impl FnOnce(&mut CaptureBuilder),
) -> Capture {
    let mut b = source_pass(name);
    transfer(&mut b);
    b.set_surface(&surface(COLOR));
    sample(&mut b);
    quad(&mut b, 0x2_0000);
    b.finish()
}

/// A capture whose draw 0 renders the pattern into SOURCE.
pub(crate) fn source_pass(name: &str) -> CaptureBuilder {
    source_pass_on(CaptureBuilder::new(name))
}

/// Draw 0 of [`source_pass`] on `b`.
fn source_pass_on(mut b: CaptureBuilder) -> CaptureBuilder {
    b.set_viewport(0, 0, W, H, (0.0, 1.0), [0.0; 4], [1.0, 1.0, 1.0, 0.0]);
    b.set_scissor(0, 0, W, H);
    b.set_color_mask(0x0101_0101);
    b.set_vertex_program(&vertex_program(), 0, 0, 0b1_0000_1001, 0x4003)
        .unwrap();
    b.set_fragment_program(Location::Local, 0x1000, &tex_program(), 0x40)
        .unwrap();
    b.set_surface(&surface(SOURCE));
    b.put_memory(Location::Local, PATTERN, &pattern()).unwrap();
    let tex = TextureDesc {
        offset: PATTERN,
        width: 8,
        height: 8,
        pitch: 32,
        filter: 0x0101_0000,
        byte_size: 256,
        ..TextureDesc::default()
    };
    b.set_texture(0, &tex).unwrap();
    quad(&mut b, 0x1_0000);
    b
}

pub(crate) fn cpu(capture: &Capture) -> RenderedFrame {
    let frame = Frame::from_capture(capture).expect("frame");
    let events = FrameEvents::from_capture(capture, &frame);
    let out = cpu_render_tiled(&frame, &events, &RenderOptions::default()).expect("CPU render");
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    out
}

pub(crate) fn gpu(gpu: &rsxtrace_gpu::Gpu, capture: &Capture) -> RenderedFrame {
    let frame = Frame::from_capture(capture).expect("frame");
    let events = FrameEvents::from_capture(capture, &frame);
    let out =
        rsxtrace_replay::render::gpu::render_frame(gpu, &frame, &events, &RenderOptions::default())
            .expect("GPU render");
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    out
}

/// Bytes A, R, G, B as the image's R, G, B, A.
fn rgba(argb: [u8; 4]) -> [u8; 4] {
    [argb[1], argb[2], argb[3], argb[0]]
}

/// A scaled image from SOURCE (8×8, pitch 32, A8R8G8B8, corner origin, point 0) with steps
/// `ratio` (11.20) into the last transfer surface, output `out`.
pub(crate) fn scaled(ratio: u32, interpolator: u8, out: (u16, u16, u16, u16)) -> ScaledImageDesc {
    ScaledImageDesc {
        src: (Location::Local, SOURCE),
        conversion: 1,
        format: 3,
        operation: 3,
        clip: out,
        out,
        ratio: (ratio, ratio),
        in_size: (8, 8),
        pitch: 32,
        origin: 2,
        interpolator,
        in_point: (0, 0),
    }
}

/// An `NV0039` copy of a whole 8×8 A8R8G8B8 image (8 lines of 32 bytes, pitch 32) from `src`
/// to `dst` in local memory.
pub(crate) fn whole_copy(src: u32, dst: u32) -> MemoryCopyDesc {
    MemoryCopyDesc {
        src: (Location::Local, src),
        dst: (Location::Local, dst),
        pitch: (32, 32),
        line_length: 32,
        line_count: 8,
        strides: (1, 1),
    }
}

/// The scenes and their expected image pixels `(x, y, rgba)`.
struct Case {
    name: &'static str,
    capture: Capture,
    expect: Vec<(u32, u32, [u8; 4])>,
}

fn cases() -> Vec<Case> {
    let p = pattern();
    let mut cases = Vec::new();

    // NV0039: 8 lines of 32 bytes from SOURCE (pitch 32) to DEST with pitch 64, then DEST
    // read as an 8×8 texture of pitch 64: every pixel is the pattern texel under it.
    let capture = scene(
        "transfer_copy.rrc",
        |b| {
            b.transfer_memory(&MemoryCopyDesc {
                src: (Location::Local, SOURCE),
                dst: (Location::Local, DEST),
                pitch: (32, 64),
                line_length: 32,
                line_count: 8,
                strides: (1, 1),
            })
            .unwrap()
        },
        |b| bind(b, DEST, 0x85, true, 8, 8, 64, 64 * 8),
    );
    let expect = (0..8)
        .flat_map(|y| (0..8).map(move |x| (x, y)))
        .map(|(x, y)| (x, y, rgba(texel(&p, x as usize, y as usize))))
        .collect();
    cases.push(Case {
        name: "copy",
        capture,
        expect,
    });

    // NV3089 2:1 (ds/dx = dt/dy = 2.0 = 2 << 20) into a 4×4 NV3062 A8R8G8B8 surface (pitch 16),
    // FOH: destination (i, j) samples u = (i + ½)·2 = 2i + 1, between the centres of texels
    // 2i and 2i + 1 with weight ½ each: the rounded mean of the 2×2 block. ZOH: texel
    // ⌊2i + 1⌋ = 2i + 1. The sampling draw reads DEST as a 4×4 texture, so image pixel
    // (x, y) shows destination (x / 2, y / 2).
    for (interpolator, name) in [(1u8, "scale FOH"), (0, "scale ZOH")] {
        let capture = scene(
            "transfer_scale.rrc",
            |b| {
                b.set_transfer_surface(&TransferSurfaceDesc {
                    location: Location::Local,
                    offset: DEST,
                    pitch: 16,
                    format: 0xA,
                });
                b.transfer_scaled(&scaled(2 << 20, interpolator, (0, 0, 4, 4)))
                    .unwrap();
            },
            |b| bind(b, DEST, 0x85, true, 4, 4, 16, 64),
        );
        let mut expect = Vec::new();
        for (x, y) in (0..8).flat_map(|y| (0..8).map(move |x| (x, y))) {
            let (i, j) = (x as usize / 2, y as usize / 2);
            let argb = if interpolator == 1 {
                let block = [
                    texel(&p, 2 * i, 2 * j),
                    texel(&p, 2 * i + 1, 2 * j),
                    texel(&p, 2 * i, 2 * j + 1),
                    texel(&p, 2 * i + 1, 2 * j + 1),
                ];
                std::array::from_fn(|c| {
                    let sum: u32 = block.iter().map(|t| u32::from(t[c])).sum();
                    (f64::from(sum) / 4.0).round() as u8
                })
            } else {
                texel(&p, 2 * i + 1, 2 * j + 1)
            };
            expect.push((x, y, rgba(argb)));
        }
        cases.push(Case {
            name,
            capture,
            expect,
        });
    }

    // NV3089 1:1 mirrored on both axes (ds/dx = dt/dy = -1.0, 11.20 0xFFF00000) from the
    // point (7, 7), the last texel: the steps walk the image backward from it (RPCS3
    // nv3089.cpp _mirror_transform), so destination (x, y) holds texel (7 - x, 7 - y).
    let capture = scene(
        "transfer_mirror.rrc",
        |b| {
            b.set_transfer_surface(&TransferSurfaceDesc {
                location: Location::Local,
                offset: DEST,
                pitch: 32,
                format: 0xA,
            });
            let mut d = scaled(0xFFF0_0000, 0, (0, 0, 8, 8));
            d.in_point = (7 << 4, 7 << 4);
            b.transfer_scaled(&d).unwrap();
        },
        |b| bind(b, DEST, 0x85, true, 8, 8, 32, 256),
    );
    let expect = (0..8)
        .flat_map(|y| (0..8).map(move |x| (x, y)))
        .map(|(x, y)| (x, y, rgba(texel(&p, 7 - x as usize, 7 - y as usize))))
        .collect();
    cases.push(Case {
        name: "mirror",
        capture,
        expect,
    });

    // NV3089 1:1 ZOH into an R5G6B5 NV3062 surface (truncation), read back as an R5G6B5
    // texture: each channel is (c8 >> 3) at 8-bit precision, ⌊v·255/31⌋ / 255 (or >> 2, 63:
    // the texture model's rule for channels under 8 bits), written to the 8-bit target by
    // RPCS3's rule (rsx-microcode.md B.9: low 12 mantissa bits cleared, then
    // floor(v · 255 + 0.5)).
    let capture = scene(
        "transfer_565.rrc",
        |b| {
            b.set_transfer_surface(&TransferSurfaceDesc {
                location: Location::Local,
                offset: DEST,
                pitch: 16,
                format: 4,
            });
            b.transfer_scaled(&scaled(1 << 20, 0, (0, 0, 8, 8)))
                .unwrap();
        },
        |b| bind(b, DEST, 0x84, true, 8, 8, 16, 128),
    );
    let expect = (0..8)
        .flat_map(|y| (0..8).map(move |x| (x, y)))
        .map(|(x, y)| {
            let t = texel(&p, x as usize, y as usize);
            let q = |v: u8, bits: u32| {
                let max = (1u32 << bits) - 1;
                let unorm = ((u32::from(v) >> (8 - bits)) * 255 / max) as f32 / 255.0;
                let cut = f32::from_bits(unorm.to_bits() & !0xFFF);
                (cut * 255.0 + 0.5).floor() as u8
            };
            (x, y, [q(t[1], 5), q(t[2], 6), q(t[3], 5), 255])
        })
        .collect();
    cases.push(Case {
        name: "scale to R5G6B5",
        capture,
        expect,
    });

    // NV3089 1:1 into an 8×8 NV309E swizzled surface, read back as a *linear* 64-texel-wide
    // row texture of its bytes: linear texel k holds the source pixel whose Z-order index is
    // k, i.e. x = the even bits of k, y = the odd bits (x first: texture swizzle order,
    // RPCS3 `convert_linear_swizzle`). The sampling quad reads texel (x, y) of an 8×8
    // linear view of pitch 32, i.e. k = 8y + x.
    let capture = scene(
        "transfer_swizzle.rrc",
        |b| {
            b.set_transfer_swizzle(&TransferSwizzleDesc {
                location: Location::Local,
                offset: DEST,
                format: 0xA,
                log2_size: (3, 3),
            });
            b.transfer_scaled(&scaled(1 << 20, 0, (0, 0, 8, 8)))
                .unwrap();
        },
        |b| bind(b, DEST, 0x85, true, 8, 8, 32, 256),
    );
    let deinterleave = |k: usize, first: usize| -> usize {
        (0..3)
            .map(|bit| ((k >> (2 * bit + first)) & 1) << bit)
            .sum()
    };
    let expect = (0..8)
        .flat_map(|y| (0..8).map(move |x| (x, y)))
        .map(|(x, y)| {
            let k = (y * 8 + x) as usize;
            (
                x,
                y,
                rgba(texel(&p, deinterleave(k, 0), deinterleave(k, 1))),
            )
        })
        .collect();
    cases.push(Case {
        name: "swizzle",
        capture,
        expect,
    });

    // NV308A: the pattern sent inline, one row of eight COLOR words per POINT (0, y), into an
    // 8×8 NV3062 A8R8G8B8 surface (pitch 32); each word is stored as it is (RPCS3
    // `nv308a.cpp` copies the command's words), so the texture read back is the pattern.
    let capture = scene(
        "transfer_inline.rrc",
        |b| {
            b.set_transfer_surface(&TransferSurfaceDesc {
                location: Location::Local,
                offset: DEST,
                pitch: 32,
                format: 0xA,
            });
            for y in 0..8u16 {
                let words: Vec<u32> = (0..8)
                    .map(|x| u32::from_be_bytes(texel(&p, x, usize::from(y))))
                    .collect();
                b.transfer_inline((0, y), &words).unwrap();
            }
        },
        |b| bind(b, DEST, 0x85, true, 8, 8, 32, 256),
    );
    let expect = (0..8)
        .flat_map(|y| (0..8).map(move |x| (x, y)))
        .map(|(x, y)| (x, y, rgba(texel(&p, x as usize, y as usize))))
        .collect();
    cases.push(Case {
        name: "inline",
        capture,
        expect,
    });
    cases
}

fn check(what: &str, case: &Case, out: &RenderedFrame, tolerance: u8) {
    for &(x, y, want) in &case.expect {
        let got = out.image.pixel(x, y).expect("pixel");
        let close = got
            .iter()
            .zip(want)
            .all(|(a, b)| a.abs_diff(b) <= tolerance);
        assert!(
            close,
            "{what} {}: pixel ({x}, {y}) is {got:?}, want {want:?}",
            case.name
        );
    }
}

#[test]
fn transfers_are_seen_by_later_draws_on_the_cpu() {
    for case in cases() {
        let out = cpu(&case.capture);
        assert!(out.warnings.is_empty(), "{}: {:?}", case.name, out.warnings);
        check("CPU", &case, &out, 0);
    }
}

#[test]
fn transfers_are_seen_by_later_draws_on_the_gpu() {
    let Some(device) = gpu_support::gpu("transfers_are_seen_by_later_draws_on_the_gpu") else {
        return;
    };
    for case in cases() {
        let out = gpu(&device, &case.capture);
        // The GPU texture path is exact for 8-bit channels; 5/6-bit channels expand through
        // the device's unorm conversion (one step of rounding).
        check("GPU", &case, &out, 1);
    }
}

#[test]
fn a_frame_scaled_into_its_display_buffer_after_the_last_draw_is_the_output() {
    // Draw 0 renders the 8×8 pattern into SOURCE; then an NV3089 2:1 magnification (ZOH) into
    // the display buffer at DEST, 16×16 with pitch 64, as games scale or resolve their frame
    // into it after the last draw. The output is that buffer (RPCS3 shows it at the flip):
    // pixel (x, y) is the pattern's texel (x / 2, y / 2). Before, the output was the last
    // draw's target, SOURCE.
    let mut b = CaptureBuilder::new("display_transfer.rrc");
    b.set_display_buffers(DisplayBuffersState::of(&[BufferState {
        width: 16,
        height: 16,
        pitch: 64,
        offset: DEST,
    }]));
    let mut b = source_pass_on(b);
    b.set_transfer_surface(&TransferSurfaceDesc {
        location: Location::Local,
        offset: DEST,
        pitch: 64,
        format: 0xA,
    });
    b.transfer_scaled(&scaled(1 << 19, 0, (0, 0, 16, 16)))
        .unwrap();
    let capture = b.finish();
    let p = pattern();
    let check = |name: &str, out: &RenderedFrame| {
        assert_eq!(
            out.source,
            rsxtrace_replay::render::OutputSource::Displayed { address: DEST },
            "{name}"
        );
        assert_eq!((out.image.width, out.image.height), (16, 16), "{name}");
        for (x, y) in [(0, 0), (3, 1), (15, 15), (8, 5), (1, 14)] {
            let want = rgba(texel(&p, x as usize / 2, y as usize / 2));
            assert_eq!(out.image.pixel(x, y), Some(want), "{name} ({x}, {y})");
        }
    };
    check("cpu", &cpu(&capture));
    if let Some(device) = gpu_support::gpu("display_transfer") {
        check("gpu", &gpu(&device, &capture));
    }
}

#[test]
fn an_unsupported_transfer_is_named_and_the_frame_goes_on() {
    // Operation 1 (ROP_AND) is not modelled: a warning names the command, the destination
    // keeps its zero bytes, and the sampling draw still renders (black, alpha 0).
    let capture = scene(
        "transfer_rop.rrc",
        |b| {
            b.set_transfer_surface(&TransferSurfaceDesc {
                location: Location::Local,
                offset: DEST,
                pitch: 32,
                format: 0xA,
            });
            let mut d = scaled(1 << 20, 0, (0, 0, 8, 8));
            d.operation = 1;
            b.transfer_scaled(&d).unwrap();
        },
        |b| bind(b, DEST, 0x85, true, 8, 8, 32, 256),
    );
    let out = cpu(&capture);
    assert_eq!(out.draws_rendered, 2);
    assert!(
        out.warnings
            .iter()
            .any(|w| w.message.contains("NV3089_IMAGE_IN at command")
                && w.message.contains("operation 1")),
        "{:?}",
        out.warnings
    );
    assert_eq!(out.image.pixel(3, 3), Some([0, 0, 0, 0]));
}

#[test]
fn frame_events_list_transfers_in_order_with_clears() {
    let capture = scene(
        "transfer_events.rrc",
        |b| {
            b.clear_surface(0xF0, 0, 0);
            b.transfer_memory(&whole_copy(SOURCE, DEST)).unwrap();
        },
        |b| bind(b, DEST, 0x85, true, 8, 8, 32, 256),
    );
    let frame = Frame::from_capture(&capture).unwrap();
    let events = FrameEvents::from_capture(&capture, &frame);
    assert_eq!(events.transfers.len(), 1);
    assert_eq!(events.transfers[0].before_draw, 1);
    let order: Vec<usize> = events.between_draws().iter().map(|e| e.command()).collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(order, sorted);
    assert_eq!(order.len(), 2);
}

#[test]
fn a_transfer_onto_a_watched_pixel_is_in_its_history() {
    use rsxtrace_replay::render::history::{pixel_history, FragmentOutcome, PixelEvent, Watched};
    // Draw 0 renders the pattern into SOURCE (the output target: the last draw's); then an
    // NV0039 copy of the pattern's first row from its second texel on lands on SOURCE's
    // first row, one texel to the left: pixel (0, 0) is written, then copied over.
    let mut b = source_pass("history_transfer.rrc");
    let p = pattern();
    b.transfer_memory(&MemoryCopyDesc {
        src: (Location::Local, PATTERN + 4),
        dst: (Location::Local, SOURCE),
        pitch: (32, 32),
        line_length: 28,
        line_count: 1,
        strides: (1, 1),
    })
    .unwrap();
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let h = pixel_history(
        &frame,
        &events,
        &RenderOptions::default(),
        Watched::Output,
        0,
        0,
    )
    .expect("history");
    let unit = |argb: [u8; 4]| rgba(argb).map(|v| f32::from(v) / 255.0);
    match h.events.as_slice() {
        [PixelEvent::Fragment(f), PixelEvent::Transfer {
            before_draw: 1,
            before,
            after,
            ..
        }] => {
            assert_eq!((f.draw, f.outcome), (0, FragmentOutcome::Written));
            assert_eq!(f.after, Some(unit(texel(&p, 0, 0))));
            assert_eq!(*before, f.after);
            assert_eq!(*after, Some(unit(texel(&p, 1, 0))));
        }
        other => panic!("unexpected history: {other:#?}"),
    }
    assert_eq!(h.last, Some(rgba(texel(&p, 1, 0))));
    assert_eq!(h.value, Some(unit(texel(&p, 1, 0))));
    // Pixel (7, 0) is past the copied 28 bytes: written by draw 0 only.
    let h = pixel_history(
        &frame,
        &events,
        &RenderOptions::default(),
        Watched::Output,
        7,
        0,
    )
    .expect("history");
    assert!(
        matches!(h.events.as_slice(), [PixelEvent::Fragment(_)]),
        "{:#?}",
        h.events
    );
}

#[test]
fn a_render_target_other_than_the_output_has_a_history_too() {
    use rsxtrace_replay::render::history::{pixel_history, FragmentOutcome, PixelEvent, Watched};
    // The scene renders the pattern into SOURCE (draw 0), then COLOR (draw 1, the output).
    let capture = scene("history_target.rrc", |_| {}, |_| {});
    let frame = Frame::from_capture(&capture).expect("frame");
    let events = FrameEvents::from_capture(&capture, &frame);
    let p = pattern();
    let unit = |argb: [u8; 4]| rgba(argb).map(|v| f32::from(v) / 255.0);
    let options = RenderOptions::default();
    let watched = Watched::Target(Location::Local, SOURCE);
    let h = pixel_history(&frame, &events, &options, watched, 2, 3).expect("history");
    match h.events.as_slice() {
        [PixelEvent::Fragment(f)] => {
            assert_eq!((f.draw, f.outcome), (0, FragmentOutcome::Written));
            assert_eq!(f.after, Some(unit(texel(&p, 2, 3))));
        }
        other => panic!("unexpected history: {other:#?}"),
    }
    assert_eq!(h.surface.address, SOURCE);
    assert_eq!((h.surface.width, h.surface.height), (8, 8));
    assert!(h.surface.output.is_none() && h.last.is_none());
    assert_eq!(h.value, Some(unit(texel(&p, 2, 3))));
    // No draw renders into a colour target at PATTERN.
    let none = Watched::Target(Location::Local, PATTERN);
    assert!(pixel_history(&frame, &events, &options, none, 0, 0).is_err());
}
