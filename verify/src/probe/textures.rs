//! Texture units bound versus sampled, per draw.
//!
//! - **Bound**: a fragment texture unit whose `CONTROL0` enable bit (bit 31) is set and whose
//!   state can be sampled: a location (`FORMAT` bits 0..1 of 1 or 2), a known base format, a
//!   dimension of 1, 2 or 3 and a non-zero width and height (rrc-format.md 4.7). An enabled
//!   unit that fails one of these is listed as *invalid* with the reason, and does not count
//!   as bound.
//! - **Sampled**: the units named by the program's texture instructions (TEX, TXP, TXD, TXL,
//!   TXB and the bump variants; `OPDEST` bits 17..20, rsx-microcode.md B.1), each with how it
//!   is reached under flow control ([`Reach`]) and whether its texel can influence an output
//!   or the discard (`rsxtrace_program::flow::analyze`, conservative).
//! - **Mismatches**: a unit sampled on a reachable path but not bound (the shader reads
//!   garbage or black), and a bound unit that no reachable instruction samples (a wasted
//!   bind).
//!
//! Reach model (structured flow, as `flow` assumes): inside an `IFE` the two blocks are
//! `conditional`, except that a `TR` condition makes the then-block `always` and the else-block
//! `unreachable`, and `FL` the reverse; a `LOOP`/`REP` body is `conditional` (it may run zero
//! times); after a `RET` with a `TR` condition that is itself always reached, the rest of the
//! program is `unreachable`, and after any other reachable `RET` it is at most `conditional`.
//! A `CAL` makes the answer incomplete (`complete: false`), as in the flow analysis.

use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_program::flow::{analyze, DepSet};
use rsxtrace_program::fragment::{self, FlowKind, FragmentProgram, Relation};
use serde::Serialize;
use std::collections::HashMap;

/// Fragment texture units (rrc-format.md 4.7).
pub const UNITS: usize = 16;

/// How a texture instruction is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Reach {
    /// No path reaches it.
    Unreachable,
    /// Some paths do, depending on a condition or a loop count.
    Conditional,
    /// Every run reaches it.
    Always,
}

/// A unit the program samples.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SampledUnit {
    /// Texture unit.
    pub unit: u8,
    /// Slots of the instructions that sample it.
    pub slots: Vec<u32>,
    /// The best reach of those instructions.
    pub reach: Reach,
    /// Whether a texel of this unit can influence an output or the discard.
    pub live: bool,
}

/// What a fragment program samples.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProgramTextures {
    /// Units in ascending order.
    pub sampled: Vec<SampledUnit>,
    /// False when the program has CAL or flow regions that do not nest.
    pub complete: bool,
}

fn combine(a: Reach, b: Reach) -> Reach {
    a.min(b)
}

/// The reach of every instruction of `program` (by index), per the module docs.
pub fn instruction_reach(program: &FragmentProgram) -> (Vec<Reach>, bool) {
    let insns = &program.instructions;
    let mut reach = vec![Reach::Always; insns.len()];
    let mut complete = true;
    // Regions first: each flow instruction restricts the slots it governs.
    for (i, insn) in insns.iter().enumerate() {
        let Some(flow) = insn.flow() else { continue };
        let relation = insn.condition.relation;
        let (then_reach, else_reach) = match relation {
            Relation::Tr => (Reach::Always, Reach::Unreachable),
            Relation::Fl => (Reach::Unreachable, Reach::Always),
            _ => (Reach::Conditional, Reach::Conditional),
        };
        let mut restrict = |from: u32, to: u32, r: Reach| {
            for (j, other) in insns.iter().enumerate().skip(i + 1) {
                if other.slot >= from && other.slot < to {
                    reach[j] = combine(reach[j], r);
                }
            }
        };
        match flow.kind {
            FlowKind::Ife {
                else_slot,
                end_slot,
            } => {
                if else_slot < insn.slot || end_slot < else_slot {
                    complete = false;
                }
                restrict(insn.slot.saturating_add(1), else_slot, then_reach);
                restrict(else_slot, end_slot, else_reach);
            }
            FlowKind::Loop(l) | FlowKind::Rep(l) => {
                if l.end_slot < insn.slot {
                    complete = false;
                }
                let body = if relation == Relation::Fl {
                    Reach::Unreachable
                } else {
                    Reach::Conditional
                };
                restrict(insn.slot.saturating_add(1), l.end_slot, body);
            }
            FlowKind::Cal { .. } => complete = false,
            FlowKind::Brk | FlowKind::Ret => {}
        }
    }
    // Then RETs, in program order: what follows a reachable RET is cut off or conditional.
    let mut after = Reach::Always;
    for (i, insn) in insns.iter().enumerate() {
        reach[i] = combine(reach[i], after);
        if matches!(insn.flow().map(|f| f.kind), Some(FlowKind::Ret)) {
            let relation = insn.condition.relation;
            after = match (reach[i], relation) {
                (Reach::Unreachable, _) | (_, Relation::Fl) => after,
                (Reach::Always, Relation::Tr) => Reach::Unreachable,
                _ => combine(after, Reach::Conditional),
            };
        }
    }
    (reach, complete)
}

