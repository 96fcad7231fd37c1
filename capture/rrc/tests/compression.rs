//! gzip, zstd and plain files recognised by content, with real compressors; provenance.

use crate::common;

use std::io::Write;

use common::*;
use rsxtrace_rrc::{read_bytes, read_file, Compression};
use sha2::{Digest, Sha256};

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(8));
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn gzip_zstd_and_plain_by_content() {
    let plain = serial_file(6, Tail::P544);
    let gz = gzip(&plain);
    let zst = zstd::encode_all(&plain[..], 3).unwrap();
    assert_eq!(&gz[..2], &[0x1F, 0x8B]);
    assert_eq!(&zst[..4], &[0x28, 0xB5, 0x2F, 0xFD]);

    let base = read_bytes(&plain, "a.rrc").unwrap();
    // Names deliberately lie about the content: detection is by content only.
    for (stored, name, kind) in [
        (&plain, "a.rrc.gz", Compression::None),
        (&gz, "a.rrc", Compression::Gzip),
        (&zst, "a.rrc.gz", Compression::Zstd),
    ] {
        let c = read_bytes(stored, name).unwrap();
        assert_eq!(c.provenance.compression, kind);
        assert_eq!(
            c.provenance.sha256,
            <[u8; 32]>::from(Sha256::digest(stored))
        );
        assert_eq!(c.provenance.rrc_version, 6);
        assert_eq!(c.tiles, base.tiles);
        assert_eq!(c.data, base.data);
        assert_eq!(c.commands, base.commands);
        assert_eq!(c.reg_state, base.reg_state);
    }
}

#[test]
fn two_gzip_members_are_one_stream() {
    let plain = serial_file(5, Tail::P512);
    let (a, b) = plain.split_at(1000);
    let mut two = gzip(a);
    two.extend_from_slice(&gzip(b));
    let c = read_bytes(&two, "x").unwrap();
    assert_eq!(c.commands.len(), 4);
}

/// Bytes after the last gzip member that start no member (a file padded in transfer) are
/// ignored, as zlib, RPCS3's reader and `gzip -d` ignore them; read whole and streamed alike.
#[test]
fn bytes_after_the_last_gzip_member_are_ignored() {
    let plain = serial_file(6, Tail::P544);
    let clean = read_bytes(&gzip(&plain), "x").unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, tail) in [("junk", &b"\x00junk!!"[..]), ("zeros", &[0u8; 512][..])] {
        let mut padded = gzip(&plain);
        padded.extend_from_slice(tail);
        let whole = read_bytes(&padded, "x").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(whole.commands, clean.commands, "{name}");
        assert_eq!(whole.reg_state, clean.reg_state, "{name}");
        let path = dir.path().join(format!("{name}.rrc.gz"));
        std::fs::write(&path, &padded).unwrap();
        let streamed = read_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(streamed.commands, clean.commands, "{name}");
        // The digest covers every stored byte, the padding too.
        assert_eq!(
            streamed.provenance.sha256,
            <[u8; 32]>::from(Sha256::digest(&padded)),
            "{name}"
        );
    }
}

/// A decompression error names the compressed byte the decoder had reached.
#[test]
fn a_gzip_cut_short_names_the_compressed_byte() {
    let gz = gzip(&serial_file(6, Tail::P544));
    let cut = &gz[..gz.len() / 2];
    let err = read_bytes(cut, "x").unwrap_err();
    let rsxtrace_rrc::RrcError::Decompress { offset, .. } = err else {
        panic!("{err}");
    };
    assert!(
        offset > 0 && offset <= cut.len() as u64,
        "{offset} of {}",
        cut.len()
    );
    assert!(err.to_string().starts_with("at compressed byte"), "{err}");
}

#[test]
fn corrupt_gzip_is_an_error() {
    let mut gz = gzip(&serial_file(6, Tail::P544));
    let n = gz.len();
    gz[n / 2] ^= 0x55;
    gz.truncate(n - 3);
    assert!(read_bytes(&gz, "x").is_err());
}

