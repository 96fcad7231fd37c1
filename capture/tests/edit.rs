//! `rsxtrace_capture::edit` on command lists laid out by hand: the chosen draws run the new
//! programs and the others what they ran before (register values, fragment address and
//! control, vertex program memory and masks restored after each run), runs are set up once
//! while nothing between their draws writes the registers a replacement sets, a batch holding
//! a chosen BEGIN is split, the parts of one BEGIN/END are replaced together, and bad requests
//! are refused by name.

use rsxtrace_capture::edit::{
    replace_programs, EditError, FragmentSwap, NewProgram, Replacement, VertexSwap,
};
use rsxtrace_capture::frame::{reg, Frame};
use rsxtrace_capture::rrc::{Capture, Entry, Location, MemoryBlock};

use crate::stream_support;
use stream_support::B;

const BEGIN_END: u32 = 0x1808;
const DRAW_ARRAYS: u32 = 0x1814;
const BASE_OFFSET: u32 = 0x1738;
const BELOW_BEGIN_END: u32 = 0x1804;
const SHADER_PROGRAM: u32 = 0x08E4;
const SHADER_CONTROL: u32 = 0x1D60;
const PROGRAM_LOAD: u32 = 0x1E9C;
const PROGRAM_START: u32 = 0x1EA0;
const TRANSFORM_PROGRAM: u32 = 0x0B80;
const INPUT_MASK: u32 = 0x1FF0;
const TRIANGLES: u32 = 5;
const GAME_FP: u32 = 0x2000;

fn range(first: u32, count: u32) -> u32 {
    ((count - 1) << 24) | first
}

/// A one-slot fragment program with END whose opcode is `op` (the frame reads w0 as a
/// little-endian word: opcode in bits 16..21, END in bit 8; rrc-format.md 4.9).
fn fragment_program(op: u32) -> Vec<u8> {
    let mut bytes = ((op << 16) | (1 << 8)).to_le_bytes().to_vec();
    bytes.resize(16, 0);
    bytes
}

/// Vertex program words of `slots` slots, END on the last (word 3, bit 0), marked by `tag`.
fn vertex_program(slots: usize, tag: u32) -> Vec<u32> {
    let mut words: Vec<u32> = (0..slots as u32 * 4)
        .map(|i| (tag << 16) | (i << 4))
        .collect();
    words[slots * 4 - 1] |= 1;
    words
}

/// The game's fragment program block attached to the last command.
fn attach_game_fp(b: &mut B) {
    if !b.c.data.iter().any(|d| d.id == 500) {
        b.c.data.push(Entry {
            id: 500,
            value: fragment_program(1).into(),
        });
        b.c.blocks.push(Entry {
            id: 50,
            value: MemoryBlock {
                offset: GAME_FP,
                location: 0,
                data_id: 500,
            },
        });
    }
    b.c.commands.last_mut().unwrap().memory.push(50);
}

fn draw(b: &mut B, first: u32) {
    b.put(BEGIN_END, &[TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(first, 3)]);
    b.put(BEGIN_END, &[0]);
    attach_game_fp(b);
}

/// The game's vertex program (2 slots at slot 4, reading attribute 0) loaded and started,
/// and its fragment program set.
fn game_programs() -> B {
    let mut b = B::new();
    b.put(PROGRAM_LOAD, &[4]);
    b.put(TRANSFORM_PROGRAM, &vertex_program(2, 0xA));
    b.put(PROGRAM_START, &[4]);
    b.put(INPUT_MASK, &[0x1]);
    b.put(SHADER_PROGRAM, &[GAME_FP | 1]);
    b
}

/// Four draws with the game's vertex program (2 slots at slot 4) and fragment program; the
/// game writes `SET_SHADER_PROGRAM` again between draws 1 and 2.
fn four_draws() -> B {
    let mut b = game_programs();
    b.put(SHADER_CONTROL, &[0x0200_0040]);
    draw(&mut b, 0);
    draw(&mut b, 3);
    b.put(SHADER_PROGRAM, &[GAME_FP | 1]);
    draw(&mut b, 6);
    draw(&mut b, 9);
    b
}

