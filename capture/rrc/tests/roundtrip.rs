//! write_v6 -> read gives back the model (apart from provenance), for every map populated and
//! for captures read from older versions.

use crate::common;

use bytes::Bytes;
use common::*;
use rsxtrace_rrc::*;

fn sample() -> Capture {
    let mut c = Capture::empty("sample");
    for i in 0..3u32 {
        let mut t = TileState::default();
        t.tiles[i as usize] = TileInfo {
            tile: 1 + i,
            limit: 0x3F_0000,
            pitch: 0x1400,
            format: 0x4000_0000 | i,
        };
        t.zculls[7 - i as usize].status0 = 0xFF80_3006 ^ i;
        c.tiles.push(Entry {
            id: 0x1236 + u64::from(i) * 10,
            value: t,
        });
        let mut d = DisplayBuffersState {
            count: i + 1,
            ..Default::default()
        };
        d.buffers[i as usize] = BufferState {
            width: 1280,
            height: 720,
            pitch: 5120,
            offset: i << 20,
        };
        c.display_buffers.push(Entry {
            id: 0x1235 + u64::from(i) * 10,
            value: d,
        });
    }
    for i in 0..5u64 {
        let len = [0usize, 1, 127, 128, 70_000][i as usize];
        let bytes: Vec<u8> = (0..len).map(|k| (k as u8) ^ (i as u8)).collect();
        c.data.push(Entry {
            id: 0x2000 + i,
            value: Bytes::from(bytes),
        });
        c.blocks.push(Entry {
            id: 0x3000 + i,
            value: MemoryBlock {
                offset: (i as u32) << 16,
                location: [0, 1, 0xFEED_0000, 0xFEED_0001, 0][i as usize],
                data_id: 0x2000 + i,
            },
        });
    }
    c.commands.push(ReplayCommand {
        first: 0x40,
        tile_state: 0x1236,
        display_buffer_state: 0x1235,
        ..Default::default()
    });
    for k in 0..300u32 {
        c.commands.push(ReplayCommand {
            first: if k % 3 == 2 { 0 } else { 0x1808 | 1 << 18 },
            second: k.wrapping_mul(0x9E37_79B9),
            memory: (0..u64::from(k % 4)).map(|m| 0x3000 + m).collect(),
            tile_state: if k % 50 == 0 { 0x1240 } else { 0 },
            display_buffer_state: u64::from(k % 7 == 0) * 0x1235,
        });
    }
    c.reg_state.transform_program[5] = 0x401F_9C6C;
    c.reg_state.registers[0x602] = 5;
    c
}

fn same_apart_from_provenance(a: &Capture, b: &Capture) {
    let mut b2 = b.clone();
    b2.provenance = a.provenance.clone();
    assert_eq!(a, &b2);
}

#[test]
fn every_map_round_trips_plain_and_gzip() {
    let c = sample();
    let plain = write_v6_uncompressed(&c);
    assert_eq!(&plain[..12], &[0x52, 0x52, 0x43, 0, 6, 0, 0, 0, 1, 0, 0, 0]);
    let back = read_bytes(&plain, "p.rrc").unwrap();
    assert_eq!(back.provenance.rrc_version, 6);
    same_apart_from_provenance(&back, &c);

    let gz = write_v6(&c);
    // One gzip member as zlib writes it: magic, deflate, no flags, mtime 0, OS 3.
    assert_eq!(&gz[..4], &[0x1F, 0x8B, 8, 0]);
    assert_eq!(&gz[4..8], &[0, 0, 0, 0]);
    assert_eq!(gz[9], 3);
    let isize = u32::from_le_bytes(gz[gz.len() - 4..].try_into().unwrap());
    assert_eq!(isize as usize, plain.len());
    let back = read_bytes(&gz, "p.rrc.gz").unwrap();
    assert_eq!(back.provenance.compression, Compression::Gzip);
    same_apart_from_provenance(&back, &c);
}

#[test]
fn constants_and_old_program_layouts_round_trip() {
    // A constants block, which RPCS3 would read as registers, is written as uploads after
    // the first command; the rest is as it was.
    let mut c = sample();
    let mut k = vec![[0u32; 4]; 512];
    k[33] = [0x3F80_0000, 0, 0xBF80_0000, 0x7FC0_0000];
    c.reg_state.transform_constants = Some(k);
    let back = read_bytes(&write_v6(&c), "x").unwrap();
    assert_eq!(back.reg_state.tail_layout(), TailLayout::Program544);
    let uploads = back.commands.len() - c.commands.len();
    assert_eq!(
        uploads,
        468 * 4 + 59 + 1,
        "one entry per word, a load per batch, the last load"
    );
    assert_eq!(back.commands[0], c.commands[0]);
    assert_eq!(back.commands[1 + uploads..], c.commands[1..]);
    // Constant 33 is word 4 of the batch that loads from constant 32.
    let batch = back
        .commands
        .iter()
        .position(|x| x.first == 0x1EFC | 1 << 18 && x.second == 32);
    let at = batch.expect("the batch from constant 32") + 1;
    assert_eq!(back.commands[at].first, 0x1F00 | 32 << 18);
    assert_eq!(back.commands[at + 4].second, 0x3F80_0000);
    let mut without = c.clone();
    without.reg_state.transform_constants = None;
    assert_eq!(back.reg_state, without.reg_state);

    // A 512-slot program (v3, v4, early v5) is written as RPCS3 HEAD reads a v6 tail: 544
    // slots, the last 32 zero.
    let mut old = sample();
    old.reg_state.transform_program = vec![7; 2048];
    let back = read_bytes(&write_v6_uncompressed(&old), "x").unwrap();
    assert_eq!(back.reg_state.tail_layout(), TailLayout::Program544);
    let mut padded = old.clone();
    padded.reg_state.transform_program.resize(2176, 0);
    same_apart_from_provenance(&back, &padded);
}

#[test]
fn writer_matches_hand_built_v6_bytes() {
    // The hand-built v6 file, read and written again, is byte-identical (the constants tail
    // becomes uploads: `constants_and_old_program_layouts_round_trip`).
    let hand = serial_file(6, Tail::P544);
    let c = read_bytes(&hand, "x").unwrap();
    assert_eq!(write_v6_uncompressed(&c), hand);
}

#[test]
fn older_versions_come_out_as_v6() {
    for (file, version) in [
        (serial_file(5, Tail::P544), 5),
        (v4_file(), 4),
        (v3_file(false), 3),
    ] {
        let c = read_bytes(&file, "old.rrc").unwrap();
        assert_eq!(c.provenance.rrc_version, version);
        let out = write_v6_uncompressed(&c);
        assert_eq!(out[4], 6);
        let back = read_bytes(&out, "new.rrc").unwrap();
        assert_eq!(back.provenance.rrc_version, 6);
        // v3 and v4 hold a 512-slot program; a v6 file holds 544 (the rest zero).
        assert_eq!(back.reg_state.tail_layout(), TailLayout::Program544);
        let mut padded = c.clone();
        padded.reg_state.transform_program.resize(2176, 0);
        same_apart_from_provenance(&back, &padded);
    }
    // v5 -> v6 is exactly the map-entry swap: compare against the hand-built v6 file.
    let v5 = read_bytes(&serial_file(5, Tail::P544), "x").unwrap();
    assert_eq!(write_v6_uncompressed(&v5), serial_file(6, Tail::P544));
}