#[test]
fn read_file_records_file_name_and_hash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("BLUS30443_20260817172216_capture.rrc.gz");
    let gz = gzip(&serial_file(6, Tail::P544Constants));
    std::fs::write(&path, &gz).unwrap();
    let c = read_file(&path).unwrap();
    assert_eq!(
        c.provenance.source_name,
        "BLUS30443_20260817172216_capture.rrc.gz"
    );
    assert_eq!(c.provenance.compression, Compression::Gzip);
    assert_eq!(c.provenance.sha256, <[u8; 32]>::from(Sha256::digest(&gz)));
    assert!(c.reg_state.transform_constants.is_some());

    let plain_path = dir.path().join("old.rrc");
    let plain = serial_file(5, Tail::P544);
    std::fs::write(&plain_path, &plain).unwrap();
    let p = read_file(&plain_path).unwrap();
    assert_eq!(p.provenance.compression, Compression::None);
    assert_eq!(
        p.provenance.sha256,
        <[u8; 32]>::from(Sha256::digest(&plain))
    );
    assert_eq!(&p.data[0].value[..], &blob()[..]);

    assert!(matches!(
        read_file(&dir.path().join("missing.rrc")),
        Err(rsxtrace_rrc::RrcError::Io(_))
    ));
}

/// A capture whose stored file spans many of the streaming reader's 1 MiB chunks: a 6 MiB
/// blob of xorshift noise (incompressible) among the commands.
fn big_capture() -> rsxtrace_rrc::Capture {
    let mut c = read_bytes(&serial_file(6, Tail::P544), "big.rrc").unwrap();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let noise: Vec<u8> = (0..6 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    c.data.push(rsxtrace_rrc::Entry {
        id: 0x9999,
        value: noise.into(),
    });
    c
}

#[test]
fn streamed_files_read_as_their_bytes_do() {
    let capture = big_capture();
    let plain = rsxtrace_rrc::write_v6_uncompressed(&capture);
    let gz = rsxtrace_rrc::write_v6(&capture);
    let zst = zstd::encode_all(&plain[..], 1).unwrap();
    let (a, b) = plain.split_at(plain.len() / 3);
    let mut two_members = gzip(a);
    two_members.extend_from_slice(&gzip(b));
    let dir = tempfile::tempdir().unwrap();
    for (stored, name) in [
        (&gz, "a.rrc.gz"),
        (&zst, "a.rrc.zst"),
        (&two_members, "b.rrc.gz"),
        (&plain, "a.rrc"),
    ] {
        assert!(stored.len() > 4 << 20, "{name}: {} bytes", stored.len());
        let path = dir.path().join(name);
        std::fs::write(&path, stored).unwrap();
        let from_file = read_file(&path).unwrap();
        let from_bytes = read_bytes(stored, name).unwrap();
        assert_eq!(
            from_file.provenance.sha256,
            <[u8; 32]>::from(Sha256::digest(stored)),
            "{name}"
        );
        assert_eq!(from_file.provenance, from_bytes.provenance, "{name}");
        assert_eq!(from_file.data, from_bytes.data, "{name}");
        assert_eq!(from_file.data, capture.data, "{name}");
        assert_eq!(from_file.commands, capture.commands, "{name}");
    }
}

#[test]
fn streamed_corrupt_or_truncated_files_are_errors() {
    let gz = rsxtrace_rrc::write_v6(&big_capture());
    let dir = tempfile::tempdir().unwrap();
    let mut corrupt = gz.clone();
    let n = corrupt.len();
    corrupt[n / 2] ^= 0x55;
    let truncated = gz[..gz.len() / 2].to_vec();
    for (bytes, name) in [(corrupt, "corrupt.rrc.gz"), (truncated, "truncated.rrc.gz")] {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let err = read_file(&path).unwrap_err();
        assert!(
            matches!(err, rsxtrace_rrc::RrcError::Decompress { .. })
                || matches!(err, rsxtrace_rrc::RrcError::Truncated { .. }),
            "{name}: {err}"
        );
    }
    // Only a gzip magic: too short for a trailer, still an error and not a panic.
    let path = dir.path().join("stub.rrc.gz");
    std::fs::write(&path, [0x1F, 0x8B]).unwrap();
    assert!(read_file(&path).is_err());
}
