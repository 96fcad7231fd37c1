//! `rsxtrace_replay::edit` end to end: a capture whose chosen draws run other programs,
//! written as RPCS3 writes RRC v6, read back and rendered by both renderers (the GPU one on
//! the default device), gives the image those programs draw, pixel for pixel, and the draws
//! not chosen draw what they drew before. Also the selectors, the program files (a stage
//! mismatch refused by name), the free memory a fragment program goes to, a request that
//! matches no draw, and the constants a game patches per draw kept where the file left them.

use crate::gpu_support;
use crate::render_support::{
    corners, draw_vertices, pixel_scene, set_a8r8g8b8_surface, vertex_program_colour_from,
    FP_MOV_COL0, SCENE_ZETA,
};
use rsxtrace_capture::frame::Frame;
use rsxtrace_capture::rrc::{read_bytes, write_v6, Capture, Location};
use rsxtrace_program::container::ProgramBytesError;
use rsxtrace_program::fragment::{assemble, decode, encode, InputAttribute};
use rsxtrace_replay::edit::{
    edit_programs, EditProgramsError, ProgramFile, ProgramFileError, Request, Selector, Stage,
    VertexLoad, LOCAL_MEMORY_BYTES,
};

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const YELLOW: [u8; 4] = [255, 255, 0, 255];
const GAME_FP: u32 = 0x3000;

/// An 8×8 scene: draw 0 covers the left half with red vertices whose texture coordinate is
/// blue, draw 1 the right half with green vertices whose texture coordinate is yellow; the
/// fragment program is `MOV R0, f[COL0]`, the vertex program passes colour and texture
/// coordinate through (`render_support::vertex_program`).
fn scene() -> Capture {
    let mut b = pixel_scene("edit", 8, 2);
    b.set_fragment_program(Location::Local, GAME_FP, &FP_MOV_COL0, 0x0200_0040)
        .unwrap();
    let quad = |rect, colour: [f32; 4], tex: [f32; 4]| {
        corners(rect).map(|(x, y)| [[x, y, 0.5, 1.0], colour, tex])
    };
    let blue = [0.0, 0.0, 1.0, 1.0];
    let yellow = [1.0, 1.0, 0.0, 1.0];
    draw_vertices(
        &mut b,
        0x1_0000,
        8,
        &quad([0.0, 0.0, 4.0, 8.0], [1.0, 0.0, 0.0, 1.0], blue),
    );
    draw_vertices(
        &mut b,
        0x2_0000,
        8,
        &quad([4.0, 0.0, 8.0, 8.0], [0.0, 1.0, 0.0, 1.0], yellow),
    );
    b.finish()
}

/// `MOV R0, f[TEX0]`: the texture coordinate as the colour.
fn fragment_tex0() -> Vec<u8> {
    let mut p = decode(&FP_MOV_COL0).unwrap();
    p.instructions[0].input = InputAttribute(4);
    encode(&p)
}

/// `MOV o[COL0], v[8]; MOV o[TEX0], v[8]; MOV o[HPOS], v[0]`: the texture coordinate as the
/// colour, as big-endian bytes (a raw `.vpo` body).
fn vertex_tex_as_colour() -> Vec<u8> {
    vertex_program_colour_from(8)
        .into_iter()
        .flat_map(u32::to_be_bytes)
        .collect()
}

fn request(selector: &str, stage: Stage, bytes: &[u8]) -> Request {
    Request {
        selector: Selector::parse(selector).unwrap(),
        program: ProgramFile::parse(bytes, stage).unwrap(),
    }
}

/// Edit, write as RRC v6 and read back, as `rsxtrace edit` and the next command do.
fn edited(capture: &Capture, requests: &[Request]) -> Capture {
    let frame = Frame::from_capture(capture).unwrap();
    let (edited, _) = edit_programs(capture, &frame, requests).expect("edit");
    read_bytes(&write_v6(&edited), "edited").expect("the edited file reads")
}

