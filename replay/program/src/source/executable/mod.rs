//! Programs inside PS3 executables (`rpcs3-shader-cache.md` §5.3–5.5): a 64-bit big-endian
//! PPU ELF, or a debug SELF with its header stripped (§5.3). The whole image is scanned with
//! [`crate::source::scan`]; file offsets become virtual addresses through the `PT_LOAD`
//! segments; when `.symtab` names `_binary_*_[fv]po` blobs, each header-scan hit at a named
//! blob is noted, and a named blob the scan refused is recovered from its microcode
//! (`symbols::recover_ucode`) and reported with the symbol that located it.

mod elf;
mod self_header;
mod symbols;

use super::scan::scan;
use super::{program, FoundProgram, Note, Origin, SourceProblem};
use crate::container::{Container, Stage};
use std::path::Path;

/// `binaryFormatRevision` of every CgBinaryProgram found (`rpcs3-shader-cache.md` §5.1).
const CG_REVISION: u32 = 6;

/// Whether `bytes` start like an executable this module reads (ELF or SELF).
pub fn is_executable(bytes: &[u8]) -> bool {
    let head = bytes.get(..4);
    head == Some(&elf::MAGIC[..]) || head == Some(&self_header::MAGIC[..])
}

/// Every program in the executable `bytes` read from `path` (an ELF or SELF image; other
/// bytes are scanned whole), and the problems met. Never panics.
pub fn read(path: &Path, bytes: &[u8]) -> (Vec<FoundProgram>, Vec<SourceProblem>) {
    let mut problems = Vec::new();
    let mut problem = |offset: u64, reason: String| {
        problems.push(SourceProblem {
            path: path.to_path_buf(),
            offset: Some(offset),
            reason,
        })
    };
    let image_offset = if bytes.get(..4) == Some(&self_header::MAGIC[..]) {
        match self_header::elf_offset(bytes) {
            Ok(o) => o,
            Err((at, reason)) => {
                problem(at, reason);
                return (Vec::new(), problems);
            }
        }
    } else {
        0
    };
    let image = bytes.get(image_offset as usize..).unwrap_or(&[]);
    let elf = if elf::is_ppu_elf(image) {
        elf::Elf::parse(image).unwrap_or_else(|(at, reason)| {
            problem(image_offset + at, reason);
            elf::Elf::default()
        })
    } else {
        elf::Elf::default()
    };
    let named = symbols::named_blobs(&elf);
    let origin = |offset: u64, via_symbol: Option<String>| Origin::Executable {
        path: path.to_path_buf(),
        file_offset: image_offset + offset,
        vaddr: elf.vaddr_of(offset),
        via_symbol,
    };

    let mut programs = Vec::new();
    let report = scan(image);
    // A profile word followed by CgBinary revision 6 (§5.1: "6 in every blob found") is a
    // container header whose checks failed: a damaged program, said even when no symbol
    // names it (a stripped executable). Other rejected profile words are stray data.
    for r in &report.rejected {
        let revision = super::bytes::be_u32(image, r.offset + 4);
        if revision == Some(CG_REVISION) && !named.iter().any(|b| b.offset == Some(r.offset)) {
            problem(
                image_offset + r.offset,
                format!(
                    "a CgBinaryProgram header that fails the checks of §5.4 ({}); not read",
                    r.reason
                ),
            );
        }
    }
    let hits = report.hits;
    for hit in &hits {
        let mut notes = Vec::new();
        if let Some(blob) = named.iter().find(|b| b.offset == Some(hit.offset)) {
            notes.push(Note::NamedBySymbol {
                symbol: blob.symbol.clone(),
            });
            if blob.len.is_some_and(|l| l != hit.len) {
                problem(
                    image_offset + hit.offset,
                    format!(
                        "symbol {} gives {} bytes, the container header {}",
                        blob.symbol,
                        blob.len.unwrap_or(0),
                        hit.len
                    ),
                );
            }
        }
        let c = &hit.container;
        let found = program(
            c.stage(),
            (c.ucode(), 0),
            origin(hit.offset, None),
            Some(c.clone()),
            notes,
        );
        match found {
            Ok(p) => programs.push(p),
            Err(reason) => problem(image_offset + hit.offset, reason),
        }
    }

    for blob in &named {
        let Some(offset) = blob.offset else {
            problem(
                0,
                format!(
                    "symbol {} points outside the file-backed segments",
                    blob.symbol
                ),
            );
            continue;
        };
        if hits.iter().any(|h| h.offset == offset) {
            continue;
        }
        let bytes = blob
            .len
            .and_then(|len| super::bytes::get(image, offset, usize::try_from(len).ok()?));
        let Some(bytes) = bytes else {
            problem(
                image_offset + offset,
                format!(
                    "symbol {} names a blob with no length inside the image",
                    blob.symbol
                ),
            );
            continue;
        };
        let Some(start) = symbols::recover_ucode(bytes, blob.stage) else {
            problem(
                image_offset + offset,
                format!(
                    "symbol {} names a blob that is no container and whose microcode could not be located",
                    blob.symbol
                ),
            );
            continue;
        };
        let notes = vec![Note::FoundThroughSymbol {
            symbol: blob.symbol.clone(),
            ucode_offset: start as u64,
        }];
        let origin = origin(offset, Some(blob.symbol.clone()));
        // The blob runs to its symbol's end, past the program: a vertex program is taken
        // through its first END.
        let ucode = match blob.stage {
            Stage::Vertex => super::key::vertex_through_end(&bytes[start..]),
            Stage::Fragment => &bytes[start..],
        };
        match program(blob.stage, (ucode, 0), origin, None::<Container>, notes) {
            Ok(p) => programs.push(p),
            Err(reason) => problem(image_offset + offset, reason),
        }
    }
    programs.sort_by_key(|p| match p.origin {
        Origin::Executable { file_offset, .. } => file_offset,
        _ => 0,
    });
    (programs, problems)
}
