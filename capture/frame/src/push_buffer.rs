//! Immediate-mode vertices: the per-attribute "push buffers" that `SET_VERTEX_DATA*` writes
//! fill inside a BEGIN/END scope (rrc-format.md 4.4, last bullet).
//!
//! The rules restate RPCS3 HEAD (facts only):
//! * `NV47/HW/common.cpp` `push_vertex_data`: inside BEGIN/END a write goes to the push buffer
//!   first, then updates the attribute's register value;
//! * `RSXDrawCommands.cpp` `append_to_push_buffer`: writes to an attribute that is not in
//!   `SET_VERTEX_ATTRIB_INPUT_MASK` at the time are not pushed; attribute 0 is the provoking
//!   attribute: a write goes to vertex `attr0_writes / attr0_words_per_vertex`, so completing
//!   attribute 0's words closes a vertex, and attributes written before attribute 0 belong to
//!   the vertex attribute 0 is about to complete;
//! * `rsx_vertex_data.cpp` `push_buffer_vertex_info::set_vertex_data` / `pad_to`: a write to a
//!   vertex past an attribute's last one fills the skipped vertices with the attribute's
//!   register value (before this write, its raw words whatever family wrote them). RPCS3
//!   leaves the words of the new vertex this write does not set uninitialised (its
//!   `simple_array` does not zero); here they are the register's words too, as a write to the
//!   register itself keeps them (the hardware's push buffer behaves like register writes);
//! * `nv4097.cpp` `set_begin_end`: a scope with no draw command draws attribute 0's vertex
//!   count as one range `(0, count)`;
//! * `RSXDrawCommands.cpp` `analyse_inputs_interleaved`: in such a draw, vertex arrays are
//!   ignored; an attribute with more than one pushed vertex reads its push buffer, padded to
//!   the vertex count with its register value at END; any other attribute reads its register
//!   value. Extra pushed vertices past the count are not drawn.
//!
//! Words per vertex are the family's data words (RPCS3 `get_vertex_size_in_dwords`). The
//! padding word of `DATA3F` is ignored here as in [`crate::immediate`]. A buffer is decoded with
//! the last family written to it (RPCS3 logs a "respecced mid-draw" error in that case).

use crate::immediate::{decode, Family, ImmediateAttributes};
use rsxtrace_fetch::{ImmediateStream, ImmediateValue};

/// One pushed vertex of one attribute: its raw words and which of them are known (written
/// in the frame, here or in the register value it started from).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct VertexWords {
    words: [u32; 4],
    /// Bit k: word k is known.
    known: u8,
}

impl VertexWords {
    /// An attribute's register value (`ImmediateAttributes::words`).
    fn register((words, known): ([u32; 4], u8)) -> VertexWords {
        VertexWords { words, known }
    }
}

/// One attribute's push buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct AttributeBuffer {
    /// Family of the last write.
    family: Option<Family>,
    /// Raw words per vertex.
    vertices: Vec<VertexWords>,
    /// Words written (RPCS3 `dword_count`); only attribute 0's is used.
    words_written: u64,
}

impl AttributeBuffer {
    /// Fill vertices up to `count` with the register value `register`: its raw words,
    /// whichever family wrote them (RPCS3's `pad_to` copies the register's words).
    fn pad_to(&mut self, count: usize, register: VertexWords) {
        if self.vertices.len() < count {
            self.vertices.resize(count, register);
        }
    }

    fn decoded(&self, count: usize) -> Vec<ImmediateValue> {
        let Some(family) = self.family else {
            return vec![ImmediateValue::Unknown; count];
        };
        let need = family.word_mask();
        self.vertices
            .iter()
            .take(count)
            .map(|v| {
                if v.known & need == need {
                    ImmediateValue::Known(decode(family, &v.words))
                } else {
                    // A word set before the frame: RPCS3's replay pads with its zeroed register
                    // data (rrc-format.md 3.4 item 4), and the unknown words are 0 here.
                    ImmediateValue::Partial {
                        replayed: decode(family, &v.words),
                    }
                }
            })
            .collect()
    }
}

/// The 16 push buffers of one BEGIN/END scope.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PushBuffers {
    attributes: [AttributeBuffer; 16],
}

impl PushBuffers {
    /// The vertex attribute 0 is filling: its words written / its words per vertex (0 before
    /// any write to attribute 0).
    fn current_vertex(&self) -> u64 {
        let a0 = &self.attributes[0];
        match a0.family {
            Some(f) => a0.words_written / f.words() as u64,
            None => 0,
        }
    }

