//! RPCS3 shader caches laid out in a temp folder from the corpus programs, following
//! `rpcs3-shader-cache.md`: both file-name eras (§2.3, with its test vectors), pipeline files
//! of v1.94 (OpenGL, layout D) and v1.95 (Vulkan, layout E) and v1.91 (layout A), a program no
//! pipeline file names, truncated raw files, a pipeline file of the wrong size, and one that
//! names a raw file the cache lacks.

use crate::source_support;

use rsxtrace_program::container::Stage;
use rsxtrace_program::source::rpcs3_cache::name_hash::{checksum, era_of, fnv_name};
use rsxtrace_program::source::{discover, NameEra, Note, Origin, PipelineLayout};
use source_support::{corpus, from, loose_key, problems_of, ucode, vp_file, write, Pipeline};

/// §2.3 derived test vectors: (corpus file, checksum name, FNV name).
const NAMES: [(&str, u64, u64); 9] = [
    ("primitives.fpo", 0xDBB822C008101A2, 0x11B85868E2132EAB),
    ("texture_formats.fpo", 0xDBB822C00970202, 0x7FD818A042C3284B),
    (
        "rsx_fp_static_test1.fpo",
        0xB3E2822F50A1414D,
        0xE6DFEA0056F0653B,
    ),
    (
        "rsx_fp_static_test2.fpo",
        0x4F46740809E35928,
        0x6831108828FD248E,
    ),
    (
        "rsx_fp_static_test5.fpo",
        0x540043D3A4349C2C,
        0xB6E98CC7A29DB0C3,
    ),
    (
        "rsx_fp_dynamic_test1.fpo",
        0x6B73CE60DA0F503F,
        0xCD6C56048B118B96,
    ),
    (
        "rsx_fp_dynamic_test2.fpo",
        0xA385EF96EBAC7212,
        0x7B735AEA76D5B5F1,
    ),
    ("primitives.vpo", 0xFC75CDCEBCD91A9A, 0x31A44E98C014C628),
    (
        "sce_cube_common.vpo",
        0x2F7E74062FD94351,
        0x9239379924BA9D7D,
    ),
];

/// The raw-file content of a corpus program (§2.1, §2.2).
fn raw_form(corpus: &rsxtrace_testkit::Corpus, file: &str) -> (Stage, Vec<u8>) {
    let code = ucode(corpus, &format!("ps3autotests/{file}"));
    if file.ends_with(".vpo") {
        (Stage::Vertex, vp_file(&code))
    } else {
        (Stage::Fragment, code)
    }
}

#[test]
fn name_hashes_match_the_reference_test_vectors() {
    let Some(corpus) = corpus() else { return };
    for (file, sum, fnv) in NAMES {
        let (stage, raw) = raw_form(&corpus, file);
        assert_eq!(
            checksum(stage, &raw),
            sum,
            "{file} checksum {:X}",
            checksum(stage, &raw)
        );
        assert_eq!(fnv_name(stage, &raw, None), fnv, "{file} FNV");
        assert_eq!(era_of(stage, &raw, sum, &[]), NameEra::Checksum, "{file}");
        assert_eq!(era_of(stage, &raw, fnv, &[]), NameEra::Fnv, "{file}");
        assert_eq!(
            era_of(stage, &raw, sum ^ 1, &[]),
            NameEra::Neither,
            "{file}"
        );
    }
}

#[test]
fn fnv_name_of_a_vertex_program_follows_the_instruction_mask() {
    let Some(corpus) = corpus() else { return };
    let (_, raw) = raw_form(&corpus, "primitives.vpo"); // 5 instructions
    let all: &[u64] = &[0b11111];
    assert_eq!(fnv_name(Stage::Vertex, &raw, Some(all)), 0x31A44E98C014C628);
    let some: &[u64] = &[0b00111];
    let masked = fnv_name(Stage::Vertex, &raw, Some(some));
    assert_ne!(masked, 0x31A44E98C014C628);
    assert_eq!(era_of(Stage::Vertex, &raw, masked, &[some]), NameEra::Fnv);
    assert_eq!(era_of(Stage::Vertex, &raw, masked, &[]), NameEra::Neither);
}