fn fragment_swap() -> NewProgram {
    NewProgram::Fragment(FragmentSwap {
        ucode: fragment_program(2),
        location: Location::Local,
        offset: 0x0800_0000,
        control: Some(0x0400_0040),
        texcoord_controls: Vec::new(),
    })
}

fn vertex_swap(slots: usize, slot: u32) -> NewProgram {
    NewProgram::Vertex(VertexSwap {
        words: vertex_program(slots, 0xB),
        slot,
        start: slot,
        input_mask: Some(0x7),
        input_reads: 0,
        output_mask: None,
        constants: Vec::new(),
    })
}

#[test]
fn chosen_draws_run_the_new_programs_and_the_others_what_they_ran() {
    let b = four_draws();
    let before = b.frame();
    assert_eq!(before.draws.len(), 4, "{:?}", before.problems);
    let game_fp = before.draws[0].fragment_program.as_ref().unwrap().hash;
    let game_vp = before.draws[0].vp_hash;
    let (edited, report) = replace_programs(
        &b.c,
        &before,
        &[
            Replacement {
                program: fragment_swap(),
                draws: vec![0, 1, 2],
            },
            Replacement {
                program: vertex_swap(3, 3),
                draws: vec![1],
            },
        ],
    )
    .expect("edit");
    let after = Frame::from_capture(&edited).expect("edited frame decodes");
    assert!(after.problems.is_empty(), "{:?}", after.problems);
    assert_eq!(after.draws.len(), 4);
    // Fragment: draws 0..3 at the new address with the new control; draw 3 as before.
    for d in &after.draws[..3] {
        let fp = d.fragment_program.as_ref().expect("program read");
        assert_ne!(fp.hash, game_fp);
        assert_eq!(fp.address.offset, 0x0800_0000);
        assert_eq!(fp.ucode, fragment_program(2));
        assert_eq!(d.shader_control.raw, 0x0400_0040);
    }
    let d3 = &after.draws[3];
    assert_eq!(d3.fragment_program.as_ref().unwrap().hash, game_fp);
    assert_eq!(d3.fp_address.unwrap().offset, GAME_FP);
    assert_eq!(d3.shader_control.raw, 0x0200_0040);
    // Vertex: draw 1 runs the new program from slot 3, with its input mask; draws 0, 2, 3
    // run the game's, and program memory is as it was.
    assert_eq!(after.draws[1].vp_start, 3);
    assert_eq!(
        &after.draws[1].vertex_program[12..24],
        vertex_program(3, 0xB).as_slice()
    );
    assert_ne!(after.draws[1].vp_hash, game_vp);
    assert_eq!(after.draws[1].vertex_inputs.input_mask, 0x7);
    for i in [0, 2, 3] {
        assert_eq!(after.draws[i].vp_hash, game_vp, "draw {i}");
        assert_eq!(after.draws[i].vp_start, 4);
        assert_eq!(
            after.draws[i].vertex_program,
            before.draws[i].vertex_program
        );
        assert_eq!(after.draws[i].vertex_inputs.input_mask, 0x1);
    }
    // Everything else about every draw is as before.
    for (a, z) in before.draws.iter().zip(&after.draws) {
        assert_eq!(a.ranges, z.ranges);
        assert_eq!(a.surface, z.surface);
        assert_eq!(a.raster, z.raster);
    }
    // The registers the edit set hold the game's values at the end.
    for r in [
        reg::SET_SHADER_PROGRAM,
        reg::SET_SHADER_CONTROL,
        reg::SET_TRANSFORM_PROGRAM_LOAD,
        reg::SET_TRANSFORM_PROGRAM_START,
        reg::SET_VERTEX_ATTRIB_INPUT_MASK,
    ] {
        assert_eq!(
            after.final_registers[r as usize], before.final_registers[r as usize],
            "register {r:#x}"
        );
    }
    // Draws 0 and 1 are one run; the game's SHADER_PROGRAM write starts another for draw 2.
    let r = &report.replacements;
    assert_eq!((r[0].draws.clone(), r[0].runs), (vec![0, 1, 2], 2));
    assert_eq!((r[1].draws.clone(), r[1].runs), (vec![1], 1));
    assert_eq!(r[0].commands_added, 2 * 4);
    // The new microcode is one block, attached to each chosen END, first.
    let new_block = edited.blocks.last().unwrap();
    assert_eq!(new_block.value.offset, 0x0800_0000);
    for d in &after.draws[..3] {
        assert_eq!(edited.commands[d.end_command].memory[0], new_block.id);
    }
    assert_eq!(report.commands, (b.c.commands.len(), edited.commands.len()));
    assert_eq!(
        edited.commands.len(),
        b.c.commands.len() + r[0].commands_added + r[1].commands_added
    );
}

