//! Debug SELF files (`rpcs3-shader-cache.md` §5.3): an `SCE\0` header whose bytes at 0x08 are
//! `0x80 0x00`, followed by a plain ELF image at the big-endian `u64` offset stored at 0x10.
//! Retail (encrypted) SELFs must be decrypted first and are refused here.

use super::super::bytes::{be_u64, get};
use super::elf::MAGIC as ELF_MAGIC;

/// `SCE\0`.
pub(crate) const MAGIC: [u8; 4] = *b"SCE\0";
/// The bytes at 0x08 of a debug SELF (§5.3).
const DEBUG_MARK: [u8; 2] = [0x80, 0x00];

/// The offset of the plain ELF image inside a debug SELF, or why there is none.
pub(crate) fn elf_offset(bytes: &[u8]) -> Result<u64, (u64, String)> {
    if get(bytes, 8, 2) != Some(&DEBUG_MARK[..]) {
        return Err((
            8,
            "encrypted (retail) SELF: decrypt it first, e.g. with RPCS3's \"Decrypt PS3 Binaries\""
                .into(),
        ));
    }
    let offset = be_u64(bytes, 0x10).ok_or((0x10, "SELF header is cut off".to_string()))?;
    if get(bytes, offset, 4) != Some(&ELF_MAGIC[..]) {
        return Err((
            0x10,
            format!("debug SELF names an ELF image at {offset:#x}, but none is there"),
        ));
    }
    Ok(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_self_points_at_its_elf_image() {
        let mut b = vec![0u8; 0x30];
        b[..4].copy_from_slice(&MAGIC);
        b[8] = 0x80;
        b[0x17] = 0x20;
        b[0x20..0x24].copy_from_slice(&ELF_MAGIC);
        assert_eq!(elf_offset(&b), Ok(0x20));
        b[0x17] = 0x28;
        assert!(elf_offset(&b).is_err());
        b[8] = 0;
        assert!(elf_offset(&b).unwrap_err().1.contains("encrypted"));
    }
}
