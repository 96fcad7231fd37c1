//! Write/read round trips through rsxtrace-rrc (need its v6 writer and reader), and the
//! synthetic frame generator.

use rsxtrace_builder::synthetic::{large_frame, FRAGMENT_MOV_COL0};
use rsxtrace_builder::CaptureBuilder;
use rsxtrace_rrc::{Capture, Location};

fn same_content(a: &Capture, b: &Capture) {
    assert_eq!(a.tiles, b.tiles);
    assert_eq!(a.blocks, b.blocks);
    assert_eq!(a.data, b.data);
    assert_eq!(a.display_buffers, b.display_buffers);
    assert_eq!(a.commands, b.commands);
    assert_eq!(a.reg_state, b.reg_state);
}

fn small() -> CaptureBuilder {
    let mut b = CaptureBuilder::new("rt");
    b.set_fragment_program(Location::Local, 0x100, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    b.put_memory(Location::Main, 0, &[1; 48]).unwrap();
    b.set_vertex_array(0, 2, 4, 16, 0, Location::Main, 0)
        .unwrap();
    b.set_vertex_attrib_input_mask(1);
    b.set_transform_constants(0, &[[1.0, 2.0, 3.0, 4.0]; 9])
        .unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    b
}

#[test]
fn gzip_round_trip_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rt_capture.rrc.gz");
    let written = small().write_rrc(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..2], &[0x1F, 0x8B], "one gzip member");
    let read = rsxtrace_rrc::read_file(&path).unwrap();
    assert_eq!(read.provenance.rrc_version, 6);
    same_content(&written, &read);
}

#[test]
fn uncompressed_round_trip_with_constants_block() {
    let mut b = small();
    // Initial constants can only be set before recording: start a fresh builder.
    let mut fresh = CaptureBuilder::new("rt-consts");
    fresh
        .initial_transform_constants(Some(&[[0.5; 4]; 3]))
        .unwrap();
    fresh.set_scissor(0, 0, 8, 8);
    let with_consts = fresh.finish();
    let bytes = rsxtrace_rrc::write_v6_uncompressed(&with_consts);
    assert_eq!(&bytes[..12], &[0x52, 0x52, 0x43, 0, 6, 0, 0, 0, 1, 0, 0, 0]);
    // The block RPCS3 would misread as registers is written as uploads after the first
    // command (rsxtrace_rrc::rpcs3_form); the rest is unchanged.
    let read = rsxtrace_rrc::read_bytes(&bytes, "rt-consts").unwrap();
    assert_eq!(read.reg_state.transform_constants, None);
    let uploads = read.commands.len() - with_consts.commands.len();
    assert_eq!(read.commands[1 + uploads..], with_consts.commands[1..]);
    assert_eq!(read.reg_state.registers, with_consts.reg_state.registers);
    b.set_scissor(1, 1, 2, 2);
    let plain = b.finish();
    let bytes = rsxtrace_rrc::write_v6_uncompressed(&plain);
    same_content(&plain, &rsxtrace_rrc::read_bytes(&bytes, "rt").unwrap());
}

#[test]
fn synthetic_frame_round_trips() {
    let c = large_frame(40, 1 << 20, 3);
    let bytes = rsxtrace_rrc::write_v6(&c);
    // Pseudo-random payloads: gzip keeps most of the size.
    assert!(
        bytes.len() as u64 > c.memory_bytes() / 2,
        "{} vs {}",
        bytes.len(),
        c.memory_bytes()
    );
    same_content(&c, &rsxtrace_rrc::read_bytes(&bytes, "synthetic").unwrap());
}

#[test]
fn synthetic_frame_shape() {
    let c = large_frame(200, 4 << 20, 11);
    let ends = c
        .commands
        .iter()
        .filter(|x| x.first == (0x1808 | (1 << 18)) && x.second == 0)
        .count();
    assert_eq!(ends, 200);
    let mem = c.memory_bytes();
    assert!(mem > (2 << 20) && mem < (8 << 20), "memory {mem}");
    // Every END attaches the fragment program plus at least one more block.
    assert!(c
        .commands
        .iter()
        .filter(|x| x.first == (0x1808 | (1 << 18)) && x.second == 0)
        .all(|x| x.memory.len() >= 2));
    // Constant uploads per draw, indexed and non-indexed draws, textures.
    let count = |first: u32| c.commands.iter().filter(|x| x.first == first).count();
    assert_eq!(count(0x1EFC | (1 << 18)), 200);
    assert!(count(0x1814 | (1 << 18)) > 0 && count(0x1824 | (1 << 18)) > 0);
    assert!(count(0x1A00 | (1 << 18)) >= 50);
    // Deterministic per seed.
    assert_eq!(c, large_frame(200, 4 << 20, 11));
    assert_ne!(c.data, large_frame(200, 4 << 20, 12).data);
}