#[test]
fn a_cache_is_joined_with_its_pipeline_files() {
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    // Nested as RPCS3 nests it (§1.1); discover finds shaders_cache below the given folder.
    let cache = tmp
        .path()
        .join("cache/BLES00000/ppu-x-EBOOT.BIN/shaders_cache");
    let raw = |name: &str, file: &str| {
        let (_, bytes) = raw_form(&corpus, file);
        write(&cache, &format!("raw/{name}"), &bytes)
    };
    raw("FC75CDCEBCD91A9A.vp", "primitives.vpo"); // checksum era
    raw("9239379924BA9D7D.vp", "sce_cube_common.vpo"); // FNV era
    raw("DBB822C008101A2.fp", "primitives.fpo"); // checksum era
    raw("7FD818A042C3284B.fp", "texture_formats.fpo"); // FNV era
    raw("B3E2822F50A1414D.fp", "rsx_fp_static_test1.fpo"); // no pipeline file names it
    raw("123.fp", "rsx_fp_static_test5.fpo"); // a name that is neither hash
                                              // A .vp cut mid-instruction and a .fp cut before END.
    let (_, prim_vp) = raw_form(&corpus, "primitives.vpo");
    write(&cache, "raw/ABC.vp", &prim_vp[..prim_vp.len() - 4]);
    let (_, long_fp) = raw_form(&corpus, "rsx_fp_static_test2.fpo");
    write(
        &cache,
        "raw/DEF.fp",
        &long_fp[..long_fp.len() / 2 / 16 * 16],
    );

    let prim = Pipeline {
        vp_hash: 0xFC75CDCEBCD91A9A,
        fp_hash: 0xDBB822C008101A2,
        vp_ctrl0: 0x800,
        vp_output_mask: 0x4021,
        base: 10,
        entry: 10,
        fp_ctrl: 0x40,
        mask0: 0b11111,
        ..Pipeline::default()
    };
    // v1.94 OpenGL (layout D): 232 bytes, no fp_mrt_count.
    write(
        &cache,
        "pipelines/opengl/v1.94/FC75CDCEBCD91A9A+DBB822C008101A2+0+1.bin",
        &Pipeline {
            mrt_count: 7,
            ..prim
        }
        .layout_e(false, true),
    );
    // v1.95 Vulkan (layout E): 672 bytes; the same VP with the FNV-named FP.
    let tex = Pipeline {
        fp_hash: 0x7FD818A042C3284B,
        mrt_count: 1,
        ..prim
    };
    write(
        &cache,
        "pipelines/vulkan/v1.95/a.bin",
        &tex.layout_e(true, true),
    );
    // The same VP entered one instruction later: a second program from the same file.
    let later = Pipeline {
        base: 100,
        entry: 101,
        ..prim
    };
    write(
        &cache,
        "pipelines/vulkan/v1.95/b.bin",
        &later.layout_e(true, true),
    );
    // The cube VP (FNV name) with the primitives FP, v1.91 OpenGL (layout A).
    let cube = Pipeline {
        vp_hash: 0x9239379924BA9D7D,
        vp_output_mask: 0x41,
        ..prim
    };
    write(&cache, "pipelines/opengl/v1.91/c.bin", &cube.layout_a());
    // Wrong size for v1.95 OpenGL; a file naming raw programs the cache lacks; an entry
    // before the base address.
    write(&cache, "pipelines/opengl/v1.95/short.bin", &[0u8; 100]);
    let dangling = Pipeline {
        vp_hash: 0x1234,
        fp_hash: 0x5678,
        ..prim
    };
    write(
        &cache,
        "pipelines/opengl/v1.95/dangling.bin",
        &dangling.layout_e(false, true),
    );
    let before = Pipeline {
        base: 10,
        entry: 9,
        ..prim
    };
    write(
        &cache,
        "pipelines/vulkan/v1.95/c.bin",
        &before.layout_e(true, true),
    );
    // A legacy version folder.
    write(&cache, "pipelines/opengl/v1.5/x.bin", &[0u8; 64]);

    let d = discover(&[tmp.path().to_path_buf()]);

    // Primitives VP: entry slot 0 (two states, path order) and entry slot 1 (one state).
    let prim_vp = from(&d, "raw/FC75CDCEBCD91A9A.vp");
    assert_eq!(prim_vp.len(), 2, "{prim_vp:#?}");
    let (whole, tail) = (prim_vp[0], prim_vp[1]);
    assert_eq!(whole.key, loose_key(&corpus, "ps3autotests/primitives.vpo"));
    assert!(
        matches!(&whole.origin, Origin::Rpcs3Cache { name, era: NameEra::Checksum, .. } if name == "FC75CDCEBCD91A9A")
    );
    let states: Vec<(&str, &str, PipelineLayout)> = whole
        .states
        .iter()
        .map(|s| (s.backend.as_str(), s.version.as_str(), s.layout))
        .collect();
    assert_eq!(
        states,
        vec![
            ("opengl", "v1.94", PipelineLayout::D),
            ("vulkan", "v1.95", PipelineLayout::E)
        ]
    );
    assert_eq!(whole.state.as_ref(), whole.states.first());
    let d_state = &whole.states[0];
    assert_eq!(
        (d_state.vp_ctrl, d_state.vp_output_mask, d_state.fp_ctrl),
        (0x800, 0x4021, 0x40)
    );
    assert_eq!(d_state.fp_mrt_count, 0, "layout D has no fp_mrt_count");
    assert_eq!(whole.states[1].fp_mrt_count, 1);
    assert_eq!(d_state.vp_instruction_mask[0], 0b11111);
    assert!(d_state.vp_jump_table.is_empty());
    assert!(whole.notes.is_empty());
    assert_eq!(tail.states.len(), 1);
    assert_eq!(
        (tail.states[0].vp_base_address, tail.states[0].vp_entry),
        (100, 101)
    );
    assert_eq!(
        (tail.entry, whole.entry),
        (1, 0),
        "the entry slot is vp_entry - vp_base_address"
    );
    assert_eq!(tail.ucode, whole.ucode, "the file is kept whole");

    // Cube VP: FNV era, layout A, whose single vp_ctrl is the output mask.
    let cube_vp = from(&d, "raw/9239379924BA9D7D.vp");
    assert_eq!(cube_vp.len(), 1);
    assert_eq!(
        cube_vp[0].key,
        loose_key(&corpus, "ps3autotests/sce_cube_common.vpo")
    );
    assert!(matches!(
        cube_vp[0].origin,
        Origin::Rpcs3Cache {
            era: NameEra::Fnv,
            ..
        }
    ));
    let a = &cube_vp[0].states[0];
    assert_eq!(
        (a.layout, a.vp_output_mask, a.vp_ctrl, a.fp_ctrl),
        (PipelineLayout::A, 0x41, 0, 0x40)
    );

    // Fragment programs.
    let prim_fp = from(&d, "raw/DBB822C008101A2.fp");
    assert_eq!(prim_fp.len(), 1);
    assert_eq!(
        prim_fp[0].key,
        loose_key(&corpus, "ps3autotests/primitives.fpo")
    );
    let files: Vec<String> = prim_fp[0]
        .states
        .iter()
        .map(|s| format!("{}/{}", s.backend, s.version))
        .collect();
    // c.bin (v1.91), the v1.94 file, b.bin and c.bin (v1.95): a fragment program keeps every
    // state, including one whose vertex entry is refused.
    assert_eq!(
        files,
        [
            "opengl/v1.91",
            "opengl/v1.94",
            "vulkan/v1.95",
            "vulkan/v1.95"
        ]
    );
    let tex_fp = from(&d, "raw/7FD818A042C3284B.fp");
    assert!(matches!(
        tex_fp[0].origin,
        Origin::Rpcs3Cache {
            era: NameEra::Fnv,
            ..
        }
    ));
    assert_eq!(
        tex_fp[0].key,
        loose_key(&corpus, "ps3autotests/texture_formats.fpo")
    );
    let lone = from(&d, "raw/B3E2822F50A1414D.fp");
    assert_eq!(lone.len(), 1);
    assert!(lone[0].state.is_none() && lone[0].states.is_empty());
    assert_eq!(lone[0].notes, vec![Note::DefaultState]);
    assert_eq!(
        lone[0].key,
        loose_key(&corpus, "ps3autotests/rsx_fp_static_test1.fpo")
    );
    let renamed = from(&d, "raw/123.fp");
    assert!(matches!(
        renamed[0].origin,
        Origin::Rpcs3Cache {
            era: NameEra::Neither,
            ..
        }
    ));

    // Problems, each naming its file; the rest of the cache was read regardless.
    let one = |suffix: &str, needle: &str| {
        let p = problems_of(&d, suffix);
        assert_eq!(p.len(), 1, "{suffix}: {p:?} of {:#?}", d.problems);
        assert!(p[0].contains(needle), "{suffix}: {p:?}");
    };
    one("raw/ABC.vp", "not a non-zero multiple of 16");
    one("raw/DEF.fp", "fragment program");
    one("opengl/v1.95/short.bin", "100 bytes");
    assert_eq!(
        problems_of(&d, "opengl/v1.95/dangling.bin").len(),
        2,
        "both raw files absent"
    );
    one("vulkan/v1.95/c.bin", "outside");
    one("opengl/v1.5", "v1.5");
    assert_eq!(d.problems.len(), 7, "{:#?}", d.problems);
    assert!(from(&d, "raw/ABC.vp").is_empty() && from(&d, "raw/DEF.fp").is_empty());
    // 8 raw files and 7 pipeline files read (short.bin is refused by its size unread).
    assert_eq!(d.files_read, 8 + 6);
}