#[test]
fn a_batch_holding_a_chosen_begin_is_split() {
    let mut b = B::new();
    b.put(SHADER_PROGRAM, &[GAME_FP | 1]);
    // One packet writes the register below SET_BEGIN_END and BEGIN itself.
    b.put(BELOW_BEGIN_END, &[0x77, TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(BEGIN_END, &[0]);
    attach_game_fp(&mut b);
    let before = b.frame();
    let (edited, _) = replace_programs(
        &b.c,
        &before,
        &[Replacement {
            program: fragment_swap(),
            draws: vec![0],
        }],
    )
    .expect("edit");
    let after = Frame::from_capture(&edited).expect("decodes");
    assert!(after.problems.is_empty(), "{:?}", after.problems);
    assert_eq!(after.draws[0].primitive, before.draws[0].primitive);
    assert_eq!(after.draws[0].fp_address.unwrap().offset, 0x0800_0000);
    assert_eq!(after.final_registers[(BELOW_BEGIN_END >> 2) as usize], 0x77);
    // The write below BEGIN is a command of its own, before the inserted ones.
    assert!(edited
        .commands
        .iter()
        .any(|c| c.first == (BELOW_BEGIN_END | (1 << 18)) && c.second == 0x77));
}

#[test]
fn the_parts_of_one_begin_end_are_replaced_together() {
    let mut b = B::new();
    b.put(SHADER_PROGRAM, &[GAME_FP | 1]);
    b.put(BEGIN_END, &[TRIANGLES]);
    b.put(DRAW_ARRAYS, &[range(0, 3)]);
    b.put(BASE_OFFSET, &[0x100]);
    b.put(DRAW_ARRAYS, &[range(3, 3)]);
    b.put(BEGIN_END, &[0]);
    attach_game_fp(&mut b);
    draw(&mut b, 6);
    let before = b.frame();
    assert_eq!(before.draws.len(), 3);
    let (edited, report) = replace_programs(
        &b.c,
        &before,
        &[Replacement {
            program: fragment_swap(),
            draws: vec![1],
        }],
    )
    .expect("edit");
    assert_eq!(report.replacements[0].draws, [0, 1]);
    let after = Frame::from_capture(&edited).unwrap();
    let offsets: Vec<u32> = after
        .draws
        .iter()
        .map(|d| d.fp_address.unwrap().offset)
        .collect();
    assert_eq!(offsets, [0x0800_0000, 0x0800_0000, GAME_FP]);
}

#[test]
fn bad_requests_are_refused_by_name() {
    let b = four_draws();
    let frame = b.frame();
    let one = |program: NewProgram, draws: Vec<usize>| Replacement { program, draws };
    let refuse = |r: &[Replacement]| replace_programs(&b.c, &frame, r).unwrap_err();
    assert_eq!(
        refuse(&[one(fragment_swap(), vec![4])]),
        EditError::NoSuchDraw { draw: 4, draws: 4 }
    );
    assert_eq!(
        refuse(&[
            one(fragment_swap(), vec![0]),
            one(fragment_swap(), vec![1, 0])
        ]),
        EditError::ChosenTwice {
            draw: 0,
            stage: "fragment",
            first: 0,
            second: 1
        }
    );
    // 544 slots of program memory: 3 slots do not fit at 542.
    assert_eq!(
        refuse(&[one(vertex_swap(3, 542), vec![0])]),
        EditError::VertexProgramTooLong {
            slots: 3,
            slot: 542,
            memory: 544
        }
    );
    let empty = NewProgram::Vertex(VertexSwap {
        words: vec![],
        slot: 0,
        start: 0,
        input_mask: None,
        input_reads: 0,
        output_mask: None,
        constants: Vec::new(),
    });
    assert_eq!(
        refuse(&[one(empty, vec![0])]),
        EditError::Empty { index: 0 }
    );
    // A fragment and a vertex replacement of one draw are not a conflict.
    assert!(replace_programs(
        &b.c,
        &frame,
        &[
            one(fragment_swap(), vec![0]),
            one(vertex_swap(2, 0), vec![0])
        ]
    )
    .is_ok());
}

#[test]
fn the_attributes_a_raw_vertex_program_reads_join_the_games_input_mask() {
    let b = four_draws();
    let before = b.frame();
    let swap = NewProgram::Vertex(VertexSwap {
        words: vertex_program(2, 0xC),
        slot: 4,
        start: 4,
        input_mask: None,
        input_reads: 0x100,
        output_mask: None,
        constants: Vec::new(),
    });
    let (edited, _) = replace_programs(
        &b.c,
        &before,
        &[Replacement {
            program: swap,
            draws: vec![2],
        }],
    )
    .expect("edit");
    let after = Frame::from_capture(&edited).unwrap();
    let masks: Vec<u16> = after
        .draws
        .iter()
        .map(|d| d.vertex_inputs.input_mask)
        .collect();
    assert_eq!(masks, [0x1, 0x1, 0x101, 0x1]);
}

const CONSTANT_LOAD: u32 = 0x1EFC;
const TRANSFORM_CONSTANT: u32 = 0x1F00;

/// The bits of `[x, y, z, w]`.
fn bits(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// A vertex program's constants (a PSL1GHT container's literals): uploaded before each run,
/// the frame's value put back after a run where the frame knows it (c[7], which the game
/// wrote), kept and reported where it does not (c[9]), the load pointer put back; a game's
/// constant write between two chosen draws ends the run, so the second draw still sees the
/// program's values.
#[test]
fn a_vertex_programs_constants_are_uploaded_and_put_back() {
    let game = bits([0.25, 0.5, 0.75, 1.0]);
    let mut b = game_programs();
    b.put(CONSTANT_LOAD, &[7]);
    b.put(TRANSFORM_CONSTANT, &game);
    draw(&mut b, 0);
    // The game uploads another constant between the chosen draws 1 and 2.
    draw(&mut b, 3);
    b.put(CONSTANT_LOAD, &[20]);
    b.put(TRANSFORM_CONSTANT, &bits([9.0; 4]));
    draw(&mut b, 6);
    // And one with no load of its own: it goes where the game's load pointer (20) is.
    b.put(TRANSFORM_CONSTANT, &bits([3.0; 4]));
    draw(&mut b, 9);
    let before = b.frame();
    assert_eq!(before.draws.len(), 4, "{:?}", before.problems);
    assert!(!before.draws[0].constants.is_known(9));
    assert_eq!(before.draws[3].constants.raw(20), Some(bits([3.0; 4])));
    // c[500] lies past the 468 registers: its upload is dropped, with nothing to put back.
    let literals = vec![
        (7, bits([1.0, 0.0, 0.0, 1.0])),
        (9, bits([0.0, 2.0, 0.0, 0.0])),
        (500, bits([5.0; 4])),
    ];
    let NewProgram::Vertex(mut swap) = vertex_swap(2, 8) else {
        unreachable!()
    };
    swap.constants = literals.clone();
    let (edited, report) = replace_programs(
        &b.c,
        &before,
        &[Replacement {
            program: NewProgram::Vertex(swap),
            draws: vec![1, 2],
        }],
    )
    .unwrap();
    let r = &report.replacements[0];
    // Two runs: the game's upload between draws 1 and 2 ends the first.
    assert_eq!((r.draws.clone(), r.runs), (vec![1, 2], 2));
    assert_eq!(r.constants_not_restored, [9]);
    let after = Frame::from_capture(&edited).unwrap();
    assert!(after.problems.is_empty(), "{:?}", after.problems);
    let c = |d: usize, i: usize| after.draws[d].constants.raw(i);
    for d in [1, 2] {
        assert_eq!(
            (c(d, 7), c(d, 9)),
            (Some(literals[0].1), Some(literals[1].1)),
            "draw {d}"
        );
    }
    assert_eq!(c(2, 20), Some(bits([9.0; 4])));
    // Before and after the runs: the game's c[7]; c[9], unknown before, keeps the literal.
    assert_eq!((c(0, 7), c(0, 9)), (Some(game), None));
    assert_eq!((c(3, 7), c(3, 9)), (Some(game), Some(literals[1].1)));
    // The load pointer is the game's again after the run: the upload with no load of its
    // own still lands on c[20].
    assert_eq!(c(3, 20), Some(bits([3.0; 4])));
    assert_eq!(after.draws[3].vp_hash, before.draws[3].vp_hash);
}

/// The `TEX_COORD_CONTROL` words a fragment program's container has its loader write: set
/// for the chosen draws, the game's again after them.
#[test]
fn a_fragment_programs_texcoord_controls_are_set_and_put_back() {
    let b = four_draws();
    let before = b.frame();
    let NewProgram::Fragment(mut swap) = fragment_swap() else {
        unreachable!()
    };
    swap.texcoord_controls = vec![(2, 1), (9, 0x11)];
    let (edited, _) = replace_programs(
        &b.c,
        &before,
        &[Replacement {
            program: NewProgram::Fragment(swap),
            draws: vec![1],
        }],
    )
    .unwrap();
    let two_d = texcoord_2d(&edited);
    assert_eq!(two_d, [0, (1 << 2) | (1 << 9), 0, 0]);
}

/// A game's `TEX_COORD_CONTROL` write between two chosen draws ends the run of a fragment
/// program that sets those controls (so the second draw still gets its words), not of one
/// that sets none.
#[test]
fn a_games_texcoord_control_write_ends_only_the_runs_that_set_them() {
    const TEX_COORD_CONTROL_2: u32 = 0x0B40 + 2 * 4;
    let mut b = game_programs();
    draw(&mut b, 0);
    b.put(TEX_COORD_CONTROL_2, &[0]);
    draw(&mut b, 3);
    let before = b.frame();
    assert_eq!(before.draws.len(), 2, "{:?}", before.problems);
    let edit = |controls: Vec<(u8, u32)>| {
        let NewProgram::Fragment(mut swap) = fragment_swap() else {
            unreachable!()
        };
        swap.texcoord_controls = controls;
        let replacement = Replacement {
            program: NewProgram::Fragment(swap),
            draws: vec![0, 1],
        };
        replace_programs(&b.c, &before, &[replacement]).unwrap()
    };
    let (edited, report) = edit(vec![(2, 1)]);
    assert_eq!(report.replacements[0].runs, 2);
    let two_d = texcoord_2d(&edited);
    assert_eq!(two_d, [1 << 2, 1 << 2]);
    let (_, report) = edit(Vec::new());
    assert_eq!(report.replacements[0].runs, 1);
}

/// Each draw's `SET_TEX_COORD_CONTROL` two-dimensional mask in `capture`.
fn texcoord_2d(capture: &Capture) -> Vec<u16> {
    let frame = Frame::from_capture(capture).unwrap();
    frame
        .draws
        .iter()
        .map(|d| d.raster.shading.texcoord_2d)
        .collect()
}
