//! Frame-model tests with command lists laid out by hand (rrc-format.md 3.2, 4.2 to 4.9).

use bytes::Bytes;
use rsxtrace_fetch::{DrawRange, GuestMemory, ImmediateValue, IndexType, VertexSource};
use rsxtrace_frame::{
    DrawProblem, FragmentError, Frame, FrameError, FrameProblem, MemoryView, Primitive, StreamError,
};
use rsxtrace_rrc::{Capture, Entry, Location, MemoryBlock, ReplayCommand};
use serde_json::json;
use xxhash_rust::xxh3::xxh3_64;

/// Header word: method byte offset in bits 2..15, count in bits 18..28, non-increment bit 30.
fn hdr(byte: u32, count: u32, non_inc: bool) -> u32 {
    byte | (count << 18) | if non_inc { 1 << 30 } else { 0 }
}

struct B {
    c: Capture,
    next_id: u64,
}

impl B {
    fn new() -> B {
        let mut c = Capture::empty("t");
        // Slot 0 of program memory holds an END (word 3 bit 0) so the default start is valid.
        c.reg_state.transform_program[3] = 1;
        c.commands.push(ReplayCommand {
            first: 0x40,
            ..Default::default()
        });
        B { c, next_id: 0x1235 }
    }
    /// One count-1 method call; returns its command index.
    fn m(&mut self, byte: u32, value: u32) -> usize {
        self.c.commands.push(ReplayCommand {
            first: hdr(byte, 1, false),
            second: value,
            ..Default::default()
        });
        self.c.commands.len() - 1
    }
    /// One batched packet: header + continuation entries with `first = 0`.
    fn batch(&mut self, byte: u32, values: &[u32], non_inc: bool) {
        let n = values.len() as u32;
        for (i, v) in values.iter().enumerate() {
            let first = if i == 0 { hdr(byte, n, non_inc) } else { 0 };
            self.c.commands.push(ReplayCommand {
                first,
                second: *v,
                ..Default::default()
            });
        }
    }
    /// Attach a block to the last command.
    fn attach(&mut self, location: u32, offset: u32, bytes: Vec<u8>) {
        let (id, data_id) = (self.next_id, self.next_id + 1);
        self.next_id += 2;
        self.c.blocks.push(Entry {
            id,
            value: MemoryBlock {
                offset,
                location,
                data_id,
            },
        });
        self.c.data.push(Entry {
            id: data_id,
            value: Bytes::from(bytes),
        });
        self.c.commands.last_mut().unwrap().memory.push(id);
    }
    fn draw_arrays(&mut self, prim: u32, ranges: &[(u32, u32)]) -> usize {
        self.m(0x1808, prim);
        for &(first, count) in ranges {
            self.m(0x1814, ((count - 1) << 24) | first);
        }
        self.m(0x1808, 0)
    }
    fn frame(&self) -> Frame {
        Frame::from_capture(&self.c).expect("frame decodes")
    }
}

/// The primitives.fpo instruction (rsx-microcode.md B.1): MOV with END, no constants.
const FP_ONE: [u8; 16] = [
    0x3e, 0x01, 0x01, 0x00, 0xc8, 0x01, 0x1c, 0x9d, 0xc8, 0x00, 0x00, 0x01, 0xc8, 0x00, 0x3f, 0xe1,
];

#[test]
fn transform_program_batches_and_load_advance() {
    let mut b = B::new();
    b.m(0x1E9C, 10); // PROGRAM_LOAD = slot 10
                     // Increment batch of 8 words from 0xB80: slots 10 and 11; load += 2.
    b.batch(0x0B80, &[1, 2, 3, 4, 5, 6, 7, 0x100], false);
    // Batch of 4 from 0xB80 again: slot 12 (END in word 3); load 12 -> 13.
    b.batch(0x0B80, &[9, 10, 11, 0x101], false);
    // Non-increment batch of 2 at 0xB84 (k = 1): words slot 13 word 1 and 2; load += (2+1)/4 = 0.
    b.batch(0x0B84, &[0xAA, 0xBB], true);
    b.m(0x1EA0, 10); // PROGRAM_START
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let d = &f.draws[0];
    assert_eq!(
        &d.vertex_program[40..52],
        &[1, 2, 3, 4, 5, 6, 7, 0x100, 9, 10, 11, 0x101]
    );
    assert_eq!(&d.vertex_program[52..56], &[0, 0xAA, 0xBB, 0]);
    assert_eq!(f.final_registers[0x1E9C / 4], 13);
    // vp_hash: slots 10..=12 (slot 12 has END in word 3 bit 0; slot 11's 0x100 has no bit 0).
    assert_eq!(d.vp_end_slot, Some(12));
    let bytes: Vec<u8> = [1u32, 2, 3, 4, 5, 6, 7, 0x100, 9, 10, 11, 0x101]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert_eq!(d.vp_hash, xxh3_64(&bytes));
    assert_eq!(d.summary().vp_hash, format!("{:016x}", xxh3_64(&bytes)));
    assert_eq!(d.vertex_program_words(), &d.vertex_program[40..52]);
    // 15 method calls: 1 + 8 + 4 + 2 + 1 + 3.
    assert_eq!(f.method_call_count, 19);
}