/// Both renderers' colours at the left and right halves' centres.
fn halves(name: &str, capture: &Capture) -> Vec<(&'static str, [u8; 4], [u8; 4])> {
    gpu_support::both_images(name, capture, rsxtrace_replay::render::cpu::render_frame)
        .into_iter()
        .map(|(who, image)| (who, image.pixel(1, 4).unwrap(), image.pixel(6, 4).unwrap()))
        .collect()
}

#[test]
fn the_scene_draws_red_and_green() {
    for (who, left, right) in halves("edit_original", &scene()) {
        assert_eq!((left, right), (RED, GREEN), "{who}");
    }
}

#[test]
fn a_replaced_fragment_program_draws_in_the_chosen_draw_only() {
    let capture = edited(&scene(), &[request("0", Stage::Fragment, &fragment_tex0())]);
    for (who, left, right) in halves("edit_fragment", &capture) {
        assert_eq!((left, right), (BLUE, GREEN), "{who}");
    }
}

#[test]
fn a_replaced_vertex_program_draws_in_the_chosen_draw_only() {
    let capture = edited(
        &scene(),
        &[request("1", Stage::Vertex, &vertex_tex_as_colour())],
    );
    for (who, left, right) in halves("edit_vertex", &capture) {
        assert_eq!((left, right), (RED, YELLOW), "{who}");
    }
}

#[test]
fn a_hash_chooses_every_draw_of_that_program() {
    let capture = scene();
    let frame = Frame::from_capture(&capture).unwrap();
    let hash = format!(
        "{:016x}",
        frame.draws[0].fragment_program.as_ref().unwrap().hash
    );
    let requests = [request(&hash[..8], Stage::Fragment, &fragment_tex0())];
    let (edited, summary) = edit_programs(&capture, &frame, &requests).unwrap();
    let p = &summary.placements[0];
    assert_eq!(p.draws, [0, 1]);
    assert_eq!(p.replaced, [hash]);
    assert_eq!(p.runs, 1, "nothing between the two draws sets the program");
    let at = p.address.unwrap();
    let offset = at.offset;
    assert_eq!(at.location, "local");
    assert!(u64::from(offset) + 16 <= LOCAL_MEMORY_BYTES && offset % 256 == 0);
    for (who, left, right) in halves("edit_hash", &edited) {
        assert_eq!((left, right), (BLUE, YELLOW), "{who}");
    }
}

#[test]
fn the_fragment_program_goes_where_the_frame_reads_and_writes_nothing() {
    // The colour target fills the last 256 bytes of local memory (8 rows of 32 bytes, the
    // highest place a program could take), so the program must go below it, clear of the
    // blocks too; and the render is what the program draws, the target not overwritten.
    let top = (LOCAL_MEMORY_BYTES - 256) as u32;
    let mut b = pixel_scene("edit_top", 8, 2);
    set_a8r8g8b8_surface(&mut b, 8, 0, (top, SCENE_ZETA), 32);
    b.set_fragment_program(Location::Local, GAME_FP, &FP_MOV_COL0, 0x0200_0040)
        .unwrap();
    let quad = corners([0.0, 0.0, 8.0, 8.0])
        .map(|(x, y)| [[x, y, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]]);
    draw_vertices(&mut b, 0x1_0000, 8, &quad);
    let capture = b.finish();
    let frame = Frame::from_capture(&capture).unwrap();
    let requests = [request("all", Stage::Fragment, &fragment_tex0())];
    let (edited_capture, summary) = edit_programs(&capture, &frame, &requests).unwrap();
    let at = u64::from(summary.placements[0].address.unwrap().offset);
    let end = at + 16;
    assert!(
        end <= u64::from(top),
        "placed at {at:#x}, in the colour target"
    );
    for b in &capture.blocks {
        let len = capture
            .data
            .iter()
            .find(|d| d.id == b.value.data_id)
            .unwrap()
            .value
            .len() as u64;
        let start = u64::from(b.value.offset);
        assert!(
            b.value.location != 0 || end <= start || at >= start + len,
            "overlaps block at {start:#x}"
        );
    }
    let edited_capture = read_bytes(&write_v6(&edited_capture), "edited").unwrap();
    for (who, image) in gpu_support::both_images(
        "edit_top",
        &edited_capture,
        rsxtrace_replay::render::cpu::render_frame,
    ) {
        assert_eq!(image.pixel(4, 4), Some(BLUE), "{who}");
    }
}

