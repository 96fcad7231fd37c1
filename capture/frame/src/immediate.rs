//! Immediate ("register") vertex attributes set by the `SET_VERTEX_DATA*_M` families
//! (rrc-format.md 4.4; RPCS3 `nv4097.h` `set_vertex_data_impl`).
//!
//! Values set before the captured frame are not in the file (rrc-format.md 3.4), so an
//! attribute is known only once every word the family last written to it reads has been
//! written during the frame. As RPCS3 keeps it (`NV47/HW/common.cpp` `push_vertex_data`), an
//! attribute is four raw words and the type and size of the last family written: a write
//! replaces one word and keeps the others, whichever family wrote them, and the value is the
//! words decoded as that family.

use rsxtrace_fetch::ImmediateValue;

/// The method families (rrc-format.md 4.4 table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `SET_VERTEX_DATA1F_M`: F, size 1.
    F1,
    /// `SET_VERTEX_DATA2F_M`: F, size 2.
    F2,
    /// `SET_VERTEX_DATA3F_M`: F, size 3 (4 registers per attribute, the 4th unused).
    F3,
    /// `SET_VERTEX_DATA4F_M`: F, size 4.
    F4,
    /// `SET_VERTEX_DATA2S_M`: S32K, size 2, one word (x low, y high).
    S2,
    /// `SET_VERTEX_DATA4S_M`: S32K, size 4, two words.
    S4,
    /// `SET_VERTEX_DATA_SCALED4S_M`: S1 (normalised), size 4, two words.
    Scaled4S,
    /// `SET_VERTEX_DATA4UB_M`: UB, size 4, one word.
    UB4,
}

impl Family {
    /// Words that carry data for one attribute.
    pub fn words(self) -> usize {
        match self {
            Family::F1 | Family::S2 | Family::UB4 => 1,
            Family::F2 | Family::S4 | Family::Scaled4S => 2,
            Family::F3 => 3,
            Family::F4 => 4,
        }
    }

    /// The words it reads, bit k for word k.
    pub fn word_mask(self) -> u8 {
        (1u8 << self.words()) - 1
    }
}

/// Map a register byte offset to (family, attribute, word). Returns `None` for registers that
/// are not immediate attribute methods; the unused 4th word of `DATA3F` maps to word 3, which
/// [`ImmediateAttributes::write`] ignores.
pub fn classify(reg: u16) -> Option<(Family, usize, usize)> {
    let b = reg as usize * 4;
    let (family, base, per_attr) = match b {
        0x1E40..=0x1E7C => (Family::F1, 0x1E40, 4),
        0x1880..=0x18FC => (Family::F2, 0x1880, 8),
        0x1500..=0x15FC => (Family::F3, 0x1500, 16),
        0x1C00..=0x1CFC => (Family::F4, 0x1C00, 16),
        0x1900..=0x193C => (Family::S2, 0x1900, 4),
        0x1980..=0x19FC => (Family::S4, 0x1980, 8),
        0x0A80..=0x0AFC => (Family::Scaled4S, 0x0A80, 8),
        0x1940..=0x197C => (Family::UB4, 0x1940, 4),
        _ => return None,
    };
    let rel = b - base;
    Some((family, rel / per_attr, (rel % per_attr) / 4))
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    family: Option<Family>,
    words: [u32; 4],
    written: u8,
}

/// The 16 immediate attributes as written so far in the frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImmediateAttributes {
    slots: [Slot; 16],
}

impl ImmediateAttributes {
    /// Apply a register write; returns false when `reg` is not an immediate attribute method.
    pub fn write(&mut self, reg: u16, value: u32) -> bool {
        let Some((family, attr, word)) = classify(reg) else {
            return false;
        };
        let Some(slot) = self.slots.get_mut(attr) else {
            return false;
        };
        if word >= family.words() {
            return true; // padding word of DATA3F
        }
        slot.family = Some(family);
        slot.words[word] = value;
        slot.written |= 1 << word;
        true
    }

