//! Hostile input: truncation at every offset, truncation with a consistent segment table, and
//! random bit flips must give an error or a valid capture, never a panic.

use crate::common;

use common::full_capture;
use rsxtrace_testkit::rng::XorShift64Star;
use rsxtrace_trace::{to_bytes, Trace, TraceError};

/// Read `bytes`; if it is accepted, the capture must write and read back identically (a
/// "valid capture").
fn check(bytes: Vec<u8>) -> bool {
    match Trace::from_bytes(bytes).and_then(|t| t.to_capture()) {
        Ok(capture) => {
            let again = to_bytes(&capture).expect("an accepted capture must be writable");
            let back = Trace::from_bytes(again).unwrap().to_capture().unwrap();
            assert_eq!(back, capture);
            true
        }
        Err(_) => false,
    }
}

#[test]
fn truncation_at_every_offset_is_refused() {
    let bytes = to_bytes(&full_capture()).unwrap();
    for len in 0..bytes.len() {
        let err = Trace::from_bytes(bytes[..len].to_vec()).unwrap_err();
        assert!(
            matches!(err, TraceError::Truncated { offset, .. } if offset == len as u64),
            "length {len}: {err}"
        );
    }
}

/// Cut the message at every word and rewrite the segment table to match, so that the cut is
/// only found by following pointers.
#[test]
fn truncation_with_a_consistent_segment_table_never_panics() {
    let bytes = to_bytes(&full_capture()).unwrap();
    // One segment: magic (8) + table (8) + words.
    assert_eq!(&bytes[8..12], &[0, 0, 0, 0]);
    let words = (bytes.len() - 16) / 8;
    let mut accepted = 0;
    for keep in 0..words {
        let mut cut = bytes[..16 + 8 * keep].to_vec();
        cut[12..16].copy_from_slice(&(keep as u32).to_le_bytes());
        if check(cut) {
            accepted += 1;
        }
    }
    // Every cut loses part of the register file (the last list), so none may be accepted.
    assert_eq!(accepted, 0);
}

/// xorshift64*, uniform enough below `n` for picking bytes and bits.
struct Rng(XorShift64Star);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n as u64) as usize
    }
}

#[test]
fn random_bit_flips_never_panic() {
    let bytes = to_bytes(&full_capture()).unwrap();
    // The structure (root, pointers, small lists) comes first; the register file fills the end.
    let structure_end = bytes.len().min(6000);
    let mut rng = Rng(XorShift64Star(0x9E37_79B9_7F4A_7C15));
    let (mut accepted, mut refused) = (0, 0);
    for round in 0..3000 {
        let mut flipped = bytes.clone();
        let flips = 1 + rng.below(4);
        for _ in 0..flips {
            let at = if round % 4 == 0 {
                rng.below(flipped.len())
            } else {
                rng.below(structure_end)
            };
            flipped[at] ^= 1 << rng.below(8);
        }
        if check(flipped) {
            accepted += 1;
        } else {
            refused += 1;
        }
    }
    // Flips in plain data words are accepted, flips in the magic, table or pointers are not:
    // both outcomes must occur, or the test is not exercising the reader.
    assert!(
        accepted > 0 && refused > 0,
        "accepted {accepted}, refused {refused}"
    );
}

#[test]
fn every_single_byte_corruption_of_the_header_area_never_panics() {
    let bytes = to_bytes(&full_capture()).unwrap();
    // Magic, segment table, root and the first pointers: set each byte to a few values.
    for at in 0..bytes.len().min(512) {
        for value in [0x00, 0x01, 0x7F, 0x80, 0xFF] {
            let mut corrupt = bytes.clone();
            corrupt[at] = value;
            check(corrupt);
        }
    }
}