/// PSL1GHT containers of `cgcomp`'s layout since July 2020 load as that PSL1GHT's loader
/// loads them: the fragment program's `SHADER_CONTROL` with bit 10 and at least two
/// registers and its texture coordinates' `TEX_COORD_CONTROL`, the vertex program's output
/// mask with the point size.
#[test]
fn psl1ght_2020_containers_load_as_their_loader_does() {
    use rsxtrace_testkit::psl1ght::{fragment_2020, vertex_2020};
    let fp = ProgramFile::parse(&fragment_2020(), Stage::Fragment).unwrap();
    assert_eq!(fp.control, Some(0x0300_0440));
    // TEX0 is a coordinate it reads, two-dimensional: TEX_COORD_CONTROL(0) = 1.
    assert_eq!(fp.texcoord_controls, [(0, 1)]);
    assert_eq!(
        fp.format,
        "PSL1GHT fragment program (cgcomp since July 2020)"
    );
    let vp = ProgramFile::parse(&vertex_2020(), Stage::Vertex).unwrap();
    assert_eq!(
        vp.vertex_load.map(|l| (l.slot, l.masks)),
        Some((0, Some((0x1, 0x4020))))
    );
    // Its program (MOV R0, c[0], the constant blue) drawn in draw 1, under its control word.
    let capture = edited(&scene(), &[request("1", Stage::Fragment, &fragment_2020())]);
    let frame = Frame::from_capture(&capture).unwrap();
    assert_eq!(frame.draws[1].shader_control.raw, 0x0300_0440);
    let before = Frame::from_capture(&scene()).unwrap();
    assert_eq!(before.draws[1].raster.shading.texcoord_2d & 1, 0);
    assert_eq!(frame.draws[1].raster.shading.texcoord_2d & 1, 1);
    assert_eq!(frame.draws[0].raster.shading.texcoord_2d & 1, 0);
    for (who, left, right) in halves("edit_psl1ght_2020", &capture) {
        assert_eq!((left, right), (RED, BLUE), "{who}");
    }
}

/// A PSL1GHT vertex program whose literal lives in an internal constant (c[5], which
/// PSL1GHT's loader uploads with the program): the edit uploads it before the chosen draw
/// (and puts back the frame's value after, where known), so the draw sees it.
#[test]
fn a_psl1ght_vertex_programs_literals_are_uploaded_with_it() {
    use rsxtrace_program::container::{psl1ght_vertex_with_microcode, Container};
    use rsxtrace_testkit::psl1ght::{put32, vertex_2020};
    // The testkit container with its literal c[5] made yellow, and the program
    // `MOV o[COL0], c[5]; MOV o[HPOS], v[0]` written into it.
    let mut bytes = vertex_2020();
    for (i, v) in [1.0f32, 1.0, 0.0, 1.0].into_iter().enumerate() {
        put32(&mut bytes, 0x4C + 12 + 4 * i, v.to_bits());
    }
    let text = "000: MOV o[COL0], c[5];\n001: MOV o[HPOS], v[0]; END\n";
    let ucode =
        rsxtrace_program::vertex::encode_bytes(&rsxtrace_program::vertex::assemble(text).unwrap());
    let Ok(Container::Psl1ghtVertex(p)) = Container::parse(&bytes) else {
        panic!("the fixture parses")
    };
    let (bytes, _) = psl1ght_vertex_with_microcode(&bytes, &p, &ucode, 0).unwrap();
    let file = ProgramFile::parse(&bytes, Stage::Vertex).unwrap();
    let yellow = [1.0f32, 1.0, 0.0, 1.0].map(f32::to_bits);
    assert_eq!(file.vertex_constants, [(5, yellow)]);

    let capture = scene();
    let frame = Frame::from_capture(&capture).unwrap();
    let known = frame.draws[1].constants.raw(5);
    let requests = [Request {
        selector: Selector::parse("1").unwrap(),
        program: file,
    }];
    let (edited_capture, summary) = edit_programs(&capture, &frame, &requests).unwrap();
    let placed = &summary.placements[0];
    assert_eq!(placed.vertex_constants, [5]);
    let expected_not_restored: &[u32] = if known.is_some() { &[] } else { &[5] };
    assert_eq!(placed.constants_not_restored, expected_not_restored);
    let edited_capture = read_bytes(&write_v6(&edited_capture), "edited").unwrap();
    let after = Frame::from_capture(&edited_capture).unwrap();
    assert_eq!(after.draws[1].constants.raw(5), Some(yellow));
    for (who, left, right) in halves("edit_psl1ght_literal", &edited_capture) {
        assert_eq!((left, right), (RED, YELLOW), "{who}");
    }
    // A literal past the 468 registers: its upload is dropped, as the loader's would be; the
    // edit goes on, with nothing to read back or put back.
    let mut far = vertex_2020();
    put32(&mut far, 0x4C + 4, 500);
    let file = ProgramFile::parse(&far, Stage::Vertex).unwrap();
    let requests = [Request {
        selector: Selector::parse("1").unwrap(),
        program: file,
    }];
    let (_, summary) = edit_programs(&capture, &frame, &requests).expect("edits");
    assert_eq!(summary.placements[0].vertex_constants, [500]);
    assert!(summary.placements[0].constants_not_restored.is_empty());
}

