//! The texture units a vertex program samples (TXL), with the same flow classes as fragment
//! units ([`super::textures`]): how each is reached and whether its texel can influence an
//! output.
//!
//! Vertex programs branch, call and return anywhere, so reach comes from the program's paths
//! (`rsxtrace_program::flow::vertex_paths`, a slot together with its return stack): a TXL is
//! `always` reached when no path from the entry to an end of the run avoids it, `conditional`
//! when some path reaches it, `unreachable` when none does. Conditions are free (either way);
//! BRB/CLB test the draw's transform branch bits, so for the program both ways are possible.
//! Liveness is `rsxtrace_program::flow::vertex`'s conservative dependency analysis over the
//! same paths.
//!
//! What is not decidable from the program is said so (`complete: false`): a BRA that may be
//! taken jumps to the address register's run-time value, so nothing is claimed unreachable
//! (it becomes `conditional`) and every sampled unit counts as live; a program whose calls
//! make more than `NODE_LIMIT` places is not followed at all (every unit `conditional`, live).

use super::textures::{ProgramTextures, Reach, SampledUnit};
use rsxtrace_program::flow::vertex::analyze;
use rsxtrace_program::flow::vertex_paths::Paths;
use rsxtrace_program::vertex::VertexProgram;
use rsxtrace_replay::interp::vertex::VertexOptions;

/// The reach of the instruction at `slot`.
fn reach(paths: &Paths, slot: usize) -> Reach {
    if paths.truncated {
        Reach::Conditional
    } else if paths.always_reaches(slot) {
        Reach::Always
    } else if paths.reaches(slot) || paths.unknown_jump {
        Reach::Conditional
    } else {
        Reach::Unreachable
    }
}

