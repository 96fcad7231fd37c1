//! The instrumented fragment module's record (`FragmentTranslateOptions::instrument`;
//! ABI.md "Instrumented fragment programs"): for the one pixel whose window position the host
//! puts in the buffer's header, `rsx_fragment` appends one record per executed instruction
//! of the pixel's lane (the lane active: flow instructions excluded) to a storage buffer at
//! group 0 binding 2. [`decode`] reads the buffer back.
//!
//! Layout, in 32-bit words: header `target_x, target_y, count, capacity`, then `capacity`
//! records of [`RECORD_WORDS`] words: `slot, flags, r.x, r.y, r.z, r.w, cc.x, cc.y, cc.z,
//! cc.w`, where `r` is the destination register's four words after the write (an H
//! register's halves are those of its R word pair) and `cc` the bits of the condition
//! register written. `count` counts every record, also those past `capacity` (dropped).

/// Words before the first record.
pub const HEADER_WORDS: usize = 4;
/// Words of one record.
pub const RECORD_WORDS: usize = 10;

const REGISTER: u32 = 1 << 8;
const HALF: u32 = 1 << 7;
const CC: u32 = 1 << 9;
const CC1: u32 = 1 << 10;
const KILLED: u32 = 1 << 11;

/// The flags word of a record: destination index as encoded (`H7` is 7 with `fp16`), whether
/// a register and a condition register were written, and which one.
pub fn flags(index: u8, fp16: bool, register: bool, cc: bool, cc_index: u8) -> u32 {
    let mut f = u32::from(index & 0x7F);
    if fp16 {
        f |= HALF;
    }
    if register {
        f |= REGISTER;
    }
    if cc {
        f |= CC;
    }
    if cc_index & 1 != 0 {
        f |= CC1;
    }
    f
}

/// What a recorded instruction writes: (a register, a condition register). Only value
/// producing opcodes write (not NOP, FENCT, FENCB, KIL), and condition FL writes nothing;
/// the emitter's record and `verify --explain`'s reading of the interpreter's trace share it.
pub fn writes(insn: &rsxtrace_program::fragment::FragmentInstruction) -> (bool, bool) {
    use rsxtrace_program::fragment::{FpOpcode, Relation};
    let produces = !matches!(
        insn.opcode,
        FpOpcode::Nop | FpOpcode::Fenct | FpOpcode::Fencb | FpOpcode::Kil
    );
    let any = produces && insn.condition.relation != Relation::Fl;
    (any && !insn.dest.no_dest, any && insn.dest.set_cond)
}

/// The declarations and `rsx_rec` of an instrumented module.
pub const WGSL: &str = r#"
struct RsxTrace {
    target_x: u32,
    target_y: u32,
    count: u32,
    capacity: u32,
    words: array<u32>,
}

@group(0) @binding(2) var<storage, read_write> rsx_trace: RsxTrace;
var<private> rsx_tracing: bool;

// One record of the traced pixel (record.rs): slot, flags, destination words, CC bits.
fn rsx_rec(slot: u32, flags: u32, r: vec4<u32>, cc: vec4<u32>, killed: bool) {
    if !rsx_tracing {
        return;
    }
    let n = rsx_trace.count;
    rsx_trace.count = n + 1u;
    if n >= rsx_trace.capacity {
        return;
    }
    let b = n * 10u;
    rsx_trace.words[b] = slot;
    rsx_trace.words[b + 1u] = flags | select(0u, 2048u, killed);
    rsx_trace.words[b + 2u] = r.x;
    rsx_trace.words[b + 3u] = r.y;
    rsx_trace.words[b + 4u] = r.z;
    rsx_trace.words[b + 5u] = r.w;
    rsx_trace.words[b + 6u] = cc.x;
    rsx_trace.words[b + 7u] = cc.y;
    rsx_trace.words[b + 8u] = cc.z;
    rsx_trace.words[b + 9u] = cc.w;
}
"#;

/// The statement `fp_eval` runs before `rsx_fragment`: trace the header's pixel.
pub const SELECT_PIXEL: &str =
    "    rsx_tracing = x == rsx_trace.target_x && y == rsx_trace.target_y;\n";

/// The register an instruction wrote, as encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Destination {
    /// H register (else R).
    pub fp16: bool,
    /// Index as encoded (`H7`: 7).
    pub index: u8,
}

impl Destination {
    /// `R3` or `H7`.
    pub fn name(self) -> String {
        format!("{}{}", if self.fp16 { 'H' } else { 'R' }, self.index)
    }