    /// The value of attribute `i` as f32x4, missing components 0, 0, 1 (rrc-format.md 4.3):
    /// `Unknown` when nothing was written in the frame, `Partial` when only some words of
    /// its family were.
    pub fn value(&self, i: usize) -> ImmediateValue {
        let Some(slot) = self.slots.get(i) else {
            return ImmediateValue::Unknown;
        };
        let Some(family) = slot.family else {
            return ImmediateValue::Unknown;
        };
        if slot.written & family.word_mask() != family.word_mask() {
            // RPCS3's replay starts from zeroed register data (rrc-format.md 3.4 item 4) and
            // reads the register once any word is written (`register_vertex_info.size > 0`,
            // RSXDrawCommands.cpp `analyse_inputs_interleaved`): unwritten words read as 0.
            return ImmediateValue::Partial {
                replayed: decode(family, &slot.words),
            };
        }
        ImmediateValue::Known(decode(family, &slot.words))
    }

    /// The raw words of attribute `i` and which of them were written in the frame (bit k:
    /// word k); words never written are 0, as in RPCS3's replay.
    pub fn words(&self, i: usize) -> ([u32; 4], u8) {
        self.slots
            .get(i)
            .map_or(([0; 4], 0), |slot| (slot.words, slot.written))
    }

    /// All 16 values.
    pub fn values(&self) -> [ImmediateValue; 16] {
        std::array::from_fn(|i| self.value(i))
    }
}

fn lo(w: u32) -> i16 {
    w as u16 as i16
}
fn hi(w: u32) -> i16 {
    (w >> 16) as u16 as i16
}
/// S1 normalisation `(v + 0.5) / 32767.5` (rrc-format.md 4.3).
fn s1(v: i16) -> f32 {
    (v as f32 + 0.5) / 32767.5
}

