//! Memory attached at END: offsets and sizes for arrays, stride 0, several ranges, indexed
//! draws with restart and base index, textures, count splitting and missing memory.

use crate::common;

use common::{attached, one, pairs};
use rsxtrace_builder::synthetic::FRAGMENT_MOV_COL0;
use rsxtrace_builder::{AttachError, BuildError, CaptureBuilder, IndexType, TextureDesc};
use rsxtrace_rrc::{Capture, Location};

fn with_program() -> CaptureBuilder {
    let mut b = CaptureBuilder::new("attach");
    b.set_fragment_program(Location::Local, 0x40, &FRAGMENT_MOV_COL0, 0x40)
        .unwrap();
    b
}

fn last_end(c: &Capture) -> Vec<(u32, u32, usize)> {
    attached(c, c.commands.last().unwrap())
}

fn fill(b: &mut CaptureBuilder, location: Location, offset: u32, len: usize) {
    let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
    b.put_memory(location, offset, &bytes).unwrap();
}

#[test]
fn arrays_with_ranges_stride_zero_and_base_offset() {
    let mut b = with_program();
    fill(&mut b, Location::Local, 0x1_0000, 0x200);
    fill(&mut b, Location::Main, 0x500, 4);
    b.set_vertex_data_base_offset(0x100);
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Local, 0xFF00)
        .unwrap(); // base 0x10000
    b.set_vertex_array(3, 4, 4, 0, 0, Location::Main, 0x400)
        .unwrap(); // stride 0, base 0x500
    b.set_vertex_array(5, 2, 4, 16, 0, Location::Local, 0)
        .unwrap(); // not in the input mask
    b.set_vertex_attrib_input_mask((1 << 0) | (1 << 3) | (1 << 7)); // 7 has no array: skipped
    b.draw_arrays(5, &[(0, 3), (10, 2)]).unwrap();
    let c = b.finish();
    assert_eq!(
        last_end(&c),
        vec![
            (0x40, 0, 16),                // fragment program
            (0x1_0000, 0, 2 * 12 + 12),   // attr 0 range (0, 3)
            (0x1_0000 + 120, 0, 12 + 12), // attr 0 range (10, 2)
            (0x500, 1, 4), // attr 3, stride 0: one element; second range is the same block
        ]
    );
    // The base offset is applied as (base + offset) & 0x0FFFFFFF, location from bit 31.
    let end = c.commands.last().unwrap();
    assert_eq!(end.memory.len(), 4);
}

#[test]
fn counts_over_256_are_split_and_merged_back() {
    let mut b = with_program();
    fill(&mut b, Location::Main, 0, 600 * 12);
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0)
        .unwrap();
    b.set_vertex_attrib_input_mask(1);
    b.draw_arrays(6, &[(0, 600)]).unwrap();
    let c = b.finish();
    let p = pairs(&c);
    assert_eq!(
        p[p.len() - 5..],
        [
            one(0x1808, 6),
            one(0x1814, 0xFF00_0000),
            one(0x1814, 0xFF00_0100),
            one(0x1814, 0x5700_0200),
            one(0x1808, 0)
        ]
    );
    // The draw clause merges the three contiguous ranges: one block of 600 vertices.
    assert_eq!(last_end(&c), vec![(0x40, 0, 16), (0, 1, 599 * 12 + 12)]);
}

#[test]
fn indexed_u32_with_restart_and_base_index() {
    let mut b = with_program();
    let indices: Vec<u8> = [9u32, 5, 7, 0xFFFF_FFFF, 6, 9]
        .iter()
        .flat_map(|i| i.to_be_bytes())
        .collect();
    b.put_memory(Location::Main, 0x3000, &indices).unwrap();
    fill(&mut b, Location::Local, 0x1_0000, 0x400);
    b.set_vertex_data_base_offset(0x100);
    b.set_vertex_data_base_index(2);
    b.set_vertex_array(0, 2, 4, 16, 0, Location::Local, 0xFF00)
        .unwrap(); // base 0x10000
    b.set_vertex_array(1, 4, 4, 4, 0, Location::Local, 0x1_0100)
        .unwrap(); // base 0x10200
    b.set_vertex_attrib_input_mask(0b11);
    b.set_index_array(Location::Main, 0x3000, IndexType::U32)
        .unwrap();
    b.set_restart_index(true, 0xFFFF_FFFF);
    // Range starts at element 1: indices 5, 7, restart, 6, 9 -> +2 -> 7, 9, 8, 11.
    b.draw_indexed(5, &[(1, 5)]).unwrap();
    let c = b.finish();
    assert_eq!(
        last_end(&c),
        vec![
            (0x40, 0, 16),
            (0x3004, 1, 20), // index block: 0x3000 + 1*4, 5 indices
            (0x1_0000 + 7 * 16, 0, 16 * 5 + 16), // attr 0: [7, 11]
            (0x1_0200 + 7 * 4, 0, 4 * 5 + 4), // attr 1
        ]
    );
}