#[test]
fn bad_requests_are_named() {
    let capture = scene();
    let frame = Frame::from_capture(&capture).unwrap();
    // The attributes a raw vertex program reads (v[8] and v[0]).
    let vp = ProgramFile::parse(&vertex_tex_as_colour(), Stage::Vertex).unwrap();
    assert_eq!((vp.vertex_inputs, vp.vertex_load), (0x101, None));
    // A vertex program given as a fragment one.
    assert!(matches!(
        ProgramFile::parse(&vertex_tex_as_colour(), Stage::Fragment),
        Err(ProgramFileError::Decode { .. })
    ));
    // A selector that matches nothing is listed; with nothing else the edit is refused.
    let none = request("ffffffff", Stage::Fragment, &fragment_tex0());
    assert!(matches!(
        edit_programs(&capture, &frame, std::slice::from_ref(&none)),
        Err(EditProgramsError::NothingChosen(_))
    ));
    let (_, summary) = edit_programs(
        &capture,
        &frame,
        &[none, request("1", Stage::Fragment, &fragment_tex0())],
    )
    .unwrap();
    assert_eq!(summary.unmatched, [0]);
    assert_eq!(summary.placements[0].request, 1);
    assert_eq!(summary.placements[0].draws, [1]);
    // Two requests that choose one draw.
    let both = [
        request("0..2", Stage::Fragment, &fragment_tex0()),
        request("1", Stage::Fragment, &fragment_tex0()),
    ];
    assert!(matches!(
        edit_programs(&capture, &frame, &both),
        Err(EditProgramsError::Overlap {
            draw: 1,
            first: 0,
            second: 1,
            ..
        })
    ));
    // A range past the frame.
    let past = request("5..9", Stage::Fragment, &fragment_tex0());
    assert!(matches!(
        edit_programs(&capture, &frame, &[past]),
        Err(EditProgramsError::Selector(_))
    ));
    // Selectors.
    assert_eq!(Selector::parse("all"), Ok(Selector::All));
    assert_eq!(
        Selector::parse("2FF1E60E"),
        Ok(Selector::Hash("2ff1e60e".into()))
    );
    assert!(matches!(Selector::parse("3..5"), Ok(Selector::Draws(_))));
    assert!(Selector::parse("abc").is_err());
}

