//! Fuzz target: a bundled sample damaged by seeded edits (`rsxtrace_builder::damage`; the
//! input chooses the sample, the seed and the number of edits), then what the commands do
//! with it in process: the frame model, every draw's vertex fetch, the CPU render of two of
//! its draws (grabbing the first one's depth surface at the end, as `replay --target` does),
//! the captured reads inside tile regions (one sample binds one over its local memory),
//! the frame's statistics, how two draws' vertex programs read their constants (`probe
//! constants`; a skinned scene is among the samples, and occlusion queries deciding
//! conditional draws), the index, and edits that give every
//! draw another fragment program and two draws another vertex program, and one draw the
//! programs of another. Each must return Ok or Err, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rsxtrace_capture::builder::damage::damage;
use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_capture::fetch::fetch_draw;
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{self, Capture};
use rsxtrace_replay::edit::{edit_programs, ProgramFile, Request, Selector, Stage};
use rsxtrace_replay::render::cpu::{render_frame, render_frame_observed};
use rsxtrace_replay::render::overdraw::{draw_coverage, overdraw};
use rsxtrace_replay::render::state::FrameEvents;
use rsxtrace_replay::render::statistics::statistics;
use rsxtrace_replay::render::tile_regions::{tiled_reads, warnings};
use rsxtrace_replay::render::target::{depth_target_at, target_at, TargetGrab};
use rsxtrace_replay::render::RenderOptions;
use rsxtrace_verify::probe::constant_layout::constant_layout;
use std::sync::OnceLock;

const SAMPLES: [&str; 3] = [
    "basic.rrc.gz",
    "primitives.rrc.gz",
    "texture_formats.rrc.gz",
];

fn samples() -> &'static [Capture] {
    static SAMPLES_READ: OnceLock<Vec<Capture>> = OnceLock::new();
    SAMPLES_READ.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/samples");
        let mut read: Vec<Capture> = SAMPLES
            .iter()
            .map(|f| rrc::read_file(&dir.join(f)).expect("bundled sample"))
            .collect();
        // A skinned draw: constants read relative to the address register.
        read.push(rsxtrace_scenes::skinned::skinned_capture(true));
        // Occlusion queries deciding conditional draws.
        read.push(rsxtrace_scenes::occlusion::occlusion_capture());
        // Texture formats with a tile region bound over the first 16 MiB of local memory:
        // every captured local byte a render reads is a tiled read.
        let mut tiled = read[2].clone();
        for entry in &mut tiled.tiles {
            entry.value.tiles[1] = rrc::TileRegion {
                location: rrc::Location::Local,
                offset: 0,
                size: 16 << 20,
                pitch: 1024,
                compression: 8,
                base_tag: 0,
                bank: 0,
            }
            .pack();
        }
        read.push(tiled);
        read
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 10 {
        return;
    }
    let sample = &samples()[data[0] as usize % samples().len()];
    let edits = 1 + data[1] as usize % 16;
    let seed = u64::from_le_bytes(data[2..10].try_into().unwrap());
    let capture = damage(sample, seed, edits);
    let Ok(frame) = Frame::from_capture(&capture) else {
        return;
    };
    for (i, draw) in frame.draws.iter().enumerate() {
        if let Some(memory) = frame.memory(i) {
            let _ = fetch_draw(&draw.vertex_inputs, &memory);
        }
    }
    let events = FrameEvents::from_capture(&capture, &frame);
    let _ = statistics(&frame, &events, &capture.commands, None);
    let _ = warnings(&tiled_reads(&frame, &events, 0..frame.draws.len()));
    // Two draws per input, from the one the input chooses (a whole frame per input would
    // leave the fuzzer a few runs a second).
    let first = usize::from(data[1] >> 4);
    let _ = statistics(&frame, &events, &capture.commands, Some(first..first + 2));
    // How those draws' vertex programs read their constants (`probe constants`), palettes
    // traced over a few vertices.
    let _ = constant_layout(&frame, first..first + 2, 64);
    let options = RenderOptions {
        draws: Some(first..first + 2),
        ..Default::default()
    };
    // The same draws with the first one's depth surface grabbed when the render ends
    // (`replay --target`, the report's depth images), when a draw renders into it, or its
    // stencil (`replay --target --stencil`) when the input's eleventh byte is odd.
    let grab = frame.draws.get(first).and_then(|d| {
        let zeta = d.surface.zeta;
        let location = zeta.location?;
        if data.get(10).is_some_and(|b| b & 1 == 1) {
            Some(TargetGrab::new(
                depth_target_at(&frame, location, zeta.offset)?.stencil()?,
            ))
        } else {
            target_at(&frame, location, zeta.offset).map(TargetGrab::new)
        }
    });
    // The overdraw of the first draw's first colour target over the same draws.
    if let Some(target) = frame.draws.get(first).and_then(|d| {
        let c = d.surface.color[0];
        target_at(&frame, c.location?, c.offset)
    }) {
        let _ = overdraw(&frame, &target, Some(first..first + 2));
        let _ = draw_coverage(&frame, first, &target);
    }
    match grab {
        Some(mut grab) => {
            let _ = render_frame_observed(&frame, &events, &options, &mut grab);
            let _ = grab.stencil_values();
        }
        None => {
            let _ = render_frame(&frame, &events, &options);
        }
    }
    // Every draw's fragment program, and two draws' vertex program, replaced by the
    // builder's one-instruction programs; the next two draws' by the same vertex program
    // as assembly text loaded at slot 40.
    let mvp = rsxtrace_capture::builder::vertex_ucode::mvp_vertex_program(32);
    let vertex: Vec<u8> = mvp.iter().flat_map(|w| w.to_be_bytes()).collect();
    let assembly = rsxtrace_program::vertex::decode_words(&mvp)
        .map(|p| rsxtrace_program::vertex::disassemble(&p.loaded_at(40)))
        .unwrap_or_default();
    let requests = [
        (Selector::All, Stage::Fragment, FRAGMENT_MOV_COL0.to_vec()),
        (
            Selector::parse(&format!("{first}..{}", first + 2)).unwrap(),
            Stage::Vertex,
            vertex,
        ),
        (
            Selector::parse(&format!("{}..{}", first + 2, first + 4)).unwrap(),
            Stage::Vertex,
            assembly.into_bytes(),
        ),
    ]
    .into_iter()
    .filter_map(|(selector, stage, bytes)| {
        Some(Request {
            selector,
            program: ProgramFile::parse(&bytes, stage).ok()?,
        })
    })
    .collect::<Vec<_>>();
    let _ = edit_programs(&capture, &frame, &requests);
    // The first draw's programs taken for the draw after it (`edit --vertex N=@M`).
    let taken = [Stage::Fragment, Stage::Vertex]
        .into_iter()
        .filter_map(|stage| {
            Some(Request {
                selector: Selector::parse(&format!("{}", first + 1)).ok()?,
                program: ProgramFile::from_draw(&frame, first, stage).ok()?,
            })
        })
        .collect::<Vec<_>>();
    let _ = edit_programs(&capture, &frame, &taken);
    let dir = std::env::temp_dir().join(format!("rsxtrace-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("damaged.rrc");
    if std::fs::write(&path, rrc::write_v6_uncompressed(&capture)).is_ok() {
        if let Ok(mut db) = rsxtrace_index::Database::in_memory() {
            let _ = rsxtrace_index::index_file(&mut db, &path, &|_| {});
        }
    }
});
