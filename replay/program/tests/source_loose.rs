//! Loose containers: whole files, containers behind a foreign header (found by the scanner at
//! their offset), and files with nothing in them, read through `discover`.

use crate::source_support;

use rsxtrace_program::source::{discover, Origin};
use source_support::{corpus, loose_key, write};

#[test]
fn containers_behind_a_junk_header_are_found_at_their_offset() {
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    // 100 bytes of "studio header" holding a stray profile number (7004) with a bad size.
    let mut junk = b"STUDIOHDR\0\0\0".to_vec();
    junk.extend_from_slice(&7004u32.to_be_bytes());
    junk.extend_from_slice(&[0, 0, 0, 6, 0xFF, 0xFF, 0xFF, 0xFF]);
    junk.resize(100, 0x5A);
    let cases = [
        ("fp.pak", "ps3autotests/primitives.fpo"),
        ("vp.pak", "ps3autotests/sce_cube_common.vpo"),
        ("rvp.pak", "tiny3d/vshader_text_normal.rvp"),
    ];
    for (name, rel) in cases {
        let mut bytes = junk.clone();
        bytes.extend_from_slice(&corpus.read(rel));
        bytes.extend_from_slice(b"trailer");
        write(tmp.path(), name, &bytes);
    }
    write(tmp.path(), "nothing.bin", &junk);
    let d = discover(&[tmp.path().to_path_buf()]);
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.files_read, 4);
    let found: Vec<(String, u64, u64)> = d
        .programs
        .iter()
        .map(|p| match &p.origin {
            Origin::Loose { path, offset } => (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                *offset,
                p.key,
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    let want: Vec<(String, u64, u64)> = [
        ("fp.pak", cases[0].1),
        ("rvp.pak", cases[2].1),
        ("vp.pak", cases[1].1),
    ]
    .into_iter()
    .map(|(name, rel)| (name.to_string(), 100, loose_key(&corpus, rel)))
    .collect();
    assert_eq!(found, want);
    assert!(d.programs.iter().all(|p| p.container.is_some()));
}

#[test]
fn a_truncated_whole_container_is_a_problem_with_its_offset() {
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let fpo = corpus.read("ps3autotests/primitives.fpo");
    let path = write(tmp.path(), "cut.fpo", &fpo[..fpo.len() - 16]);
    let d = discover(std::slice::from_ref(&path));
    assert!(d.programs.is_empty());
    assert_eq!(d.problems.len(), 1);
    assert_eq!(d.problems[0].path, path);
    assert_eq!(
        d.problems[0].offset,
        Some(8),
        "totalSize names the cut: {:?}",
        d.problems
    );
}

#[test]
fn a_missing_path_is_a_problem_and_the_walk_goes_on() {
    let Some(corpus) = corpus() else { return };
    let missing = std::path::PathBuf::from("/nonexistent/rsxtrace/source");
    let d = discover(&[missing.clone(), corpus.path("ps3autotests/primitives.vpo")]);
    assert_eq!(d.programs.len(), 1);
    assert_eq!(d.problems.len(), 1);
    assert_eq!(d.problems[0].path, missing);
}

#[test]
fn a_file_named_as_a_container_that_holds_none_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "broken.fpo", b"not a program at all, just text");
    write(tmp.path(), "notes.txt", b"not a program either");
    let d = discover(&[tmp.path().to_path_buf()]);
    assert!(d.programs.is_empty());
    // Only the .fpo is named as a program; the text file is simply not one.
    assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
    assert!(d.problems[0].path.ends_with("broken.fpo"));
    assert!(d.problems[0].reason.contains("holds no"));
}