#[test]
fn a_shaders_cache_folder_given_directly_is_a_cache() {
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache = tmp.path().join("shaders_cache");
    let (_, fp) = raw_form(&corpus, "primitives.fpo");
    write(&cache, "raw/DBB822C008101A2.fp", &fp);
    let d = discover(&[cache]);
    assert_eq!(d.programs.len(), 1);
    assert!(matches!(
        d.programs[0].origin,
        Origin::Rpcs3Cache {
            era: NameEra::Checksum,
            ..
        }
    ));
    assert_eq!(d.programs[0].notes, vec![Note::DefaultState]);
}

/// The two layouts of `rpcs3-shader-cache.md` §2.1 that a program with subroutines gives: a
/// subroutine after the main END, and the dispatch block after its subroutines (the entry
/// above the file's first slot, RPCS3 `analyse_vertex_program`). Each file is kept whole and
/// run from `vp_entry − vp_base_address`, so every call lands on its subroutine.
#[test]
fn cached_vertex_programs_with_subroutines_run_from_their_entry() {
    use rsxtrace_program::vertex::{assemble, decode_image, encode_bytes};
    let after = "000: CAL 3\n\
                 001: MOV o[COL0], v[WEIGHT]\n\
                 002: DP4 o[HPOS].x, v[POS], c[256]; END\n\
                 003: MOV o[TEX0], v[NORMAL]\n\
                 004: RET\n";
    let before = "000: MOV o[TEX0], v[NORMAL]\n\
                  001: RET\n\
                  002: CAL 0\n\
                  003: MOV o[COL0], v[WEIGHT]\n\
                  004: DP4 o[HPOS].x, v[POS], c[256]; END\n";
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache = tmp.path().join("shaders_cache");
    let mut images = Vec::new();
    for (name, text, entry) in [("A1", after, 0u32), ("B2", before, 2)] {
        let image = encode_bytes(&assemble(text).expect("assembles"));
        assert_eq!(image.len(), 5 * 16);
        write(&cache, &format!("raw/{name}.vp"), &vp_file(&image));
        let state = Pipeline {
            vp_hash: u64::from_str_radix(name, 16).expect("hex"),
            fp_hash: 0xF,
            base: 40,
            entry: 40 + entry,
            ..Pipeline::default()
        };
        write(
            &cache,
            &format!("pipelines/vulkan/v1.95/{name}.bin"),
            &state.layout_e(true, true),
        );
        images.push((name, image, entry));
    }
    let d = discover(&[cache]);
    for (name, image, entry) in images {
        let found = from(&d, &format!("raw/{name}.vp"));
        assert_eq!(found.len(), 1, "{name}: {:?}", d.problems);
        assert_eq!((&found[0].ucode, found[0].entry), (&image, entry), "{name}");
        let (program, _) =
            decode_image(&found[0].ucode, entry as usize).unwrap_or_else(|e| panic!("{name}: {e}"));
        let slots: Vec<usize> = program.instructions.iter().map(|i| i.slot).collect();
        assert_eq!(slots, [0, 1, 2, 3, 4], "{name}: every slot is reached");
        assert_eq!(program.start_slot, entry as usize);
    }
}