#[test]
fn program_snapshot_is_shared_until_changed() {
    let mut b = B::new();
    b.draw_arrays(5, &[(0, 3)]);
    b.draw_arrays(5, &[(0, 3)]);
    b.m(0x1E9C, 0);
    b.batch(0x0B80, &[1, 2, 3, 1], false);
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    assert!(std::sync::Arc::ptr_eq(
        &f.draws[0].vertex_program,
        &f.draws[1].vertex_program
    ));
    assert!(!std::sync::Arc::ptr_eq(
        &f.draws[1].vertex_program,
        &f.draws[2].vertex_program
    ));
    assert_eq!(f.draws[1].vertex_program[0], 0);
    assert_eq!(f.draws[2].vertex_program[0], 1);
    assert_ne!(f.draws[1].vp_hash, f.draws[2].vp_hash);
    assert_eq!(f.stats().distinct_vertex_programs, 2);
}

#[test]
fn texture_and_raster_state_are_shared_until_changed() {
    use std::sync::Arc;
    let mut b = B::new();
    b.draw_arrays(5, &[(0, 3)]);
    b.draw_arrays(5, &[(0, 3)]);
    // Fragment texture unit 3 enabled (SET_TEXTURE_CONTROL0 + 3 * 0x20, bit 31).
    b.m(0x1A0C + 3 * 0x20, 0x8000_0000);
    b.draw_arrays(5, &[(0, 3)]);
    // Blending on (SET_BLEND_ENABLE); the unit written again with the same value.
    b.m(0x0310, 1);
    b.m(0x1A0C + 3 * 0x20, 0x8000_0000);
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let d = &f.draws;
    assert!(Arc::ptr_eq(&d[0].textures, &d[1].textures));
    assert!(Arc::ptr_eq(&d[0].raster, &d[1].raster));
    assert!(!Arc::ptr_eq(&d[1].textures, &d[2].textures));
    assert!(!d[1].textures[3].control0.enabled && d[2].textures[3].control0.enabled);
    assert!(Arc::ptr_eq(&d[1].raster, &d[2].raster));
    assert!(Arc::ptr_eq(&d[2].textures, &d[3].textures));
    assert!(!Arc::ptr_eq(&d[2].raster, &d[3].raster));
    assert!(!d[2].raster.blend.enabled && d[3].raster.blend.enabled);
    assert!(d
        .windows(2)
        .all(|w| Arc::ptr_eq(&w[0].vertex_textures, &w[1].vertex_textures)));
    // Shared or not, each draw serializes its whole state.
    let json = serde_json::to_value(&d[3]).unwrap();
    assert_eq!(json["textures"].as_array().unwrap().len(), 16);
    assert_eq!(json["raster"]["blend"]["enabled"], json!(true));
}

#[test]
fn program_upload_past_memory_writes_what_fits_and_names_the_command() {
    let mut b = B::new();
    b.m(0x1E9C, 543);
    // Commands 2..=9 write words 2172..2180: the 5th word (command 6) is the first past the
    // 2176-word memory; the four before it are written (RPCS3 trims the write the same way).
    b.batch(0x0B80, &[1, 2, 3, 4, 5, 6, 7, 8], false);
    let draw = b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    assert_eq!(
        f.problems,
        [FrameProblem::ProgramOverflow {
            command: 6,
            word: 2176,
            words: 2176,
            dropped: 4,
        }]
    );
    assert_eq!(f.draws.len(), 1, "the draw after the upload still decodes");
    assert_eq!(f.draws[0].end_command, draw);
    assert_eq!(&f.draws[0].vertex_program[2172..], &[1, 2, 3, 4]);
}

#[test]
fn writes_the_front_end_refuses_leave_their_registers_as_they_were() {
    // Draw 0 with blending SRC_ALPHA / ONE_MINUS_SRC_ALPHA, a colour mask of RGB and culling
    // of back faces; then an invalid source factor (0x00FF is no factor), a colour mask with a
    // bit outside its channel bits, a cull face of 0x406 and a blend equation of 0, and a
    // stencil operation written valid: draw 1 keeps the first four as they were (RPCS3 rolls
    // such writes back, nv4097.cpp), each named once among the frame's problems.
    let mut b = B::new();
    b.m(0x0310, 1);
    b.m(0x0314, 0x0302_0302);
    b.m(0x0318, 0x0303_0303);
    b.m(0x0320, 0x8006_8006);
    b.m(0x0324, 0x0001_0101);
    b.m(0x1830, 0x0405);
    b.draw_arrays(5, &[(0, 3)]);
    let bad_factor = b.m(0x0314, 0x0302_00FF);
    let bad_mask = b.m(0x0324, 0x00FF_0000);
    let bad_cull = b.m(0x1830, 0x0406);
    let bad_equation = b.m(0x0320, 0);
    b.m(0x0344, 0x1E01);
    // The same invalid value again is refused again, and named again.
    let again = b.m(0x0314, 0x0302_00FF);
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let (d0, d1) = (&f.draws[0].raster, &f.draws[1].raster);
    assert_eq!(d1.blend, d0.blend);
    assert_eq!(d1.color_mask, d0.color_mask);
    assert_eq!(d1.modes, d0.modes);
    assert_ne!(d1.stencil, d0.stencil, "a valid write is taken");
    let refused: Vec<(usize, &str, u32, u32)> = f
        .problems
        .iter()
        .map(|p| match p {
            FrameProblem::RefusedWrite {
                command,
                method,
                value,
                kept,
            } => (*command, *method, *value, *kept),
            other => panic!("unexpected problem {other}"),
        })
        .collect();
    assert_eq!(
        refused,
        [
            (
                bad_factor,
                "NV4097_SET_BLEND_FUNC_SFACTOR",
                0x0302_00FF,
                0x0302_0302
            ),
            (bad_mask, "NV4097_SET_COLOR_MASK", 0x00FF_0000, 0x0001_0101),
            (bad_cull, "NV4097_SET_CULL_FACE", 0x0406, 0x0405),
            (bad_equation, "NV4097_SET_BLEND_EQUATION", 0, 0x8006_8006),
            (
                again,
                "NV4097_SET_BLEND_FUNC_SFACTOR",
                0x0302_00FF,
                0x0302_0302
            ),
        ]
    );
    assert!(f.problems[0]
        .to_string()
        .ends_with("the register keeps 0x03020302, as RPCS3 rolls such a write back"));
}