#[test]
fn assembly_text_is_a_program_file() {
    // Draw 1 writes a constant blue: the program given as the text `disasm` writes.
    let text = "; blue\n0: MOVR R0, {0.0, 0.0, 1.0, 1.0};\n";
    let capture = edited(&scene(), &[request("1", Stage::Fragment, text.as_bytes())]);
    for (who, left, right) in halves("edit_assembly", &capture) {
        assert_eq!((left, right), (RED, BLUE), "{who}");
    }
    let file = ProgramFile::parse(text.as_bytes(), Stage::Fragment).unwrap();
    assert_eq!((file.format, file.instructions), ("assembly", 1));
    // Fragment text is no vertex program.
    assert!(matches!(
        ProgramFile::parse(text.as_bytes(), Stage::Vertex),
        Err(ProgramFileError::Bytes(ProgramBytesError::Assembly(_)))
    ));
    let bad = ProgramFile::parse(b"MOVR R0, f[COL0];\nMOVQ R0, R1;\n", Stage::Fragment);
    assert!(
        matches!(&bad, Err(ProgramFileError::Bytes(ProgramBytesError::Assembly(e))) if e.line == 2),
        "{bad:?}"
    );
}

#[test]
fn vertex_assembly_is_loaded_where_its_labels_say() {
    // Draw 1 takes its texture coordinate (yellow) as its colour, through a branch over the
    // line that would keep its own colour: the targets are absolute, so the program must be
    // loaded at its first label, slot 40 (at the draw's start slot, 0, the branch would
    // leave the program).
    let text = "\
; the texture coordinate as the colour
40: MOV o[TEX0], v[TEX0]
41: BRI 43
42: MOV o[COL0], v[COL0]
43: MOV o[COL0], v[TEX0]
44: MOV o[HPOS], v[POS]
";
    let file = ProgramFile::parse(text.as_bytes(), Stage::Vertex).unwrap();
    assert_eq!((file.format, file.instructions), ("assembly", 5));
    assert_eq!(
        file.vertex_load,
        Some(VertexLoad {
            slot: 40,
            start: 40,
            masks: None
        })
    );
    assert_eq!(file.vertex_inputs, 0x109);
    let capture = edited(&scene(), &[request("1", Stage::Vertex, text.as_bytes())]);
    for (who, left, right) in halves("edit_vertex_assembly", &capture) {
        assert_eq!((left, right), (RED, YELLOW), "{who}");
    }
    let frame = Frame::from_capture(&capture).unwrap();
    assert_eq!(frame.draws[1].vp_start, 40);
    assert_eq!(frame.draws[0].vp_start, 0);
    // A subroutine below the entry: loaded at 40, started at 42 (`START`), it calls 40.
    let text = "\
40: MOV o[COL0], v[TEX0]
41: RET
42: MOV o[TEX0], v[TEX0]; START
43: CAL 40
44: MOV o[HPOS], v[POS]
";
    let file = ProgramFile::parse(text.as_bytes(), Stage::Vertex).unwrap();
    assert_eq!(
        file.vertex_load,
        Some(VertexLoad {
            slot: 40,
            start: 42,
            masks: None
        })
    );
    let capture = edited(&scene(), &[request("1", Stage::Vertex, text.as_bytes())]);
    for (who, left, right) in halves("edit_vertex_start", &capture) {
        assert_eq!((left, right), (RED, YELLOW), "{who}");
    }
    assert_eq!(Frame::from_capture(&capture).unwrap().draws[1].vp_start, 42);
    // A line that does not assemble is named.
    let bad = ProgramFile::parse(
        b"MOV o[HPOS], v[POS]\nMAD R1, c[1], c[2], R0\n",
        Stage::Vertex,
    );
    assert!(
        matches!(&bad, Err(ProgramFileError::Bytes(ProgramBytesError::Assembly(e))) if e.line == 2),
        "{bad:?}"
    );
}

/// Two draws of one fragment program (`MOVR R0, {c}`) whose constant the game patches per
/// draw: red for draw 0, green for draw 1.
fn patched_scene() -> Capture {
    let mut b = pixel_scene("edit_patched", 8, 2);
    let program = |c: &str| encode(&assemble(&format!("MOVR R0, {{{c}}};")).unwrap());
    let quad = |rect| corners(rect).map(|(x, y)| [[x, y, 0.5, 1.0], [1.0; 4], [0.0; 4]]);
    b.set_fragment_program(
        Location::Local,
        GAME_FP,
        &program("1.0, 0.0, 0.0, 1.0"),
        0x40,
    )
    .unwrap();
    draw_vertices(&mut b, 0x1_0000, 8, &quad([0.0, 0.0, 4.0, 8.0]));
    b.set_fragment_program(
        Location::Local,
        GAME_FP,
        &program("0.0, 1.0, 0.0, 1.0"),
        0x40,
    )
    .unwrap();
    draw_vertices(&mut b, 0x2_0000, 8, &quad([4.0, 0.0, 8.0, 8.0]));
    b.finish()
}

