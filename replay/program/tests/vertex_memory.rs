//! `decode_from_memory`: the extent walk over the 544-slot transform program memory.
//! Words are laid out by hand (see vertex_fields.rs for the field arithmetic).

use rsxtrace_program::vertex::{self, VertexDecodeError, MEMORY_SLOTS};

/// DP4 o[HPOS].x, v[POS], c[256]; END (cube slot 5).
const DP4_END: [u32; 4] = [0x401f9c6c, 0x01d0000d, 0x8106c0c3, 0x60411f81];
/// MOV o[COL0], v[WEIGHT] without END (cube slot 0).
const MOV: [u32; 4] = [0x401f9c6c, 0x0040010d, 0x8106c083, 0x6041ff84];

/// BRI to `target` (< 64) on NE.xxxx: D0 0x001f9400 (NE 5<<10, no vec temp), D1 0x4800000d,
/// D2 0x8106c080 | iaddrh (target>>3), D3 iaddrl (target&7)<<29 | 0x00401ffc.
fn bri_ne(target: u32) -> [u32; 4] {
    [
        0x001f9400,
        0x4800000d,
        0x8106c080 | (target >> 3),
        ((target & 7) << 29) | 0x00401ffc,
    ]
}

/// BRI to `target` (< 64), unconditional: D0 0x001f9c6c (TR 7<<10, swizzle xyzw 0x6c).
fn bri_tr(target: u32) -> [u32; 4] {
    [
        0x001f9c6c,
        0x4800000d,
        0x8106c080 | (target >> 3),
        ((target & 7) << 29) | 0x00401ffc,
    ]
}

/// CAL (0x0a<<27) to `target` (< 64), TR.
fn cal(target: u32) -> [u32; 4] {
    [
        0x001f9c6c,
        0x5000000d,
        0x8106c080 | (target >> 3),
        ((target & 7) << 29) | 0x00401ffc,
    ]
}

/// RET (0x0c<<27), TR; src2 input (D3 bits 21-22 = 2).
const RET: [u32; 4] = [0x001f9c6c, 0x6000000d, 0x8106c083, 0x60401ffc];

fn memory(at: &[(usize, [u32; 4])]) -> Vec<u32> {
    // Zero words elsewhere: register type 0, which the decoder refuses, so any slot the walk
    // should not visit makes the test fail if it does.
    let mut m = vec![0u32; MEMORY_SLOTS * 4];
    for (slot, w) in at {
        m[slot * 4..slot * 4 + 4].copy_from_slice(w);
    }
    m
}

fn slots(m: &[u32], start: usize) -> Vec<usize> {
    match vertex::decode_from_memory(m, start) {
        Ok(p) => p.instructions.iter().map(|i| i.slot).collect(),
        Err(e) => panic!("start {start}: {e}"),
    }
}

#[test]
fn conditional_branch_includes_both_paths() {
    let m = memory(&[(10, bri_ne(15)), (11, MOV), (12, DP4_END), (15, DP4_END)]);
    assert_eq!(slots(&m, 10), [10, 11, 12, 15]);
    let p = vertex::decode_from_memory(&m, 10).unwrap();
    assert_eq!(
        vertex::disassemble(&p),
        "010: BRI 15 (NE.xxxx)\n\
         011: MOV o[COL0], v[WEIGHT]\n\
         012: DP4 o[HPOS].x, v[POS], c[256]; END\n\
         015: DP4 o[HPOS].x, v[POS], c[256]; END\n"
    );
}

#[test]
fn unconditional_branch_skips_fallthrough() {
    // Slot 11 holds zeros (invalid); BRI TR never falls into it.
    let m = memory(&[(10, bri_tr(20)), (20, MOV), (21, DP4_END)]);
    assert_eq!(slots(&m, 10), [10, 20, 21]);
}

#[test]
fn call_and_return() {
    // 0: CAL 30; 1: DP4 END; 30: MOV; 31: RET. Slots 2..29 are zeros.
    let m = memory(&[(0, cal(30)), (1, DP4_END), (30, MOV), (31, RET)]);
    assert_eq!(slots(&m, 0), [0, 1, 30, 31]);
}

#[test]
fn loops_terminate() {
    // 5: MOV; 6: BRI 5 (NE) loops back; 7: END.
    let m = memory(&[(5, MOV), (6, bri_ne(5)), (7, DP4_END)]);
    assert_eq!(slots(&m, 5), [5, 6, 7]);
}

#[test]
fn refuses_walk_into_invalid_slot() {
    // END missing at 11: the walk reaches the zero slot 12.
    let m = memory(&[(10, MOV), (11, MOV)]);
    assert_eq!(
        vertex::decode_from_memory(&m, 10).unwrap_err(),
        VertexDecodeError::InvalidSourceType {
            slot: 12,
            operand: 0
        }
    );
}

#[test]
fn refuses_running_off_memory() {
    let m = memory(&[(542, MOV), (543, MOV)]);
    let e = vertex::decode_from_memory(&m, 542).unwrap_err();
    assert_eq!(
        e,
        VertexDecodeError::RunsOffMemory {
            slot: 543,
            from: 542,
            limit: 544
        }
    );
    assert!(e.to_string().contains("no END reachable"), "{e}");
}

#[test]
fn refuses_program_without_end() {
    // 0: MOV; 1: BRI 0 (TR): an endless loop with no END anywhere.
    let m = memory(&[(0, MOV), (1, bri_tr(0))]);
    assert_eq!(
        vertex::decode_from_memory(&m, 0).unwrap_err(),
        VertexDecodeError::NoEnd { start: 0 }
    );
}

#[test]
fn refuses_bad_memory_and_start() {
    assert_eq!(
        vertex::decode_from_memory(&[0; 16], 0).unwrap_err(),
        VertexDecodeError::MemorySize {
            len: 16,
            expected: 2176
        }
    );
    let m = memory(&[(0, DP4_END)]);
    assert_eq!(
        vertex::decode_from_memory(&m, 544).unwrap_err(),
        VertexDecodeError::StartOutOfRange {
            start: 544,
            limit: 544
        }
    );
}

#[test]
fn encode_memory_inverts_decode_from_memory() {
    let m = memory(&[(10, bri_ne(15)), (11, MOV), (12, DP4_END), (15, DP4_END)]);
    let p = vertex::decode_from_memory(&m, 10).unwrap();
    let back = vertex::encode_memory(&p);
    assert_eq!(back, m);
    assert_eq!(vertex::decode_from_memory(&back, 10).unwrap(), p);
}
