//! Every corpus program (vertex: ps3autotests `.vpo` and the Tiny3D `.rvp`; fragment: every
//! `.fpo`, through `rsxtrace_wgsl::fragment::translate`) and the generated every-opcode vertex
//! program go to every naga back end without error, and the SPIR-V passes `spirv-val`
//! (Debian spirv-tools).

use crate::vertex_support;

use rsxtrace_wgsl::backends::{write, Output, Target};
use rsxtrace_wgsl::vertex::{translate, VertexTranslateOptions};
use rsxtrace_wgsl::WgslModule;
use std::process::Command;
use vertex_support::corpus_vertex_programs;

/// `spirv-val` on the words; `false` (loudly, failing under CI=true) when the tool is absent.
fn spirv_val(name: &str, bytes: &[u8]) -> bool {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("module.spv");
    std::fs::write(&path, bytes).expect("write module.spv");
    match Command::new("spirv-val").arg(&path).output() {
        Ok(out) => {
            assert!(
                out.status.success(),
                "{name}: spirv-val rejects the SPIR-V:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            true
        }
        Err(e) => {
            eprintln!("SPIRV-VAL MISSING: {e}; SPIR-V of {name} not validated");
            assert!(
                !rsxtrace_testkit::in_ci(),
                "SPIRV-VAL MISSING while CI=true"
            );
            false
        }
    }
}

fn every_target(name: &str, m: &WgslModule) {
    for t in Target::ALL {
        let out = write(m, t).unwrap_or_else(|e| panic!("{name} -> {}: {e}", t.name()));
        match (t, &out) {
            (Target::SpirV, Output::SpirV(words)) => {
                assert_eq!(words.first(), Some(&0x0723_0203), "{name}: SPIR-V magic");
                let bytes = out.spirv_bytes().expect("SPIR-V bytes");
                assert_eq!(bytes.len(), words.len() * 4);
                spirv_val(name, &bytes);
            }
            (Target::Glsl, Output::Glsl(shaders)) => {
                let eps: Vec<&str> = m
                    .module
                    .entry_points
                    .iter()
                    .map(|e| e.name.as_str())
                    .collect();
                let got: Vec<&str> = shaders.iter().map(|s| s.entry_point.as_str()).collect();
                assert_eq!(got, eps, "{name}: one GLSL shader per entry point");
                for s in shaders {
                    assert!(s.source.starts_with("#version 450 core"), "{name}");
                }
                let text = out.text().expect("GLSL text");
                assert_eq!(text.matches("// ---- entry point").count(), shaders.len());
            }
            (Target::Wgsl | Target::Hlsl | Target::Msl, Output::Text(s)) => {
                assert!(!s.is_empty(), "{name} -> {}", t.name());
                if t == Target::Wgsl {
                    // naga's rewrite parses and validates again.
                    rsxtrace_wgsl::validate(s)
                        .unwrap_or_else(|e| panic!("{name}: WGSL rewrite invalid: {e}"));
                }
            }
            (t, other) => panic!("{name}: {t:?} gave {other:?}"),
        }
    }
}

#[test]
fn corpus_vertex_programs_go_to_every_target() {
    for (name, p) in corpus_vertex_programs() {
        let m = translate(&p, &[], &VertexTranslateOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        every_target(&name, &m);
    }
}

#[test]
fn corpus_fragment_programs_go_to_every_target() {
    use rsxtrace_program::container::Container;
    use rsxtrace_wgsl::fragment::{self, FragmentTranslateOptions};
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let names = corpus.files_ending("ps3autotests", ".fpo");
    assert!(
        names.len() >= 6,
        "the corpus holds the ps3autotests .fpo files"
    );
    let mut translated = 0;
    for n in &names {
        let bytes = corpus.read(n);
        let c = Container::parse(&bytes).unwrap_or_else(|e| panic!("{n}: {e}"));
        let p =
            rsxtrace_program::fragment::decode(c.ucode()).unwrap_or_else(|e| panic!("{n}: {e}"));
        let mut o = FragmentTranslateOptions::default();
        if let Some(control) = c.control_word() {
            o.control = control;
        }
        match fragment::translate(&p, &o) {
            Ok(m) => {
                every_target(n, &m);
                translated += 1;
            }
            // A refusal names what the fragment translator does not handle; not a back-end
            // failure.
            Err(rsxtrace_wgsl::TranslateError::Unsupported { slot, what }) => {
                eprintln!("{n}: fragment translator refuses slot {slot}: {what}");
            }
            Err(e) => panic!("{n}: {e}"),
        }
    }
    assert!(translated > 0, "no fragment program reached the back ends");
}

#[test]
fn generated_every_opcode_program_goes_to_every_target() {
    let p = vertex_support::every_opcode();
    for o in [
        VertexTranslateOptions::default(),
        VertexTranslateOptions::rpcs3(),
    ] {
        let m = translate(&p, &[], &o).unwrap_or_else(|e| panic!("{e}"));
        every_target("every-opcode", &m);
    }
}
