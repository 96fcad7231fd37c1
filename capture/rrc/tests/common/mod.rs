//! Hand-built capture streams for the tests: every byte is pushed explicitly, little-endian,
//! following rrc-format.md (1.3 to 1.6 for v5/v6, 2.1/2.2 for the cereal versions), never
//! through the crate's writer.
#![allow(dead_code)]

pub fn u32le(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
pub fn u64le(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Ids as RPCS3 v6 allocates them (counter from 0x1234, pre-incremented; rrc-format.md 1.5).
pub const DISPLAY_ID: u64 = 0x1235;
pub const TILE_ID: u64 = 0x1236;
pub const DATA_ID: u64 = 0x1237;
pub const BLOCK_ID: u64 = 0x1238;

/// The 36 data bytes of the one memory blob: 0x00, 0x07, 0x0E, ...
pub fn blob() -> Vec<u8> {
    (0..36u8).map(|i| i.wrapping_mul(7)).collect()
}

/// The 432-byte `tile_state` image: tiles[0] = (0x0001_0011, 0x0003_0000, 0x1400, 0x4000_0010),
/// zculls[7].status1 = 0x0020_2000 (last word), everything else 0.
pub fn tile_image() -> Vec<u8> {
    let mut t = Vec::new();
    u32le(&mut t, 0x0001_0011);
    u32le(&mut t, 0x0003_0000);
    u32le(&mut t, 0x1400);
    u32le(&mut t, 0x4000_0010);
    t.resize(432 - 4, 0);
    u32le(&mut t, 0x0020_2000);
    t
}

/// The 132-byte `display_buffers_state`: buffer 0 = 1280x720, pitch 5120, offset 0x10_0000;
/// count 1.
pub fn display_image() -> Vec<u8> {
    let mut d = Vec::new();
    u32le(&mut d, 1280);
    u32le(&mut d, 720);
    u32le(&mut d, 5120);
    u32le(&mut d, 0x10_0000);
    d.resize(128, 0);
    u32le(&mut d, 1);
    d
}

/// The 16-byte v4/v5/v6 `memory_block`: offset 0x10_0000, location 0 (local), data DATA_ID.
pub fn block_image() -> Vec<u8> {
    let mut b = Vec::new();
    u32le(&mut b, 0x10_0000);
    u32le(&mut b, 0);
    u64le(&mut b, DATA_ID);
    b
}

/// Which register-state tail to append.
#[derive(Clone, Copy, Debug)]
pub enum Tail {
    /// 8704 + 65536 = 74240 bytes.
    P544,
    /// 8704 + 8192 + 65536 = 82432 bytes.
    P544Constants,
    /// 8192 + 65536 = 73728 bytes.
    P512,
}

/// program[0] = 0xDEADBEEF, program[last] = 0x0000_0001, constants[1] = (1.0, 2.0, 0, 0),
/// registers[0x1808/4] = 5 (SET_BEGIN_END), registers[last] = 0xCAFEF00D.
pub fn tail(out: &mut Vec<u8>, kind: Tail) {
    let program_words = match kind {
        Tail::P512 => 2048,
        _ => 2176,
    };
    u32le(out, 0xDEAD_BEEF);
    for _ in 1..program_words - 1 {
        u32le(out, 0);
    }
    u32le(out, 1);
    if let Tail::P544Constants = kind {
        for slot in 0..512 {
            if slot == 1 {
                u32le(out, 0x3F80_0000);
                u32le(out, 0x4000_0000);
                u32le(out, 0);
                u32le(out, 0);
            } else {
                out.extend_from_slice(&[0; 16]);
            }
        }
    }
    for i in 0..16384u32 {
        let v = match i {
            0x602 => 5,
            16383 => 0xCAFE_F00D,
            _ => 0,
        };
        u32le(out, v);
    }
}

/// Push the v5/v6 replay commands (rrc-format.md 1.5, 3.2): the initial NOP carrying the
/// tile/display ids, a batched transform-program upload of 2 words (header with count 2, then
/// one continuation entry whose `first` is 0), and an END with the memory block attached.
pub fn serial_commands(out: &mut Vec<u8>) {
    out.push(4); // varint count
                 // (0x40, 0), no memory, tile, display
    u32le(out, 0x40);
    u32le(out, 0);
    out.push(0);
    u64le(out, TILE_ID);
    u64le(out, DISPLAY_ID);
    // SET_TRANSFORM_PROGRAM 0x0B80, count 2 (bits 18..28)
    u32le(out, 0x0B80 | 2 << 18);
    u32le(out, 0x1111_2222);
    out.push(0);
    u64le(out, 0);
    u64le(out, 0);
    // continuation
    u32le(out, 0);
    u32le(out, 0x3333_4444);
    out.push(0);
    u64le(out, 0);
    u64le(out, 0);
    // SET_BEGIN_END(0) with one memory block
    u32le(out, 0x1808 | 1 << 18);
    u32le(out, 0);
    out.push(1);
    u64le(out, BLOCK_ID);
    u64le(out, TILE_ID);
    u64le(out, DISPLAY_ID);
}

/// A complete v6 (or, with `version = 5`, v5) stream with one entry in every map.
pub fn serial_file(version: u32, kind: Tail) -> Vec<u8> {
    let mut f = vec![0x52, 0x52, 0x43, 0x00];
    u32le(&mut f, version);
    u32le(&mut f, 1); // LE_format
    let id_first = version == 5;
    let entry = |f: &mut Vec<u8>, image: &[u8], id: u64| {
        if id_first {
            u64le(f, id);
            f.extend_from_slice(image);
        } else {
            f.extend_from_slice(image);
            u64le(f, id);
        }
    };
    f.push(1);
    entry(&mut f, &tile_image(), TILE_ID);
    f.push(1);
    entry(&mut f, &block_image(), BLOCK_ID);
    f.push(1);
    let mut data = vec![36u8]; // varint length 0x24
    data.extend_from_slice(&blob());
    entry(&mut f, &data, DATA_ID);
    f.push(1);
    entry(&mut f, &display_image(), DISPLAY_ID);
    serial_commands(&mut f);
    tail(&mut f, kind);
    f
}

/// Cereal commands (rrc-format.md 2.2): fixed u64 set counts.
pub fn cereal_commands(out: &mut Vec<u8>) {
    u64le(out, 2);
    u32le(out, 0x40);
    u32le(out, 0);
    u64le(out, 0);
    u64le(out, TILE_ID);
    u64le(out, DISPLAY_ID);
    u32le(out, 0x1808 | 1 << 18);
    u32le(out, 0);
    u64le(out, 1);
    u64le(out, BLOCK_ID);
    u64le(out, 0);
    u64le(out, 0);
}

/// A complete v4 stream: magic `00 43 52 52`, version, no LE_format, u64 counts, id first.
pub fn v4_file() -> Vec<u8> {
    let mut f = vec![0x00, 0x43, 0x52, 0x52];
    u32le(&mut f, 4);
    u64le(&mut f, 1);
    u64le(&mut f, TILE_ID);
    f.extend_from_slice(&tile_image());
    u64le(&mut f, 1);
    u64le(&mut f, BLOCK_ID);
    f.extend_from_slice(&block_image());
    u64le(&mut f, 1);
    u64le(&mut f, DATA_ID);
    u64le(&mut f, 36);
    f.extend_from_slice(&blob());
    u64le(&mut f, 1);
    u64le(&mut f, DISPLAY_ID);
    f.extend_from_slice(&display_image());
    cereal_commands(&mut f);
    tail(&mut f, Tail::P512);
    f
}

/// A v3 `tile_state`: tiles[0] bound (location 0, offset 0x10_0000, size 0x30_0000, pitch
/// 0x1400, comp 2, base 0x10, bank 1), tiles[1] unbound with location 1; zculls[0] bound
/// (offset 0x20_0000, width 1280, [height 720], cullStart 0x1234, zFormat 2, aaFormat 1,
/// zcullDir 1, zcullFormat 1, sFunc 3, sRef 0x80, sMask 0xFF); the rest zero.
pub fn v3_tile_image(with_height: bool) -> Vec<u8> {
    let mut t = Vec::new();
    for v in [0, 0x10_0000, 0x30_0000, 0x1400, 2, 0x10, 1] {
        u32le(&mut t, v);
    }
    t.push(1);
    for v in [1, 0, 0, 0x1400, 0, 0, 0] {
        u32le(&mut t, v);
    }
    t.push(0);
    for _ in 2..15 {
        t.extend_from_slice(&[0; 29]);
    }
    u32le(&mut t, 0x20_0000);
    u32le(&mut t, 1280);
    if with_height {
        u32le(&mut t, 720);
    }
    for v in [0x1234, 2, 1, 1, 1, 3, 0x80, 0xFF] {
        u32le(&mut t, v);
    }
    t.push(1);
    let zsize = if with_height { 45 } else { 41 };
    for _ in 1..8 {
        t.extend_from_slice(&vec![0; zsize]);
    }
    t
}

/// A complete v3 stream (cereal, v3 `memory_block` = ioOffset, offset, size, location, data).
pub fn v3_file(with_height: bool) -> Vec<u8> {
    let mut f = vec![0x00, 0x43, 0x52, 0x52];
    u32le(&mut f, 3);
    u64le(&mut f, 1);
    u64le(&mut f, TILE_ID);
    f.extend_from_slice(&v3_tile_image(with_height));
    u64le(&mut f, 1);
    u64le(&mut f, BLOCK_ID);
    u32le(&mut f, 0x10_0000); // ioOffset (base)
    u32le(&mut f, 0x40); // offset within it
    u32le(&mut f, 36); // size
    u32le(&mut f, 1); // location main
    u64le(&mut f, DATA_ID);
    u64le(&mut f, 1);
    u64le(&mut f, DATA_ID);
    u64le(&mut f, 36);
    f.extend_from_slice(&blob());
    u64le(&mut f, 1);
    u64le(&mut f, DISPLAY_ID);
    f.extend_from_slice(&display_image());
    cereal_commands(&mut f);
    tail(&mut f, Tail::P512);
    f
}
