//! Genuine vertex programs from `shared/corpus` decode with their known facts (MANIFEST.json).
//! The ucode is located minimally here: CgBinaryProgram `ucodeSize` at byte 0x18 and `ucode`
//! offset at 0x1C (RPCS3 `CgBinaryProgram.h`); Tiny3D `VP` container `NumInsts` (u16) at 2 and
//! `UCodeOffset` (u32) at 4 (Tiny3D `realityVP.h`, MANIFEST.json).

use rsxtrace_program::vertex::{self, ScalarOpcode, VectorOpcode, VertexProgram};

fn be32(b: &[u8], at: usize) -> usize {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

fn cg_ucode(name: &str) -> Option<Vec<u8>> {
    let b = rsxtrace_testkit::workspace!().corpus()?.read(name);
    let (size, off) = (be32(&b, 0x18), be32(&b, 0x1c));
    Some(b[off..off + size].to_vec())
}

fn manifest_info(file: &str) -> Option<serde_json::Value> {
    rsxtrace_testkit::workspace!().corpus()?.manifest_info(file)
}

fn ops(p: &VertexProgram) -> (Vec<u64>, Vec<u64>) {
    let mut v: Vec<u64> = p
        .instructions
        .iter()
        .map(|i| u64::from(i.vector.code()))
        .collect();
    let mut s: Vec<u64> = p
        .instructions
        .iter()
        .map(|i| u64::from(i.scalar.code()))
        .collect();
    v.sort_unstable();
    v.dedup();
    s.sort_unstable();
    s.dedup();
    (v, s)
}

fn as_u64s(v: &serde_json::Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

#[test]
fn cube_program() {
    let Some(ucode) = cg_ucode("ps3autotests/sce_cube_common.vpo") else {
        return;
    };
    let p = vertex::decode_bytes(&ucode).unwrap();
    assert_eq!(p.instructions.len(), 6);
    let dp4: Vec<_> = p
        .instructions
        .iter()
        .filter(|i| i.vector == VectorOpcode::Dp4)
        .collect();
    assert_eq!(dp4.len(), 4);
    let mut consts: Vec<u16> = dp4.iter().map(|i| i.const_index).collect();
    consts.sort_unstable();
    assert_eq!(consts, [256, 257, 258, 259], "10-bit constant index");
    assert!(dp4.iter().all(|i| !i.index_const));
    assert!(p.instructions.iter().all(|i| i.scalar == ScalarOpcode::Nop));
    let ends: Vec<bool> = p.instructions.iter().map(|i| i.end).collect();
    assert_eq!(ends, [false, false, false, false, false, true]);
    assert_eq!(
        vertex::disassemble(&p),
        "000: MOV o[COL0], v[WEIGHT]\n\
         001: MOV o[TEX0], v[NORMAL]\n\
         002: DP4 o[HPOS].w, v[POS], c[259]\n\
         003: DP4 o[HPOS].z, v[POS], c[258]\n\
         004: DP4 o[HPOS].y, v[POS], c[257]\n\
         005: DP4 o[HPOS].x, v[POS], c[256]; END\n"
    );
    let info = manifest_info("ps3autotests/sce_cube_common.vpo").unwrap();
    assert_eq!(info["instructionCount"], 6);
    let (v, s) = ops(&p);
    assert_eq!(v, as_u64s(&info["vec_ops"]));
    assert_eq!(s, as_u64s(&info["sca_ops"]));
    assert_eq!(vertex::encode_bytes(&p), ucode, "re-encodes bit for bit");
}

#[test]
fn primitives_program() {
    let Some(ucode) = cg_ucode("ps3autotests/primitives.vpo") else {
        return;
    };
    let p = vertex::decode_bytes(&ucode).unwrap();
    let info = manifest_info("ps3autotests/primitives.vpo").unwrap();
    assert_eq!(p.instructions.len(), 5);
    assert_eq!(info["instructionCount"], 5);
    let (v, s) = ops(&p);
    assert_eq!(v, as_u64s(&info["vec_ops"]));
    assert_eq!(
        v,
        [
            u64::from(VectorOpcode::Mov.code()),
            u64::from(VectorOpcode::Dp4.code())
        ]
    );
    assert_eq!(s, as_u64s(&info["sca_ops"]));
    assert!(p.instructions[4].end);
    assert!(p.instructions[..4].iter().all(|i| !i.end));
    assert_eq!(vertex::encode_bytes(&p), ucode);
}

fn tiny3d() -> Option<(Vec<u8>, usize)> {
    let b = rsxtrace_testkit::workspace!()
        .corpus()?
        .read(rsxtrace_testkit::tiny3d::VERTEX_PROGRAM);
    assert_eq!(&b[..2], b"VP");
    let count = usize::from(u16::from_be_bytes([b[2], b[3]]));
    let off = be32(&b, 4);
    Some((b[off..off + count * 16].to_vec(), count))
}

#[test]
fn tiny3d_program() {
    let Some((ucode, count)) = tiny3d() else {
        return;
    };
    assert_eq!(count, 188);
    let p = vertex::decode_bytes(&ucode).unwrap();
    assert_eq!(p.instructions.len(), 188);
    let ends: Vec<usize> = p
        .instructions
        .iter()
        .filter(|i| i.end)
        .map(|i| i.slot)
        .collect();
    assert_eq!(ends, [187], "single END on the last slot");
    // cgcomp (nouveau numbering) emits its "BRA" as code 0x09, RPCS3's BRI.
    let branches: Vec<_> = p
        .instructions
        .iter()
        .filter(|i| i.scalar == ScalarOpcode::Bri)
        .collect();
    assert!(!branches.is_empty());
    for b in &branches {
        let t = usize::from(b.branch_target().unwrap());
        assert!(
            t > b.slot && t < 188,
            "slot {} jumps forward inside: {t}",
            b.slot
        );
    }
    // Slot 27: 001f9400 4800000d 8106c087 a0401ffc -> iaddrh 7, iaddrl 5: target 61, NE.
    assert_eq!(p.instructions[27].branch_target(), Some(61));
    assert_eq!(p.instructions[27].to_string(), "027: BRI 61 (NE.xxxx)");
    assert_eq!(vertex::encode_bytes(&p), ucode);

    // The same program loaded at slot 0 of transform memory: the walk reaches all 188 slots.
    let mut mem = vec![0u32; vertex::MEMORY_SLOTS * 4];
    for (n, c) in ucode.chunks_exact(4).enumerate() {
        mem[n] = u32::from_be_bytes(c.try_into().unwrap());
    }
    let m = vertex::decode_from_memory(&mem, 0).unwrap();
    assert_eq!(m.instructions, p.instructions);
}

#[test]
fn cube_in_memory_at_slot_100() {
    let Some(ucode) = cg_ucode("ps3autotests/sce_cube_common.vpo") else {
        return;
    };
    // Memory full of 0 words (register type 0: invalid) except the cube at slots 100..106:
    // the walk must stop at the END in slot 105.
    let mut mem = vec![0u32; vertex::MEMORY_SLOTS * 4];
    for (n, c) in ucode.chunks_exact(4).enumerate() {
        mem[400 + n] = u32::from_be_bytes(c.try_into().unwrap());
    }
    let p = vertex::decode_from_memory(&mem, 100).unwrap();
    let slots: Vec<usize> = p.instructions.iter().map(|i| i.slot).collect();
    assert_eq!(slots, [100, 101, 102, 103, 104, 105]);
    assert_eq!(p.start_slot, 100);
    assert!(vertex::disassemble(&p).starts_with("100: MOV o[COL0], v[WEIGHT]\n"));
}
