//! The parts of a 64-bit big-endian (PPU) ELF image the executable scan needs: the file-backed
//! `PT_LOAD` segments (to turn a file offset into a virtual address) and the `_binary_*`
//! symbols of `.symtab` (§5.3 of `rpcs3-shader-cache.md`). Field offsets are those of the
//! System V ELF-64 object file format (`Elf64_Ehdr`, `Elf64_Phdr`, `Elf64_Shdr`,
//! `Elf64_Sym`). Every table is checked against the image size before it is walked.

use super::super::bytes::{be_u16, be_u32, be_u64, get};

/// `\x7fELF`.
pub(crate) const MAGIC: [u8; 4] = [0x7F, b'E', b'L', b'F'];
const CLASS_64: u8 = 2; // e_ident[EI_CLASS]
const DATA_BIG_ENDIAN: u8 = 2; // e_ident[EI_DATA]
const PT_LOAD: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const PHDR_SIZE: u64 = 56;
const SHDR_SIZE: u64 = 64;
const SYM_SIZE: u64 = 24;
/// Symbols kept: the names `ld -b binary` / `objcopy` give linked-in files (§5.3).
pub(crate) const BINARY_SYMBOL_PREFIX: &str = "_binary_";

/// A file-backed loadable segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Segment {
    pub offset: u64,
    pub vaddr: u64,
    pub filesz: u64,
}

/// A `_binary_*` symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Symbol {
    pub name: String,
    pub value: u64,
}

/// The parsed parts of an image.
#[derive(Debug, Clone, Default)]
pub(crate) struct Elf {
    pub segments: Vec<Segment>,
    pub symbols: Vec<Symbol>,
}

/// Why an image could not be read: byte offset in the image and reason.
pub(crate) type ElfError = (u64, String);

/// Whether `image` is a 64-bit big-endian ELF (other ELFs are scanned as plain bytes).
pub(crate) fn is_ppu_elf(image: &[u8]) -> bool {
    image.get(..4) == Some(&MAGIC[..])
        && image.get(4) == Some(&CLASS_64)
        && image.get(5) == Some(&DATA_BIG_ENDIAN)
}

impl Elf {
    /// Reads the program headers and the symbol table of a 64-bit big-endian image.
    pub(crate) fn parse(image: &[u8]) -> Result<Self, ElfError> {
        let short = |at: u64| (at, "ELF header is cut off".to_string());
        let phoff = be_u64(image, 0x20).ok_or(short(0x20))?;
        let shoff = be_u64(image, 0x28).ok_or(short(0x28))?;
        let phnum = be_u16(image, 0x38).ok_or(short(0x38))?;
        let shnum = be_u16(image, 0x3C).ok_or(short(0x3C))?;
        let mut elf = Elf::default();
        table_fits(
            image,
            phoff,
            phnum.into(),
            PHDR_SIZE,
            "program header table",
        )?;
        for i in 0..u64::from(phnum) {
            let at = phoff + i * PHDR_SIZE;
            if be_u32(image, at) == Some(PT_LOAD) {
                let offset = be_u64(image, at + 8).ok_or(short(at))?;
                let vaddr = be_u64(image, at + 16).ok_or(short(at))?;
                let filesz = be_u64(image, at + 32).ok_or(short(at))?;
                // A segment must lie in the image and in the address space, so that mapping
                // an offset to an address (or back) cannot wrap.
                let in_image = offset
                    .checked_add(filesz)
                    .is_some_and(|end| end <= image.len() as u64);
                if !in_image || vaddr.checked_add(filesz).is_none() {
                    return Err((
                        at,
                        format!(
                            "program header {i}: a segment of {filesz:#x} bytes at file offset \
                             {offset:#x}, address {vaddr:#x}, lies outside the image or the \
                             address space"
                        ),
                    ));
                }
                if filesz > 0 {
                    elf.segments.push(Segment {
                        offset,
                        vaddr,
                        filesz,
                    });
                }
            }
        }
        if shnum > 0 {
            table_fits(
                image,
                shoff,
                shnum.into(),
                SHDR_SIZE,
                "section header table",
            )?;
            for i in 0..u64::from(shnum) {
                let at = shoff + i * SHDR_SIZE;
                if be_u32(image, at + 4) == Some(SHT_SYMTAB) {
                    elf.read_symtab(image, shoff, shnum, at)?;
                }
            }
        }
        Ok(elf)
    }

    fn read_symtab(
        &mut self,
        image: &[u8],
        shoff: u64,
        shnum: u16,
        at: u64,
    ) -> Result<(), ElfError> {
        let field =
            |off| be_u64(image, at + off).ok_or((at, "section header is cut off".to_string()));
        let (offset, size) = (field(24)?, field(32)?);
        let link = be_u32(image, at + 40).unwrap_or(0);
        if link >= u32::from(shnum) {
            return Err((
                at + 40,
                format!(".symtab names string table {link}, which does not exist"),
            ));
        }
        let strtab_at = shoff + u64::from(link) * SHDR_SIZE;
        let str_off = be_u64(image, strtab_at + 24).unwrap_or(u64::MAX);
        let str_size = be_u64(image, strtab_at + 32).unwrap_or(u64::MAX);
        table_fits(image, offset, size / SYM_SIZE, SYM_SIZE, ".symtab")?;
        table_fits(image, str_off, str_size, 1, "string table")?;
        let strings = get(image, str_off, str_size as usize).unwrap_or(&[]);
        for i in 0..size / SYM_SIZE {
            let sym = offset + i * SYM_SIZE;
            let name_at = be_u32(image, sym).unwrap_or(u32::MAX) as usize;
            let Some(name) = strings.get(name_at..).and_then(c_string) else {
                continue;
            };
            if name.starts_with(BINARY_SYMBOL_PREFIX) {
                self.symbols.push(Symbol {
                    name: name.to_string(),
                    value: be_u64(image, sym + 8).unwrap_or(0),
                });
            }
        }
        Ok(())
    }

    /// The virtual address of file offset `offset`, when a segment maps it.
    pub(crate) fn vaddr_of(&self, offset: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|s| offset >= s.offset && offset - s.offset < s.filesz)
            .map(|s| s.vaddr + (offset - s.offset))
    }

    /// The file offset of virtual address `vaddr`, when a segment maps it from the file.
    pub(crate) fn offset_of(&self, vaddr: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|s| vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz)
            .map(|s| s.offset + (vaddr - s.vaddr))
    }

    /// The value of the symbol named `name`.
    pub(crate) fn symbol(&self, name: &str) -> Option<u64> {
        self.symbols
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.value)
    }
}

fn table_fits(
    image: &[u8],
    offset: u64,
    count: u64,
    entry: u64,
    what: &str,
) -> Result<(), ElfError> {
    let end = count.checked_mul(entry).and_then(|n| n.checked_add(offset));
    match end {
        Some(end) if end <= image.len() as u64 => Ok(()),
        _ => Err((
            offset,
            format!("{what} ({count} entries of {entry} bytes at {offset:#x}) runs past the {} bytes of the image", image.len()),
        )),
    }
}

fn c_string(bytes: &[u8]) -> Option<&str> {
    let end = bytes.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&bytes[..end]).ok()
}