#[test]
fn constants_the_file_left_unchanged_keep_each_draws_values() {
    let capture = patched_scene();
    let frame = Frame::from_capture(&capture).unwrap();
    assert_eq!(
        frame.draws[0].fragment_program.as_ref().unwrap().hash,
        frame.draws[1].fragment_program.as_ref().unwrap().hash,
        "one program, two constants"
    );
    for (who, left, right) in halves("edit_patched", &capture) {
        assert_eq!((left, right), (RED, GREEN), "{who}");
    }
    // Draw 0's disassembly with its swizzle changed, its constant as it was: each draw keeps
    // its own constant, swizzled (red becomes green, green red).
    let swapped = "0: MOVR R0, {1.0, 0.0, 0.0, 1.0}.yxzw;";
    let requests = [request("all", Stage::Fragment, swapped.as_bytes())];
    let (edited_capture, summary) = edit_programs(&capture, &frame, &requests).unwrap();
    let p = &summary.placements[0];
    assert_eq!((p.constants, p.constants_kept, p.variants), (1, 1, 2));
    assert_eq!(p.draws, [0, 1]);
    let edited_capture = read_bytes(&write_v6(&edited_capture), "edited").unwrap();
    for (who, left, right) in halves("edit_patched_kept", &edited_capture) {
        assert_eq!((left, right), (GREEN, RED), "{who}");
    }
    // A constant the file changed goes to every draw as written.
    let blue = "0: MOVR R0, {0.0, 0.0, 1.0, 1.0};";
    let capture_blue = edited(
        &capture,
        &[request("all", Stage::Fragment, blue.as_bytes())],
    );
    for (who, left, right) in halves("edit_patched_changed", &capture_blue) {
        assert_eq!((left, right), (BLUE, BLUE), "{who}");
    }
    // A program with another number of constants takes the file's values.
    let two = "MOVR R0, {0.0, 0.0, 1.0, 1.0};\nMULR R0, R0, {1.0, 1.0, 1.0, 1.0};";
    let (_, summary) = edit_programs(
        &capture,
        &frame,
        &[request("all", Stage::Fragment, two.as_bytes())],
    )
    .unwrap();
    let p = &summary.placements[0];
    assert_eq!((p.constants, p.constants_kept, p.variants), (2, 0, 1));
}

/// A CgBinaryProgram of `MOVR R0, {0, 0, 0, 0}` whose constant is the uniform `Tint`
/// (ucode offset 16: the slot after the instruction).
fn tint_container() -> Vec<u8> {
    use rsxtrace_program::container::{
        fragment_uniform, write_program, CgBase, CgFragmentInfo, CgProgram, CgStageInfo, CgType,
        FORMAT_REVISION, PROFILE_FRAGMENT,
    };
    write_program(&CgProgram {
        profile: PROFILE_FRAGMENT,
        revision: FORMAT_REVISION,
        total_size: 0,
        parameters: vec![fragment_uniform(
            "Tint",
            CgType::Vector(CgBase::Float, 4),
            0,
            vec![16],
        )],
        stage_info: CgStageInfo::Fragment(CgFragmentInfo {
            instruction_count: 1,
            attribute_input_mask: 0,
            partial_tex_type: 0,
            tex_coords_input_mask: 0,
            tex_coords_2d: 0,
            tex_coords_centroid: 0,
            register_count: 1,
            output_from_h0: false,
            depth_replace: false,
            pixel_kill: false,
        }),
        ucode_offset: 0,
        ucode: encode(&assemble("MOVR R0, {0.0, 0.0, 0.0, 0.0};").unwrap()),
    })
    .expect("write the container")
}

