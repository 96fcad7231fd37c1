//! A `CgBinaryProgram` (`.vpo`/`.fpo`) swapped to little-endian as RPCS3's
//! `CgBinaryDisasm::ConvertToLE` swaps one (`rpcs3/Emu/RSX/Program/CgBinaryProgram.cpp`): the
//! 32-byte header, the 48-byte parameter records, the stage descriptor (the vertex one's six
//! words; the fragment one's three words and three half-words, its bytes left alone) and every
//! 32-bit word from the microcode to the end of the file. Embedded-constant tables, default
//! values and strings stay as they are. Written from that layout alone (no rsxtrace code), so a
//! reader's mistake is not mirrored here.

/// `CG_PROFILE_SCE_FP_RSX`.
const PROFILE_FRAGMENT: u32 = 7004;

fn be32(bytes: &[u8], at: usize) -> usize {
    u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize
}

/// Reverse the bytes of each 32-bit word in `bytes[from..to]`.
fn swap32(bytes: &mut [u8], from: usize, to: usize) {
    for word in bytes[from..to].chunks_exact_mut(4) {
        word.reverse();
    }
}

/// The little-endian form of the big-endian container `be` (a whole, well-formed one: this
/// panics on a truncated file).
pub fn cg_little_endian(be: &[u8]) -> Vec<u8> {
    let mut le = be.to_vec();
    let (count, params) = (be32(be, 12), be32(be, 16));
    let (descriptor, ucode) = (be32(be, 20), be32(be, 28));
    swap32(&mut le, 0, 32);
    swap32(&mut le, params, params + 48 * count);
    if be32(be, 0) as u32 == PROFILE_FRAGMENT {
        swap32(&mut le, descriptor, descriptor + 12);
        for half in [12, 14, 16] {
            le[descriptor + half..descriptor + half + 2].reverse();
        }
    } else {
        swap32(&mut le, descriptor, descriptor + 24);
    }
    let end = be.len() - (be.len() - ucode) % 4;
    swap32(&mut le, ucode, end);
    le
}
