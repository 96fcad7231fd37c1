//! Flow analysis on hand-laid programs (nouveau-order words; field values from
//! rsx-microcode.md B.1, computed in the comments).

use rsxtrace_program::flow::{analyze, DepSet, FragmentFlow};
use rsxtrace_program::fragment::{decode_words, FpOpcode, InputAttribute as A};

fn flow(words: &[u32]) -> FragmentFlow {
    analyze(&decode_words(words).unwrap())
}

fn inputs(attrs: &[A]) -> DepSet {
    attrs
        .iter()
        .fold(DepSet::EMPTY, |d, &a| d.union(DepSet::input(a)))
}

fn output<'a>(f: &'a FragmentFlow, name: &str) -> &'a [DepSet; 4] {
    &f.outputs
        .iter()
        .find(|o| o.register == name)
        .unwrap()
        .components
}

// SRC0 = input, identity swizzle, TR with identity condition swizzle.
const IN: u32 = 0x1C9DC801;

#[test]
fn texture_then_multiply() {
    // TEX R0, f[TEX0], TEX0: 0x17009E00. MUL R0, R0, f[COL0] END: opcode 2 | COL0 1<<13 |
    // mask 0x1E00 | end = 0x02003E01; SRC0 R0 0x1C9DC800; SRC1 input 0x0001C801.
    let f = flow(&[0x17009E00, IN, 0, 0, 0x02003E01, 0x1C9DC800, 0x0001C801, 0]);
    let expected = DepSet::texture(0).union(inputs(&[A::tex(0), A::COL0]));
    assert_eq!(output(&f, "R0"), &[expected; 4]);
    // H0 aliases the low half of R0.
    assert_eq!(output(&f, "H0"), &[expected; 4]);
    assert_eq!(output(&f, "R2"), &[DepSet::EMPTY; 4]);
    assert_eq!(f.textures.len(), 1);
    assert_eq!((f.textures[0].slot, f.textures[0].unit), (0, 0));
    assert_eq!(f.textures[0].coordinate, inputs(&[A::tex(0)]));
    assert!(!f.has_kill && f.complete);
}

#[test]
fn per_component_and_half_aliasing() {
    // MOV R0.x, f[COL0]: mask x 1<<9 | COL0 1<<13 = 0x01002200.
    // MOV R0.y, f[COL1] END: mask y 2<<9 | COL1 2<<13 | end = 0x01004401.
    let f = flow(&[0x01002200, IN, 0, 0, 0x01004401, IN, 0, 0]);
    let (c0, c1) = (inputs(&[A::COL0]), inputs(&[A::COL1]));
    assert_eq!(output(&f, "R0"), &[c0, c1, DepSet::EMPTY, DepSet::EMPTY]);
    // H0.xy = R0.x, H0.zw = R0.y (B.3).
    assert_eq!(output(&f, "H0"), &[c0, c0, c1, c1]);
}

#[test]
fn conditional_write_merges_cc() {
    // MOVRC RC.x, f[COL0]: 0x01002200 | set_cond 0x100 | no_dest 1<<30 = 0x41002300.
    // MOV R0 (NE.xxxx), f[TEX0] END: TEX0 4<<13 | mask 0x1E00 | end = 0x01009E01; SRC0 input
    // 0x1C801 | NE 5<<18 (0x140000) | condition swizzle xxxx = 0x0015C801.
    let f = flow(&[0x41002300, IN, 0, 0, 0x01009E01, 0x0015C801, 0, 0]);
    assert_eq!(output(&f, "R0"), &[inputs(&[A::tex(0), A::COL0]); 4]);
}

#[test]
fn if_else_merges_both_paths_and_condition() {
    // 0 MOVRC RC.x, f[COL1]: 0x41004300.
    // 1 IFE (NE.xxxx) else @3 end @4: 0x42000000, SRC0 0x00140000, SRC1 0x8000000C, SRC2 0x10.
    // 2 MOV R0, f[TEX0]: 0x01009E00.   3 MOV R0, f[TEX1]: TEX1 5<<13 -> 0x0100BE00.
    // 4 MOV R2, f[COL0] END: R2 2<<1 -> 0x01003E05.
    let f = flow(&[
        0x41004300, IN, 0, 0, //
        0x42000000, 0x00140000, 0x8000000C, 0x10, //
        0x01009E00, IN, 0, 0, //
        0x0100BE00, IN, 0, 0, //
        0x01003E05, IN, 0, 0,
    ]);
    assert_eq!(
        output(&f, "R0"),
        &[inputs(&[A::tex(0), A::tex(1), A::COL1]); 4]
    );
    assert_eq!(output(&f, "R2"), &[inputs(&[A::COL0]); 4]);
}

#[test]
fn loop_reaches_a_fixed_point() {
    // 0 MOV R1, f[COL0]: 0x01003E02.   1 MOV R2, f[TEX0]: 0x01009E04.
    // 2 LOOP count 4 (4<<2) end @5 (20 dwords): 0x43000000, 0x1C9C0000, 0x80000010, 0x14.
    // 3 MOV R0, R1: 0x01001E00, 0x1C9DC804.   4 MOV R1, R2: 0x01001E02, 0x1C9DC808.
    // 5 MOV R4, f[WPOS] END: R4 4<<1, WPOS 0 -> 0x01001E09.
    let f = flow(&[
        0x01003E02, IN, 0, 0, //
        0x01009E04, IN, 0, 0, //
        0x43000000, 0x1C9C0000, 0x80000010, 0x14, //
        0x01001E00, 0x1C9DC804, 0, 0, //
        0x01001E02, 0x1C9DC808, 0, 0, //
        0x01001E09, IN, 0, 0,
    ]);
    // One pass would give R0 = {COL0}; the second iteration reads R1 = R2 = {TEX0}.
    assert_eq!(output(&f, "R0"), &[inputs(&[A::COL0, A::tex(0)]); 4]);
    assert_eq!(output(&f, "R4"), &[inputs(&[A::WPOS]); 4]);
}