#[test]
fn a_containers_uniform_is_written_before_the_program_is_placed() {
    use rsxtrace_replay::shade::Uniform;
    let tint: Uniform = "Tint=0,0,1,1".parse().unwrap();
    let other: Uniform = "Other=1,1,1,1".parse().unwrap();
    let (file, written) =
        ProgramFile::parse_with_uniforms(&tint_container(), Stage::Fragment, &[other, tint])
            .unwrap();
    assert_eq!(written, [1], "only the uniform the container declares");
    let capture = scene();
    let frame = Frame::from_capture(&capture).unwrap();
    let requests = [Request {
        selector: Selector::parse("1").unwrap(),
        program: file,
    }];
    let (edited_capture, _) = edit_programs(&capture, &frame, &requests).unwrap();
    let edited_capture = read_bytes(&write_v6(&edited_capture), "edited").unwrap();
    for (who, left, right) in halves("edit_uniform", &edited_capture) {
        assert_eq!((left, right), (RED, BLUE), "{who}");
    }
}

#[test]
fn a_program_taken_from_a_draw_runs_as_that_draw_ran_it() {
    // Draw 1's fragment program (its green constant included) for every draw: both green,
    // none keeping its own constant.
    let capture = patched_scene();
    let frame = Frame::from_capture(&capture).unwrap();
    let green = ProgramFile::from_draw(&frame, 1, Stage::Fragment).unwrap();
    assert_eq!(green.control, Some(0x40));
    let requests = [Request {
        selector: Selector::parse("all").unwrap(),
        program: green,
    }];
    let (edited_capture, summary) = edit_programs(&capture, &frame, &requests).unwrap();
    assert_eq!(summary.placements[0].variants, 1);
    let edited_capture = read_bytes(&write_v6(&edited_capture), "edited").unwrap();
    for (who, left, right) in halves("edit_from_draw", &edited_capture) {
        assert_eq!((left, right), (GREEN, GREEN), "{who}");
    }
    // A vertex program taken from a draw: draw 1 of a capture whose draw 1 runs the
    // texture-coordinate-as-colour program, given to draw 0 (its texture coordinate is blue).
    let tex = edited(
        &scene(),
        &[request("1", Stage::Vertex, &vertex_tex_as_colour())],
    );
    let tex_frame = Frame::from_capture(&tex).unwrap();
    let vp = ProgramFile::from_draw(&tex_frame, 1, Stage::Vertex).unwrap();
    assert_eq!(vp.instructions, 3);
    assert_eq!(vp.vertex_load.map(|load| load.slot), Some(0));
    let both = edited(
        &scene(),
        &[Request {
            selector: Selector::parse("0").unwrap(),
            program: vp,
        }],
    );
    for (who, left, right) in halves("edit_vertex_from_draw", &both) {
        assert_eq!((left, right), (BLUE, GREEN), "{who}");
    }
    assert!(matches!(
        ProgramFile::from_draw(&frame, 9, Stage::Fragment),
        Err(ProgramFileError::NoSuchDraw { draw: 9, draws: 2 })
    ));
}

/// A fragment program longer than the frame model reads a capture's program to (4,096 slots)
/// is refused when its file is read, naming the bound; one of 4,096 slots is taken. (It was
/// written, then found missing from every edited draw: "program is None".)
#[test]
fn a_fragment_program_longer_than_a_capture_is_read_to_is_refused_up_front() {
    let text = |slots: usize| {
        let mut t = "MOVR R0, f[COL0];\n".repeat(slots - 1);
        t.push_str("MOVR R0, f[COL0]; END\n");
        t
    };
    let ok = ProgramFile::parse(text(4096).as_bytes(), Stage::Fragment).unwrap();
    assert_eq!(ok.instructions, 4096);
    let err = ProgramFile::parse(text(4097).as_bytes(), Stage::Fragment).unwrap_err();
    assert!(
        matches!(
            err,
            ProgramFileError::TooLong {
                slots: 4097,
                max: 4096
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("read to 4096 slots at most"),
        "{err}"
    );
}
