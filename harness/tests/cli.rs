//! The `rsxtrace` binary end to end on the bundled sample, on files it converts, on the genuine
//! corpus programs, and on bad input (exit status 2 with a message naming the problem).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rsxtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rsxtrace"))
        .args(args)
        .output()
        .expect("run rsxtrace")
}

fn ok_stdout(args: &[&str]) -> String {
    let out = rsxtrace(args);
    assert!(
        out.status.success(),
        "rsxtrace {args:?} failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok_stdout(args)).expect("JSON output")
}

fn sample() -> String {
    let p: PathBuf = rsxtrace_testkit::workspace!().sample("basic.rrc.gz");
    p.to_str().unwrap().to_string()
}

/// `../shared/corpus` beside the checkout, or None (loudly; a failure under CI=true).
fn corpus() -> Option<PathBuf> {
    let corpus = rsxtrace_testkit::workspace!().corpus()?;
    Some(corpus.dir().to_path_buf())
}

#[test]
fn info_reports_the_sample() {
    let info = json(&["info", &sample(), "--json"]);
    assert_eq!(info["rrc_version"], 6);
    assert_eq!(info["compression"], "gzip");
    assert_eq!(info["stats"]["draws"], 3);
    assert_eq!(info["stats"]["distinct_vertex_programs"], 2);
    assert_eq!(info["stats"]["distinct_fragment_programs"], 2);
    assert_eq!(info["sha256"].as_str().unwrap().len(), 64);
    let text = ok_stdout(&["info", &sample()]);
    assert!(
        text.contains("draws") && text.contains("RRC version"),
        "{text}"
    );
}

#[test]
fn draws_of_the_sample() {
    let draws = json(&["draws", &sample(), "--json"]);
    let draws = draws.as_array().unwrap();
    let primitives: Vec<&str> = draws
        .iter()
        .map(|d| d["primitive"].as_str().unwrap())
        .collect();
    assert_eq!(primitives, ["triangles", "triangle_strip", "quads"]);
    assert_eq!(draws[1]["indexed"], true);
    assert_eq!(draws[2]["vp_start"], 16);
    assert!(draws.iter().all(|d| d["mvp"].is_array()));
    let text = ok_stdout(&["draws", &sample()]);
    assert_eq!(text.lines().count(), 2 + 3 + 1, "{text}");
}

#[test]
fn dump_fetches_vertices() {
    let dump = json(&["dump", &sample(), "--draw", "0", "--json"]);
    let vertices = dump["vertices"].as_array().unwrap();
    assert_eq!(vertices.len(), 3);
    // First vertex: position (-1, -1, 0) and colour UB (255, 0, 0, 255) / 255.
    assert_eq!(
        vertices[0]["attributes"]["0"],
        serde_json::json!([-1.0, -1.0, 0.0, 1.0])
    );
    assert_eq!(
        vertices[0]["attributes"]["3"],
        serde_json::json!([1.0, 0.0, 0.0, 1.0])
    );
    assert!(dump["fetch_error"].is_null());
    assert!(dump["state"]["textures"].is_array());
    let textured = json(&["dump", &sample(), "--draw", "2", "--json"]);
    assert_eq!(
        textured["vertices"][1]["attributes"]["8"],
        serde_json::json!([1.0, 1.0, 0.0, 1.0])
    );
}

#[test]
fn missing_draw_is_an_error_with_status_2() {
    let out = rsxtrace(&["dump", &sample(), "--draw", "3"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("draw 3 does not exist") && err.contains("3 draws"),
        "{err}"
    );
}

#[test]
fn bad_files_are_errors_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.rrc");
    std::fs::write(&garbage, b"not a capture at all").unwrap();
    let out = rsxtrace(&["draws", garbage.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    // A truncated capture names the byte offset where it ends.
    let bytes = std::fs::read(sample()).unwrap();
    let raw = {
        use std::io::Read;
        let mut d = flate2::read::GzDecoder::new(&bytes[..]);
        let mut v = Vec::new();
        d.read_to_end(&mut v).unwrap();
        v
    };
    let cut = dir.path().join("cut.rrc");
    std::fs::write(&cut, &raw[..raw.len() / 3]).unwrap();
    let out = rsxtrace(&["draws", cut.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("byte"), "the error names the offset: {err}");
    let out = rsxtrace(&["info", dir.path().join("absent.rrc").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn convert_round_trips_through_the_trace_format() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("basic.rsxt");
    let back = dir.path().join("back.rrc.gz");
    let raw = dir.path().join("back.rrc");
    let zst = dir.path().join("back.rrc.zst");
    ok_stdout(&["convert", &sample(), trace.to_str().unwrap()]);
    ok_stdout(&["convert", trace.to_str().unwrap(), back.to_str().unwrap()]);
    ok_stdout(&["convert", trace.to_str().unwrap(), raw.to_str().unwrap()]);
    ok_stdout(&["convert", back.to_str().unwrap(), zst.to_str().unwrap()]);
    let reference = json(&["draws", &sample(), "--json"]);
    for f in [&trace, &back, &raw, &zst] {
        assert_eq!(
            json(&["draws", f.to_str().unwrap(), "--json"]),
            reference,
            "{}",
            f.display()
        );
    }
    let dump = |f: &Path| json(&["dump", f.to_str().unwrap(), "--draw", "1", "--json"]);
    assert_eq!(dump(&trace), dump(Path::new(&sample())));
    // The method stream is identical, command for command.
    assert_eq!(
        ok_stdout(&["export-jsonl", trace.to_str().unwrap()]),
        ok_stdout(&["export-jsonl", &sample()])
    );
    // RRC -> trace -> RRC gives the same v6 stream byte for byte.
    let original = std::fs::read(sample()).unwrap();
    assert_eq!(std::fs::read(&back).unwrap(), original);
}

#[test]
fn convert_json_says_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let info = json(&["info", &sample(), "--json"]);
    for (name, format, frame_index) in [
        ("basic.rsxt", "trace", Value::Bool(true)),
        ("basic.rrc.gz", "rrc", Value::Null),
        ("basic.rrc", "rrc-raw", Value::Null),
        ("basic.rrc.zst", "rrc-zst", Value::Null),
    ] {
        let out = dir.path().join(name);
        let report = json(&["convert", &sample(), out.to_str().unwrap(), "--json"]);
        assert_eq!(report["format"], format, "{report}");
        assert_eq!(report["output"], out.to_str().unwrap());
        assert_eq!(
            report["bytes"].as_u64(),
            Some(std::fs::metadata(&out).unwrap().len()),
            "{report}"
        );
        assert_eq!(
            report["commands"], info["stats"]["commands"],
            "{report} {info}"
        );
        assert_eq!(report["memory_data_entries"], info["memory_data_entries"]);
        assert_eq!(report["frame_index"], frame_index, "{report}");
        assert_eq!(report["warnings"], serde_json::json!([]));
    }
    // An explicit format the name contradicts is written, with a warning: RPCS3 would read
    // the file by its name.
    let out = dir.path().join("misnamed.rrc");
    let report = json(&[
        "convert",
        &sample(),
        out.to_str().unwrap(),
        "--to",
        "rrc",
        "--json",
    ]);
    assert_eq!(report["format"], "rrc", "{report}");
    let warning = report["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains("as uncompressed, but it holds gzip"),
        "{report}"
    );
    // A trace under a capture's name says so too.
    let out = dir.path().join("trace.rrc.gz");
    let report = json(&[
        "convert",
        &sample(),
        out.to_str().unwrap(),
        "--to",
        "trace",
        "--json",
    ]);
    let warning = report["warnings"][0].as_str().unwrap_or_default();
    assert!(warning.contains("holds an rsxtrace trace"), "{report}");
}

#[test]
fn convert_of_a_trace_onto_itself_keeps_it() {
    // A trace input is mapped: the output is written beside it and renamed over it, so
    // converting a trace onto its own path (the game sample's, large enough that the write
    // reads the mapping after the file was first written) neither crashes nor empties it.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("game.rsxt");
    let game = format!(
        "{}/../traces/samples/game.rrc.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    ok_stdout(&["convert", &game, trace.to_str().unwrap()]);
    let before = json(&["draws", trace.to_str().unwrap(), "--json"]);
    ok_stdout(&["convert", trace.to_str().unwrap(), trace.to_str().unwrap()]);
    assert_eq!(json(&["draws", trace.to_str().unwrap(), "--json"]), before);
}

#[test]
fn export_jsonl_names_methods() {
    let text = ok_stdout(&["export-jsonl", &sample()]);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 100);
    let ends: Vec<&Value> = lines
        .iter()
        .filter(|l| l["method"] == "NV4097_SET_BEGIN_END" && l["value"] == "0x00000000")
        .collect();
    assert_eq!(ends.len(), 3);
    assert!(lines
        .iter()
        .any(|l| l["method"] == "NV4097_SET_TRANSFORM_CONSTANT[0]"));
}

#[test]
fn disasm_of_a_draw() {
    let text = ok_stdout(&["disasm", &sample(), "--draw", "2"]);
    assert!(text.contains("DP4 o[HPOS].x, v[POS], c[32]; END"), "{text}");
    assert!(text.contains("TEX"), "{text}");
    let both = json(&["disasm", &sample(), "--draw", "0", "--json"]);
    assert_eq!(both[0]["stage"], "vertex");
    assert_eq!(both[1]["stage"], "fragment");
    assert_eq!(both[1]["instructions"][0]["opcode"], "MOV");
    let vp = json(&[
        "disasm",
        &sample(),
        "--draw",
        "0",
        "--stage",
        "vertex",
        "--json",
    ]);
    assert_eq!(vp["instructions"].as_array().unwrap().len(), 5);
    assert_eq!(vp["instructions"][4]["vector"], "DP4");
    assert_eq!(vp["instructions"][4]["scalar"], "NOP");
    let out = rsxtrace(&["disasm", &sample()]);
    assert_eq!(out.status.code(), Some(2), "a capture needs --draw");
}

#[test]
fn disasm_and_flow_of_corpus_programs() {
    let Some(corpus) = corpus() else { return };
    let cube = corpus.join("ps3autotests/sce_cube_common.vpo");
    let vp = json(&["disasm", cube.to_str().unwrap(), "--json"]);
    let dp4: Vec<&Value> = vp["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["vector"] == "DP4")
        .collect();
    assert_eq!(dp4.len(), 4);
    let text = ok_stdout(&["disasm", cube.to_str().unwrap()]);
    assert!(
        text.contains("modelViewProj") && text.contains("c[256]"),
        "{text}"
    );
    let fp = corpus.join("ps3autotests/rsx_fp_static_test2.fpo");
    let fpj = json(&["disasm", fp.to_str().unwrap(), "--json"]);
    assert_eq!(fpj["stage"], "fragment");
    assert!(fpj["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["opcode"] == "FENCT"));
    // The same container swapped to little-endian, as RPCS3 also accepts it: the same program.
    let swapped = tempfile::tempdir().unwrap();
    let le = swapped.path().join("test2_le.fpo");
    std::fs::write(
        &le,
        rsxtrace_testkit::cg_little_endian::cg_little_endian(&std::fs::read(&fp).unwrap()),
    )
    .unwrap();
    let lej = json(&["disasm", le.to_str().unwrap(), "--json"]);
    assert_eq!(lej["instructions"], fpj["instructions"]);
    assert!(fpj["container"]["parameters"].is_array());
    assert_eq!(lej["container"], fpj["container"]);
    let tex = corpus.join("ps3autotests/texture_formats.fpo");
    let flow = json(&["flow", tex.to_str().unwrap(), "--json"]);
    assert_eq!(flow["outputs"][0]["register"], "R0");
    assert_eq!(
        flow["outputs"][0]["components"][0]["textures"],
        serde_json::json!([0])
    );
    assert_eq!(
        flow["textures"][0]["coordinate"]["inputs"],
        serde_json::json!(["TEX0"])
    );
    // Raw microcode needs --stage; with it, the same program decodes.
    let bytes = std::fs::read(&fp).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.bin");
    // The container's ucode: find it through the JSON-free route, by the offset rsxtrace reports.
    let ucode_len = fpj["slot_count"].as_u64().unwrap() as usize * 16;
    std::fs::write(&raw, &bytes[bytes.len() - ucode_len..]).unwrap();
    let out = rsxtrace(&["disasm", raw.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "raw microcode needs --stage");
    let raw_json = json(&[
        "disasm",
        raw.to_str().unwrap(),
        "--stage",
        "fragment",
        "--json",
    ]);
    assert_eq!(raw_json["instructions"], fpj["instructions"]);
}

/// An executable's programs, found as `batch` finds them: every one disassembled with where
/// it lies, `--stage` choosing, JSON with `file_offset`; `--offset` reads one alone, and the
/// microcode recovered from a damaged container ends at its END inside the file.
#[test]
fn disasm_of_an_executable() {
    let Some(corpus) = corpus() else { return };
    let elf = corpus.join("ps3autotests/elf/primitives.ppu.elf");
    let elf = elf.to_str().unwrap();
    let text = ok_stdout(&["disasm", elf]);
    // primitives.fpo at 0x204d4 and primitives.vpo at 0x205a4 (MANIFEST.json).
    assert!(
        text.contains("at byte 0x204d4 (--offset 132308 reads it alone): fragment program")
            && text.contains("at byte 0x205a4 (--offset 132516 reads it alone): vertex program"),
        "{text}"
    );
    assert!(text.contains("MOVR R0, f[COL0]; END") && text.contains("DP4 o[HPOS].x"));
    let all = json(&["disasm", elf, "--json"]);
    let offsets: Vec<(&str, u64)> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["stage"].as_str().unwrap(),
                p["file_offset"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(offsets, [("fragment", 0x204d4), ("vertex", 0x205a4)]);
    let vertex = ok_stdout(&["disasm", elf, "--stage", "vertex"]);
    assert!(!vertex.contains("fragment program"), "{vertex}");
    let alone = json(&["disasm", elf, "--offset", "132516", "--json"]);
    assert_eq!(alone["stage"], "vertex");
    // ppu_vpu's fragment container is damaged; its microcode, recovered through its symbol,
    // is read alone as raw microcode at the offset the header line gives.
    let damaged = corpus.join("ps3autotests/elf/ppu_vpu.ppu.elf");
    let damaged = damaged.to_str().unwrap();
    let text = ok_stdout(&["disasm", damaged, "--stage", "fragment"]);
    let hint = "(--offset 132836 --stage fragment reads its microcode alone)";
    assert!(text.contains(hint), "{text}");
    let raw = ok_stdout(&[
        "disasm", damaged, "--offset", "132836", "--stage", "fragment",
    ]);
    assert!(raw.contains("MOVR R0, f[COL0]; END"), "{raw}");
    // A debug SELF with no program in it.
    let self_file = corpus.join("ps3autotests/elf/basic.ppu.self");
    let out = rsxtrace(&["disasm", self_file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no program found"));
}

/// A folder's programs, found as `batch` finds them: a vertex and a fragment container and a
/// file that is neither.
#[test]
fn disasm_of_a_folder() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    for name in ["sce_cube_common.vpo", "rsx_fp_static_test1.fpo"] {
        std::fs::copy(
            corpus.join("ps3autotests").join(name),
            dir.path().join(name),
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("notes.txt"), "not a program").unwrap();
    let folder = dir.path().to_str().unwrap();
    let text = ok_stdout(&["disasm", folder]);
    assert!(
        text.contains("sce_cube_common.vpo: vertex program, CgBinaryProgram")
            && text.contains("rsx_fp_static_test1.fpo: fragment program, CgBinaryProgram"),
        "{text}"
    );
    let all = json(&["disasm", folder, "--json"]);
    let stages: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["stage"].as_str().unwrap())
        .collect();
    assert_eq!(stages.len(), 2, "{all}");
    assert!(stages.contains(&"vertex") && stages.contains(&"fragment"));
    assert!(all[0]["file_offset"].is_null());
    let one = json(&["disasm", folder, "--stage", "fragment", "--json"]);
    assert_eq!(one.as_array().unwrap().len(), 1);
    assert_eq!(one[0]["stage"], "fragment");
    let empty = tempfile::tempdir().unwrap();
    let out = rsxtrace(&["disasm", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a folder with no program"));
}

#[test]
fn exec_transforms_the_sample_vertices_by_their_mvp() {
    let draws = json(&["draws", &sample(), "--json"]);
    for draw in 0..3 {
        let exec = json(&["exec", &sample(), "--draw", &draw.to_string(), "--json"]);
        let dump = json(&["dump", &sample(), "--draw", &draw.to_string(), "--json"]);
        let mvp = &draws[draw]["mvp"];
        let vertices = exec["vertices"].as_array().unwrap();
        assert_eq!(vertices.len(), dump["vertices"].as_array().unwrap().len());
        for (v, d) in vertices.iter().zip(dump["vertices"].as_array().unwrap()) {
            let pos: Vec<f64> = (0..4)
                .map(|j| d["attributes"]["0"][j].as_f64().unwrap())
                .collect();
            let hpos = v["outputs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["name"] == "HPOS")
                .expect("HPOS written");
            for k in 0..4 {
                let expected: f64 = (0..4).map(|j| mvp[k][j].as_f64().unwrap() * pos[j]).sum();
                let got = hpos["value"][k].as_f64().unwrap();
                assert!(
                    (got - expected).abs() < 1e-5,
                    "draw {draw} HPOS[{k}] {got} vs {expected}"
                );
            }
        }
    }
}

#[test]
fn shade_writes_a_png_of_the_requested_size() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t1.png");
    let program = corpus.join("ps3autotests/rsx_fp_static_test1.fpo");
    ok_stdout(&[
        "shade",
        program.to_str().unwrap(),
        "--size",
        "64x32",
        "--out",
        out.to_str().unwrap(),
    ]);
    let png = rsxtrace_testkit::image::read_rgba_png(&out);
    assert_eq!((png.width, png.height), (64, 32));
    let bad = rsxtrace(&[
        "shade",
        program.to_str().unwrap(),
        "--size",
        "64",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let bad_uniform = rsxtrace(&[
        "shade",
        program.to_str().unwrap(),
        "--size",
        "8x8",
        "--out",
        out.to_str().unwrap(),
        "--uniform",
        "noSuchUniform=1,2,3,4",
    ]);
    assert_eq!(bad_uniform.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_uniform.stderr).contains("noSuchUniform"));
}

/// `shade --json`: the rules it ran under, and the checksum of the PNG's pixels (the checksum
/// `replay` and `ci` give an image).
#[test]
fn shade_json_gives_the_rules_and_the_images_checksum() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let program = corpus.join("ps3autotests/rsx_fp_static_test2.fpo");
    let shade = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "shade",
            program.to_str().unwrap(),
            "--size",
            "40x24",
            "--out",
            out.to_str().unwrap(),
            "--json",
        ];
        args.extend_from_slice(extra);
        json(&args)
    };
    let out = dir.path().join("t2.png");
    let report = shade(&out, &[]);
    let png = rsxtrace_testkit::image::read_rgba_png(&out);
    let checksum = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&png.rgba));
    assert_eq!(report["checksum"], checksum.as_str(), "{report}");
    assert_eq!(
        (report["width"].as_u64(), report["height"].as_u64()),
        (Some(40), Some(24))
    );
    assert_eq!(report["engine"], "interpreter");
    assert_eq!(report["arithmetic"], "f32");
    assert_eq!(report["half_rounding"], "truncate");
    assert_eq!(report["trig"], "exact");
    assert_eq!(report["device"], Value::Null);
    assert_eq!(report["not_finite_pixels"], 0);
    assert!(report["instructions"].as_u64().unwrap() > 0, "{report}");
    let nearest = shade(
        &dir.path().join("t2-rpcs3.png"),
        &["--rpcs3", "--trig", "turns"],
    );
    assert_eq!(nearest["half_rounding"], "nearest");
    assert_eq!(nearest["trig"], "turns");
}

#[test]
fn translate_to_every_target() {
    let dir = tempfile::tempdir().unwrap();
    let wgsl = ok_stdout(&["translate", &sample(), "--draw", "2"]);
    assert!(
        wgsl.contains("fn vp_compute") && wgsl.contains("fn fp_eval"),
        "{wgsl}"
    );
    for to in ["hlsl", "msl", "glsl"] {
        let text = ok_stdout(&["translate", &sample(), "--draw", "0", "--to", to]);
        assert!(text.len() > 500, "{to}: {text}");
    }
    let spv = dir.path().join("fp.spv");
    ok_stdout(&[
        "translate",
        &sample(),
        "--draw",
        "2",
        "--stage",
        "fragment",
        "--to",
        "spirv",
        "--out",
        spv.to_str().unwrap(),
    ]);
    let bytes = std::fs::read(&spv).unwrap();
    assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes(), "SPIR-V magic");
    let out = rsxtrace(&["translate", &sample(), "--draw", "2", "--to", "spirv"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "SPIR-V of two programs needs --stage"
    );
}

/// `translate --json`: one object per program, the output in the field of its kind.
#[test]
fn translate_json_gives_one_object_per_program() {
    let text = ok_stdout(&["translate", &sample(), "--draw", "2"]);
    let wgsl = json(&["translate", &sample(), "--draw", "2", "--json"]);
    let programs = wgsl.as_array().unwrap();
    let stages: Vec<&str> = programs
        .iter()
        .map(|p| p["stage"].as_str().unwrap())
        .collect();
    assert_eq!(stages, ["vertex", "fragment"]);
    for p in programs {
        // The text output is each program's header line and the same source.
        let source = p["text"].as_str().unwrap();
        let header = format!(
            "// {} (module {})\n",
            p["origin"].as_str().unwrap(),
            p["module"].as_str().unwrap()
        );
        assert!(text.contains(&format!("{header}{source}")), "{p}");
        assert_eq!(p["target"], "wgsl");
        assert_eq!((&p["glsl"], &p["spirv"]), (&Value::Null, &Value::Null));
    }
    // SPIR-V of both programs at once (the text form needs --stage): the words, magic first.
    let spirv = json(&[
        "translate",
        &sample(),
        "--draw",
        "2",
        "--json",
        "--to",
        "spirv",
    ]);
    for p in spirv.as_array().unwrap() {
        assert_eq!(p["spirv"][0].as_u64(), Some(0x0723_0203), "{}", p["origin"]);
        assert_eq!(p["text"], Value::Null);
    }
    let glsl = json(&[
        "translate",
        &sample(),
        "--draw",
        "0",
        "--json",
        "--to",
        "glsl",
    ]);
    let shaders = glsl[0]["glsl"].as_array().unwrap();
    assert!(!shaders.is_empty());
    for shader in shaders {
        assert!(
            shader["source"]
                .as_str()
                .unwrap()
                .starts_with("#version 450 core"),
            "{shader}"
        );
        assert!(shader["entry_point"].is_string() && shader["stage"].is_string());
    }
    assert_eq!(
        rsxtrace(&[
            "translate",
            &sample(),
            "--draw",
            "2",
            "--json",
            "--out",
            "x.wgsl"
        ])
        .status
        .code(),
        Some(2),
        "--json prints to standard output"
    );
}

/// `shade --gpu` renders the recompiled program on a GPU device. No adapter locally: a loud
/// skip; in CI (CI=true, lavapipe installed by .ci/run): a failure.
#[test]
fn shade_on_the_gpu_matches_the_interpreter() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let program = corpus.join("ps3autotests/rsx_fp_static_test1.fpo");
    let cpu = dir.path().join("cpu.png");
    let gpu = dir.path().join("gpu.png");
    let p = program.to_str().unwrap();
    ok_stdout(&[
        "shade",
        p,
        "--size",
        "48x32",
        "--out",
        cpu.to_str().unwrap(),
    ]);
    let out = rsxtrace(&[
        "shade",
        p,
        "--size",
        "48x32",
        "--out",
        gpu.to_str().unwrap(),
        "--gpu",
    ]);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            rsxtrace_testkit::device::cli_adapter_missing(
                "shade_on_the_gpu_matches_the_interpreter",
                out.status.code(),
                &err
            ),
            "shade --gpu failed: {err}"
        );
        return;
    }
    let read = |path: &Path| rsxtrace_testkit::image::read_rgba_png(path).rgba;
    let (a, b) = (read(&cpu), read(&gpu));
    let max_diff = a.iter().zip(&b).map(|(x, y)| x.abs_diff(*y)).max().unwrap();
    assert!(
        max_diff <= 1,
        "GPU and interpreter images differ by up to {max_diff}/255"
    );
}

/// Options that cannot apply together are refused rather than one of them ignored: a raw
/// file's `--offset` with a capture's `--draw`, `debug --json` without `--trace` (it started
/// the GDB server), and two `--attr` for one glTF attribute (the second replaced the first).
#[test]
fn options_that_cannot_apply_together_are_refused() {
    let s = sample();
    let glb = std::env::temp_dir().join(format!("rsxtrace-attr-{}.glb", std::process::id()));
    let cases: [(&[&str], &str); 3] = [
        (
            &["disasm", &s, "--draw", "0", "--offset", "16"],
            "'--draw <DRAW>' cannot be used with '--offset <OFFSET>'",
        ),
        (
            &["debug", &s, "--draw", "0", "--pixel", "1,1", "--json"],
            "--trace",
        ),
        (
            &[
                "export",
                "gltf",
                &s,
                "--out",
                glb.to_str().unwrap(),
                "--attr",
                "position=15",
                "--attr",
                "POSITION=0",
            ],
            "--attr position=15 and --attr POSITION=0: one attribute per name",
        ),
    ];
    refused_with(&cases);
    assert!(!glb.exists());
}

/// Each of `cases` (arguments, text) exits 2 with the text on standard error.
fn refused_with(cases: &[(&[&str], &str)]) {
    for (args, says) in cases {
        let out = rsxtrace(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(text.contains(says), "{args:?}: {text}");
    }
}

/// Messages that say what is wrong: an empty file is called empty (not "no magic"), as is an
/// empty program file (not "0x0 is not a multiple of 16"), and a capture given to `debug`
/// without `--draw` asks for the draw (it was read as a program container).
#[test]
fn empty_files_and_a_capture_without_its_draw_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("frame.rrc.gz");
    std::fs::write(&empty, b"").unwrap();
    let empty = empty.to_str().unwrap();
    let s = sample();
    let cases: [(&[&str], &str); 5] = [
        (&["info", empty], "frame.rrc.gz is empty (0 bytes)"),
        (&["verify", empty], "frame.rrc.gz is empty (0 bytes)"),
        (
            &["disasm", empty, "--stage", "fragment"],
            "the file is empty (a program has at least one 16-byte instruction)",
        ),
        (
            &["debug", &s, "--pixel", "1,1"],
            "is a capture: name the draw with --draw N (`rsxtrace history",
        ),
        (
            &["debug", &s, "--vertex", "0", "--trace"],
            "is a capture: name the draw with --draw N",
        ),
    ];
    refused_with(&cases);
}
