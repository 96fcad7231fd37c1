//! The game-scale generator of issue 14 (`rsxtrace_scenes::game_scale`) at a small scale (200
//! draws): the same options give the same bytes; its textures are the full mip chains,
//! swizzled and DXT formats it claims, read back through the frame model and the replay's
//! texture decoder; its ring buffer wraps and every streamed draw, before and after the wrap,
//! fetches its own vertices; and every draw replays on the CPU renderer without a warning.

use rsxtrace_capture::fetch::{fetch_draw, GuestMemory};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{write_v6_uncompressed, Capture};
use rsxtrace_replay::render::cpu::render_frame;
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::RenderOptions;
use rsxtrace_replay::texture::decode::decode_texture;
use rsxtrace_scenes::game_frame::StreamedDraw;
use rsxtrace_scenes::game_scale::{build_logged, GameScaleOptions, Size};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

fn options() -> GameScaleOptions {
    GameScaleOptions {
        draws: 200,
        memory_bytes: 6_000_000,
        seed: 14,
        corpus: None,
    }
}

/// The small capture, built once for the tests of this file.
fn small() -> &'static (Capture, Vec<StreamedDraw>, Frame) {
    static BUILT: OnceLock<(Capture, Vec<StreamedDraw>, Frame)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let (capture, streamed) = build_logged(&options()).expect("the small capture builds");
        let frame = Frame::from_capture(&capture).expect("its frame decodes");
        (capture, streamed, frame)
    })
}

#[test]
fn the_same_options_give_the_same_bytes_and_the_sizes_are_the_issues() {
    let (capture, _, frame) = small();
    assert_eq!(frame.draws.len(), 200);
    assert!(frame.draws.iter().all(|d| d.problems.is_empty()));
    let again = build_logged(&options()).unwrap().0;
    assert!(
        write_v6_uncompressed(capture) == write_v6_uncompressed(&again),
        "two builds with the same options differ"
    );
    let other = build_logged(&GameScaleOptions {
        seed: 15,
        ..options()
    })
    .unwrap()
    .0;
    assert!(write_v6_uncompressed(capture) != write_v6_uncompressed(&other));
    let sizes: Vec<_> = Size::ALL
        .iter()
        .map(|s| (s.draws(), s.memory_bytes() / 1_000_000))
        .collect();
    assert_eq!(sizes, [(2_000, 62), (8_000, 257), (20_000, 661)]);
}

/// Levels of a full chain: to 1x1, or for DXT to a smaller side of 4 (RPCS3
/// `get_exact_mipmap_count`).
fn full_chain(dxt: bool, width: u32, height: u32) -> u32 {
    if dxt {
        (width.min(height) / 4).ilog2() + 1
    } else {
        width.max(height).ilog2() + 1
    }
}

fn mean(texels: &[[f32; 4]]) -> [f32; 4] {
    let n = texels.len().max(1) as f32;
    std::array::from_fn(|c| texels.iter().map(|t| t[c]).sum::<f32>() / n)
}

