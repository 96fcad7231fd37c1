//! Every corpus vertex program (ps3autotests `.vpo`, Tiny3D `.rvp`, read from the shared corpus,
//! never copied) translates to a module that naga validates, with the ABI's resources and entry
//! points; the Tiny3D program's real branches go through the dispatch loop.

use crate::vertex_support;

use rsxtrace_program::vertex::ScalarOpcode;
use rsxtrace_wgsl::vertex::{translate, VertexTranslateOptions};
use vertex_support::corpus_vertex_programs;

#[test]
fn corpus_programs_translate_and_validate() {
    let programs = corpus_vertex_programs();
    if programs.is_empty() {
        return;
    }
    assert_eq!(programs.len(), 3, "cube, primitives, Tiny3D");
    for (name, p) in &programs {
        for o in [
            VertexTranslateOptions::default(),
            VertexTranslateOptions::rpcs3(),
        ] {
            let m = translate(p, &[], &o).unwrap_or_else(|e| panic!("{name}: {e}"));
            let names: Vec<&str> = m
                .module
                .entry_points
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            assert_eq!(names, ["vp_compute", "vp_main"], "{name}");
            // ABI.md bindings: group 0, bindings 0..3.
            let mut bindings: Vec<(String, u32, u32)> = m
                .module
                .global_variables
                .iter()
                .filter_map(|(_, g)| {
                    let b = g.binding.as_ref()?;
                    Some((g.name.clone()?, b.group, b.binding))
                })
                .collect();
            bindings.sort_by_key(|b| b.2);
            assert_eq!(
                bindings,
                [
                    ("vp_constants".to_string(), 0, 0),
                    ("vp_params".to_string(), 0, 1),
                    ("vp_inputs".to_string(), 0, 2),
                    ("vp_outputs".to_string(), 0, 3),
                ],
                "{name}"
            );
            assert!(m
                .module
                .functions
                .iter()
                .any(|(_, f)| f.name.as_deref() == Some("rsx_vertex")));
            // One commented line per instruction (all are reachable in these programs).
            for i in &p.instructions {
                assert!(m.source.contains(&format!("// {i}\n")), "{name}: {i}");
            }
            // The instrumented form (verify --explain): vp_compute only, the record buffer
            // at binding 4, one record per instruction.
            let t = rsxtrace_wgsl::vertex::translate_instrumented(p, &[], &o, &Default::default())
                .unwrap_or_else(|e| panic!("{name} instrumented: {e}"));
            let entries: Vec<&str> = t
                .module
                .entry_points
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            assert_eq!(entries, ["vp_compute"], "{name}");
            assert!(t.module.global_variables.iter().any(|(_, g)| g
                .binding
                .as_ref()
                .is_some_and(|b| b.group == 0 && b.binding == 4)));
            assert_eq!(
                t.source.matches("rsx_rec_begin(").count(),
                p.instructions.len() + 1,
                "{name}: one record per instruction, plus the function"
            );
            assert_ne!(t.hash, m.hash);
        }
    }
}

#[test]
fn tiny3d_branches_become_dispatch_cases() {
    let programs = corpus_vertex_programs();
    let Some((_, p)) = programs.iter().find(|(n, _)| n.ends_with(".rvp")) else {
        return;
    };
    assert_eq!(p.instructions.len(), 188);
    let m = translate(p, &[], &VertexTranslateOptions::default()).expect("Tiny3D translates");
    let branches: Vec<_> = p
        .instructions
        .iter()
        .filter(|i| i.scalar == ScalarOpcode::Bri)
        .collect();
    assert!(!branches.is_empty());
    assert!(m.source.contains("loop {\n        switch pc {"));
    assert!(m.source.contains("case 0u:"));
    for b in branches {
        let t = b.branch_target().expect("BRI has a target");
        // The target and the fall-through each start a block, and the branch selects them.
        assert!(m.source.contains(&format!("case {t}u:")), "target {t}");
        assert!(m.source.contains(&format!("case {}u:", b.slot + 1)));
        assert!(
            m.source.contains(&format!(
                "{{ pc = {t}u; }} else {{ pc = {}u; }}",
                b.slot + 1
            )),
            "slot {}",
            b.slot
        );
    }
    // Slot 27: BRI 61 (NE.xxxx) (the program decoder's own test names it).
    assert!(m
        .source
        .contains(
            "if (any(((cc0.xxxx != vec4<f32>(0.0)) | rsx_isnan(cc0.xxxx)))) { pc = 61u; } else { pc = 28u; }"
        ));
}