/// The units `program` (absolute slots, as `decode_from_memory` gives) samples, with reach and
/// liveness; the return stack is as deep as the interpreter's (`VertexRules::call_depth`).
pub fn vertex_program_textures(program: &VertexProgram) -> ProgramTextures {
    let paths = Paths::of(program, VertexOptions::default().rules.call_depth);
    let flow = analyze(program, &paths);
    let influences = flow.influences();
    let undecided = paths.truncated || paths.unknown_jump;
    let mut sampled: Vec<SampledUnit> = Vec::new();
    for insn in &program.instructions {
        let Some(unit) = insn.texture_unit() else {
            continue;
        };
        let r = reach(&paths, insn.slot);
        let slot = u32::try_from(insn.slot).unwrap_or(u32::MAX);
        match sampled.iter_mut().find(|s| s.unit == unit) {
            Some(s) => {
                s.slots.push(slot);
                s.reach = s.reach.max(r);
            }
            None => sampled.push(SampledUnit {
                unit,
                slots: vec![slot],
                reach: r,
                live: undecided || influences.textures().any(|u| u == unit),
            }),
        }
    }
    sampled.sort_by_key(|s| s.unit);
    ProgramTextures {
        sampled,
        complete: flow.complete,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_program::vertex::{
        self, ConditionUpdate, OutputRegister, RegisterType, Relation, ScalarOpcode, VectorOpcode,
        VertexInstruction, WriteMask,
    };
    use Reach::*;

    /// `op` writing all of R<temp>, reading v[0] and c[0].
    fn vec_temp(op: VectorOpcode, temp: u8) -> VertexInstruction {
        let mut i = VertexInstruction::idle(0);
        i.vector = op;
        i.vec_dst_temp = Some(temp);
        i.vec_mask = WriteMask(0xF);
        i.sources[1].reg_type = RegisterType::Constant;
        i
    }

    /// TXL R<temp> from unit `unit` (D2 bits 8–9 alias src1's temp index bits 0–1).
    fn txl(unit: u8, temp: u8) -> VertexInstruction {
        let mut i = vec_temp(VectorOpcode::Txl, temp);
        i.sources[1].temp_index = unit;
        assert_eq!(i.texture_unit(), Some(unit));
        i
    }

    /// MOV o[reg] <- R<temp> (or v[0] when `temp` is `None`).
    fn mov_out(reg: u8, temp: Option<u8>) -> VertexInstruction {
        let mut i = VertexInstruction::idle(0);
        i.vector = VectorOpcode::Mov;
        i.output = Some(OutputRegister(reg));
        i.vec_result = true;
        i.vec_mask = WriteMask(0xF);
        if let Some(t) = temp {
            i.sources[0].reg_type = RegisterType::Temp;
            i.sources[0].temp_index = t;
        }
        i
    }

    fn flow(op: ScalarOpcode, relation: Relation, target: u16) -> VertexInstruction {
        let mut i = VertexInstruction::idle(0);
        i.scalar = op;
        i.condition.relation = relation;
        if op.has_immediate_target() {
            vertex::set_branch_target(&mut i, target);
        }
        i
    }

    fn update_cc(mut i: VertexInstruction) -> VertexInstruction {
        i.cc_update = ConditionUpdate {
            enable_0: true,
            enable_1: true,
        };
        i
    }

    fn end(mut i: VertexInstruction) -> VertexInstruction {
        i.end = true;
        i
    }

    /// The instructions at slots 0.., through the real word layout and back.
    fn program(insns: Vec<VertexInstruction>) -> VertexProgram {
        let p = VertexProgram {
            start_slot: 0,
            instructions: insns
                .into_iter()
                .enumerate()
                .map(|(slot, i)| VertexInstruction { slot, ..i })
                .collect(),
        };
        vertex::decode_words(&vertex::encode(&p)).expect("test program decodes")
    }

    fn classes(t: &ProgramTextures) -> Vec<(u8, Reach, bool)> {
        t.sampled
            .iter()
            .map(|s| (s.unit, s.reach, s.live))
            .collect()
    }

    #[test]
    fn always_conditional_never_taken_and_dead_samples() {
        let p = program(vec![
            flow(ScalarOpcode::Bri, Relation::FL, 7),  // 0: never taken
            txl(0, 0),                                 // 1: always, R0 -> o[TEX0]
            update_cc(vec_temp(VectorOpcode::Mov, 1)), // 2: CC0 <- v[0]
            flow(ScalarOpcode::Bri, Relation::GT, 5),  // 3: skips 4 when CC0 > 0
            txl(1, 2),                                 // 4: conditional, R2 unused
            mov_out(7, Some(0)),                       // 5: o[TEX0] <- R0
            end(mov_out(0, None)),                     // 6: o[HPOS] <- v[0]; END
            end(txl(2, 3)),                            // 7: behind the FL branch
        ]);
        let t = vertex_program_textures(&p);
        assert!(t.complete);
        assert_eq!(
            classes(&t),
            vec![
                (0, Always, true),
                (1, Conditional, false),
                (2, Unreachable, false)
            ]
        );
        assert_eq!(t.sampled[0].slots, vec![1]);
    }

    #[test]
    fn a_subroutine_after_end_and_a_texel_that_decides_a_return() {
        let p = program(vec![
            flow(ScalarOpcode::Cal, Relation::TR, 3), // 0: call 3
            end(mov_out(0, None)),                    // 1: END
            txl(1, 5),                                // 2: never (nothing jumps here)
            update_cc(txl(3, 0)),                     // 3: CC0 <- texel of unit 3
            flow(ScalarOpcode::Ret, Relation::GT, 0), // 4: return when it is > 0
            mov_out(1, None),                         // 5: o[COL0]
            flow(ScalarOpcode::Ret, Relation::TR, 0), // 6: return
        ]);
        let t = vertex_program_textures(&p);
        assert!(t.complete);
        // Unit 3's texel writes no output, but it decides whether o[COL0] is written.
        assert_eq!(
            classes(&t),
            vec![(1, Unreachable, false), (3, Always, true)]
        );
    }

    #[test]
    fn a_jump_through_the_address_register_is_not_followed() {
        let p = program(vec![
            flow(ScalarOpcode::Bra, Relation::TR, 0), // 0: to A0.x, unknown
            txl(0, 0),                                // 1: only the BRA could reach it
            end(mov_out(0, Some(0))),                 // 2
        ]);
        let t = vertex_program_textures(&p);
        assert!(!t.complete);
        assert_eq!(classes(&t), vec![(0, Conditional, true)]);
    }
}