/// Decode one family's words to f32x4.
pub fn decode(family: Family, w: &[u32; 4]) -> [f32; 4] {
    let f = f32::from_bits;
    match family {
        Family::F1 => [f(w[0]), 0.0, 0.0, 1.0],
        Family::F2 => [f(w[0]), f(w[1]), 0.0, 1.0],
        Family::F3 => [f(w[0]), f(w[1]), f(w[2]), 1.0],
        Family::F4 => [f(w[0]), f(w[1]), f(w[2]), f(w[3])],
        Family::S2 => [lo(w[0]) as f32, hi(w[0]) as f32, 0.0, 1.0],
        Family::S4 => [
            lo(w[0]) as f32,
            hi(w[0]) as f32,
            lo(w[1]) as f32,
            hi(w[1]) as f32,
        ],
        Family::Scaled4S => [s1(lo(w[0])), s1(hi(w[0])), s1(lo(w[1])), s1(hi(w[1]))],
        // 4UB: x = bits 0..7 up to w = bits 24..31. RPCS3 swaps the words of the 4- and 2-byte
        // families to guest order but keeps a 4UB word as it came (`set_vertex_data_impl`,
        // `NV47/HW/nv4097.h`: only `sizeof(type)` 4 and 2 are converted), and its vertex fetch
        // reads the bytes of a UB element in memory order, the lowest first; older RPCS3
        // (`v0 = v; v1 = v >> 8; ...`) read it the same way. rrc-format.md 4.4 says bits
        // 24..31; RPCS3 is the reference.
        Family::UB4 => {
            let b = w[0].to_le_bytes();
            [
                b[0] as f32 / 255.0,
                b[1] as f32 / 255.0,
                b[2] as f32 / 255.0,
                b[3] as f32 / 255.0,
            ]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(byte: usize) -> u16 {
        (byte / 4) as u16
    }

    #[test]
    fn every_family() {
        let mut a = ImmediateAttributes::default();
        // 1F attribute 2: 0x1E40 + 8.
        assert!(a.write(reg(0x1E48), 2.5f32.to_bits()));
        assert_eq!(a.value(2), ImmediateValue::Known([2.5, 0.0, 0.0, 1.0]));
        // 2F attribute 1: 0x1880 + 8, + 4.
        a.write(reg(0x1888), 1.0f32.to_bits());
        assert_eq!(
            a.value(1),
            ImmediateValue::Partial {
                replayed: [1.0, 0.0, 0.0, 1.0]
            },
            "y not written yet: RPCS3's replay reads it as the zero word"
        );
        a.write(reg(0x188C), (-2.0f32).to_bits());
        assert_eq!(a.value(1), ImmediateValue::Known([1.0, -2.0, 0.0, 1.0]));
        // 3F attribute 3: 0x1500 + 48 .. + 8; the padding word is ignored.
        a.write(reg(0x1530), 1.0f32.to_bits());
        a.write(reg(0x1534), 2.0f32.to_bits());
        a.write(reg(0x1538), 3.0f32.to_bits());
        a.write(reg(0x153C), 9.0f32.to_bits());
        assert_eq!(a.value(3), ImmediateValue::Known([1.0, 2.0, 3.0, 1.0]));
        // 4F attribute 15: 0x1C00 + 240.
        for (j, v) in [0.25f32, 0.5, 0.75, 0.125].iter().enumerate() {
            a.write(reg(0x1CF0 + 4 * j), v.to_bits());
        }
        assert_eq!(a.value(15), ImmediateValue::Known([0.25, 0.5, 0.75, 0.125]));
        // 2S attribute 4: x = low 16 bits (-2 = 0xFFFE), y = high (7).
        a.write(reg(0x1910), 0x0007_FFFE);
        assert_eq!(a.value(4), ImmediateValue::Known([-2.0, 7.0, 0.0, 1.0]));
        // 4S attribute 5: word 0 x low / y high, word 1 z low / w high.
        a.write(reg(0x19A8), 0x0002_0001);
        a.write(reg(0x19AC), 0x8000_0003);
        assert_eq!(a.value(5), ImmediateValue::Known([1.0, 2.0, 3.0, -32768.0]));
        // SCALED4S attribute 6: 32767 -> (32767.5)/32767.5 = 1; -32768 -> -1.
        a.write(reg(0x0AB0), 0x8000_7FFF);
        a.write(reg(0x0AB4), 0x0000_0000);
        let ImmediateValue::Known(v) = a.value(6) else {
            panic!("unknown")
        };
        assert_eq!(v[0], 1.0);
        assert_eq!(v[1], -1.0);
        assert_eq!(v[2], 0.5 / 32767.5);
        // 4UB attribute 7: 0xFF806600 -> x = 0, y = 0x66, z = 0x80, w = 0xFF.
        a.write(reg(0x195C), 0xFF80_6600);
        assert_eq!(
            a.value(7),
            ImmediateValue::Known([0.0, 102.0 / 255.0, 128.0 / 255.0, 1.0])
        );
        assert_eq!(a.value(0), ImmediateValue::Unknown);
    }

    #[test]
    fn the_last_family_reads_every_word_written() {
        let mut a = ImmediateAttributes::default();
        for j in 0..4 {
            a.write(reg(0x1C00 + 4 * j), (1.0 + j as f32).to_bits());
        }
        assert_eq!(a.value(0), ImmediateValue::Known([1.0, 2.0, 3.0, 4.0]));
        // 2F x alone on attribute 0: the attribute is F size 2 and keeps the 4F words, so y
        // is the 4F's 2 (RPCS3 `push_vertex_data` replaces one word).
        a.write(reg(0x1880), 9.0f32.to_bits());
        assert_eq!(a.value(0), ImmediateValue::Known([9.0, 2.0, 0.0, 1.0]));
        // 1F, then 4F x alone: the 4F reads words 1..3 as written in the frame.
        a.write(reg(0x1E40), 7.0f32.to_bits());
        assert_eq!(a.value(0), ImmediateValue::Known([7.0, 0.0, 0.0, 1.0]));
        a.write(reg(0x1C00), 5.0f32.to_bits());
        assert_eq!(a.value(0), ImmediateValue::Known([5.0, 2.0, 3.0, 4.0]));
        // Attribute 1: 1F, then 2F y alone: word 0 is the 1F's, both words are known.
        a.write(reg(0x1E44), 3.0f32.to_bits());
        a.write(reg(0x188C), 4.0f32.to_bits());
        assert_eq!(a.value(1), ImmediateValue::Known([3.0, 4.0, 0.0, 1.0]));
        // Attribute 2: 2F x alone, never y: partial, y read as RPCS3's zeroed word.
        a.write(reg(0x1890), 6.0f32.to_bits());
        assert_eq!(
            a.value(2),
            ImmediateValue::Partial {
                replayed: [6.0, 0.0, 0.0, 1.0]
            }
        );
        assert_eq!(a.words(2), ([6.0f32.to_bits(), 0, 0, 0], 0b1));
        assert!(!a.write(reg(0x1808), 5));
    }
}