#[test]
fn kill_condition() {
    // MOVRC RC, f[FOGC]: 0x01000000 | FOGC 3<<13 | mask 0x1E00 | 0x100 | 1<<30 = 0x41007F00.
    // KIL (LT.xxxx) END: 0x12<<24 | no_dest | end = 0x52000001; SRC0 LT 1<<18 = 0x00040000.
    let f = flow(&[0x41007F00, IN, 0, 0, 0x52000001, 0x00040000, 0, 0]);
    assert!(f.has_kill);
    assert_eq!(f.discard, inputs(&[A::FOGC]));
}

#[test]
fn depth_and_texture_coordinate_through_a_register() {
    // MOV R1.z, f[TEX2]: mask z 4<<9 | TEX2 6<<13 | R1 1<<1 = 0x0100C802.
    // TEX R0, R1, TEX3 END: 0x17<<24 | unit 3<<17 | mask 0x1E00 | end = 0x17061E01; SRC0 R1.
    let f = flow(&[0x0100C802, IN, 0, 0, 0x17061E01, 0x1C9DC804, 0, 0]);
    let t2 = inputs(&[A::tex(2)]);
    assert_eq!(output(&f, "R1.z (depth)")[2], t2);
    assert_eq!((f.textures[0].slot, f.textures[0].unit), (1, 3));
    assert_eq!(f.textures[0].coordinate, t2);
    assert_eq!(output(&f, "R0"), &[t2.union(DepSet::texture(3)); 4]);
    let json = serde_json::to_value(&f).unwrap();
    assert_eq!(json["textures"][0]["coordinate"]["inputs"][0], "TEX2");
}

#[test]
fn break_state_and_condition_reach_the_loop_exit() {
    // 0 MOV R0, f[COL0]: 0x01003E00.   1 MOVRC RC.x, f[COL1]: 0x41004300.
    // 2 LOOP count 4 end @5 (20 dwords): 0x43000000, 0x1C9C0000, 0x80000010, 0x14.
    // 3 BRK (NE.xxxx): 0x40000000, SRC0 NE 5<<18 = 0x00140000, SRC1 branch 0x80000000.
    // 4 MOV R0, f[TEX0]: 0x01009E00.   5 MOV R2, f[WPOS] END: 0x01001E05.
    let f = flow(&[
        0x01003E00, IN, 0, 0, //
        0x41004300, IN, 0, 0, //
        0x43000000, 0x1C9C0000, 0x80000010, 0x14, //
        0x40000000, 0x00140000, 0x80000000, 0, //
        0x01009E00, IN, 0, 0, //
        0x01001E05, IN, 0, 0,
    ]);
    // R0 keeps COL0 on the break path, gets TEX0 otherwise, and the write after BRK is
    // control-dependent on its condition (COL1).
    assert_eq!(
        output(&f, "R0"),
        &[inputs(&[A::COL0, A::tex(0), A::COL1]); 4]
    );
    // Code after the loop always runs: no control dependency.
    assert_eq!(output(&f, "R2"), &[inputs(&[A::WPOS]); 4]);
}

#[test]
fn inputs_read_names_read_input_sources_and_indexed_texture_coordinates() {
    // The program of `texture_then_multiply`: TEX0 (bit 4) and COL0 (bit 1).
    let words = [0x17009E00, IN, 0, 0, 0x02003E01, 0x1C9DC800, 0x0001C801, 0];
    let program = decode_words(&words).unwrap();
    assert_eq!(program.inputs_read(), (1 << 4) | (1 << 1));
    // The TEX's coordinate indexed by the loop counter (SRC2 bit 30): any of TEX0..TEX9.
    let mut indexed = words;
    indexed[3] = 1 << 30;
    let program = decode_words(&indexed).unwrap();
    assert_eq!(program.inputs_read(), (0x3FF << 4) | (1 << 1));
    // KIL reads no operand: its input-type SRC0 naming COL1 (input field 2 << 13) is not a read.
    let mut with_kil = vec![0x1200_4000, IN, 0, 0];
    with_kil.extend(words);
    let program = decode_words(&with_kil).unwrap();
    assert_eq!(program.inputs_read(), (1 << 4) | (1 << 1));
}

#[test]
fn texture_units_read_are_the_units_of_the_texture_instructions() {
    // The program of `texture_then_multiply`: TEX, then MUL.
    let words = [0x17009E00, IN, 0, 0, 0x02003E01, 0x1C9DC800, 0x0001C801, 0];
    let mut program = decode_words(&words).unwrap();
    program.instructions[0].texture_unit = 3;
    assert_eq!(program.texture_units_read(), 1 << 3);
    program.instructions[1].opcode = FpOpcode::Txp;
    program.instructions[1].texture_unit = 15;
    assert_eq!(program.texture_units_read(), (1 << 3) | (1 << 15));
    // A unit field on an instruction that samples nothing is no unit read.
    program.instructions[0].opcode = FpOpcode::Mov;
    assert_eq!(program.texture_units_read(), 1 << 15);
}