    /// The four component values of the register out of the R word pair `words` (an H
    /// register's halves: H(2n) = R(n).xy, H(2n+1) = R(n).zw, low half first).
    pub fn values(self, words: [u32; 4]) -> [f32; 4] {
        if !self.fp16 {
            return words.map(f32::from_bits);
        }
        let pair = if self.index & 1 == 0 {
            [words[0], words[1]]
        } else {
            [words[2], words[3]]
        };
        let h = |w: u32, hi: bool| {
            let bits = if hi { (w >> 16) as u16 } else { w as u16 };
            half::f16::from_bits(bits).to_f32()
        };
        [
            h(pair[0], false),
            h(pair[0], true),
            h(pair[1], false),
            h(pair[1], true),
        ]
    }
}

/// One executed instruction of the traced pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Instruction slot.
    pub slot: u32,
    /// The register written and its value afterwards.
    pub register: Option<(Destination, [f32; 4])>,
    /// The condition register written (0 or 1) and its value afterwards.
    pub cc: Option<(u8, [f32; 4])>,
    /// The pixel is killed after it.
    pub killed: bool,
}

/// A decoded buffer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    /// The records held, in execution order.
    pub records: Vec<Record>,
    /// Records the shader made (more than `records.len()` when the capacity ran out).
    pub count: u64,
}

impl Recording {
    /// Whether records were dropped for lack of room.
    pub fn truncated(&self) -> bool {
        self.count > self.records.len() as u64
    }
}

/// Words of a buffer with room for `capacity` records, the header filled in.
pub fn buffer(target: (u32, u32), capacity: u32) -> Vec<u32> {
    let mut words = vec![0u32; HEADER_WORDS + capacity as usize * RECORD_WORDS];
    words[0] = target.0;
    words[1] = target.1;
    words[3] = capacity;
    words
}

/// Reads a buffer back: the header's count and capacity are checked against its length.
pub fn decode(words: &[u32]) -> Result<Recording, String> {
    let [_, _, count, capacity] = match words.get(..HEADER_WORDS) {
        Some(&[a, b, c, d]) => [a, b, c, d],
        _ => return Err(format!("{} words hold no header", words.len())),
    };
    let room = (words.len() - HEADER_WORDS) / RECORD_WORDS;
    if capacity as usize > room {
        return Err(format!(
            "capacity {capacity} records, the buffer holds {room}"
        ));
    }
    let held = count.min(capacity) as usize;
    let records = words[HEADER_WORDS..]
        .chunks_exact(RECORD_WORDS)
        .take(held)
        .map(|w| {
            let f = w[1];
            let bits = |k: usize| [w[k], w[k + 1], w[k + 2], w[k + 3]];
            let dest = Destination {
                fp16: f & HALF != 0,
                index: (f & 0x7F) as u8,
            };
            Record {
                slot: w[0],
                register: (f & REGISTER != 0).then(|| (dest, dest.values(bits(2)))),
                cc: (f & CC != 0).then(|| (u8::from(f & CC1 != 0), bits(6).map(f32::from_bits))),
                killed: f & KILLED != 0,
            }
        })
        .collect();
    Ok(Recording {
        records,
        count: u64::from(count),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h_registers_are_the_halves_of_their_r_pair() {
        let one = u32::from(half::f16::from_f32(1.0).to_bits());
        let two = u32::from(half::f16::from_f32(2.0).to_bits());
        let words = [one | (two << 16), 0, two, one << 16];
        let even = Destination {
            fp16: true,
            index: 4,
        };
        assert_eq!(even.values(words), [1.0, 2.0, 0.0, 0.0]);
        let odd = Destination {
            fp16: true,
            index: 5,
        };
        assert_eq!(odd.values(words), [2.0, 0.0, 0.0, 1.0]);
        assert_eq!(odd.name(), "H5");
    }

    #[test]
    fn records_decode_and_overflow_is_told() {
        let mut w = buffer((3, 4), 1);
        w[2] = 2; // two made, one held
        w[4] = 7;
        w[5] = flags(3, false, true, true, 1) | KILLED;
        w[6] = 1.5f32.to_bits();
        w[10] = (-1.0f32).to_bits();
        let r = decode(&w).unwrap();
        assert!(r.truncated());
        assert_eq!(r.records.len(), 1);
        let rec = &r.records[0];
        assert_eq!(rec.slot, 7);
        assert!(rec.killed);
        let (d, v) = rec.register.unwrap();
        assert_eq!((d.name(), v[0]), ("R3".to_string(), 1.5));
        assert_eq!(rec.cc.unwrap().0, 1);
        assert_eq!(rec.cc.unwrap().1[0], -1.0);
        assert!(decode(&w[..3]).is_err());
        let mut short = w.clone();
        short[3] = 9;
        assert!(decode(&short).is_err());
    }
}
