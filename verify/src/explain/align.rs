//! The step-by-step comparison of the device's record with the interpreter's trace: both are
//! lists of executed (non-flow) instructions with the registers each leaves; the first step
//! whose instruction, registers or values (beyond verify's tolerance, `compare::compare`)
//! differ is the divergence.

use super::{Divergence, DivergenceKind};
use crate::divergence::compare::{compare, Verdict};
use crate::divergence::tolerance::{Class, Tolerances};

/// One executed instruction as the device recorded it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceStep {
    /// Slot.
    pub slot: u32,
    /// Registers written (name, value after the instruction).
    pub writes: Vec<(String, [f32; 4])>,
}

/// One executed instruction as the interpreter ran it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceStep {
    /// Slot.
    pub slot: u32,
    /// Registers written (name, value after the instruction, its tolerance class).
    pub writes: Vec<(String, [f64; 4], Class)>,
}

/// A flow instruction of the program: its slot and, for a loop, the slot its body ends at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowSite {
    /// Slot.
    pub slot: u32,
    /// Loop end (exclusive), for LOOP/REP.
    pub loop_end: Option<u32>,
}

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// Compares the steps; returns the number of identical leading steps and the first
/// divergence (without disassembly or WGSL, which the caller adds). `reference_f64` is the
/// interpreter's f64 run of the same invocation (empty when not run).
pub fn first_divergence(
    device: &[DeviceStep],
    reference: &[ReferenceStep],
    reference_f64: &[ReferenceStep],
    flows: &[FlowSite],
    tolerances: &Tolerances,
) -> (usize, Option<Divergence>) {
    let blank = |kind, step, slot| Divergence {
        kind,
        step,
        slot,
        reference_slot: None,
        flow_slot: None,
        register: None,
        reference_register: None,
        gpu: None,
        reference: None,
        reference_f64: None,
        components: String::new(),
        ill_conditioned: false,
        disassembly: String::new(),
        reference_disassembly: None,
        wgsl: None,
    };
    for (k, (d, r)) in device.iter().zip(reference).enumerate() {
        if d.slot != r.slot {
            let last = k.checked_sub(1).map(|p| reference[p].slot);
            return (
                k,
                Some(Divergence {
                    reference_slot: Some(r.slot),
                    flow_slot: deciding_flow(flows, last, d.slot.min(r.slot)),
                    ..blank(DivergenceKind::Flow, k, d.slot)
                }),
            );
        }
        let names_match = d.writes.len() == r.writes.len()
            && d.writes.iter().zip(&r.writes).all(|(a, b)| a.0 == b.0);
        if !names_match {
            let names = |v: Vec<&str>| (!v.is_empty()).then(|| v.join(", "));
            return (
                k,
                Some(Divergence {
                    register: names(d.writes.iter().map(|w| w.0.as_str()).collect()),
                    reference_register: names(r.writes.iter().map(|w| w.0.as_str()).collect()),
                    gpu: d.writes.first().map(|w| w.1),
                    reference: r.writes.first().map(|w| w.1),
                    ..blank(DivergenceKind::Register, k, d.slot)
                }),
            );
        }
        for (w, ((name, gv), (_, rv, class))) in d.writes.iter().zip(&r.writes).enumerate() {
            let off: String = (0..4)
                .filter(|&c| {
                    compare(gv[c], rv[c] as f32, *class, tolerances).0 == Verdict::Diverged
                })
                .map(|c| XYZW[c])
                .collect();
            if off.is_empty() {
                continue;
            }
            let f64_value = reference_f64
                .get(k)
                .filter(|s| s.slot == r.slot)
                .and_then(|s| s.writes.get(w))
                .map(|x| x.1);
            let ill_conditioned = f64_value.is_some_and(|f| {
                (0..4).any(|c| {
                    compare(rv[c] as f32, f[c] as f32, *class, tolerances).0 == Verdict::Diverged
                })
            });
            return (
                k,
                Some(Divergence {
                    register: Some(name.clone()),
                    gpu: Some(*gv),
                    reference: Some(*rv),
                    reference_f64: f64_value,
                    components: off,
                    ill_conditioned,
                    ..blank(DivergenceKind::Value, k, d.slot)
                }),
            );
        }
    }
    let n = device.len().min(reference.len());
    if device.len() != reference.len() {
        let (slot, reference_slot) = match (device.get(n), reference.get(n)) {
            (Some(d), None) => (d.slot, None),
            (None, Some(r)) => (r.slot, Some(r.slot)),
            _ => (0, None),
        };
        let last = n.checked_sub(1).map(|p| reference[p].slot);
        return (
            n,
            Some(Divergence {
                reference_slot,
                flow_slot: deciding_flow(flows, last, slot),
                ..blank(DivergenceKind::Length, n, slot)
            }),
        );
    }
    (n, None)
}