/// The units `program` samples, with reach and liveness.
pub fn program_textures(program: &FragmentProgram) -> ProgramTextures {
    let (reach, complete) = instruction_reach(program);
    let flow = analyze(program);
    let influences = flow
        .outputs
        .iter()
        .flat_map(|o| o.components)
        .fold(flow.discard, DepSet::union);
    let mut sampled: Vec<SampledUnit> = Vec::new();
    for (insn, r) in program.instructions.iter().zip(&reach) {
        if !insn.opcode.is_texture() || insn.flow().is_some() {
            continue;
        }
        let unit = insn.texture_unit;
        match sampled.iter_mut().find(|s| s.unit == unit) {
            Some(s) => {
                s.slots.push(insn.slot);
                s.reach = s.reach.max(*r);
            }
            None => sampled.push(SampledUnit {
                unit,
                slots: vec![insn.slot],
                reach: *r,
                live: influences.textures().any(|u| u == unit),
            }),
        }
    }
    sampled.sort_by_key(|s| s.unit);
    ProgramTextures {
        sampled,
        complete: complete && flow.complete,
    }
}

/// An enabled unit whose state cannot be sampled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InvalidUnit {
    /// Texture unit.
    pub unit: u8,
    /// What is wrong.
    pub reason: String,
}

/// One draw's listing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DrawTextures {
    /// Draw index.
    pub draw: usize,
    /// The fragment program's `fp_hash`, when it was read.
    pub fp_hash: Option<String>,
    /// Units enabled with a valid state.
    pub bound: Vec<u8>,
    /// Units enabled with an invalid state.
    pub invalid: Vec<InvalidUnit>,
    /// Units the program samples (empty when the program is unknown).
    pub sampled: Vec<SampledUnit>,
    /// Sampled on a reachable path but not bound.
    pub sampled_unbound: Vec<u8>,
    /// Bound but sampled on no reachable path.
    pub bound_unsampled: Vec<u8>,
    /// False when the program's flow could not be fully analysed.
    pub complete: bool,
    /// Why the program is unknown (not in the capture, or it does not decode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl DrawTextures {
    /// Whether either mismatch list is non-empty.
    pub fn has_mismatch(&self) -> bool {
        !self.sampled_unbound.is_empty() || !self.bound_unsampled.is_empty()
    }
}

/// Why an enabled unit's state cannot be sampled, or `None` when it can.
pub fn invalid_reason(t: &rsxtrace_capture::frame::state::Texture) -> Option<String> {
    if t.location.is_none() {
        return Some("FORMAT location field is 0 or 3".into());
    }
    if t.format.base_format.name.is_none() {
        return Some(format!("unknown format 0x{:02x}", t.format.format));
    }
    if !(1..=3).contains(&t.format.dimension) {
        return Some(format!("dimension {}", t.format.dimension));
    }
    if t.width == 0 || t.height == 0 {
        return Some(format!("size {}x{}", t.width, t.height));
    }
    None
}

