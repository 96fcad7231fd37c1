//! The instrumented vertex module's record ([`super::translate_instrumented`]; ABI.md
//! "Instrumented programs"): `rsx_vertex` appends, after every executed instruction, one
//! record of the registers the instruction writes ([`destinations`], in that order) to a
//! storage buffer at group 0 binding 4. The host runs one vertex, so every record is that
//! vertex's. [`decode`] reads the buffer back.
//!
//! Layout, in 32-bit words: header `count, capacity, 0, 0`, then `capacity` records of
//! [`RECORD_WORDS`] words: `slot, n`, then [`MOST_DESTINATIONS`] four-word values of which
//! the first `n` hold the destinations' values after the instruction (floats as bits; A0/A1
//! as two's complement integers). `count` counts every record, also those past `capacity`.

use rsxtrace_program::vertex::{
    CcRegister, OutputRegister, Relation, ScalarOpcode, VectorOpcode, VertexInstruction,
};

/// Words before the first record.
pub const HEADER_WORDS: usize = 4;
/// Most registers one instruction writes (vector: output, temp, CC; scalar: the same).
pub const MOST_DESTINATIONS: usize = 6;
/// Words of one record.
pub const RECORD_WORDS: usize = 2 + 4 * MOST_DESTINATIONS;

/// A register an instruction writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Destination {
    /// Temp R0–R63.
    Temp(u8),
    /// Output register 0–15.
    Output(u8),
    /// CC0 or CC1.
    Cc(u8),
    /// A0 or A1 (integers).
    Addr(u8),
}

impl Destination {
    /// The name the interpreter's vertex trace uses (`R3`, `o[HPOS]`, `CC0`, `A1`).
    pub fn name(self) -> String {
        match self {
            Destination::Temp(t) => format!("R{t}"),
            Destination::Output(o) => OutputRegister(o).to_string(),
            Destination::Cc(c) => format!("CC{c}"),
            Destination::Addr(a) => format!("A{a}"),
        }
    }

    /// The WGSL expression of its value as `vec4<u32>` bits.
    fn wgsl(self) -> String {
        match self {
            Destination::Temp(t) => format!("bitcast<vec4<u32>>(r{t})"),
            Destination::Output(o) => format!("bitcast<vec4<u32>>(o[{o}])"),
            Destination::Cc(c) => format!("bitcast<vec4<u32>>(cc{c})"),
            Destination::Addr(a) => format!("bitcast<vec4<u32>>(a{a})"),
        }
    }

    /// Four words of the register as values.
    pub fn values(self, words: [u32; 4]) -> [f64; 4] {
        match self {
            Destination::Addr(_) => words.map(|w| f64::from(w as i32)),
            _ => words.map(|w| f64::from(f32::from_bits(w))),
        }
    }
}

fn cc(r: CcRegister) -> Destination {
    Destination::Cc(match r {
        CcRegister::CC0 => 0,
        CcRegister::CC1 => 1,
    })
}

/// The registers `i` writes, in the emitter's order (`emit::BodyWriter::write`, the
/// interpreter's `lanes.rs` `write`): the vector unit's output, temp and CC (ARL: its address
/// register), then the scalar unit's; each once. Relation FL writes nothing.
pub fn destinations(i: &VertexInstruction) -> Vec<Destination> {
    let mut out: Vec<Destination> = Vec::with_capacity(MOST_DESTINATIONS);
    if i.condition.relation == Relation::FL {
        return out;
    }
    let mut push = |d: Destination| {
        if !out.contains(&d) {
            out.push(d);
        }
    };
    let output = i.output.filter(|o| usize::from(o.0) < super::OUTPUT_COUNT);
    let vector_writes = !matches!(
        i.vector,
        VectorOpcode::Nop | VectorOpcode::Arl | VectorOpcode::Arr | VectorOpcode::Ara
    );
    if i.vector == VectorOpcode::Arl {
        if i.vec_mask.0 & 0xF != 0 {
            push(Destination::Addr(i.vec_dst_temp.unwrap_or(0) & 1));
        }
    } else if vector_writes && i.vec_mask.0 & 0xF != 0 {
        unit(&mut push, i, i.vec_result, i.vec_dst_temp, output);
    }
    let scalar_writes = !i.scalar.is_flow()
        && !matches!(
            i.scalar,
            ScalarOpcode::Nop | ScalarOpcode::Psh | ScalarOpcode::Pop
        );
    if scalar_writes && i.sca_mask.0 & 0xF != 0 {
        unit(&mut push, i, !i.vec_result, i.sca_dst_temp, output);
    }
    out
}

fn unit(
    push: &mut impl FnMut(Destination),
    i: &VertexInstruction,
    is_writer: bool,
    temp: Option<u8>,
    output: Option<OutputRegister>,
) {
    if is_writer {
        if let Some(o) = output {
            push(Destination::Output(o.0));
        }
    }
    if let Some(t) = temp {
        push(Destination::Temp(t % 64));
    }
    if i.cc_update.any() || (temp.is_none() && !is_writer) {
        push(cc(i.cc_register));
    }
}

