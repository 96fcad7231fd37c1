//! A CgBinaryProgram around other microcode (`container::with_microcode`), on Sony's
//! compiled programs from the corpus: the register-count rule against every fragment
//! program's stored count, uniforms that follow their inline constants when a line is
//! inserted, masks that cover what the new program reads and writes, refusals, and the
//! container written over the original file's bytes (`write_over`).

use rsxtrace_program::container::{
    fragment_registers, get_uniform, with_microcode, write_over, write_program, CgProgram,
    CgStageInfo, Container, RewriteError,
};
use rsxtrace_program::{fragment, vertex};

fn cg(name: &str) -> Option<CgProgram> {
    let corpus = rsxtrace_testkit::workspace!().corpus()?;
    match Container::parse(&corpus.read(name)) {
        Ok(Container::Cg(cg)) => Some(cg),
        other => panic!("{name}: {other:?}"),
    }
}

/// `sce-cgc` wrote max(R + 1, H / 2 + 1, 2) as the register count of every corpus fragment
/// program.
#[test]
fn register_count_rule_matches_the_compiler() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let files = corpus.files_ending("ps3autotests", ".fpo");
    assert!(files.len() >= 9, "{files:?}");
    for name in files {
        let Some(cg) = cg(&name) else { return };
        let CgStageInfo::Fragment(f) = cg.stage_info else {
            panic!("{name}")
        };
        let p = fragment::decode(&cg.ucode).unwrap();
        assert_eq!(
            fragment_registers(&p),
            u32::from(f.register_count),
            "{name}"
        );
    }
}

/// An unchanged program keeps every field; one with a line inserted at the top moves its
/// uniforms' offsets one slot on, and a value written through the new table lands in the
/// constants the program reads.
#[test]
fn uniforms_follow_their_inline_constants() {
    let Some(original) = cg("ps3autotests/rsx_fp_dynamic_test1.fpo") else {
        return;
    };
    let (same, notes) = with_microcode(&original, &original.ucode, 0).unwrap();
    assert_eq!(notes, Default::default());
    assert_eq!(same, original);
    let text = fragment::disassemble(&fragment::decode(&original.ucode).unwrap());
    let edited = format!("MOVR R2, f[TEX0];\n{text}");
    let ucode = fragment::encode(&fragment::assemble(&edited).unwrap());
    let (moved, notes) = with_microcode(&original, &ucode, 0).unwrap();
    let time = original.parameter("iGlobalTime").unwrap();
    let moved_time = moved.parameter("iGlobalTime").unwrap();
    assert!(!time.embedded_constants.is_empty());
    let shifted: Vec<u32> = time.embedded_constants.iter().map(|o| o + 16).collect();
    assert_eq!(moved_time.embedded_constants, shifted);
    assert!(notes.moved_uniforms.iter().any(|(n, _)| n == "iGlobalTime"));
    // The counts and masks cover the new line (R2, TEX0).
    let (CgStageInfo::Fragment(before), CgStageInfo::Fragment(after)) =
        (original.stage_info, moved.stage_info)
    else {
        panic!()
    };
    assert_eq!(after.instruction_count, before.instruction_count + 1);
    assert_eq!(after.register_count, 3);
    assert_eq!(
        after.attribute_input_mask,
        before.attribute_input_mask | 0x4000
    );
    assert_eq!(
        after.tex_coords_input_mask,
        before.tex_coords_input_mask | 1
    );
    // Written and read back, the table still names the constants: the value written there
    // is what the instructions that read the uniform see.
    let reread = match Container::parse(&write_program(&moved).unwrap()).unwrap() {
        Container::Cg(cg) => cg,
        other => panic!("{other:?}"),
    };
    let mut ucode = reread.ucode.clone();
    let offsets = reread
        .parameter("iGlobalTime")
        .unwrap()
        .embedded_constants
        .clone();
    rsxtrace_program::container::set_uniform(&mut ucode, &offsets, [7.5, 0.0, 0.0, 0.0]).unwrap();
    let p = fragment::decode(&ucode).unwrap();
    for offset in offsets {
        let slot = offset / 16 - 1;
        let i = p.instructions.iter().find(|i| i.slot == slot).unwrap();
        assert!(i.constant.is_some(), "slot {slot}");
        assert_eq!(get_uniform(&ucode, offset).unwrap()[0], 7.5);
    }
}

#[test]
fn a_program_with_other_constants_is_refused_when_uniforms_live_in_them() {
    let Some(original) = cg("ps3autotests/rsx_fp_dynamic_test1.fpo") else {
        return;
    };
    let ucode = fragment::encode(&fragment::assemble("MOVR R0, {1.0, 0.0, 0.0, 1.0};").unwrap());
    assert!(matches!(
        with_microcode(&original, &ucode, 0),
        Err(RewriteError::ConstantsMoved { new: 1, .. })
    ));
    // Vertex microcode for a fragment container does not decode.
    assert!(matches!(
        with_microcode(&original, &[0u8; 16], 0),
        Err(RewriteError::Decode { .. })
    ));
}

