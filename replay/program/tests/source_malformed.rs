//! Bad input to the program-source readers: truncated and corrupted executables, hostile ELF
//! header values, pipeline files of every size. Each becomes problems (or nothing), never a
//! panic; these are the `source_scan` fuzz target's seeds run as ordinary tests.

use crate::source_support;

use rsxtrace_program::source::rpcs3_cache::read_pipeline;
use rsxtrace_program::source::{executable, loose};
use rsxtrace_testkit::rng::XorShift64;
use source_support::corpus;
use std::path::Path;

#[test]
fn truncated_and_corrupted_executables_never_panic() {
    let Some(corpus) = corpus() else { return };
    let Some(elf) = corpus.file(
        "ps3autotests/elf/ppu_vpu.ppu.elf",
        rsxtrace_testkit::in_ci(),
    ) else {
        return;
    };
    let path = Path::new("ppu_vpu.ppu.elf");
    for cut in (0..elf.len()).step_by(1531) {
        let (programs, _) = executable::read(path, &elf[..cut]);
        // A program is only reported when all of its bytes are there.
        assert!(programs.len() <= 2, "cut {cut}");
    }
    let mut rng = XorShift64(0x5eed);
    for round in 0..200 {
        let mut bytes = elf.clone();
        for _ in 0..16 {
            let at = (rng.next_u64() % bytes.len() as u64) as usize;
            bytes[at] = rng.next_u64() as u8;
        }
        let _ = executable::read(path, &bytes);
        let _ = loose::read(path, &bytes[round..]);
    }
}

#[test]
fn hostile_elf_header_values_are_problems_at_their_offset() {
    let Some(corpus) = corpus() else { return };
    let Some(elf) = corpus.file(
        "ps3autotests/elf/primitives.ppu.elf",
        rsxtrace_testkit::in_ci(),
    ) else {
        return;
    };
    let path = Path::new("primitives.ppu.elf");
    // e_phoff far past the end.
    let mut bytes = elf.clone();
    bytes[0x20..0x28].copy_from_slice(&u64::MAX.to_be_bytes());
    let (programs, problems) = executable::read(path, &bytes);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].reason.contains("program header table"),
        "{problems:?}"
    );
    // The image is still scanned: both programs, without addresses.
    assert_eq!(programs.len(), 2);
    // e_shnum huge: the section table runs past the end.
    let mut bytes = elf.clone();
    bytes[0x3C..0x3E].copy_from_slice(&u16::MAX.to_be_bytes());
    let (programs, problems) = executable::read(path, &bytes);
    assert!(
        problems[0].reason.contains("section header table"),
        "{problems:?}"
    );
    assert_eq!(programs.len(), 2);
}

#[test]
fn pipeline_files_of_any_size_and_content_never_panic() {
    let mut rng = XorShift64(7);
    let file = Path::new("x.bin");
    for size in [
        0usize, 1, 8, 215, 216, 224, 232, 648, 656, 664, 672, 673, 4096,
    ] {
        let bytes: Vec<u8> = (0..size).map(|_| rng.next_u64() as u8).collect();
        for backend in ["opengl", "vulkan", "metal"] {
            for version in ["v1.91", "v1.92", "v1.93", "v1.94", "v1.95", "v2"] {
                if let Ok(r) = read_pipeline(file, backend, version, &bytes) {
                    assert!(r.state.vp_jump_table.len() <= 32);
                    assert!(matches!(r.state.vp_instruction_mask.len(), 8 | 9));
                }
            }
        }
    }
}
