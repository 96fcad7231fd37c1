//! Each version's layout read from hand-built bytes (see `common`): map order, ids, the
//! initial NOP, continuation entries, tails, and the v3 normalisation.

use crate::common;

use common::*;
use rsxtrace_rrc::{
    read_bytes, BufferState, Capture, Compression, MemoryBlock, TailLayout, TileInfo, ZcullInfo,
};

fn read(bytes: &[u8]) -> Capture {
    read_bytes(bytes, "dir/sub/file.rrc").unwrap_or_else(|e| panic!("{e}"))
}

/// The maps and commands every serial-family and v4 hand-built file holds.
fn check_serial_content(c: &Capture) {
    assert_eq!(c.tiles.len(), 1);
    assert_eq!(c.tiles[0].id, TILE_ID);
    assert_eq!(
        c.tiles[0].value.tiles[0],
        TileInfo {
            tile: 0x0001_0011,
            limit: 0x0003_0000,
            pitch: 0x1400,
            format: 0x4000_0010
        }
    );
    assert_eq!(c.tiles[0].value.tiles[14], TileInfo::default());
    assert_eq!(c.tiles[0].value.zculls[7].status1, 0x0020_2000);
    assert_eq!(c.blocks.len(), 1);
    assert_eq!(c.blocks[0].id, BLOCK_ID);
    assert_eq!(
        c.blocks[0].value,
        MemoryBlock {
            offset: 0x10_0000,
            location: 0,
            data_id: DATA_ID
        }
    );
    assert_eq!(c.data.len(), 1);
    assert_eq!(c.data[0].id, DATA_ID);
    assert_eq!(&c.data[0].value[..], &blob()[..]);
    assert_eq!(c.display_buffers.len(), 1);
    assert_eq!(c.display_buffers[0].id, DISPLAY_ID);
    assert_eq!(
        c.display_buffers[0].value.buffers[0],
        BufferState {
            width: 1280,
            height: 720,
            pitch: 5120,
            offset: 0x10_0000
        }
    );
    assert_eq!(c.display_buffers[0].value.count, 1);
}

fn check_serial_commands(c: &Capture) {
    assert_eq!(c.commands.len(), 4);
    let nop = &c.commands[0];
    assert_eq!(
        (nop.first, nop.second),
        (0x40, 0),
        "initial NOP (register index, count 0)"
    );
    assert!(nop.memory.is_empty());
    assert_eq!(
        (nop.tile_state, nop.display_buffer_state),
        (TILE_ID, DISPLAY_ID)
    );
    assert_eq!(
        (c.commands[1].first, c.commands[1].second),
        (0x0008_0B80, 0x1111_2222)
    );
    assert_eq!(
        (c.commands[2].first, c.commands[2].second),
        (0, 0x3333_4444),
        "continuation entry kept as recorded"
    );
    assert_eq!(c.commands[3].first, 0x0004_1808);
    assert_eq!(c.commands[3].memory, vec![BLOCK_ID]);
}

fn check_tail(c: &Capture, layout: TailLayout) {
    let r = &c.reg_state;
    assert_eq!(r.tail_layout(), layout);
    let words = if layout == TailLayout::Program512 {
        2048
    } else {
        2176
    };
    assert_eq!(r.transform_program.len(), words);
    assert_eq!(r.transform_program[0], 0xDEAD_BEEF);
    assert_eq!(r.transform_program[words - 1], 1);
    assert_eq!(r.registers.len(), 16384);
    assert_eq!(r.registers[0x1808 / 4], 5);
    assert_eq!(r.registers[16383], 0xCAFE_F00D);
    match &r.transform_constants {
        Some(k) => {
            assert_eq!(layout, TailLayout::Program544WithConstants);
            assert_eq!(k.len(), 512);
            assert_eq!(k[1], [0x3F80_0000, 0x4000_0000, 0, 0]);
            assert_eq!(k[0], [0; 4]);
        }
        None => assert_ne!(layout, TailLayout::Program544WithConstants),
    }
}

#[test]
fn v6_struct_first_maps() {
    let file = serial_file(6, Tail::P544);
    // Spot-check the hand layout itself: tile_map count at 12, its id right after 432 bytes.
    assert_eq!(file[12], 1);
    assert_eq!(&file[13 + 432..13 + 440], &TILE_ID.to_le_bytes());
    let c = read(&file);
    assert_eq!(c.provenance.rrc_version, 6);
    assert_eq!(c.provenance.source_name, "file.rrc");
    assert_eq!(c.provenance.compression, Compression::None);
    check_serial_content(&c);
    check_serial_commands(&c);
    check_tail(&c, TailLayout::Program544);
}

