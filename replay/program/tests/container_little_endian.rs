//! `CgBinaryProgram` containers already swapped to little-endian, which RPCS3 accepts
//! (`CgBinaryDisasm::BuildShaderBody`: the profile word tells the order; `ConvertToLE` swaps
//! the header, the parameter records, the stage descriptor's fields and every 32-bit word from
//! the microcode to the end of the file, and leaves the embedded-constant tables and default
//! values big-endian). Each genuine corpus container is swapped by that rule
//! (`rsxtrace_testkit::cg_little_endian`) and parses to
//! exactly the program the big-endian file gives; every truncation is refused without a
//! panic. Editing writes a little-endian original anew, as a big-endian container.

use rsxtrace_program::container::{write_over, CgProgram, Container};
use rsxtrace_testkit::cg_little_endian::cg_little_endian;

fn corpus_containers() -> Option<Vec<(String, Vec<u8>)>> {
    let corpus = rsxtrace_testkit::workspace!().corpus()?;
    let files: Vec<(String, Vec<u8>)> = corpus
        .manifest_items()
        .iter()
        .filter_map(|it| it["file"].as_str().map(str::to_string))
        .filter(|f| f.ends_with(".fpo") || f.ends_with(".vpo"))
        .map(|f| {
            let bytes = corpus.read(&f);
            (f, bytes)
        })
        .collect();
    assert_eq!(files.len(), 11, "9 .fpo and 2 .vpo in the manifest");
    Some(files)
}

fn cg(bytes: &[u8]) -> CgProgram {
    match Container::parse(bytes).expect("parses") {
        Container::Cg(p) => p,
        other => panic!("not a Cg container: {other:?}"),
    }
}

#[test]
fn a_little_endian_container_parses_as_its_big_endian_form() {
    let Some(files) = corpus_containers() else {
        return;
    };
    let mut tables = 0;
    for (file, be) in files {
        let program = cg(&be);
        tables += program
            .parameters
            .iter()
            .filter(|p| !p.embedded_constants.is_empty())
            .count();
        let le = cg_little_endian(&be);
        assert_ne!(le, be, "{file}");
        assert_eq!(cg(&le), program, "{file}");
    }
    // Fragment uniforms have embedded-constant tables and default values, read big-endian.
    assert!(tables > 0);
}

#[test]
fn every_truncation_of_a_little_endian_container_is_refused() {
    let Some(files) = corpus_containers() else {
        return;
    };
    for (file, be) in files {
        let le = cg_little_endian(&be);
        for len in 0..le.len() {
            assert!(
                Container::parse(&le[..len]).is_err(),
                "{file} cut to {len} bytes parsed"
            );
        }
    }
}

#[test]
fn a_little_endian_original_is_written_anew_big_endian() {
    let Some(files) = corpus_containers() else {
        return;
    };
    let (file, be) = files.iter().find(|(f, _)| f.ends_with(".fpo")).unwrap();
    let program = cg(be);
    let le = cg_little_endian(be);
    // In place over the big-endian file: the very file; over the little-endian one: refused,
    // so the edit lays the container out anew.
    assert_eq!(write_over(be, &program).as_deref(), Some(&be[..]), "{file}");
    assert_eq!(write_over(&le, &program), None, "{file}");
}