/// A cache whose raw files and version folder are links, a link to a whole cache, and a link
/// cycle: links are followed as RPCS3 follows them, and a folder reached twice is named once
/// as a problem.
#[cfg(unix)]
#[test]
fn links_in_and_to_a_cache_are_followed() {
    use std::os::unix::fs::symlink;
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = tmp.path().join("store");
    let (_, vp) = raw_form(&corpus, "primitives.vpo");
    let (_, fp) = raw_form(&corpus, "primitives.fpo");
    let vp_path = write(&store, "FC75CDCEBCD91A9A.vp", &vp);
    let fp_path = write(&store, "DBB822C008101A2.fp", &fp);
    let state = Pipeline {
        vp_hash: 0xFC75CDCEBCD91A9A,
        fp_hash: 0xDBB822C008101A2,
        fp_ctrl: 0x40,
        ..Pipeline::default()
    };
    write(&store, "v1.95/p.bin", &state.layout_e(true, true));
    // Cache one: raw files and the version folder are links into the store.
    let one = tmp.path().join("games/one/shaders_cache");
    std::fs::create_dir_all(one.join("raw")).expect("mkdir");
    std::fs::create_dir_all(one.join("pipelines/vulkan")).expect("mkdir");
    symlink(&vp_path, one.join("raw/FC75CDCEBCD91A9A.vp")).expect("link");
    symlink(&fp_path, one.join("raw/DBB822C008101A2.fp")).expect("link");
    symlink(store.join("v1.95"), one.join("pipelines/vulkan/v1.95")).expect("link");
    // Cache two: a link to a cache kept outside the folder walked.
    let elsewhere = tmp.path().join("elsewhere/shaders_cache");
    write(&elsewhere, "raw/FC75CDCEBCD91A9A.vp", &vp);
    write(&elsewhere, "raw/DBB822C008101A2.fp", &fp);
    write(
        &elsewhere,
        "pipelines/vulkan/v1.95/p.bin",
        &state.layout_e(true, true),
    );
    std::fs::create_dir_all(tmp.path().join("games/two")).expect("mkdir");
    symlink(&elsewhere, tmp.path().join("games/two/shaders_cache")).expect("link");
    // A cycle.
    symlink(tmp.path().join("games"), tmp.path().join("games/one/back")).expect("link");

    let d = discover(&[tmp.path().join("games")]);
    for cache in ["one", "two"] {
        let suffix = format!("{cache}/shaders_cache/raw/FC75CDCEBCD91A9A.vp");
        let vps = from(&d, &suffix);
        assert_eq!(vps.len(), 1, "{cache}: {:?}", d.problems);
        assert_eq!(
            vps[0].states.len(),
            1,
            "{cache}: the linked pipeline folder is read"
        );
        let fps = from(&d, &format!("{cache}/shaders_cache/raw/DBB822C008101A2.fp"));
        assert_eq!(fps.len(), 1, "{cache}");
    }
    let cycles: Vec<&str> = d
        .problems
        .iter()
        .map(|p| p.reason.as_str())
        .filter(|r| r.contains("walked already"))
        .collect();
    assert_eq!(cycles.len(), 1, "{:?}", d.problems);
}

/// A raw vertex file longer than the 544 instructions RPCS3 stores is refused before it is
/// read, naming its size; a fragment file is bounded by the caller's file limit.
#[test]
fn raw_files_past_their_limit_are_not_read() {
    use rsxtrace_program::source::{discover_with, Options};
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache = tmp.path().join("shaders_cache");
    let vp = write(&cache, "raw/A.vp", &[]);
    std::fs::File::options()
        .write(true)
        .open(&vp)
        .and_then(|f| f.set_len(545 * 16))
        .expect("sized");
    write(&cache, "raw/B.fp", &[0u8; 4096]);
    let d = discover_with(
        &[cache],
        &Options {
            max_file_bytes: 1024,
        },
    );
    assert!(d.programs.is_empty());
    for (file, size) in [("raw/A.vp", 8720), ("raw/B.fp", 4096)] {
        let problems = problems_of(&d, file);
        assert_eq!(problems.len(), 1, "{file}: {:?}", d.problems);
        assert!(
            problems[0].starts_with(&format!("{size} bytes is over the")),
            "{problems:?}"
        );
    }
}