#[test]
fn textures_are_full_mip_chains_swizzled_and_dxt_and_decode_through_the_frame_model() {
    let (_, _, frame) = small();
    // (location, offset) -> (format byte with LN, levels) of every texture a draw binds.
    let mut seen: BTreeMap<(u8, u32), (u8, u32)> = BTreeMap::new();
    let mut min_filters = BTreeSet::new();
    for draw in &frame.draws {
        let memory = frame.memory(draw.index).unwrap();
        for (unit, t) in draw.textures.iter().enumerate() {
            if !t.control0.enabled {
                continue;
            }
            min_filters.insert(t.filter.min.raw);
            let location = t.location.map_or(9, |l| l as u8);
            if seen.contains_key(&(location, t.offset)) {
                continue;
            }
            let decoded = decode_texture(unit as u8, t, &memory).unwrap_or_else(|e| {
                panic!("draw {} unit {unit}: {e}", draw.index);
            });
            let dxt = (0x86..=0x88).contains(&(t.format.format & !0x60));
            let (w, h) = (u32::from(t.width), u32::from(t.height));
            assert_eq!(
                decoded.levels,
                full_chain(dxt, w, h),
                "draw {} unit {unit}: {w}x{h} format {:#x}",
                draw.index,
                t.format.format
            );
            assert_eq!(u32::from(t.format.mip_count), decoded.levels);
            // Each level is the box-filtered one above: the mean colour holds down the chain
            // (a level read from the wrong place, or in the wrong order, would not). Not on
            // DXT levels under 16 texels a side (a block of many colours keeps four on a
            // line), nor in A1R5G5B5's one-bit alpha.
            let top = mean(&decoded.level(0, 0).unwrap().texels);
            for l in 1..decoded.levels {
                let level = decoded.level(0, l).unwrap();
                if dxt && level.width.min(level.height) < 16 {
                    break;
                }
                let m = mean(&level.texels);
                let channels = if t.format.format & !0x60 == 0x82 {
                    3
                } else {
                    4
                };
                for c in 0..channels {
                    assert!(
                        (m[c] - top[c]).abs() < 0.06,
                        "draw {} unit {unit} format {:#x} level {l} channel {c}: mean {} vs {} at level 0",
                        draw.index,
                        t.format.format,
                        m[c],
                        top[c]
                    );
                }
            }
            seen.insert((location, t.offset), (t.format.format, decoded.levels));
        }
    }
    let formats: BTreeSet<u8> = seen.values().map(|&(f, _)| f).collect();
    for (code, name) in [(0x86, "DXT1"), (0x87, "DXT23"), (0x88, "DXT45")] {
        assert!(
            formats.contains(&code),
            "no {name} texture among {formats:x?}"
        );
    }
    let swizzled = formats
        .iter()
        .filter(|&&f| f & 0x20 == 0 && !(0x86..=0x88).contains(&f))
        .count();
    assert!(swizzled >= 2, "swizzled formats: {formats:x?}");
    assert!(seen.values().all(|&(_, levels)| levels > 1));
    // LINEAR_MIPMAP_LINEAR or NEAREST_MIPMAP_LINEAR: two levels blended.
    assert!(
        min_filters.contains(&6) && min_filters.contains(&5),
        "min filters {min_filters:?}"
    );
}

#[test]
fn the_ring_wraps_and_every_streamed_draw_fetches_its_own_vertices() {
    let (_, streamed, frame) = small();
    assert!(
        streamed.iter().filter(|s| s.wrapped).count() >= 2,
        "{} streamed draws, the ring wrapped fewer than twice",
        streamed.len()
    );
    for s in streamed {
        let draw = &frame.draws[s.draw];
        let memory = frame.memory(s.draw).unwrap();
        let fetched = fetch_draw(&draw.vertex_inputs, &memory)
            .unwrap_or_else(|e| panic!("draw {}: {e}", s.draw));
        assert_eq!(fetched.indices.len(), 6 * s.vertices as usize / 4);
        let position = fetched.vertex(0).unwrap().get(0).unwrap();
        assert_eq!(
            [position[0], position[1], position[2]],
            s.first_position,
            "draw {} (ring offset {:#x})",
            s.draw,
            s.offset
        );
    }
    // A draw after a wrap wrote over the first vertex of a draw before it: at the later draw
    // the memory holds the later bytes, at the earlier one still the earlier bytes.
    let overwritten = streamed.iter().enumerate().find_map(|(i, a)| {
        streamed[i + 1..]
            .iter()
            .find(|b| b.offset <= a.offset && a.offset < b.offset + (b.vertices + 1) * 36)
            .map(|b| (a, b))
    });
    let (a, b) = overwritten.expect("a later streamed draw overwrites an earlier one's vertices");
    let read = |draw: usize| {
        let bytes = frame
            .memory(draw)
            .unwrap()
            .read(a.location, a.offset, 4)
            .unwrap()
            .to_vec();
        f32::from_be_bytes(bytes.try_into().unwrap())
    };
    assert_eq!(read(a.draw), a.first_position[0]);
    assert_ne!(
        read(b.draw),
        a.first_position[0],
        "draws {} and {}",
        a.draw,
        b.draw
    );
}

#[test]
fn every_draw_replays_on_the_cpu_renderer_without_warnings() {
    let (capture, _, frame) = small();
    let events = FrameEvents::from_capture(capture, frame);
    let out = render_frame(frame, &events, &RenderOptions::default()).unwrap();
    assert_eq!(out.draws_rendered, 200);
    assert!(out.skipped.is_empty(), "skipped: {:?}", out.skipped);
    assert!(out.warnings.is_empty(), "warnings: {:?}", out.warnings);
}