#[test]
fn indexed_u16_wraps_base_index_to_16_bits() {
    let mut b = with_program();
    let indices: Vec<u8> = [0xFFF8u16, 2, 0xFFFF]
        .iter()
        .flat_map(|i| i.to_be_bytes())
        .collect();
    b.put_memory(Location::Local, 0x2000, &indices).unwrap();
    fill(&mut b, Location::Main, 0, 0x200);
    b.set_vertex_data_base_index(0x10);
    b.set_vertex_array(0, 2, 2, 8, 0, Location::Main, 0)
        .unwrap();
    b.set_vertex_attrib_input_mask(1);
    b.set_index_array(Location::Local, 0x2000, IndexType::U16)
        .unwrap();
    // Restart value above 0xFFFF never matches a u16 index; restart disabled anyway here.
    b.set_restart_index(false, 0xFFFF);
    b.draw_indexed(1, &[(0, 3)]).unwrap();
    let c = b.finish();
    // 0xFFF8 + 0x10 = 0x10008 -> 16 bits 8; 2 + 0x10 = 0x12; 0xFFFF + 0x10 -> 0x0F.
    assert_eq!(
        last_end(&c),
        vec![
            (0x40, 0, 16),
            (0x2000, 0, 6),
            (8 * 8, 1, 8 * (0x12 - 8 + 1) + 8)
        ]
    );
}

#[test]
fn all_restart_indices_attach_only_the_index_block() {
    let mut b = with_program();
    b.put_memory(Location::Local, 0x2000, &[0xFF, 0xFF, 0xFF, 0xFF])
        .unwrap();
    b.set_vertex_array(0, 2, 2, 8, 0, Location::Main, 0)
        .unwrap();
    b.set_vertex_attrib_input_mask(1);
    b.set_index_array(Location::Local, 0x2000, IndexType::U16)
        .unwrap();
    b.set_restart_index(true, 0xFFFF);
    b.draw_indexed(5, &[(0, 2)]).unwrap();
    assert_eq!(last_end(&b.finish()), vec![(0x40, 0, 16), (0x2000, 0, 4)]);
}

#[test]
fn textures_follow_the_fragment_program() {
    let mut b = with_program();
    fill(&mut b, Location::Main, 0x8000, 256);
    fill(&mut b, Location::Local, 0x9000, 64);
    let t = TextureDesc {
        offset: 0x8000,
        location: Location::Main,
        width: 8,
        height: 8,
        pitch: 32,
        byte_size: 256,
        ..Default::default()
    };
    b.set_texture(3, &t).unwrap();
    let vt = TextureDesc {
        offset: 0x9000,
        byte_size: 64,
        ..Default::default()
    };
    b.set_vertex_texture(1, &vt).unwrap();
    b.set_texture(
        0,
        &TextureDesc {
            byte_size: 0,
            ..Default::default()
        },
    )
    .unwrap(); // size 0: skipped
    b.draw_inline_array(5, &[0x3F80_0000; 9]).unwrap();
    let c = b.finish();
    assert_eq!(
        last_end(&c),
        vec![(0x40, 0, 16), (0x8000, 1, 256), (0x9000, 0, 64)]
    );
    // Texture registers of unit 3 (stride 0x20) and CONTROL3 at 0x1840 + 4*3.
    let p = pairs(&c);
    assert!(p.contains(&one(0x1A00 + 0x60, 0x8000)));
    // FORMAT: main memory, bit 3 (no border texels: `border_texels` is false), 2D, format
    // 0xA5, one mip level.
    assert!(p.contains(&one(
        0x1A04 + 0x60,
        2 | (1 << 3) | (2 << 4) | (0xA5 << 8) | (1 << 16)
    )));
    assert!(p.contains(&one(0x1A0C + 0x60, 1 << 31)));
    assert!(p.contains(&one(0x1A18 + 0x60, (8 << 16) | 8)));
    assert!(p.contains(&one(0x1840 + 12, 32 | (1 << 20))));
    assert_eq!(
        p.iter().filter(|x| **x == one(0x1818, 0x3F80_0000)).count(),
        9
    );
    // After disabling, the texture is no longer attached.
    let mut b = with_program();
    fill(&mut b, Location::Main, 0x8000, 256);
    b.set_texture(3, &t).unwrap();
    b.disable_texture(3).unwrap();
    b.draw_inline_array(5, &[0; 3]).unwrap();
    assert_eq!(last_end(&b.finish()), vec![(0x40, 0, 16)]);
}