/// The flow instruction that decided where the walks part: the nearest one after the last
/// common step `last` and at or before `next` (an IF or a loop entered differently), else the
/// innermost loop whose body holds `last` (an iteration more or less), else the nearest one
/// before `last`.
fn deciding_flow(flows: &[FlowSite], last: Option<u32>, next: u32) -> Option<u32> {
    let after = last.map_or(0, |l| l + 1);
    if let Some(f) = flows
        .iter()
        .filter(|f| f.slot >= after && f.slot <= next)
        .max_by_key(|f| f.slot)
    {
        return Some(f.slot);
    }
    let last = last?;
    flows
        .iter()
        .filter(|f| f.loop_end.is_some_and(|e| f.slot < last && last < e))
        .max_by_key(|f| f.slot)
        .or_else(|| {
            flows
                .iter()
                .filter(|f| f.slot < last)
                .max_by_key(|f| f.slot)
        })
        .map(|f| f.slot)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(slot: u32, name: &str, v: f32) -> DeviceStep {
        DeviceStep {
            slot,
            writes: vec![(name.into(), [v, 0.0, 0.0, 1.0])],
        }
    }

    fn refr(slot: u32, name: &str, v: f64) -> ReferenceStep {
        ReferenceStep {
            slot,
            writes: vec![(name.into(), [v, 0.0, 0.0, 1.0], Class::Fp32)],
        }
    }

    #[test]
    fn identical_walks_have_no_divergence() {
        let t = Tolerances::default();
        let d = [dev(0, "R0", 1.0), dev(1, "R1", 2.0)];
        let r = [refr(0, "R0", 1.0), refr(1, "R1", 2.0)];
        assert_eq!(first_divergence(&d, &r, &[], &[], &t), (2, None));
    }

    #[test]
    fn a_value_beyond_tolerance_is_named_with_its_components() {
        let t = Tolerances::default();
        let d = [dev(0, "R0", 1.0), dev(1, "R1", 2.5)];
        let r = [refr(0, "R0", 1.0), refr(1, "R1", 2.0)];
        let (n, div) = first_divergence(&d, &r, &r, &[], &t);
        let div = div.unwrap();
        assert_eq!((n, div.kind, div.slot), (1, DivergenceKind::Value, 1));
        assert_eq!(div.components, "x");
        assert_eq!(div.register.as_deref(), Some("R1"));
        assert!(!div.ill_conditioned);
    }

    #[test]
    fn a_different_register_and_a_parting_walk_are_told_apart() {
        let t = Tolerances::default();
        let d = [dev(0, "R2", 1.0)];
        let r = [refr(0, "R0", 1.0)];
        let div = first_divergence(&d, &r, &[], &[], &t).1.unwrap();
        assert_eq!(div.kind, DivergenceKind::Register);
        assert_eq!(div.reference_register.as_deref(), Some("R0"));
        // IF at slot 1: the device takes the body (2), the interpreter the else (4).
        let flows = [FlowSite {
            slot: 1,
            loop_end: None,
        }];
        let d = [dev(0, "R0", 1.0), dev(2, "R1", 1.0)];
        let r = [refr(0, "R0", 1.0), refr(4, "R1", 1.0)];
        let div = first_divergence(&d, &r, &[], &flows, &t).1.unwrap();
        assert_eq!(div.kind, DivergenceKind::Flow);
        assert_eq!(
            (div.slot, div.reference_slot, div.flow_slot),
            (2, Some(4), Some(1))
        );
        // A loop at slot 1 over 2..4 runs once more on the device.
        let flows = [FlowSite {
            slot: 1,
            loop_end: Some(4),
        }];
        let d = [dev(2, "R0", 1.0), dev(3, "R0", 1.0), dev(2, "R0", 1.0)];
        let r = [refr(2, "R0", 1.0), refr(3, "R0", 1.0)];
        let div = first_divergence(&d, &r, &[], &flows, &t).1.unwrap();
        assert_eq!(
            (div.kind, div.step, div.flow_slot),
            (DivergenceKind::Length, 2, Some(1))
        );
    }
}
