//! Debug SELF files (`rpcs3-shader-cache.md` §5.3): an `SCE\0` header whose little-endian
//! key version at 0x08 is 0x80 or 0xC0, followed by a plain ELF image at the offset stored at
//! 0x10: a big-endian `u64` for key version 0x80, a little-endian one for 0xC0 (RPCS3
//! `unself.cpp`, `CheckDebugSelf`). Retail (encrypted) SELFs must be decrypted first and are
//! refused here.

use super::super::bytes::{be_u64, get, le_u16, le_u64};
use super::elf::MAGIC as ELF_MAGIC;

/// `SCE\0`.
pub(crate) const MAGIC: [u8; 4] = *b"SCE\0";

/// The offset of the plain ELF image inside a debug SELF, or why there is none.
pub(crate) fn elf_offset(bytes: &[u8]) -> Result<u64, (u64, String)> {
    let offset = match le_u16(bytes, 8) {
        Some(0x80) => be_u64(bytes, 0x10),
        Some(0xC0) => le_u64(bytes, 0x10),
        _ => return Err((
            8,
            "encrypted (retail) SELF: decrypt it first, e.g. with RPCS3's \"Decrypt PS3 Binaries\""
                .into(),
        )),
    };
    let offset = offset.ok_or((0x10, "SELF header is cut off".to_string()))?;
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
        // Key version 0xC0 stores the offset little-endian.
        b[8] = 0xC0;
        b[0x10..0x18].copy_from_slice(&0x20u64.to_le_bytes());
        assert_eq!(elf_offset(&b), Ok(0x20));
        b[8] = 0;
        assert!(elf_offset(&b).unwrap_err().1.contains("encrypted"));
    }
}
