//! Programs inside the public ps3autotests executables of the corpus, at the offsets
//! `rpcs3-shader-cache.md` §5.5 documents; the damaged `fpshader` blob of `ppu_vpu.ppu.elf`
//! recovered through its symbol; a debug SELF with its header stripped.

use crate::source_support;

use rsxtrace_program::container::Stage;
use rsxtrace_program::source::{discover, executable, Note, Origin};
use source_support::{corpus, loose_key};

/// (ELF, FP file offset, VP file offset, the corpus FP and VP the blobs equal), §5.5.
const DOCUMENTED: [(&str, u64, u64, Option<&str>, &str); 9] = [
    (
        "primitives",
        0x204d4,
        0x205a4,
        Some("primitives.fpo"),
        "primitives.vpo",
    ),
    (
        "rsx_fp_static_test1",
        0x20524,
        0x20654,
        Some("rsx_fp_static_test1.fpo"),
        "sce_cube_common.vpo",
    ),
    (
        "rsx_fp_static_test2",
        0x20524,
        0x210d4,
        Some("rsx_fp_static_test2.fpo"),
        "sce_cube_common.vpo",
    ),
    (
        "rsx_fp_static_test3",
        0x2050c,
        0x21d4c,
        None,
        "sce_cube_common.vpo",
    ),
    (
        "rsx_fp_static_test4",
        0x20524,
        0x269b4,
        None,
        "sce_cube_common.vpo",
    ),
    (
        "rsx_fp_static_test5",
        0x2050c,
        0x20cdc,
        Some("rsx_fp_static_test5.fpo"),
        "sce_cube_common.vpo",
    ),
    (
        "rsx_fp_dynamic_test1",
        0x20584,
        0x207e4,
        Some("rsx_fp_dynamic_test1.fpo"),
        "sce_cube_common.vpo",
    ),
    (
        "rsx_fp_dynamic_test2",
        0x20584,
        0x20f14,
        Some("rsx_fp_dynamic_test2.fpo"),
        "sce_cube_common.vpo",
    ),
    (
        "ppu_vpu",
        0x20624,
        0x206f4,
        Some("primitives.fpo"),
        "primitives.vpo",
    ),
];

#[test]
fn every_embedded_program_is_found_at_its_documented_offset() {
    let Some(corpus) = corpus() else { return };
    for (name, fp_offset, vp_offset, fp_file, vp_file) in DOCUMENTED {
        let rel = format!("ps3autotests/elf/{name}.ppu.elf");
        let Some(_) = corpus.file(&rel, rsxtrace_testkit::in_ci()) else {
            continue;
        };
        let d = discover(&[corpus.path(&rel)]);
        assert!(d.problems.is_empty(), "{rel}: {:?}", d.problems);
        let found: Vec<(Stage, u64, Option<u64>)> = d
            .programs
            .iter()
            .map(|p| match &p.origin {
                Origin::Executable {
                    file_offset, vaddr, ..
                } => (p.stage, *file_offset, *vaddr),
                other => panic!("{rel}: origin {other:?}"),
            })
            .collect();
        // §5.5: every vaddr is file offset + 0x10000 in these images.
        assert_eq!(
            found,
            vec![
                (Stage::Fragment, fp_offset, Some(fp_offset + 0x10000)),
                (Stage::Vertex, vp_offset, Some(vp_offset + 0x10000)),
            ],
            "{rel}"
        );
        let [fp, vp] = &d.programs[..] else {
            unreachable!()
        };
        assert_eq!(
            vp.key,
            loose_key(&corpus, &format!("ps3autotests/{vp_file}")),
            "{rel} VP"
        );
        if let Some(fp_file) = fp_file {
            assert_eq!(
                fp.key,
                loose_key(&corpus, &format!("ps3autotests/{fp_file}")),
                "{rel} FP"
            );
        }
        // The images keep .symtab, so each header-scan hit is also named by a symbol.
        for p in [vp, fp] {
            let named = p.notes.iter().any(|n| {
                matches!(n, Note::NamedBySymbol { symbol } | Note::FoundThroughSymbol { symbol, .. }
                    if symbol.starts_with("_binary_") && symbol.ends_with("po_start"))
            });
            assert!(named, "{rel}: {:?}", p.notes);
        }
    }
}

#[test]
fn damaged_blob_is_found_through_its_symbol() {
    let Some(corpus) = corpus() else { return };
    let rel = "ps3autotests/elf/ppu_vpu.ppu.elf";
    let Some(bytes) = corpus.file(rel, rsxtrace_testkit::in_ci()) else {
        return;
    };
    // The header scan alone refuses the blob (§5.5): only the VP is a scan hit.
    let hits = rsxtrace_program::source::scan::scan(&bytes).hits;
    assert_eq!(
        hits.iter().map(|h| h.offset).collect::<Vec<_>>(),
        vec![0x206f4]
    );

    let (programs, problems) = executable::read(std::path::Path::new(rel), &bytes);
    assert!(problems.is_empty(), "{problems:?}");
    let fp = programs
        .iter()
        .find(|p| p.stage == Stage::Fragment)
        .expect("fragment program recovered");
    assert_eq!(
        fp.origin,
        Origin::Executable {
            path: rel.into(),
            file_offset: 0x20624,
            vaddr: Some(0x30624),
            via_symbol: Some("_binary_fpshader_fpo_start".into()),
        }
    );
    assert_eq!(
        fp.notes,
        vec![Note::FoundThroughSymbol {
            symbol: "_binary_fpshader_fpo_start".into(),
            ucode_offset: 0xc0,
        }]
    );
    assert!(fp.notes[0].to_string().contains("found through symbol"));
    assert!(fp.container.is_none());
    // The microcode is intact: the key is primitives.fpo's.
    assert_eq!(fp.key, loose_key(&corpus, "ps3autotests/primitives.fpo"));
}