    /// Push one `SET_VERTEX_DATA*` word written inside BEGIN/END. `registers` holds the
    /// attribute values before this write; `input_mask` is `SET_VERTEX_ATTRIB_INPUT_MASK`.
    /// Words that carry no data (`DATA3F` padding) and attributes outside the mask are
    /// ignored.
    pub fn write(
        &mut self,
        family: Family,
        attribute: usize,
        word: usize,
        value: u32,
        registers: &ImmediateAttributes,
        input_mask: u32,
    ) {
        if word >= family.words() || attribute >= 16 || input_mask & (1 << attribute) == 0 {
            return;
        }
        // The vertex count is bounded by the number of writes, so it fits in memory.
        let required = usize::try_from(self.current_vertex()).map_or(usize::MAX, |v| v + 1);
        let register = VertexWords::register(registers.words(attribute));
        let Some(buffer) = self.attributes.get_mut(attribute) else {
            return;
        };
        buffer.family = Some(family);
        // Skipped vertices take the register value; so does the new vertex's part this write
        // leaves alone (the words a write keeps, as for the register itself; RPCS3 leaves
        // them uninitialised).
        buffer.pad_to(required, register);
        if let Some(last) = buffer.vertices.last_mut() {
            last.words[word] = value;
            last.known |= 1 << word;
        }
        buffer.words_written += 1;
    }

    /// Vertices of the scope: attribute 0's vertex count.
    pub fn vertex_count(&self) -> usize {
        self.attributes[0].vertices.len()
    }