/// Sony's cube vertex program: reassembled it is the same program with the same header; a
/// line that writes o[TEX1] from v[TEX3] at load slot 12 adds both to the masks.
#[test]
fn vertex_masks_cover_the_new_program() {
    let Some(original) = cg("ps3autotests/sce_cube_common.vpo") else {
        return;
    };
    let text = vertex::disassemble(&vertex::decode_bytes(&original.ucode).unwrap());
    let ucode = vertex::encode_bytes(&vertex::assemble(&text).unwrap());
    assert_eq!(ucode, original.ucode, "Sony's words come back");
    let (same, notes) = with_microcode(&original, &ucode, 0).unwrap();
    assert_eq!((same, notes), (original.clone(), Default::default()));
    // The first label is the load slot; the original lines follow at 13..18.
    let edited = format!("12: MOV o[TEX1], v[TEX3]\n{text}");
    let program = vertex::assemble(&edited).unwrap();
    assert_eq!(program.start_slot, 12);
    let (moved, _) = with_microcode(&original, &vertex::encode_bytes(&program), 12).unwrap();
    let (CgStageInfo::Vertex(before), CgStageInfo::Vertex(after)) =
        (original.stage_info, moved.stage_info)
    else {
        panic!()
    };
    assert_eq!(after.instruction_slot, 12);
    assert_eq!(after.instruction_count, before.instruction_count + 1);
    // v[TEX3] is input 11; o[TEX1] is CELL_GCM_ATTRIB_OUTPUT_MASK_TEX1, bit 15.
    assert_eq!(
        after.attribute_input_mask,
        before.attribute_input_mask | 1 << 11
    );
    assert_eq!(
        after.attribute_output_mask,
        before.attribute_output_mask | 1 << 15
    );
}

/// Every corpus container written over its own bytes with its own program is its very file;
/// with a line inserted, the file grows by that slot and nothing before the microcode moves
/// but the fields that say so (sizes, the descriptor, the uniform's offsets), while a
/// container laid out anew (`write_program`) reorders the strings `sce-cgc` packed.
#[test]
fn written_over_the_original_a_container_keeps_its_bytes() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let mut files = corpus.files_ending("ps3autotests", ".fpo");
    files.extend(corpus.files_ending("ps3autotests", ".vpo"));
    assert!(files.len() >= 11, "{files:?}");
    let mut laid_out_anew_differs = 0;
    for name in &files {
        let bytes = corpus.read(name);
        let Some(cg) = cg(name) else { return };
        let slot = match &cg.stage_info {
            CgStageInfo::Vertex(v) => v.instruction_slot,
            CgStageInfo::Fragment(_) => 0,
        };
        let (same, _) = with_microcode(&cg, &cg.ucode, slot).unwrap();
        assert_eq!(
            write_over(&bytes, &same).as_deref(),
            Some(&bytes[..]),
            "{name}"
        );
        laid_out_anew_differs += usize::from(write_program(&same).unwrap() != bytes);
    }
    assert!(laid_out_anew_differs > 0);

    let name = "ps3autotests/rsx_fp_dynamic_test1.fpo";
    let bytes = corpus.read(name);
    let original = cg(name).unwrap();
    let text = fragment::disassemble(&fragment::decode(&original.ucode).unwrap());
    let ucode =
        fragment::encode(&fragment::assemble(&format!("MOVR R2, f[TEX0];\n{text}")).unwrap());
    let (moved, _) = with_microcode(&original, &ucode, 0).unwrap();
    let over = write_over(&bytes, &moved).unwrap();
    assert_eq!(over.len(), bytes.len() + 16);
    let Container::Cg(back) = Container::parse(&over).unwrap() else {
        panic!()
    };
    assert_eq!(back.parameters, moved.parameters);
    assert_eq!(back.stage_info, moved.stage_info);
    assert_eq!(back.ucode, ucode);
    let before_ucode = original.ucode_offset as usize;
    let changed = (0..before_ucode).filter(|&i| over[i] != bytes[i]).count();
    // totalSize, ucodeSize, instructionCount, registerCount, the masks, the offsets.
    assert!(
        changed <= 16,
        "{changed} bytes changed before the microcode"
    );

    // Another parameter table cannot be written in place.
    let mut renamed = moved.clone();
    renamed.parameters[0].name = Some("renamed".into());
    assert_eq!(write_over(&bytes, &renamed), None);
}
