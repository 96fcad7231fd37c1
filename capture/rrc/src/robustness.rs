//! Malformed-input sweeps over the stream parser (no hashing or copying per case, so every
//! truncation point and every structural bit can be tried): truncation at every offset and bit
//! flips. Uses the hand-built files of `tests/common`.

#[path = "../tests/common/mod.rs"]
mod common;

use bytes::Bytes;

use crate::parse_stream;
use common::*;

/// All the small hand-built files, with a label.
fn files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("v6", serial_file(6, Tail::P544)),
        ("v6+constants", serial_file(6, Tail::P544Constants)),
        ("v5/512", serial_file(5, Tail::P512)),
        ("v4", v4_file()),
        ("v3", v3_file(false)),
        ("v3+height", v3_file(true)),
    ]
}

/// The tail starts where the file minus its tail length ends.
fn tail_start(label: &str, len: usize) -> usize {
    len - match label {
        "v6" => 74240,
        "v6+constants" => 82432,
        _ => 73728,
    }
}

#[test]
fn every_truncation_is_an_error_naming_an_earlier_offset() {
    for (label, file) in files() {
        let full = Bytes::from(file);
        let (_, whole) = parse_stream(&full).unwrap_or_else(|e| panic!("{label}: {e}"));
        let original = whole.reg_state.tail_layout();
        let start = tail_start(label, full.len());
        for cut in 0..full.len() {
            match parse_stream(&full.slice(..cut)) {
                // The format identifies the tail by its length alone (rrc-format.md 1.6), so a
                // file cut to exactly another layout's length is indistinguishable from a whole
                // file of that layout. That is the only truncation allowed to parse.
                Ok((_, body)) => {
                    let layout = body.reg_state.tail_layout();
                    assert!(
                        cut > start
                            && crate::TailLayout::from_len(cut - start) == Some(layout)
                            && layout != original,
                        "{label}: truncation at {cut} parsed"
                    );
                }
                Err(e) => {
                    let at = e
                        .offset()
                        .unwrap_or_else(|| panic!("{label} at {cut}: {e}"));
                    assert!(
                        at <= cut as u64,
                        "{label}: cut {cut}, error names {at}: {e}"
                    );
                }
            }
        }
    }
}

/// Flip one bit, parse, flip it back, reusing the buffer without copying.
fn flip_sweep(label: &str, file: Vec<u8>, bits: impl Iterator<Item = usize>) -> Vec<u8> {
    let mut buf = file;
    for bit in bits {
        buf[bit / 8] ^= 1 << (bit % 8);
        let stream = Bytes::from(buf);
        // Must not panic; Ok or Err are both acceptable.
        if let Err(e) = parse_stream(&stream) {
            assert!(e.offset().is_some(), "{label} bit {bit}: {e}");
        }
        buf = Vec::from(stream);
        buf[bit / 8] ^= 1 << (bit % 8);
    }
    buf
}

#[test]
fn flipping_any_structural_bit_never_panics() {
    for (label, file) in files() {
        // Everything before the tail, plus the tail's last 4 bytes (the tail is raw
        // words; the exhaustive sweep below covers all of it).
        let head = tail_start(label, file.len());
        let n = file.len();
        let bits = (0..head * 8).chain((n - 4) * 8..n * 8);
        let back = flip_sweep(label, file.clone(), bits);
        assert_eq!(back, file);
    }
}

#[test]
#[ignore = "exhaustive: every bit of every hand-built file (about a minute)"]
fn flipping_every_bit_never_panics() {
    for (label, file) in files() {
        let n = file.len() * 8;
        flip_sweep(label, file, 0..n);
    }
}