    /// The per-vertex streams of the draw at END, for the attributes of `input_mask` with more
    /// than one pushed vertex, each padded or cut to [`Self::vertex_count`] (`registers` = the
    /// attribute values at END).
    pub fn streams(
        &self,
        registers: &ImmediateAttributes,
        input_mask: u32,
    ) -> Vec<ImmediateStream> {
        let count = self.vertex_count();
        let mut streams = Vec::new();
        for (attribute, buffer) in (0u8..).zip(self.attributes.iter()) {
            if input_mask & (1 << attribute) == 0 || buffer.vertices.len() <= 1 {
                continue;
            }
            let mut buffer = buffer.clone();
            buffer.pad_to(
                count,
                VertexWords::register(registers.words(usize::from(attribute))),
            );
            streams.push(ImmediateStream {
                attribute,
                values: buffer.decoded(count),
            });
        }
        streams
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::immediate::classify;

    /// Apply a write the way the frame model does: push first, then update the register.
    fn put(p: &mut PushBuffers, r: &mut ImmediateAttributes, byte: u16, value: u32, mask: u32) {
        let (family, attribute, word) = classify(byte / 4).expect("immediate method");
        p.write(family, attribute, word, value, r, mask);
        r.write(byte / 4, value);
    }

    fn f(v: f32) -> u32 {
        v.to_bits()
    }

    #[test]
    fn attribute_zero_closes_vertices() {
        let (mut p, mut r) = (PushBuffers::default(), ImmediateAttributes::default());
        // 2F on attribute 0 (0x1880): two writes per vertex.
        for v in 0..3 {
            put(&mut p, &mut r, 0x1880, f(v as f32), 1);
            assert_eq!(p.vertex_count(), v + 1, "first word opens vertex {v}");
            put(&mut p, &mut r, 0x1884, f(10.0 + v as f32), 1);
            assert_eq!(p.vertex_count(), v + 1);
        }
        // A single pushed vertex per attribute is not a stream; attribute 0 has three.
        let s = p.streams(&r, 1);
        assert_eq!(s.len(), 1);
        assert_eq!(
            s[0].values,
            vec![
                ImmediateValue::Known([0.0, 10.0, 0.0, 1.0]),
                ImmediateValue::Known([1.0, 11.0, 0.0, 1.0]),
                ImmediateValue::Known([2.0, 12.0, 0.0, 1.0]),
            ]
        );
    }

    #[test]
    fn skipped_vertices_take_the_register_value_and_short_streams_are_padded() {
        let (mut p, mut r) = (PushBuffers::default(), ImmediateAttributes::default());
        let mask = 1 | 1 << 4;
        // Outside the scope: attribute 4 register = 1F 7.0 (0x1E40 + 16).
        r.write(0x1E50 / 4, f(7.0));
        // Vertex 0 and 1: attribute 0 only (1F, 0x1E40).
        put(&mut p, &mut r, 0x1E40, f(0.0), mask);
        put(&mut p, &mut r, 0x1E40, f(1.0), mask);
        // Vertex 2: attribute 4 = 8.0, then attribute 0.
        put(&mut p, &mut r, 0x1E50, f(8.0), mask);
        put(&mut p, &mut r, 0x1E40, f(2.0), mask);
        // Vertex 3: attribute 0 only; attribute 4 is padded with its END value 8.0.
        put(&mut p, &mut r, 0x1E40, f(3.0), mask);
        assert_eq!(p.vertex_count(), 4);
        let s = p.streams(&r, mask);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].attribute, 4);
        let x = |v: f32| ImmediateValue::Known([v, 0.0, 0.0, 1.0]);
        assert_eq!(s[1].values, vec![x(7.0), x(7.0), x(8.0), x(8.0)]);
    }

    #[test]
    fn unknown_register_value_pads_as_unknown_and_masked_attributes_are_not_pushed() {
        let (mut p, mut r) = (PushBuffers::default(), ImmediateAttributes::default());
        // Attribute 1 (4UB, 0x1944) not in the mask at the first write: not pushed.
        put(&mut p, &mut r, 0x1944, 0x0000_00FF, 1);
        put(&mut p, &mut r, 0x1E40, f(0.0), 1);
        // Vertex 1: attribute 1 now in the mask; vertex 0 takes the register value 0x000000FF
        // (x = bits 0..7).
        put(&mut p, &mut r, 0x1944, 0x0000_FF00, 0b11);
        put(&mut p, &mut r, 0x1E40, f(1.0), 0b11);
        // Attribute 2 (1F, 0x1E48) first written at vertex 2: vertices 0, 1 are unknown.
        put(&mut p, &mut r, 0x1E48, f(5.0), 0b111);
        put(&mut p, &mut r, 0x1E40, f(2.0), 0b111);
        let s = p.streams(&r, 0b111);
        let by = |a: u8| {
            s.iter()
                .find(|s| s.attribute == a)
                .expect("stream")
                .values
                .clone()
        };
        assert_eq!(
            by(1),
            vec![
                ImmediateValue::Known([1.0, 0.0, 0.0, 0.0]),
                ImmediateValue::Known([0.0, 1.0, 0.0, 0.0]),
                // Padded with the END register value.
                ImmediateValue::Known([0.0, 1.0, 0.0, 0.0]),
            ]
        );
        assert_eq!(
            by(2),
            vec![
                // RPCS3's replay pads with zeroed register words, decoded as 1F: (0, 0, 0, 1).
                ImmediateValue::Partial {
                    replayed: [0.0, 0.0, 0.0, 1.0]
                },
                ImmediateValue::Partial {
                    replayed: [0.0, 0.0, 0.0, 1.0]
                },
                ImmediateValue::Known([5.0, 0.0, 0.0, 1.0]),
            ]
        );
    }

    #[test]
    fn a_partly_written_vertex_keeps_the_register_words() {
        let (mut p, mut r) = (PushBuffers::default(), ImmediateAttributes::default());
        // 4F attribute 0: vertex 0 complete, vertex 1 only x and y: its z and w are the
        // register's, which vertex 0's writes left at 3 and 4.
        for (j, v) in [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().enumerate() {
            put(&mut p, &mut r, 0x1C00 + 4 * (j as u16 % 4), f(*v), 1);
        }
        let s = p.streams(&r, 1);
        assert_eq!(
            s[0].values,
            vec![
                ImmediateValue::Known([1.0, 2.0, 3.0, 4.0]),
                ImmediateValue::Known([5.0, 6.0, 3.0, 4.0]),
            ]
        );
        // Attribute 0 as 2F over a register never written: vertex 0 has x only, unknown y.
        let (mut p, mut r) = (PushBuffers::default(), ImmediateAttributes::default());
        put(&mut p, &mut r, 0x1880, f(1.0), 1);
        put(&mut p, &mut r, 0x1884, f(2.0), 1);
        put(&mut p, &mut r, 0x1880, f(3.0), 1);
        let s = p.streams(&r, 1);
        assert_eq!(s[0].values[0], ImmediateValue::Known([1.0, 2.0, 0.0, 1.0]));
        // Vertex 1 starts from the register (x 1, y 2) and writes x: y is known.
        assert_eq!(s[0].values[1], ImmediateValue::Known([3.0, 2.0, 0.0, 1.0]));
    }

    #[test]
    fn extra_vertices_past_attribute_zero_are_cut() {
        let (mut p, mut r) = (PushBuffers::default(), ImmediateAttributes::default());
        let mask = 0b1001;
        for v in 0..2 {
            put(&mut p, &mut r, 0x1E4C, f(v as f32), mask); // attribute 3
            put(&mut p, &mut r, 0x1E40, f(v as f32), mask); // attribute 0
        }
        // A trailing attribute 3 write opens vertex 2 for attribute 3 only.
        put(&mut p, &mut r, 0x1E4C, f(9.0), mask);
        assert_eq!(p.vertex_count(), 2);
        let s = p.streams(&r, mask);
        assert_eq!(s[1].attribute, 3);
        assert_eq!(s[1].values.len(), 2);
    }
}