#[test]
fn fragment_program_size_comes_from_the_scan() {
    let slots: [[u32; 4]; 5] = [
        [0, 0, 0, 0],                       // leading NOP slot
        [0x02 << 16, 0x100, 0x200, 0],      // MUL with an inline constant
        [0x3F80_0000, 0, 0, 0],             // the constant
        [(0x01 << 16) | (1 << 8), 0, 0, 0], // MOV END
        [0xFFFF_FFFF; 4],                   // placed but not part of the program
    ];
    let bytes: Vec<u8> = slots
        .iter()
        .flat_map(|s| s.iter().flat_map(|w| w.to_le_bytes()))
        .collect();
    let mut b = CaptureBuilder::new("scan");
    b.set_fragment_program(Location::Main, 0x700, &bytes, 0x40)
        .unwrap();
    b.draw_inline_array(5, &[1, 2, 3]).unwrap();
    let c = b.finish();
    assert_eq!(last_end(&c), vec![(0x700, 1, 64)]);
    assert_eq!(
        common::block_bytes(&c, c.commands.last().unwrap().memory[0]),
        bytes[..64].to_vec()
    );
}

#[test]
fn missing_memory_is_an_error_and_records_nothing() {
    let mut b = with_program();
    fill(&mut b, Location::Local, 0x1000, 30); // 3 float3 need 36
    b.set_vertex_array(0, 2, 3, 12, 0, Location::Local, 0x1000)
        .unwrap();
    b.set_vertex_attrib_input_mask(1);
    let before = b.command_count();
    let err = b.draw_arrays(5, &[(0, 3)]).unwrap_err();
    match &err {
        BuildError::Draw {
            command,
            source: AttachError::Missing { what, .. },
        } => {
            assert_eq!(*command, before + 2);
            assert!(what.contains("attribute 0"), "{what}");
        }
        other => panic!("unexpected error {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains("0x101e"), "{msg}");
    assert_eq!(b.command_count(), before);
    // Placing the rest makes the same draw succeed.
    fill(&mut b, Location::Local, 0x101E, 6);
    b.draw_arrays(5, &[(0, 3)]).unwrap();
    assert_eq!(b.command_count(), before + 3);

    // No fragment program at all.
    let mut b = CaptureBuilder::new("no-fp");
    let err = b.draw_inline_array(5, &[1]).unwrap_err();
    assert!(
        matches!(
            err,
            BuildError::Draw {
                source: AttachError::BadRegister {
                    register: 0x08E4,
                    ..
                },
                ..
            }
        ),
        "{err:?}"
    );
    // A program without END in the placed bytes.
    let mut b = CaptureBuilder::new("no-end");
    b.set_fragment_program(
        Location::Local,
        0,
        &[0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        0,
    )
    .unwrap();
    let err = b.draw_inline_array(5, &[1]).unwrap_err();
    assert!(
        matches!(
            err,
            BuildError::Draw {
                source: AttachError::FragmentProgram { .. },
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn bad_arguments_are_refused() {
    let mut b = CaptureBuilder::new("args");
    assert!(b.draw_arrays(0, &[(0, 3)]).is_err());
    assert!(b.draw_arrays(11, &[(0, 3)]).is_err());
    assert!(b.draw_arrays(5, &[(0, 0)]).is_err());
    assert!(b
        .set_vertex_array(16, 2, 3, 12, 0, Location::Local, 0)
        .is_err());
    assert!(b
        .set_vertex_array(0, 2, 5, 12, 0, Location::Local, 0)
        .is_err());
    assert!(b
        .set_vertex_array(0, 2, 3, 256, 0, Location::Local, 0)
        .is_err());
    assert!(b.set_vertex_program(&[1, 2, 3], 0, 0, 0, 0).is_err());
    assert!(b.set_vertex_program(&[0; 8], 543, 0, 0, 0).is_err());
    assert!(b.set_transform_constants(467, &[[0.0; 4]; 2]).is_err());
    assert!(b
        .set_fragment_program(Location::Local, 2, &FRAGMENT_MOV_COL0, 0)
        .is_err());
    assert!(b.set_texture(16, &TextureDesc::default()).is_err());
    assert!(b.method(0x4000, 0).is_err());
    assert!(b.put_memory(Location::Main, 0xFFFF_FFF0, &[0; 32]).is_err());
    // None of these recorded anything.
    assert_eq!(b.command_count(), 0);
}