fn mvp_upload(b: &mut B, load: u32, rows: usize) {
    b.m(0x1EFC, load);
    let words: Vec<u32> = (0..rows * 4).map(|i| (i as f32 + 1.0).to_bits()).collect();
    b.batch(0x1F00, &words, false);
}

#[test]
fn constants_load_not_advanced_and_known_flags() {
    let mut b = B::new();
    mvp_upload(&mut b, 32, 4); // c32..c35 = 1..16
    b.draw_arrays(5, &[(0, 3)]);
    // A second packet without re-issuing LOAD writes c32 again (load is not auto-incremented).
    b.batch(0x1F00, &[7.0f32.to_bits(), 0, 0, 0], false);
    b.draw_arrays(5, &[(0, 3)]);
    // Constant 467 is the last writable one: load 466, 3 vec4s -> c466, c467, c468 dropped.
    b.m(0x1EFC, 466);
    b.batch(0x1F00, &[1; 12], false);
    // Non-increment: 3 arguments to register 0x1F04 fill c(load)[1..4], as RPCS3's
    // set_transform_constant takes a batch's arguments into the next registers.
    b.m(0x1EFC, 100);
    b.batch(0x1F04, &[1, 2, 3], true);
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let d0 = &f.draws[0];
    assert_eq!(
        d0.mvp(),
        Some([
            [1.0, 2.0, 3.0, 4.0],
            [5.0, 6.0, 7.0, 8.0],
            [9.0, 10.0, 11.0, 12.0],
            [13.0, 14.0, 15.0, 16.0]
        ])
    );
    assert!(!d0.constants.is_known(31) && !d0.constants.is_known(36));
    assert_eq!(f.draws[1].constants.get(32), Some([7.0, 0.0, 0.0, 0.0]));
    assert_eq!(f.draws[1].constants.get(33), Some([5.0, 6.0, 7.0, 8.0]));
    // Draw 0 keeps its snapshot.
    assert_eq!(d0.constants.get(32), Some([1.0, 2.0, 3.0, 4.0]));
    let d2 = &f.draws[2];
    assert!(d2.constants.is_known(466) && d2.constants.is_known(467));
    assert_eq!(f.dropped_constant_writes, 4);
    assert_eq!(d2.constants.raw(100), Some([0, 1, 2, 3]));
}

#[test]
fn a_non_increment_program_upload_restarts_at_its_register_past_the_block() {
    // 33 words to SET_TRANSFORM_PROGRAM[1], non-increment, load 0. RPCS3's handler writes up
    // to the block's end (31 words at word 1, load += (31 + 1) / 4 = 8), then the next handler
    // call the 2 left at word 8 * 4 + 1 (load += (2 + 1) / 4): words 1..=31 and 33..=34; word
    // 32 is not written.
    let mut b = B::new();
    b.m(0x1E9C, 0);
    let words: Vec<u32> = (1..=33).collect();
    b.batch(0x0B84, &words, true);
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let p = &f.draws[0].vertex_program;
    assert_eq!(&p[1..32], &words[..31]);
    assert_eq!(p[32], 0);
    assert_eq!(&p[33..35], &[32, 33]);
}

#[test]
fn the_recorders_copies_of_a_non_increment_program_upload_are_not_uploaded_again() {
    // 20 words to SET_TRANSFORM_PROGRAM[28], non-increment, load 0: the live run writes them
    // 4 at a time to words 0..20 (5 slots) and leaves load at 5. RPCS3's recorder records the
    // batch again, from the argument reached, at each handler call: 20, 16, 12, 8 and 4
    // arguments. A program already at slot 5 must keep its words.
    let mut b = B::new();
    b.m(0x1E9C, 5);
    b.batch(
        0x0B80,
        &[0xAAAA_0000, 0xAAAA_0001, 0xAAAA_0002, 0xAAAA_0003],
        false,
    );
    b.m(0x1E9C, 0);
    let words: Vec<u32> = (1..=20).collect();
    for start in (0..20).step_by(4) {
        b.batch(0x0B80 + 28 * 4, &words[start..], true);
    }
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let p = &f.draws[0].vertex_program;
    assert_eq!(&p[..20], &words[..]);
    assert_eq!(
        &p[20..24],
        &[0xAAAA_0000, 0xAAAA_0001, 0xAAAA_0002, 0xAAAA_0003]
    );
    assert_eq!(f.final_registers[0x1E9C / 4], 5, "load advanced once");
    // A batch of its own that repeats the tail (not directly after, or not a tail) is uploaded.
    let mut b = B::new();
    b.m(0x1E9C, 0);
    b.batch(0x0B80 + 28 * 4, &words, true);
    b.m(0x1EA0, 0); // SET_TRANSFORM_PROGRAM_START between the two
    b.batch(0x0B80 + 28 * 4, &words[4..], true);
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    assert_eq!(&f.draws[0].vertex_program[20..36], &words[4..]);
}

