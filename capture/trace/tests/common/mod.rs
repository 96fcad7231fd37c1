//! Captures built by hand for the tests: every map populated, continuation commands, a
//! constants block.

#![allow(dead_code)]

use bytes::Bytes;
use rsxtrace_rrc::{
    BufferState, Capture, Compression, DisplayBuffersState, Entry, MemoryBlock, Provenance,
    RegState, ReplayCommand, TileInfo, TileState, ZcullInfo,
};

/// NV4097_NO_OPERATION as recorded for the initial command: register offset 0x40
/// (rrc-format.md 3.2).
const INITIAL_NOP: u32 = 0x40;
/// FIFO header: method byte offset in bits 2..15, count in bits 18..28 (rrc-format.md 1.5).
pub fn header(method: u32, count: u32) -> u32 {
    (count << 18) | method
}
const SET_TRANSFORM_PROGRAM: u32 = 0x0B80;
const SET_BEGIN_END: u32 = 0x1808;

fn tile_state(seed: u32) -> TileState {
    let mut s = TileState::default();
    for (i, t) in (0u32..).zip(s.tiles.iter_mut()) {
        *t = TileInfo {
            tile: seed + i,
            limit: 0x8000_0000 | (seed << 16) | i,
            pitch: 0x0000_2000 + i,
            format: 0x4000_0000 | i,
        };
    }
    for (i, z) in (0u32..).zip(s.zculls.iter_mut()) {
        *z = ZcullInfo {
            region: seed ^ i,
            size: 0x100 * i,
            start: 1 + i,
            offset: 2 + i,
            status0: 3 + i,
            status1: 0xFFFF_FFF0 | i,
        };
    }
    s
}

fn display_state(count: u32) -> DisplayBuffersState {
    let mut s = DisplayBuffersState {
        count,
        ..Default::default()
    };
    for (i, b) in (0u32..).zip(s.buffers.iter_mut().take(count as usize)) {
        *b = BufferState {
            width: 1280,
            height: 720,
            pitch: 5120,
            offset: 0x0100_0000 * i,
        };
    }
    s
}

/// A capture with every map populated, continuation commands and a constants block.
pub fn full_capture() -> Capture {
    let mut sha256 = [0u8; 32];
    for (i, b) in (0u8..).zip(sha256.iter_mut()) {
        *b = i.wrapping_mul(37) ^ 0xA5;
    }
    let mut program: Vec<u32> = (0..2176u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    program[0] = 0x401F_9C6C;
    let mut registers: Vec<u32> = vec![0; 16384];
    registers[0x1808 / 4] = 0;
    registers[0x0200 / 4] = 0x3F80_0000;
    registers[16383] = 0xDEAD_BEEF;
    let constants: Vec<[u32; 4]> = (0..512u32)
        .map(|i| [i, 0x3F80_0000, 0x8000_0000 | i, 0x7FC0_0000])
        .collect();
    Capture {
        provenance: Provenance {
            source_name: "BLUS30443_20260817172216_capture.rrc.gz".into(),
            rrc_version: 6,
            compression: Compression::Gzip,
            sha256,
        },
        tiles: vec![
            Entry {
                id: 0x1236,
                value: tile_state(7),
            },
            Entry {
                id: 0x1240,
                value: tile_state(9),
            },
        ],
        blocks: vec![
            Entry {
                id: 0x1238,
                value: MemoryBlock {
                    offset: 0x0010_0000,
                    location: 0,
                    data_id: 0x1237,
                },
            },
            Entry {
                id: 0x1239,
                value: MemoryBlock {
                    offset: 0x0000_0400,
                    location: 0xFEED_0001,
                    data_id: 0x123A,
                },
            },
            Entry {
                id: 0x123B,
                value: MemoryBlock {
                    offset: 0,
                    location: 1,
                    data_id: 0x123C,
                },
            },
        ],
        data: vec![
            Entry {
                id: 0x1237,
                value: Bytes::from((0..36u8).collect::<Vec<u8>>()),
            },
            Entry {
                id: 0x123A,
                value: Bytes::from(vec![0x3F, 0x80, 0x00, 0x00, 0xBF, 0x80, 0x00]),
            },
            Entry {
                id: 0x123C,
                value: Bytes::new(),
            },
            // A leftover blob nothing refers to (rrc-format.md 1.5, "reset() does not clear").
            Entry {
                id: 0x1000,
                value: Bytes::from(vec![0xFF; 4096]),
            },
        ],
        display_buffers: vec![
            Entry {
                id: 0x1235,
                value: display_state(2),
            },
            Entry {
                id: 0x1241,
                value: display_state(8),
            },
        ],
        commands: vec![
            ReplayCommand {
                first: INITIAL_NOP,
                second: 0,
                memory: vec![],
                tile_state: 0x1236,
                display_buffer_state: 0x1235,
            },
            ReplayCommand {
                first: header(SET_TRANSFORM_PROGRAM, 4),
                second: 0x401F_9C6C,
                ..Default::default()
            },
            ReplayCommand {
                first: 0,
                second: 0x0040_0808,
                ..Default::default()
            },
            ReplayCommand {
                first: 0,
                second: 0x0106_C083,
                ..Default::default()
            },
            ReplayCommand {
                first: 0,
                second: 0x6041_FF80,
                ..Default::default()
            },
            ReplayCommand {
                first: header(SET_BEGIN_END, 1),
                second: 5,
                ..Default::default()
            },
            ReplayCommand {
                first: header(SET_BEGIN_END, 1),
                second: 0,
                memory: vec![0x1238, 0x1239, 0x123B],
                tile_state: 0x1240,
                display_buffer_state: 0x1241,
            },
        ],
        reg_state: RegState {
            transform_program: program,
            transform_constants: Some(constants),
            registers,
        },
    }
}