#[test]
fn debug_self_is_read_from_its_elf_image() {
    let Some(corpus) = corpus() else { return };
    let rel = "ps3autotests/elf/basic.ppu.self";
    let Some(bytes) = corpus.file(rel, rsxtrace_testkit::in_ci()) else {
        return;
    };
    // basic has no graphics: no program and no problem, so the ELF image at 0x980 (§5.3)
    // was found and read.
    let (programs, problems) = executable::read(std::path::Path::new(rel), &bytes);
    assert!(
        programs.is_empty() && problems.is_empty(),
        "{programs:?} {problems:?}"
    );

    // The same image behind a wrong offset is a problem naming the header field.
    let mut broken = bytes.clone();
    broken[0x17] = 0x84;
    let (_, problems) = executable::read(std::path::Path::new(rel), &broken);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].offset, Some(0x10));

    // A SELF that carries a program: primitives' ELF behind a debug SELF header. Offsets
    // are in the file as stored; addresses stay those of the image.
    let Some(elf) = corpus.file(
        "ps3autotests/elf/primitives.ppu.elf",
        rsxtrace_testkit::in_ci(),
    ) else {
        return;
    };
    let mut selfie = bytes[..0x980].to_vec();
    selfie.extend_from_slice(&elf);
    let (programs, problems) = executable::read(std::path::Path::new("p.self"), &selfie);
    assert!(problems.is_empty(), "{problems:?}");
    let offsets: Vec<_> = programs
        .iter()
        .map(|p| match p.origin {
            Origin::Executable {
                file_offset, vaddr, ..
            } => (file_offset, vaddr),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        offsets,
        vec![
            (0x980 + 0x204d4, Some(0x304d4)),
            (0x980 + 0x205a4, Some(0x305a4))
        ]
    );
}

#[test]
fn encrypted_self_is_a_problem_not_a_scan() {
    let mut b = b"SCE\0".to_vec();
    b.resize(0x100, 0);
    let (programs, problems) = executable::read(std::path::Path::new("EBOOT.BIN"), &b);
    assert!(programs.is_empty());
    assert_eq!(problems.len(), 1);
    assert!(problems[0].reason.contains("encrypted"), "{problems:?}");
}

/// The corpus's `primitives.ppu.elf`, when the corpus is here.
fn primitives_elf() -> Option<Vec<u8>> {
    corpus()?.file(
        "ps3autotests/elf/primitives.ppu.elf",
        rsxtrace_testkit::in_ci(),
    )
}

/// A program header whose segment would wrap the address space is a problem naming the header;
/// the programs are still found by the scan, without made-up addresses.
#[test]
fn a_segment_outside_the_address_space_is_a_problem() {
    let Some(mut elf) = primitives_elf() else {
        return;
    };
    let be_u64 = |b: &[u8], at: usize| u64::from_be_bytes(b[at..at + 8].try_into().unwrap());
    let phoff = be_u64(&elf, 0x20) as usize;
    let load = (0..16)
        .map(|i| phoff + i * 56)
        .find(|&at| elf[at..at + 4] == [0, 0, 0, 1])
        .expect("a PT_LOAD header");
    elf[load + 16..load + 24].copy_from_slice(&0xFFFF_FFFF_FFFF_FFF0u64.to_be_bytes());
    let (programs, problems) = executable::read(std::path::Path::new("wrap.elf"), &elf);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].offset, Some(load as u64));
    assert!(problems[0].reason.contains("address space"), "{problems:?}");
    assert_eq!(programs.len(), 2);
    for p in &programs {
        assert!(
            matches!(p.origin, Origin::Executable { vaddr: None, .. }),
            "{:?}",
            p.origin
        );
    }
}

/// A damaged container in an executable with no symbols (a stripped retail EBOOT) is named as
/// a problem at its offset; stray profile words elsewhere in the image are not.
#[test]
fn a_damaged_container_in_a_stripped_executable_is_a_problem() {
    let Some(mut elf) = primitives_elf() else {
        return;
    };
    let (clean_programs, clean_problems) = executable::read(std::path::Path::new("p.elf"), &elf);
    assert_eq!((clean_programs.len(), clean_problems.len()), (2, 0));
    elf[0x3C..0x3E].fill(0); // e_shnum: no section headers, no symbols
    let fp = 0x204d4;
    elf[fp + 8..fp + 12].copy_from_slice(&0x7FFF_FFFFu32.to_be_bytes()); // totalSize
    let (programs, problems) = executable::read(std::path::Path::new("p.elf"), &elf);
    assert_eq!(programs.len(), 1, "the vertex program is still found");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].offset, Some(fp as u64));
    assert!(problems[0].reason.contains("totalSize"), "{problems:?}");
}