#[test]
fn a_512_slot_capture_has_544_slots_of_program_memory() {
    // RRC v3 to early v5 record 512 slots (2048 words); the RSX has 544. A program uploaded
    // at slot 520 lands there and a draw's program memory is 2176 words, which the vertex
    // decoder takes (it refused 2048).
    let mut b = B::new();
    b.c.reg_state.transform_program = vec![0; 2048];
    b.m(0x1E9C, 520);
    b.batch(0x0B80, &[1, 2, 3, 4], false);
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    let p = &f.draws[0].vertex_program;
    assert_eq!(p.len(), 2176);
    assert_eq!(&p[520 * 4..521 * 4], &[1, 2, 3, 4]);
}

#[test]
fn a_state_value_the_renderers_cannot_use_is_a_draw_problem() {
    // Depth test on with SET_DEPTH_FUNC 0xdead, and a front polygon mode 0xdead: named on the
    // draw (info and dump show it), which the renderers skip. The alpha function is checked
    // only while the alpha test is on. (The first problem is this bare capture's missing
    // fragment program.)
    let mut b = B::new();
    b.m(0x0A74, 1); // SET_DEPTH_TEST_ENABLE
    b.m(0x0A6C, 0xDEAD); // SET_DEPTH_FUNC
    b.m(0x1828, 0xDEAD); // SET_FRONT_POLYGON_MODE
    b.m(0x0308, 0xDEAD); // SET_ALPHA_FUNC, the alpha test off
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let problems: Vec<String> = f.draws[0].problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        problems[1..],
        [
            "NV4097_SET_FRONT_POLYGON_MODE 0x0000dead is not a valid value; the renderers skip the draw",
            "NV4097_SET_DEPTH_FUNC 0x0000dead is not a valid value; the renderers skip the draw",
        ]
    );
}

