//! Checks against the genuine programs in ../shared/corpus.

use rsxtrace_builder::fragment_scan;
use rsxtrace_builder::vertex_ucode::mvp_vertex_program;

/// The ucode of a CgBinaryProgram: header words (big-endian) 6 = ucodeSize, 7 = ucode offset.
fn cg_ucode(bytes: &[u8]) -> &[u8] {
    let word = |i: usize| u32::from_be_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap()) as usize;
    let (size, offset) = (word(6), word(7));
    &bytes[offset..offset + size]
}

#[test]
fn hand_encoded_vertex_program_matches_sony_output() {
    let Some(dir) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let bytes = std::fs::read(dir.path("ps3autotests/primitives.vpo")).unwrap();
    let words: Vec<u32> = cg_ucode(&bytes)
        .chunks_exact(4)
        .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
        .collect();
    // primitives.vpo: MOV o[1], v[3]; DP4 o[0].w/z/y/x with c[259..256].
    assert_eq!(mvp_vertex_program(256), words);
}

#[test]
fn corpus_fragment_programs_scan_to_their_ucode_size() {
    let Some(dir) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(dir.path("ps3autotests")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("fpo") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let ucode = cg_ucode(&bytes);
        let extent =
            fragment_scan::scan(ucode).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Sony's ucode ends with the END instruction (and its constant, if any).
        assert_eq!(
            extent.captured_len() as usize,
            ucode.len(),
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} fragment programs found");
}
