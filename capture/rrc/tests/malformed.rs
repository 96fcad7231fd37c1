//! Refusals: wrong magic, version, LE_format; absurd counts refused before allocating.

use crate::common;

use common::*;
use rsxtrace_rrc::{read_bytes, RrcError};

#[test]
fn wrong_magic() {
    let mut f = serial_file(6, Tail::P544);
    f[0] = 0x53;
    assert!(matches!(
        read_bytes(&f, "x"),
        Err(RrcError::BadMagic { offset: 0, .. })
    ));
    assert!(matches!(
        read_bytes(b"PK\x03\x04", "x"),
        Err(RrcError::BadMagic { offset: 0, .. })
    ));
    assert!(matches!(
        read_bytes(b"RR", "x"),
        Err(RrcError::Truncated { offset: 0, .. })
    ));
    assert!(matches!(
        read_bytes(b"", "x"),
        Err(RrcError::Truncated { offset: 0, .. })
    ));
}

#[test]
fn wrong_versions() {
    for v in [0u32, 1, 2, 3, 4, 7, 0x0600_0000] {
        let mut f = serial_file(6, Tail::P544);
        f[4..8].copy_from_slice(&v.to_le_bytes());
        match read_bytes(&f, "x") {
            Err(RrcError::UnsupportedVersion { offset: 4, version }) => assert_eq!(version, v),
            other => panic!("serial version {v}: {other:?}"),
        }
    }
    for v in [1u32, 2, 5, 6] {
        let mut f = v4_file();
        f[4..8].copy_from_slice(&v.to_le_bytes());
        assert!(
            matches!(
                read_bytes(&f, "x"),
                Err(RrcError::UnsupportedVersion { offset: 4, .. })
            ),
            "cereal version {v}"
        );
    }
}

#[test]
fn wrong_le_format() {
    for le in [0u32, 2, 0x0100_0000] {
        let mut f = serial_file(6, Tail::P544);
        f[8..12].copy_from_slice(&le.to_le_bytes());
        match read_bytes(&f, "x") {
            Err(RrcError::BadLeFormat { offset: 8, value }) => assert_eq!(value, le),
            other => panic!("{other:?}"),
        }
    }
}

/// Replace the tile_map count (a one-byte varint at offset 12) with `count`'s LEB128 bytes.
fn with_tile_count(count: u64) -> Vec<u8> {
    let f = serial_file(6, Tail::P544);
    let mut out = f[..12].to_vec();
    let mut v = count;
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out.extend_from_slice(&f[13..]);
    out
}

#[test]
fn absurd_map_counts_refused_at_the_count() {
    for count in [u64::MAX, 1 << 40, 1 << 20] {
        match read_bytes(&with_tile_count(count), "x") {
            Err(RrcError::CountTooLarge {
                offset: 12,
                count: c,
                ..
            }) => assert_eq!(c, count),
            other => panic!("{count}: {other:?}"),
        }
    }
}

#[test]
fn absurd_command_count_refused() {
    // Build a v6 file with empty maps and a command count of 2^40 followed by the tail.
    let mut f = vec![0x52, 0x52, 0x43, 0x00, 6, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
    // 2^40 as LEB128: 40 bits = 6 groups of 7 (bits 35..41 hold bit 40).
    f.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
    tail(&mut f, Tail::P544);
    match read_bytes(&f, "x") {
        Err(RrcError::CountTooLarge {
            offset: 16, count, ..
        }) => assert_eq!(count, 1 << 40),
        other => panic!("{other:?}"),
    }
    // Same with empty maps and zero commands: a valid, empty capture.
    let mut ok = f[..16].to_vec();
    ok.push(0);
    tail(&mut ok, Tail::P544);
    let c = read_bytes(&ok, "x").unwrap();
    assert!(c.commands.is_empty() && c.tiles.is_empty() && c.data.is_empty());
}

#[test]
fn absurd_memory_state_and_data_lengths_refused() {
    // memory_state count of u64::MAX in the first command.
    let mut f = vec![
        0x52, 0x52, 0x43, 0x00, 6, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1,
    ];
    f.extend_from_slice(&[0x40, 0, 0, 0, 0, 0, 0, 0]);
    let set_at = f.len() as u64;
    f.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]);
    f.extend_from_slice(&[0; 16]);
    tail(&mut f, Tail::P544);
    match read_bytes(&f, "x") {
        Err(RrcError::CountTooLarge { offset, .. }) => assert_eq!(offset, set_at),
        other => panic!("{other:?}"),
    }
    // A data blob claiming 2^40 bytes.
    let mut d = vec![0x52, 0x52, 0x43, 0x00, 6, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1];
    d.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
    tail(&mut d, Tail::P544);
    match read_bytes(&d, "x") {
        Err(RrcError::CountTooLarge { offset: 15, .. }) => {}
        other => panic!("{other:?}"),
    }
    // Cereal: u64::MAX commands.
    let mut v4 = vec![0x00, 0x43, 0x52, 0x52, 4, 0, 0, 0];
    for _ in 0..4 {
        v4.extend_from_slice(&0u64.to_le_bytes());
    }
    v4.extend_from_slice(&u64::MAX.to_le_bytes());
    tail(&mut v4, Tail::P512);
    assert!(matches!(
        read_bytes(&v4, "x"),
        Err(RrcError::CountTooLarge { offset: 40, .. })
    ));
}

#[test]
fn bad_varint_in_stream() {
    let mut f = vec![0x52, 0x52, 0x43, 0x00, 6, 0, 0, 0, 1, 0, 0, 0];
    f.extend_from_slice(&[0x80; 11]);
    assert!(matches!(
        read_bytes(&f, "x"),
        Err(RrcError::BadVarint { offset: 12, .. })
    ));
    let mut g = vec![0x52, 0x52, 0x43, 0x00, 6, 0, 0, 0, 1, 0, 0, 0, 0x80, 0x00];
    tail(&mut g, Tail::P544);
    assert!(matches!(
        read_bytes(&g, "x"),
        Err(RrcError::BadVarint { offset: 12, .. })
    ));
}

#[test]
fn v3_bad_bool_is_refused() {
    let mut f = v3_file(false);
    // tiles[0].binded is the byte after the 7 words of the first v3 tile_info.
    let at = 8 + 8 + 8 + 28;
    assert_eq!(f[at], 1);
    f[at] = 2;
    assert!(read_bytes(&f, "x").is_err());
}
