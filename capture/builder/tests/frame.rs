//! Command sequences, batched packets, ids and de-duplication of whole frames.

use crate::common;

use common::{attached, one, pairs};
use rsxtrace_builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_builder::{BuildError, CaptureBuilder};
use rsxtrace_rrc::{
    BufferState, DisplayBuffersState, Location, ReplayCommand, TileInfo, TileState,
};

fn float3s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_be_bytes()).collect()
}

fn display_one() -> DisplayBuffersState {
    let mut d = DisplayBuffersState {
        count: 1,
        ..Default::default()
    };
    d.buffers[0] = BufferState {
        width: 1280,
        height: 720,
        pitch: 5120,
        offset: 0,
    };
    d
}

#[test]
fn small_frame_exact_commands() {
    let mut b = CaptureBuilder::new("small");
    b.set_display_buffers(display_one());
    let vp = [0x401F_9C6C, 0x01D0_300D, 0x8106_C083, 0x6041_1F81];
    b.set_vertex_program(&vp, 0, 0, 0x1, 0x1).unwrap();
    b.set_transform_constants(32, &[[1.0, 0.0, 0.0, 0.0]])
        .unwrap();
    b.set_fragment_program(Location::Local, 0x100, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    let pos = float3s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    b.put_memory(Location::Main, 0x1000, &pos).unwrap();
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
        .unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    let c = b.finish();

    let expected = vec![
        (0x40, 0),                         // initial NO_OPERATION (register index, count 0)
        one(0x1E9C, 0),                    // TRANSFORM_PROGRAM_LOAD
        ((4 << 18) | 0x0B80, 0x401F_9C6C), // TRANSFORM_PROGRAM packet, count 4
        (0, 0x01D0_300D),
        (0, 0x8106_C083),
        (0, 0x6041_1F81),
        one(0x1EA0, 0),                    // TRANSFORM_PROGRAM_START
        one(0x1FF0, 1),                    // ATTRIB input mask
        one(0x1FF4, 1),                    // ATTRIB output mask
        one(0x1EFC, 32),                   // TRANSFORM_CONSTANT_LOAD
        ((4 << 18) | 0x1F00, 0x3F80_0000), // TRANSFORM_CONSTANT packet, count 4
        (0, 0),
        (0, 0),
        (0, 0),
        one(0x08E4, 0x101), // SHADER_PROGRAM: offset 0x100, local (0+1)
        one(0x1D60, 0x40),  // SHADER_CONTROL
        one(0x1740, 2 | (3 << 4) | (12 << 8)), // ARRAY_FORMAT[0]: F, 3, stride 12
        one(0x1680, 0x8000_1000), // ARRAY_OFFSET[0]: main, 0x1000
        one(0x1808, 5),     // BEGIN triangles
        one(0x1814, 0x0200_0000), // DRAW_ARRAYS first 0, count 3
        one(0x1808, 0),     // END
    ];
    assert_eq!(pairs(&c), expected);

    // The NOP carries the initial states: display first (0x1235), then tile (0x1236).
    assert_eq!(
        (c.commands[0].display_buffer_state, c.commands[0].tile_state),
        (0x1235, 0x1236)
    );
    assert!(c.commands[1..c.commands.len() - 1]
        .iter()
        .all(|cmd| cmd.memory.is_empty() && cmd.tile_state == 0 && cmd.display_buffer_state == 0));
    // END: fragment program (data 0x1237, block 0x1238), then the array (0x1239, 0x123A),
    // then the same display and tile states again.
    let end = c.commands.last().unwrap();
    assert_eq!(
        end,
        &ReplayCommand {
            first: 0x1808 | (1 << 18),
            second: 0,
            memory: vec![0x1238, 0x123A],
            tile_state: 0x1236,
            display_buffer_state: 0x1235
        }
    );
    assert_eq!(attached(&c, end), vec![(0x100, 0, 16), (0x1000, 1, 36)]);
    assert_eq!(
        c.data.iter().map(|e| e.id).collect::<Vec<_>>(),
        vec![0x1237, 0x1239]
    );
    assert_eq!(c.data[0].value.as_ref(), &FRAGMENT_MOV_COL0);
    assert_eq!(c.data[1].value.as_ref(), pos.as_slice());
    assert_eq!(c.display_buffers.len(), 1);
    assert_eq!(c.display_buffers[0].value, display_one());
    assert_eq!(c.tiles.len(), 1);
    assert_eq!(c.provenance.rrc_version, 6);
    assert_eq!(c.provenance.source_name, "small");
}

#[test]
fn batched_packets_split_at_32_words() {
    let mut b = CaptureBuilder::new("batches");
    let vp: Vec<u32> = (1..=40).collect(); // 10 instructions
    b.set_vertex_program(&vp, 7, 7, 0x9, 0x4001).unwrap();
    let consts: Vec<[f32; 4]> = (0..10).map(|i| [i as f32, 0.5, -1.0, 2.0]).collect();
    b.set_transform_constants(100, &consts).unwrap();
    let c = b.finish();
    let p = pairs(&c);

    let mut expected = vec![(0x40, 0), one(0x1E9C, 7), ((32 << 18) | 0x0B80, 1)];
    expected.extend((2..=32).map(|w| (0, w)));
    expected.push(((8 << 18) | 0x0B80, 33)); // second packet restarts at the window base
    expected.extend((34..=40).map(|w| (0, w)));
    expected.extend([one(0x1EA0, 7), one(0x1FF0, 0x9), one(0x1FF4, 0x4001)]);
    // Constants: CONSTANT_LOAD re-issued per 8 vec4s, 32 + 8 words.
    let words: Vec<u32> = consts.iter().flat_map(|v| v.map(f32::to_bits)).collect();
    expected.push(one(0x1EFC, 100));
    expected.push(((32 << 18) | 0x1F00, words[0]));
    expected.extend(words[1..32].iter().map(|&w| (0, w)));
    expected.push(one(0x1EFC, 108));
    expected.push(((8 << 18) | 0x1F00, words[32]));
    expected.extend(words[33..].iter().map(|&w| (0, w)));
    assert_eq!(p, expected);
    assert_eq!(words[4], 1.0f32.to_bits());
    assert_eq!(words[5], 0x3F00_0000);
}

#[test]
fn ids_are_deduplicated_across_draws_and_states() {
    let mut b = CaptureBuilder::new("dedupe");
    let mut tiles = TileState::default();
    b.set_tile_state(tiles.clone());
    b.set_display_buffers(display_one());
    b.set_fragment_program(Location::Local, 0x100, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    // The same bytes at two offsets: one data entry, two blocks.
    let pos = float3s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    b.put_memory(Location::Main, 0x1000, &pos).unwrap();
    b.put_memory(Location::Main, 0x2000, &pos).unwrap();
    b.set_vertex_attrib_input_mask(1);
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
        .unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    b.draw_arrays(5, &[(0, 3)]).unwrap(); // identical draw: every id reused
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x2000)
        .unwrap();
    tiles.tiles[0] = TileInfo {
        tile: 1 | (0x10 << 16),
        limit: 0x1F << 16,
        pitch: 0x1400,
        format: 0x4000_0000,
    };
    b.set_tile_state(tiles.clone());
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    let c = b.finish();

    let ends: Vec<&ReplayCommand> = c
        .commands
        .iter()
        .filter(|x| x.first == (0x1808 | (1 << 18)) && x.second == 0)
        .collect();
    assert_eq!(ends.len(), 3);
    // NOP: display 0x1235, tile 0x1236. Draw 1: fp data 0x1237 block 0x1238, array data
    // 0x1239 block 0x123A.
    assert_eq!(
        (
            ends[0].memory.clone(),
            ends[0].tile_state,
            ends[0].display_buffer_state
        ),
        (vec![0x1238, 0x123A], 0x1236, 0x1235)
    );
    assert_eq!(ends[1], ends[0]);
    // Draw 3: same data (0x1239) at 0x2000 -> new block 0x123B; new tile state 0x123C.
    assert_eq!(
        (
            ends[2].memory.clone(),
            ends[2].tile_state,
            ends[2].display_buffer_state
        ),
        (vec![0x1238, 0x123B], 0x123C, 0x1235)
    );
    assert_eq!(c.data.len(), 2);
    assert_eq!(
        c.blocks
            .iter()
            .map(|e| (e.id, e.value.offset, e.value.data_id))
            .collect::<Vec<_>>(),
        vec![
            (0x1238, 0x100, 0x1237),
            (0x123A, 0x1000, 0x1239),
            (0x123B, 0x2000, 0x1239)
        ]
    );
    assert_eq!(
        c.tiles.iter().map(|e| e.id).collect::<Vec<_>>(),
        vec![0x1236, 0x123C]
    );
    assert_eq!(c.tiles[1].value, tiles);
}

#[test]
fn end_without_draws_attaches_nothing() {
    let mut b = CaptureBuilder::new("empty-end");
    b.method(0x1808 >> 2, 5).unwrap();
    b.method(0x1808 >> 2, 0).unwrap();
    let c = b.finish();
    assert_eq!(pairs(&c), vec![(0x40, 0), one(0x1808, 5), one(0x1808, 0)]);
    assert_eq!(
        c.commands[2],
        ReplayCommand {
            first: 0x1808 | (1 << 18),
            ..Default::default()
        }
    );
    assert!(c.blocks.is_empty());
}

#[test]
fn initial_state_and_its_lock() {
    let mut b = CaptureBuilder::new("initial");
    b.initial_register(0x1D60 >> 2, 0x40).unwrap();
    b.initial_transform_program(543, &[1, 2, 3, 4]).unwrap();
    assert!(matches!(
        b.initial_transform_program(543, &[1, 2, 3, 4, 5]),
        Err(BuildError::OutOfRange { .. })
    ));
    assert!(matches!(
        b.initial_register(0x4000, 0),
        Err(BuildError::OutOfRange { .. })
    ));
    b.initial_transform_constants(Some(&[[1.0, 2.0, 3.0, 4.0]]))
        .unwrap();
    b.set_scissor(0, 0, 64, 32);
    assert!(matches!(
        b.initial_register(0, 1),
        Err(BuildError::AlreadyRecording { .. })
    ));
    let c = b.finish();
    assert_eq!(c.reg_state.registers[0x1D60 >> 2], 0x40);
    assert_eq!(&c.reg_state.transform_program[543 * 4..], &[1, 2, 3, 4]);
    let consts = c.reg_state.transform_constants.as_ref().unwrap();
    assert_eq!(consts.len(), 512);
    assert_eq!(
        consts[0],
        [0x3F80_0000, 0x4000_0000, 0x4040_0000, 0x4080_0000]
    );
    assert_eq!(consts[1], [0; 4]);
    // The scissor commands do not change the initial snapshot (the reset value, 4096 wide).
    assert_eq!(c.reg_state.registers[0x08C0 >> 2], 0x1000_0000);
    assert_eq!(
        pairs(&c)[1..],
        [one(0x08C0, 64 << 16), one(0x08C4, 32 << 16)]
    );
}

#[test]
fn immediate_attributes_and_render_state_registers() {
    let mut b = CaptureBuilder::new("immediate");
    b.set_vertex_data_4f(2, [1.0, 0.0, -1.0, 0.5]).unwrap();
    b.set_vertex_data_3f(1, [2.0, 3.0, 4.0]).unwrap();
    b.set_vertex_data_2f(3, [1.0, 2.0]).unwrap();
    b.set_vertex_data_1f(4, 1.0).unwrap();
    b.set_vertex_data_2s(5, [-1, 2]).unwrap();
    b.set_vertex_data_4s(6, [1, -2, 3, -4]).unwrap();
    b.set_vertex_data_scaled_4s(7, [0, 1, 2, 3]).unwrap();
    b.set_vertex_data_4ub(3, [0x11, 0x22, 0x33, 0x44]).unwrap();
    assert!(b.set_vertex_data_4ub(16, [0; 4]).is_err());
    b.set_blend(true, (0x302, 1), (0x303, 0), (0x8006, 0x8006));
    b.set_cull(true, 0x405, 0x901);
    b.clear_surface(0xF1, 0xFF00_00FF, 0xFFFF_FF00);
    let c = b.finish();
    let expected = vec![
        (0x40, 0),
        one(0x1C00 + 32, 0x3F80_0000),
        one(0x1C00 + 36, 0),
        one(0x1C00 + 40, 0xBF80_0000),
        one(0x1C00 + 44, 0x3F00_0000),
        one(0x1500 + 16, 0x4000_0000),
        one(0x1500 + 20, 0x4040_0000),
        one(0x1500 + 24, 0x4080_0000),
        one(0x1880 + 24, 0x3F80_0000),
        one(0x1880 + 28, 0x4000_0000),
        one(0x1E40 + 16, 0x3F80_0000),
        one(0x1900 + 20, 0x0002_FFFF),
        one(0x1980 + 48, 0xFFFE_0001),
        one(0x1980 + 52, 0xFFFC_0003),
        one(0x0A80 + 56, 0x0001_0000),
        one(0x0A80 + 60, 0x0003_0002),
        one(0x1940 + 12, 0x4433_2211), // x in bits 0..7
        one(0x0310, 1),
        one(0x0314, 0x0001_0302),
        one(0x0318, 0x0000_0303),
        one(0x0320, 0x8006_8006),
        one(0x183C, 1),
        one(0x1830, 0x405),
        one(0x1834, 0x901),
        one(0x1D90, 0xFF00_00FF),
        one(0x1D8C, 0xFFFF_FF00),
        one(0x1D94, 0xF1),
    ];
    assert_eq!(pairs(&c), expected);
}

#[test]
fn a_new_capture_starts_from_the_rsx_reset_register_file() {
    // Spot checks against RPCS3's `rsx_state::init`, whose snapshot genuine captures carry.
    let c = CaptureBuilder::new("reset").finish();
    let reg = |offset: usize| c.reg_state.registers[offset >> 2];
    assert_eq!(reg(0x0A00), 0x1000_0000, "viewport: x 0, width 4096");
    assert_eq!(reg(0x0A04), 0x1000_0000, "viewport: y 0, height 4096");
    assert_eq!(reg(0x0A30), 2048f32.to_bits(), "viewport scale x");
    assert_eq!(reg(0x08CC), 0x0800, "fog mode EXP");
    assert_eq!(reg(0x1FF4), 0x003F_FFFF, "vertex output mask");
    assert_eq!(
        reg(0x1A14 + 15 * 0x20),
        0x0205_2000,
        "texture unit 15 filter"
    );
    assert_eq!(reg(0x1740 + 15 * 4), 0x02, "vertex array 15 format");
    assert_eq!(reg(0x047C), 0x99AB_BBAA, "the last unnamed word");
    assert_eq!(reg(0x02C0), 0, "WINDOW_CLIP_HORIZONTAL 0 is not set");
    assert_eq!(reg(0x02C4), 0x0FFF_0000);
}
