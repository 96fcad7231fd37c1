//! gzip, zstd and plain files recognised by content, with real compressors; provenance.

mod common;

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