#[test]
fn mvp_null_when_one_row_unknown_and_block_makes_all_known() {
    let mut b = B::new();
    mvp_upload(&mut b, 32, 3); // c32..c34 only
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    assert_eq!(f.draws[0].mvp(), None);
    assert_eq!(
        serde_json::to_value(f.draws[0].summary()).unwrap()["mvp"],
        json!(null)
    );
    // With the optional constants block every constant is known from the start.
    let mut block = vec![[0u32; 4]; 512];
    block[35] = [0.5f32.to_bits(); 4];
    b.c.reg_state.transform_constants = Some(block);
    let f = b.frame();
    let mvp = f.draws[0].mvp().unwrap();
    assert_eq!(mvp[0], [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(mvp[3], [0.5; 4]);
}

#[test]
fn immediate_attributes_through_the_frame() {
    let mut b = B::new();
    b.batch(
        0x1C00 + 16 * 3,
        &[
            1.0f32.to_bits(),
            2.0f32.to_bits(),
            3.0f32.to_bits(),
            4.0f32.to_bits(),
        ],
        false,
    );
    b.m(0x1940 + 4 * 2, 0xFF00_FF00);
    b.m(0x1880 + 8, 0.5f32.to_bits()); // attribute 1 2F: only x
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let imm = &f.draws[0].vertex_inputs.immediate;
    assert_eq!(imm[3], ImmediateValue::Known([1.0, 2.0, 3.0, 4.0]));
    // 4UB 0xFF00FF00: x = bits 0..7.
    assert_eq!(imm[2], ImmediateValue::Known([0.0, 1.0, 0.0, 1.0]));
    // Only x of attribute 1's 2F was written: y is read as the zero word by RPCS3's replay.
    assert_eq!(
        imm[1],
        ImmediateValue::Partial {
            replayed: [0.5, 0.0, 0.0, 1.0]
        }
    );
    assert_eq!(imm[0], ImmediateValue::Unknown);
}

#[test]
fn draws_in_end_order_with_ranges_and_index_arrays() {
    let mut b = B::new();
    let e0 = b.draw_arrays(6, &[(0, 4), (10, 256), (300, 1)]);
    // Indexed draw: u16 indices in main memory at 0x2000.
    b.m(0x181C, 0xE000_2000); // bits 29..31 ignored
    b.m(0x1820, 0x11); // location main, type 1 = u16
    b.m(0x1808, 8);
    b.m(0x1824, (5 << 24) | 4);
    b.m(0x1824, 2);
    let e1 = b.m(0x1808, 0);
    // Inline array: attribute 0 F x3 (12 bytes) -> 6 words = 2 vertices.
    b.m(0x1740, 0x0000_0C32);
    b.m(0x1808, 4);
    for w in 0..6 {
        b.m(0x1818, w);
    }
    let e2 = b.m(0x1808, 0);
    b.m(0x1808, 1);
    b.m(0x180C, 0x0003_0002);
    b.m(0x1810, 9);
    let e3 = b.m(0x1808, 0);
    let f = b.frame();
    assert_eq!(f.draws.len(), 4);
    let ends: Vec<_> = f.draws.iter().map(|d| d.end_command).collect();
    assert_eq!(ends, vec![e0, e1, e2, e3]);
    assert_eq!(
        f.draws.iter().map(|d| d.index).collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
    let d0 = &f.draws[0];
    assert_eq!(d0.primitive, Primitive::TriangleStrip);
    assert_eq!(
        d0.ranges,
        vec![
            DrawRange { first: 0, count: 4 },
            DrawRange {
                first: 10,
                count: 256
            },
            DrawRange {
                first: 300,
                count: 1
            }
        ]
    );
    assert_eq!(d0.vertex_count, 261);
    assert!(!d0.indexed);
    let d1 = &f.draws[1];
    assert!(d1.indexed);
    assert_eq!(d1.primitive, Primitive::Quads);
    assert_eq!(d1.vertex_count, 7);
    let idx = d1.index_array.unwrap();
    assert_eq!(
        (idx.ty, idx.offset, idx.location),
        (IndexType::U16, 0x2000, Location::Main)
    );
    assert!(
        matches!(&d1.vertex_inputs.source, VertexSource::Indexed { ranges, .. } if ranges.len() == 2)
    );
    let d2 = &f.draws[2];
    assert_eq!(d2.primitive, Primitive::LineStrip);
    assert_eq!(d2.vertex_count, 2);
    assert!(
        matches!(&d2.vertex_inputs.source, VertexSource::Inline { words } if words == &[0, 1, 2, 3, 4, 5])
    );
    let d3 = &f.draws[3];
    assert!(
        matches!(&d3.vertex_inputs.source, VertexSource::Elements { indices } if indices == &[2, 3, 9])
    );
    assert_eq!(d3.vertex_count, 3);
    let s = serde_json::to_value(d1.summary()).unwrap();
    assert_eq!(s["primitive"], "quads");
    // (2, 1) starts before (4, 6) and does not continue it: RPCS3 keeps it first
    // (`draw_clause::append` inserts by `first`).
    assert_eq!(
        s["ranges"],
        json!([{"first": 2, "count": 1}, {"first": 4, "count": 6}])
    );
}

/// A program longer than the window read through one gathering of the visible blocks (128
/// slots): every slot, inside the window and past it, is the newest block's, and draws that
/// read the same program share it.
#[test]
fn a_long_fragment_program_reads_the_newest_block_of_every_slot() {
    use std::sync::Arc;
    let slot = |w0: u32, w1: u32| -> Vec<u8> {
        [w0, w1, 0, 0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect()
    };
    // 200 instructions (opcode 2, no constant operand), the last with END (opcode 1, bit 8).
    let mut program: Vec<u8> = (0..199).flat_map(|k| slot(0x0002_0000, k)).collect();
    program.extend(slot(0x0001_0100, 199));
    let mut b = B::new();
    b.m(0x08E4, 0x0000_1001); // SET_SHADER_PROGRAM: local, offset 0x1000
    b.attach(0, 0x1000, program.clone());
    b.draw_arrays(5, &[(0, 3)]);
    b.draw_arrays(5, &[(0, 3)]);
    // Newer blocks over slot 5 (inside the window) and slot 150 (past it).
    b.m(0x0310, 0);
    b.attach(0, 0x1000 + 5 * 16, slot(0x0002_0000, 0xAAAA));
    b.attach(0, 0x1000 + 150 * 16, slot(0x0002_0000, 0xBBBB));
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let [p0, p1, p2] = [0, 1, 2].map(|d| f.draws[d].fragment_program.clone().unwrap());
    assert_eq!(p0.slot_count, 200);
    assert_eq!(p0.ucode, program);
    assert!(Arc::ptr_eq(&p0, &p1));
    let mut patched = program.clone();
    patched[5 * 16..6 * 16].copy_from_slice(&slot(0x0002_0000, 0xAAAA));
    patched[150 * 16..151 * 16].copy_from_slice(&slot(0x0002_0000, 0xBBBB));
    assert_eq!(p2.ucode, patched);
    assert_eq!(p2.slot_count, 200);
}

#[test]
fn fragment_program_from_memory_attached_at_end() {
    let mut b = B::new();
    b.m(0x08E4, 0x0000_1001); // local, offset 0x1000
                              // Slot 0 zero (skipped), slot 1 instruction with w1 source type 2, slot 2 constant,
                              // slot 3 END. Then trailing garbage.
    let words: [u32; 20] = [
        0,
        0,
        0,
        0, //
        0x0002_0000,
        0x0000_0200,
        0,
        0, //
        0x3F80_0000,
        0,
        0,
        0, //
        0x0001_0100,
        0,
        0,
        0, //
        0xFFFF_FFFF,
        0xFFFF_FFFF,
        0xFFFF_FFFF,
        0xFFFF_FFFF,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    b.m(0x1808, 5);
    b.m(0x1814, 0x0200_0000);
    b.m(0x1808, 0);
    b.attach(0, 0x1000, bytes.clone());
    // A second draw with the same program but a different inline constant.
    b.m(0x1808, 5);
    b.m(0x1814, 0x0200_0000);
    b.m(0x1808, 0);
    let mut other = bytes.clone();
    other[32..36].copy_from_slice(&2.0f32.to_bits().to_le_bytes());
    b.attach(0, 0x1000, other);
    let f = b.frame();
    let p0 = f.draws[0].fragment_program.as_ref().unwrap();
    assert_eq!(p0.start_slot, 1);
    assert_eq!(p0.constant_slots, vec![1]);
    assert_eq!(p0.ucode, bytes[16..64].to_vec());
    let mut hashed = bytes[16..64].to_vec();
    hashed[16..32].fill(0);
    assert_eq!(p0.hash, xxh3_64(&hashed));
    let p1 = f.draws[1].fragment_program.as_ref().unwrap();
    assert_ne!(p0.ucode, p1.ucode);
    assert_eq!(f.draws[0].fp_hash(), f.draws[1].fp_hash());
    assert_eq!(f.stats().distinct_fragment_programs, 1);
    let s = serde_json::to_value(f.draws[0].summary()).unwrap();
    assert_eq!(s["fp"], json!({"location": "local", "offset": 0x1000}));
    assert_eq!(s["fp_hash"], json!(format!("{:016x}", xxh3_64(&hashed))));
}

#[test]
fn missing_memory_is_a_per_draw_problem_and_views_are_per_draw() {
    let mut b = B::new();
    b.m(0x08E4, 0x0000_2002); // main, 0x2000: never captured before draw 0's END
    b.draw_arrays(5, &[(0, 3)]);
    b.draw_arrays(5, &[(0, 3)]);
    b.attach(1, 0x2000, FP_ONE.to_vec());
    b.m(0x08E4, 0x0000_0003); // location field 3: invalid
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    assert_eq!(
        f.draws[0].problems,
        vec![DrawProblem::FragmentProgram(FragmentError::MissingMemory {
            location: Location::Main,
            offset: 0x2000,
            slot: 0
        })]
    );
    let s = serde_json::to_value(f.draws[0].summary()).unwrap();
    assert_eq!(s["fp"], json!({"location": "main", "offset": 0x2000}));
    assert_eq!(s["fp_hash"], json!(null));
    assert!(f.draws[1].problems.is_empty());
    assert_eq!(
        f.draws[1].fragment_program.as_ref().unwrap().hash,
        xxh3_64(&FP_ONE)
    );
    assert_eq!(
        f.draws[2].problems,
        vec![DrawProblem::FragmentAddress { raw: 3 }]
    );
    assert_eq!(
        serde_json::to_value(f.draws[2].summary()).unwrap()["fp"],
        json!(null)
    );
    // Memory views: draw 0 does not see the block attached at draw 1's END.
    assert_eq!(f.memory(0).unwrap().read(Location::Main, 0x2000, 16), None);
    assert_eq!(
        f.memory(1)
            .unwrap()
            .read(Location::Main, 0x2000, 16)
            .as_deref(),
        Some(&FP_ONE[..])
    );
    assert_eq!(
        f.memory(2)
            .unwrap()
            .read(Location::Main, 0x2004, 4)
            .as_deref(),
        Some(&FP_ONE[4..8])
    );
    assert!(f.memory(3).is_none());
    assert_eq!(f.stats().draws_with_problems, 2);
}

#[test]
fn memory_newest_wins_across_draws() {
    let mut b = B::new();
    b.draw_arrays(5, &[(0, 3)]);
    b.attach(0, 0x100, vec![1; 32]);
    b.draw_arrays(5, &[(0, 3)]);
    b.attach(0, 0x108, vec![2; 8]);
    let f = b.frame();
    let m0 = f.memory(0).unwrap();
    let m1 = f.memory(1).unwrap();
    let read =
        |m: &MemoryView, offset, len| m.read(Location::Local, offset, len).map(|b| b.into_owned());
    assert_eq!(read(&m0, 0x108, 8), Some(vec![1; 8]));
    assert_eq!(read(&m1, 0x108, 8), Some(vec![2; 8]));
    assert_eq!(
        read(&m1, 0x100, 16),
        Some([[1; 8], [2; 8]].concat()),
        "newer block over part of the range: its bytes there, the older's around them"
    );
    assert_eq!(read(&m1, 0x110, 16), Some(vec![1; 16]));
    let st = f.stats();
    assert_eq!((st.memory_blocks, st.memory_bytes), (2, 40));
}

#[test]
fn texture_surface_blend_state_from_methods() {
    let mut b = B::new();
    let t = 0x1A00 + 0x20 * 2;
    b.m(t, 0x0040_0000);
    b.m(t + 4, 0x0009_A126); // main, cubemap, dimension 2, format 0xA1 = B8|LN, 9 mips
    b.m(t + 8, 0x0003_0202);
    b.m(t + 0xC, 0x8000_0000 | (2048 << 7));
    b.m(t + 0x18, (512 << 16) | 256);
    b.m(0x1840 + 8, 512);
    b.m(0x0208, 0x0809_0125); // log2 h 8, log2 w 9, pitch, z16 (1 << 5), x8r8g8b8_o 5
    b.m(0x0220, 0x1F);
    b.m(0x0310, 1);
    b.m(0x0320, (0x800A << 16) | 0xF006);
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let d = &f.draws[0];
    let tex = &d.textures[2];
    assert_eq!(tex.offset, 0x0040_0000);
    assert_eq!(tex.location, Some(Location::Main));
    assert!(tex.format.cubemap && tex.format.linear);
    assert_eq!(tex.format.dimension, 2);
    assert_eq!(tex.format.base_format.name, Some("b8"));
    assert_eq!(tex.format.mip_count, 9);
    assert_eq!(tex.address.wrap_s.name, Some("mirror"));
    assert_eq!(tex.address.wrap_t.name, Some("mirror"));
    assert_eq!(tex.address.wrap_r.name, Some("clamp_to_edge"));
    assert!(tex.control0.enabled);
    assert_eq!(tex.control0.max_lod, 8.0);
    assert_eq!((tex.width, tex.height, tex.pitch), (512, 256, 512));
    assert!(!d.textures[0].control0.enabled);
    assert_eq!(
        d.surface.format.color_format.name,
        Some("x8r8g8b8_o8r8g8b8")
    );
    assert_eq!(d.surface.format.depth_format.name, Some("z16"));
    assert_eq!(
        (d.surface.format.log2_width, d.surface.format.log2_height),
        (9, 8)
    );
    assert_eq!(d.surface.color_target.name, Some("a_b_c_d"));
    assert!(d.raster.blend.enabled);
    assert_eq!(d.raster.blend.equation_rgb.name, Some("add_signed"));
    assert_eq!(d.raster.blend.equation_alpha.name, Some("subtract"));
    let j = serde_json::to_value(d).unwrap();
    assert_eq!(j["textures"][2]["format"]["base_format"], "b8");
}

#[test]
fn summary_has_exactly_the_documented_keys() {
    let mut b = B::new();
    b.draw_arrays(5, &[(0, 3)]);
    let f = b.frame();
    let s = serde_json::to_value(f.draws[0].summary()).unwrap();
    let mut keys: Vec<_> = s.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "end_command",
            "fp",
            "fp_hash",
            "index",
            "indexed",
            "mvp",
            "part",
            "primitive",
            "ranges",
            "vertex_count",
            "vp_hash",
            "vp_start"
        ]
    );
    assert_eq!(s["primitive"], "triangles");
    assert_eq!(s["vp_hash"].as_str().unwrap().len(), 16);
}

/// A draw of three vertices after whatever came before; returns its END command.
fn draw_after(b: &mut B) -> usize {
    b.draw_arrays(5, &[(0, 3)])
}

#[test]
fn malformed_streams_are_skipped_naming_the_command() {
    // A continuation entry with no batch pending: skipped with the continuations after it.
    let mut b = B::new();
    b.m(0x1808, 5);
    for second in [1, 2] {
        b.c.commands.push(ReplayCommand {
            first: 0,
            second,
            ..Default::default()
        });
    }
    b.m(0x1808, 0);
    let end = draw_after(&mut b);
    let f = b.frame();
    assert_eq!(
        f.problems,
        [FrameProblem::Stream(StreamError::DanglingContinuation {
            command: 2
        })]
    );
    assert_eq!(
        f.draws.len(),
        2,
        "the draw around the stretch and the one after"
    );
    assert_eq!(f.draws[1].end_command, end);

    // A header with jump bits: skipped, and so is its continuation entry.
    let mut b = B::new();
    for (first, second) in [(0x2000_0100, 0), (0, 7)] {
        b.c.commands.push(ReplayCommand {
            first,
            second,
            ..Default::default()
        });
    }
    draw_after(&mut b);
    let f = b.frame();
    assert_eq!(
        f.problems,
        [FrameProblem::Stream(StreamError::NotAMethod {
            command: 1,
            first: 0x2000_0100
        })]
    );
    assert_eq!(f.draws.len(), 1);

    // A batch announcing more arguments than the capture holds: the entries left are its
    // arguments (the reader's countdown takes them), and the problem names it.
    let mut b = B::new();
    for (first, second) in [(hdr(0x1F00, 8, false), 0x3F80_0000), (0, 0x4000_0000)] {
        b.c.commands.push(ReplayCommand {
            first,
            second,
            ..Default::default()
        });
    }
    let f = b.frame();
    assert_eq!(
        f.problems,
        [FrameProblem::Stream(StreamError::UnterminatedBatch {
            command: 1,
            count: 8,
            available: 2
        })]
    );
    // Named with what became of it, and serialized with both tags.
    assert!(f.problems[0]
        .to_string()
        .ends_with("only 2 entries remain; the entries left are its arguments"));
    assert_eq!(
        serde_json::to_value(&f.problems[0]).unwrap(),
        json!({"kind": "stream", "stream": "unterminated_batch", "command": 1, "count": 8, "available": 2})
    );
    assert_eq!(f.final_registers[0x7C0..0x7C2], [0x3F80_0000, 0x4000_0000]);

    // An increment batch past register 0x3FFF.
    let mut b = B::new();
    b.batch(0xFFFC, &[1, 2], false);
    draw_after(&mut b);
    let f = b.frame();
    assert!(matches!(
        f.problems[..],
        [FrameProblem::Stream(StreamError::RegisterOverflow {
            command: 1,
            reg: 0x3FFF,
            count: 2
        })]
    ));
    assert_eq!(f.draws.len(), 1);

    // A memory block id not in the memory map: left out, the draw still decodes.
    let mut b = B::new();
    b.m(0x1808, 5);
    b.c.commands[1].memory.push(0x4242);
    b.m(0x1814, 2 << 24);
    b.m(0x1808, 0);
    let f = b.frame();
    assert_eq!(
        f.problems,
        [FrameProblem::UnknownBlock {
            command: 1,
            id: 0x4242
        }]
    );
    assert_eq!(f.draws.len(), 1);

    // What is still an error: a register-state snapshot of no known size.
    let mut b = B::new();
    b.c.reg_state.registers.truncate(100);
    assert!(matches!(
        Frame::from_capture(&b.c),
        Err(FrameError::BadRegState { .. })
    ));
    // The stream's own iterator still reports the first error to callers that want a
    // well-formed stream.
    let mut b = B::new();
    b.c.commands.push(ReplayCommand::default());
    assert_eq!(
        rsxtrace_frame::collect_method_calls(&b.c.commands),
        Err(StreamError::DanglingContinuation { command: 1 })
    );
}

#[test]
fn structural_problems_do_not_stop_decoding() {
    let mut b = B::new();
    let stray = b.m(0x1814, 0);
    let end0 = b.m(0x1808, 0);
    let open = b.m(0x1808, 5);
    let begin2 = b.m(0x1808, 6);
    b.m(0x1814, 0);
    b.m(0x1808, 0);
    let bad = b.m(0x1808, 11);
    b.m(0x1808, 0);
    let last = b.m(0x1808, 1);
    let f = b.frame();
    assert_eq!(f.draws.len(), 1);
    assert_eq!(f.draws[0].begin_command, begin2);
    assert_eq!(
        f.problems,
        vec![
            FrameProblem::DrawMethodOutsideScope {
                command: stray,
                method: "NV4097_DRAW_ARRAYS"
            },
            FrameProblem::EndWithoutBegin { command: end0 },
            FrameProblem::BeginWhileOpen {
                command: begin2,
                open
            },
            FrameProblem::InvalidPrimitive {
                command: bad,
                value: 11
            },
            FrameProblem::UnclosedDraw { begin: last },
        ]
    );
}

#[test]
fn arbitrary_commands_never_panic() {
    let mut rng = rsxtrace_testkit::rng::XorShift64(0x9E37_79B9_7F4A_7C15);
    let mut rnd = move || rng.next_u64();
    let interesting = [
        0x1808u32, 0x1814, 0x1824, 0x1818, 0x180C, 0x0B80, 0x1F00, 0x1E9C, 0x1EFC, 0x1EA0, 0x08E4,
        0x1820, 0x1740,
    ];
    for _ in 0..300 {
        let mut b = B::new();
        for _ in 0..40 {
            let r = rnd();
            let byte =
                interesting[(r % interesting.len() as u64) as usize] + 4 * ((r >> 8) % 3) as u32;
            let count = ((r >> 16) % 4) as u32;
            b.c.commands.push(ReplayCommand {
                first: hdr(byte, count, r & 1 << 40 != 0),
                second: (r >> 32) as u32,
                ..Default::default()
            });
            if r & 1 << 41 != 0 {
                b.c.commands.push(ReplayCommand {
                    first: 0,
                    second: (r >> 20) as u32,
                    ..Default::default()
                });
            }
            if r & 1 << 42 != 0 {
                b.attach(
                    (r >> 43) as u32 & 1,
                    (r >> 8) as u32 & 0xFFF,
                    vec![(r >> 50) as u8; (r % 64) as usize],
                );
            }
        }
        let _ = Frame::from_capture(&b.c);
    }
}

/// Genuine fragment programs (CgBinaryProgram files: big-endian header, `ucodeSize` at 0x18 and
/// the ucode offset at 0x1C): the END scan must delimit exactly the compiler's ucode.
#[test]
fn corpus_fragment_programs_are_delimited_exactly() {
    let Some(corpus) = rsxtrace_testkit::workspace!().corpus() else {
        return;
    };
    let mut checked = 0;
    for item in &corpus.manifest_items() {
        let file = item["file"].as_str().unwrap();
        if !file.ends_with(".fpo") {
            continue;
        }
        let raw = corpus.read(file);
        let be = |o: usize| u32::from_be_bytes(raw[o..o + 4].try_into().unwrap()) as usize;
        let (size, at) = (be(0x18), be(0x1C));
        // The manifest names the microcode size for most programs (not for every later
        // addition); where it does, the container's header must agree with it.
        if let Some(listed) = item["info"]["ucode_size"].as_u64() {
            assert_eq!(size as u64, listed, "{file}");
        }
        let ucode = raw[at..at + size].to_vec();
        let mut with_tail = ucode.clone();
        with_tail.extend_from_slice(&[0xFF; 64]);
        let mut b = B::new();
        b.m(0x08E4, 0x0010_0001);
        b.draw_arrays(5, &[(0, 3)]);
        b.attach(0, 0x0010_0000, with_tail);
        let f = b.frame();
        let p = f.draws[0]
            .fragment_program
            .as_ref()
            .unwrap_or_else(|| panic!("{file}: {:?}", f.draws[0].problems));
        assert_eq!(p.start_slot, 0, "{file}");
        assert_eq!(p.ucode, ucode, "{file}");
        // Each slot is 16 bytes of microcode (rsx-microcode.md B.1); the manifest's count,
        // where it gives one, must agree.
        assert_eq!(p.slot_count as usize * 16, ucode.len(), "{file}");
        if let Some(listed) = item["info"]["slots"].as_u64() {
            assert_eq!(p.slot_count as u64, listed, "{file}");
        }
        checked += 1;
    }
    assert!(
        checked >= 5,
        "only {checked} fragment programs in the corpus"
    );
}