/// The listing of one draw, given what its program samples (`Err` with why it is unknown).
pub fn draw_textures(draw: &Draw, program: Result<&ProgramTextures, &str>) -> DrawTextures {
    let mut bound = Vec::new();
    let mut invalid = Vec::new();
    for (unit, t) in (0u8..).zip(draw.textures.iter()) {
        if !t.control0.enabled {
            continue;
        }
        match invalid_reason(t) {
            None => bound.push(unit),
            Some(reason) => invalid.push(InvalidUnit { unit, reason }),
        }
    }
    let (sampled, complete, problem) = match program {
        Ok(p) => (p.sampled.clone(), p.complete, None),
        Err(why) => (Vec::new(), false, Some(why.to_string())),
    };
    let reachable: Vec<u8> = sampled
        .iter()
        .filter(|s| s.reach != Reach::Unreachable)
        .map(|s| s.unit)
        .collect();
    let sampled_unbound = reachable
        .iter()
        .copied()
        .filter(|u| !bound.contains(u))
        .collect();
    let bound_unsampled = if problem.is_some() {
        Vec::new() // nothing is known about what the program samples
    } else {
        bound
            .iter()
            .copied()
            .filter(|u| !reachable.contains(u))
            .collect()
    };
    DrawTextures {
        draw: draw.index,
        fp_hash: draw.fp_hash(),
        bound,
        invalid,
        sampled,
        sampled_unbound,
        bound_unsampled,
        complete,
        problem,
    }
}