/// The declarations and `rsx_rec` of an instrumented module.
pub const WGSL: &str = r#"
struct RsxTrace {
    count: u32,
    capacity: u32,
    _pad0: u32,
    _pad1: u32,
    words: array<u32>,
}

@group(0) @binding(4) var<storage, read_write> rsx_trace: RsxTrace;

// The start of one record (record.rs): its slot and number of values; the word index of
// its first value, or 0xFFFFFFFF when the buffer is full.
fn rsx_rec_begin(slot: u32, n: u32) -> u32 {
    let k = rsx_trace.count;
    rsx_trace.count = k + 1u;
    if k >= rsx_trace.capacity {
        return 0xFFFFFFFFu;
    }
    let b = k * 26u;
    rsx_trace.words[b] = slot;
    rsx_trace.words[b + 1u] = n;
    return b + 2u;
}

// One value of a record.
fn rsx_rec_value(at: u32, v: vec4<u32>) {
    rsx_trace.words[at] = v.x;
    rsx_trace.words[at + 1u] = v.y;
    rsx_trace.words[at + 2u] = v.z;
    rsx_trace.words[at + 3u] = v.w;
}
"#;

/// The record statement after instruction `i`.
pub fn call(i: &VertexInstruction) -> String {
    let d = destinations(i);
    let mut s = format!("{{ let rb = rsx_rec_begin({}u, {}u);", i.slot, d.len());
    if !d.is_empty() {
        s.push_str(" if rb != 0xFFFFFFFFu {");
        for (k, d) in d.iter().enumerate() {
            s.push_str(&format!(" rsx_rec_value(rb + {}u, {});", 4 * k, d.wgsl()));
        }
        s.push_str(" }");
    }
    s.push_str(" }");
    s
}

/// One executed instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Slot.
    pub slot: u32,
    /// The values' words, in [`destinations`] order.
    pub values: Vec<[u32; 4]>,
}

/// A decoded buffer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    /// The records held, in execution order.
    pub records: Vec<Record>,
    /// Records the shader made.
    pub count: u64,
}

impl Recording {
    /// Whether records were dropped for lack of room.
    pub fn truncated(&self) -> bool {
        self.count > self.records.len() as u64
    }
}

/// Words of a buffer with room for `capacity` records.
pub fn buffer(capacity: u32) -> Vec<u32> {
    let mut words = vec![0u32; HEADER_WORDS + capacity as usize * RECORD_WORDS];
    words[1] = capacity;
    words
}

/// Reads a buffer back (count and capacity checked against its length).
pub fn decode(words: &[u32]) -> Result<Recording, String> {
    let (count, capacity) = match words.get(..HEADER_WORDS) {
        Some(&[c, cap, _, _]) => (c, cap),
        _ => return Err(format!("{} words hold no header", words.len())),
    };
    let room = (words.len() - HEADER_WORDS) / RECORD_WORDS;
    if capacity as usize > room {
        return Err(format!(
            "capacity {capacity} records, the buffer holds {room}"
        ));
    }
    let mut records = Vec::new();
    for (k, w) in words[HEADER_WORDS..]
        .chunks_exact(RECORD_WORDS)
        .take(count.min(capacity) as usize)
        .enumerate()
    {
        let n = w[1] as usize;
        if n > MOST_DESTINATIONS {
            return Err(format!(
                "record {k}: {n} values (at most {MOST_DESTINATIONS})"
            ));
        }
        records.push(Record {
            slot: w[0],
            values: (0..n)
                .map(|i| {
                    let b = 2 + 4 * i;
                    [w[b], w[b + 1], w[b + 2], w[b + 3]]
                })
                .collect(),
        });
    }
    Ok(Recording {
        records,
        count: u64::from(count),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsxtrace_program::vertex::VertexInstruction;

    #[test]
    fn a_nop_writes_nothing_and_records_decode() {
        let i = VertexInstruction::idle(5);
        assert!(destinations(&i).is_empty());
        assert_eq!(call(&i), "{ let rb = rsx_rec_begin(5u, 0u); }");
        let mut w = buffer(2);
        w[0] = 3;
        w[4] = 9;
        w[5] = 1;
        w[6] = 2.0f32.to_bits();
        let r = decode(&w).unwrap();
        assert!(r.truncated());
        assert_eq!(r.records[0].slot, 9);
        assert_eq!(Destination::Temp(1).values(r.records[0].values[0])[0], 2.0);
        assert_eq!(Destination::Addr(0).values([u32::MAX; 4]), [-1.0; 4]);
        assert_eq!(Destination::Output(0).name(), "o[HPOS]");
        w[4 + RECORD_WORDS + 1] = 7;
        assert!(decode(&w).is_err(), "7 values");
        assert!(decode(&w[..2]).is_err());
    }
}