#[test]
fn v5_id_first_maps() {
    let file = serial_file(5, Tail::P544);
    assert_eq!(&file[13..21], &TILE_ID.to_le_bytes());
    let c = read(&file);
    assert_eq!(c.provenance.rrc_version, 5);
    check_serial_content(&c);
    check_serial_commands(&c);
    check_tail(&c, TailLayout::Program544);
}

#[test]
fn v6_read_as_v5_is_refused_or_different() {
    // Same bytes, version field changed: the id-first reading must not yield the v6 content.
    let mut file = serial_file(6, Tail::P544);
    file[4] = 5;
    match read_bytes(&file, "x") {
        Ok(c) => assert_ne!(c.tiles[0].id, TILE_ID),
        Err(e) => assert!(e.offset().is_some(), "{e}"),
    }
}

#[test]
fn every_tail_layout() {
    for (kind, layout, len) in [
        (Tail::P544, TailLayout::Program544, 74240),
        (
            Tail::P544Constants,
            TailLayout::Program544WithConstants,
            82432,
        ),
        (Tail::P512, TailLayout::Program512, 73728),
    ] {
        for version in [5, 6] {
            let file = serial_file(version, kind);
            let mut t = Vec::new();
            tail(&mut t, kind);
            assert_eq!(t.len(), len);
            let c = read(&file);
            check_serial_commands(&c);
            check_tail(&c, layout);
        }
    }
}

#[test]
fn unknown_tail_length_names_offset_and_length() {
    let mut file = serial_file(6, Tail::P544);
    let tail_start = file.len() - 74240;
    file.pop();
    let err = read_bytes(&file, "x").unwrap_err();
    match err {
        rsxtrace_rrc::RrcError::BadTail {
            offset, remaining, ..
        } => {
            assert_eq!(offset, tail_start as u64);
            assert_eq!(remaining, 74239);
        }
        other => panic!("{other}"),
    }
    file.extend_from_slice(&[0, 0]);
    assert!(
        read_bytes(&file, "x").is_err(),
        "74241 bytes is no layout either"
    );
}

#[test]
fn v4_cereal_layout() {
    let file = v4_file();
    let c = read(&file);
    assert_eq!(c.provenance.rrc_version, 4);
    check_serial_content(&c);
    assert_eq!(c.commands.len(), 2);
    assert_eq!(
        (c.commands[0].first, c.commands[0].tile_state),
        (0x40, TILE_ID)
    );
    assert_eq!(c.commands[1].memory, vec![BLOCK_ID]);
    check_tail(&c, TailLayout::Program512);
}

fn check_v3(c: &Capture, with_height: bool) {
    assert_eq!(c.provenance.rrc_version, 3);
    let t = &c.tiles[0].value;
    // GcmTileInfo::pack of (loc 0, off 0x10_0000, size 0x30_0000, pitch 0x1400, comp 2,
    // base 0x10, bank 1), worked by hand.
    assert_eq!(
        t.tiles[0],
        TileInfo {
            tile: 0x0010_0011,
            limit: 0x003F_0000,
            pitch: 0x1400,
            format: 0x4807_E010
        }
    );
    // Unbound, location 1, size 0: limit wraps as u32 arithmetic does; pitch/format zeroed.
    assert_eq!(
        t.tiles[1],
        TileInfo {
            tile: 0x8000_0002,
            limit: 0xFFFF_0000,
            pitch: 0,
            format: 0
        }
    );
    assert_eq!(
        t.tiles[2],
        TileInfo {
            tile: 1,
            limit: 0xFFFF_0000,
            pitch: 0,
            format: 0
        }
    );
    let size = if with_height {
        0x0500_02C0
    } else {
        0x0500_0000
    };
    assert_eq!(
        t.zculls[0],
        ZcullInfo {
            region: 0x121,
            size,
            start: 0x1000,
            offset: 0x20_0000,
            status0: 0xFF80_3006,
            status1: 0x0020_2000
        }
    );
    assert_eq!(
        t.zculls[7],
        ZcullInfo {
            region: 1,
            ..Default::default()
        }
    );
    assert_eq!(
        c.blocks[0].value,
        MemoryBlock {
            offset: 0x10_0040,
            location: 1,
            data_id: DATA_ID
        }
    );
    assert_eq!(&c.data[0].value[..], &blob()[..]);
    assert_eq!(c.display_buffers[0].value.count, 1);
    assert_eq!(c.commands[1].memory, vec![BLOCK_ID]);
    check_tail(c, TailLayout::Program512);
}

#[test]
fn v3_cereal_layout_without_zcull_height() {
    check_v3(&read(&v3_file(false)), false);
}

#[test]
fn v3_cereal_layout_with_zcull_height() {
    check_v3(&read(&v3_file(true)), true);
}