/// The listing of every draw; each distinct program is decoded and analysed once.
pub fn frame_textures(frame: &Frame) -> Vec<DrawTextures> {
    let mut cache: HashMap<(u64, u32, Vec<u32>), Result<ProgramTextures, String>> = HashMap::new();
    frame
        .draws
        .iter()
        .map(|draw| {
            let Some(fp) = draw.fragment_program.as_deref() else {
                let why = draw
                    .problems
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ");
                let why = if why.is_empty() {
                    "no fragment program".to_string()
                } else {
                    why
                };
                return draw_textures(draw, Err(&why));
            };
            let key = (fp.hash, fp.slot_count, fp.constant_slots.clone());
            let analysed = cache.entry(key).or_insert_with(|| {
                fragment::decode(&fp.ucode)
                    .map(|p| program_textures(&p))
                    .map_err(|e| format!("the fragment program does not decode: {e}"))
            });
            draw_textures(draw, analysed.as_ref().map_err(String::as_str))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_capture::builder::synthetic::FRAGMENT_MOV_COL0;
    use rsxtrace_capture::builder::{CaptureBuilder, TextureDesc};
    use rsxtrace_capture::rrc::Location;
    use rsxtrace_program::fragment::{FlowOperands, FpOpcode, InputAttribute, Operands};

    /// `TEX R0, f[TEX0], TEX<unit>`: FRAGMENT_MOV_COL0 with the opcode, input and unit
    /// changed (as `rsxtrace_scenes::samples` builds its textured program).
    fn tex(slot: u32, unit: u8, end: bool) -> fragment::FragmentInstruction {
        let mut insn = fragment::decode(&FRAGMENT_MOV_COL0).unwrap().instructions[0];
        insn.slot = slot;
        insn.opcode = FpOpcode::Tex;
        insn.input = InputAttribute::tex(0);
        insn.texture_unit = unit;
        insn.end = end;
        insn
    }

    fn mov(slot: u32, end: bool) -> fragment::FragmentInstruction {
        let mut insn = fragment::decode(&FRAGMENT_MOV_COL0).unwrap().instructions[0];
        insn.slot = slot;
        insn.end = end;
        insn
    }

    /// A flow instruction of `kind` with `relation`, testing CC0.x.
    fn flow(slot: u32, kind: FlowKind, relation: Relation) -> fragment::FragmentInstruction {
        let mut insn = mov(slot, false);
        insn.opcode = match kind {
            FlowKind::Ife { .. } => FpOpcode::Ife,
            FlowKind::Ret => FpOpcode::Ret,
            FlowKind::Loop(_) => FpOpcode::Loop,
            FlowKind::Rep(_) => FpOpcode::Rep,
            FlowKind::Brk => FpOpcode::Brk,
            FlowKind::Cal { .. } => FpOpcode::Cal,
        };
        insn.condition.relation = relation;
        insn.operands = Operands::Flow(FlowOperands {
            kind,
            reserved: [0; 3],
        });
        insn
    }

    fn reaches(p: &FragmentProgram) -> Vec<Reach> {
        instruction_reach(p).0
    }

    #[test]
    fn ife_blocks_are_conditional_and_a_true_ret_cuts_the_rest() {
        use Reach::*;
        // 0: TEX unit 1 | 1: IFE (GT) else 3 end 4 | 2: TEX unit 2 | 3: TEX unit 3 |
        // 4: RET (TR) | 5: TEX unit 5 (dead code) END.
        let p = FragmentProgram::new(vec![
            tex(0, 1, false),
            flow(
                1,
                FlowKind::Ife {
                    else_slot: 3,
                    end_slot: 4,
                },
                Relation::Gt,
            ),
            tex(2, 2, false),
            tex(3, 3, false),
            flow(4, FlowKind::Ret, Relation::Tr),
            tex(5, 5, true),
        ]);
        assert_eq!(
            reaches(&p),
            vec![
                Always,
                Always,
                Conditional,
                Conditional,
                Always,
                Unreachable
            ]
        );
        let t = program_textures(&p);
        let units: Vec<(u8, Reach)> = t.sampled.iter().map(|s| (s.unit, s.reach)).collect();
        assert_eq!(
            units,
            vec![
                (1, Always),
                (2, Conditional),
                (3, Conditional),
                (5, Unreachable)
            ]
        );
        // Every TEX writes R0 and the last write on each path reaches R0.
        assert!(t.sampled.iter().find(|s| s.unit == 3).unwrap().live);
        assert!(t.complete);
    }

    #[test]
    fn constant_conditions_and_loops() {
        use Reach::*;
        let lf = rsxtrace_program::fragment::LoopFields {
            count: 4,
            init: 0,
            increment: 1,
            end_slot: 5,
        };
        // IFE TR: then always, else never; REP body conditional; a conditional RET makes the
        // rest conditional.
        let p = FragmentProgram::new(vec![
            flow(
                0,
                FlowKind::Ife {
                    else_slot: 2,
                    end_slot: 3,
                },
                Relation::Tr,
            ),
            tex(1, 0, false),
            tex(2, 1, false),
            flow(3, FlowKind::Rep(lf), Relation::Tr),
            tex(4, 2, false),
            flow(5, FlowKind::Ret, Relation::Eq),
            tex(6, 3, true),
        ]);
        assert_eq!(
            reaches(&p),
            vec![
                Always,
                Always,
                Unreachable,
                Always,
                Conditional,
                Always,
                Conditional
            ]
        );
    }

    #[test]
    fn the_mov_program_samples_nothing_and_a_dead_tex_is_not_live() {
        let p = fragment::decode(&FRAGMENT_MOV_COL0).unwrap();
        assert!(program_textures(&p).sampled.is_empty());
        // TEX into R0 then MOV R0 overwrites it: unit 4 is sampled but not live.
        let p = FragmentProgram::new(vec![tex(0, 4, false), mov(1, true)]);
        let t = program_textures(&p);
        assert_eq!(t.sampled.len(), 1);
        assert_eq!(
            (t.sampled[0].unit, t.sampled[0].reach, t.sampled[0].live),
            (4, Reach::Always, false)
        );
    }

    fn texture_at(offset: u32) -> TextureDesc {
        TextureDesc {
            offset,
            width: 2,
            height: 2,
            pitch: 8,
            byte_size: 16,
            control0: 0x8000_0000,
            ..TextureDesc::default()
        }
    }

    #[test]
    fn draws_list_bound_sampled_and_both_mismatches() {
        let mut b = CaptureBuilder::new("textures-test");
        b.put_memory(Location::Main, 0x1000, &[0u8; 48]).unwrap();
        b.put_memory(Location::Local, 0x0040_0000, &[0x55u8; 64])
            .unwrap();
        b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
            .unwrap();
        // Draw 0: samples units 0 and 2; units 0 and 1 bound -> 2 unbound, 1 unsampled.
        let two = fragment::encode(&FragmentProgram::new(vec![
            tex(0, 0, false),
            tex(1, 2, true),
        ]));
        b.set_fragment_program(Location::Local, 0x0030_0000, &two, 0x40)
            .unwrap();
        b.set_texture(0, &texture_at(0x0040_0000)).unwrap();
        b.set_texture(1, &texture_at(0x0040_0010)).unwrap();
        b.draw_arrays(5, &[(0, 3)]).unwrap();
        // Draw 1: unit 1 disabled, unit 2 bound: matches exactly.
        b.disable_texture(1).unwrap();
        b.set_texture(2, &texture_at(0x0040_0020)).unwrap();
        b.draw_arrays(5, &[(0, 3)]).unwrap();
        // Draw 2: unit 2 enabled with format 0x80 (no such base format): invalid, so unit 2 is unbound.
        b.set_texture(
            2,
            &TextureDesc {
                format: 0x80,
                ..texture_at(0x0040_0020)
            },
        )
        .unwrap();
        b.draw_arrays(5, &[(0, 3)]).unwrap();
        let frame = Frame::from_capture(&b.finish()).unwrap();
        let listing = frame_textures(&frame);
        assert_eq!(listing.len(), 3);
        let d0 = &listing[0];
        assert_eq!(d0.bound, vec![0, 1]);
        assert_eq!(
            d0.sampled.iter().map(|s| s.unit).collect::<Vec<_>>(),
            vec![0, 2]
        );
        assert_eq!(d0.sampled_unbound, vec![2]);
        assert_eq!(d0.bound_unsampled, vec![1]);
        assert!(d0.has_mismatch());
        let d1 = &listing[1];
        assert_eq!(d1.bound, vec![0, 2]);
        assert!(!d1.has_mismatch(), "{d1:?}");
        let d2 = &listing[2];
        assert_eq!(d2.bound, vec![0]);
        assert_eq!(d2.invalid.len(), 1);
        assert_eq!(d2.invalid[0].unit, 2);
        assert!(
            d2.invalid[0].reason.contains("0x80"),
            "{}",
            d2.invalid[0].reason
        );
        assert_eq!(d2.sampled_unbound, vec![2]);
    }

    #[test]
    fn an_undecodable_program_lists_bound_units_without_mismatch_claims() {
        let mut b = CaptureBuilder::new("textures-undecodable");
        b.put_memory(Location::Main, 0x1000, &[0u8; 48]).unwrap();
        b.set_vertex_array(0, 2, 3, 12, 0, Location::Main, 0x1000)
            .unwrap();
        b.set_texture(3, &texture_at(0x0040_0000)).unwrap();
        b.put_memory(Location::Local, 0x0040_0000, &[0u8; 16])
            .unwrap();
        // FRAGMENT_MOV_COL0 with SRC0's type field (bits 0..1 of w1, guest byte 5 bit 1 after
        // the half-word swap) set to 3: the frame reads one slot, the decoder refuses it.
        let mut bad = FRAGMENT_MOV_COL0;
        bad[5] |= 0x02;
        b.set_fragment_program(Location::Local, 0x0030_0000, &bad, 0x40)
            .unwrap();
        b.draw_arrays(5, &[(0, 3)]).unwrap();
        let frame = Frame::from_capture(&b.finish()).unwrap();
        let d = &frame_textures(&frame)[0];
        assert_eq!(d.bound, vec![3]);
        assert!(d.problem.is_some());
        assert!(!d.complete);
        assert!(!d.has_mismatch());
    }
}
