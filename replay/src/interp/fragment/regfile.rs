//! The temp register file of one lane: 48 × 16 bytes shared by the R (fp32) and H (fp16)
//! views (rsx-microcode.md B.3, RPCS3 `FPOpcodes.h` `register_file_max_len = 48*16`).
//!
//! Aliasing (B.3, RPCS3 `RegisterDependencyPass.cpp`): R(n).x holds H(2n).x in its low 16
//! bits and H(2n).y in its high 16 bits; R(n).y = H(2n).zw; R(n).z = H(2n+1).xy;
//! R(n).w = H(2n+1).zw. All registers start at 0 (B.3, RPCS3 `BuildCode`).
//!
//! With a wide [`Real`] (f64) each 32-bit word also keeps the f64 value last written through
//! R, so R reads stay wide until an H write replaces half of the word.

use super::real::Real;

/// Number of R registers.
pub const R_COUNT: usize = 48;
const WORDS: usize = R_COUNT * 4;

/// One lane's registers.
#[derive(Clone, Debug)]
pub struct RegisterFile<T> {
    words: [u32; WORDS],
    wide: [T; WORDS],
    wide_valid: [bool; WORDS],
}

impl<T: Real> Default for RegisterFile<T> {
    fn default() -> Self {
        RegisterFile {
            words: [0; WORDS],
            wide: [T::ZERO; WORDS],
            wide_valid: [false; WORDS],
        }
    }
}

/// Word index and half (0 = low 16 bits) of component `c` of H(`h`).
#[inline]
fn h_location(h: u8, c: usize) -> (usize, u32) {
    let n = usize::from(h >> 1);
    let word = n * 4 + usize::from(h & 1) * 2 + (c >> 1);
    (word, (c & 1) as u32 * 16)
}

impl<T: Real> RegisterFile<T> {
    /// The raw 32-bit word of R(`r`) component `c` (0 for out-of-range indices, which the
    /// program check refuses beforehand).
    #[inline]
    pub fn word(&self, r: u8, c: usize) -> u32 {
        self.words.get(usize::from(r) * 4 + c).copied().unwrap_or(0)
    }

    /// R(`r`) component `c`.
    #[inline]
    pub fn read_r(&self, r: u8, c: usize) -> T {
        let i = usize::from(r) * 4 + c;
        if T::WIDE && self.wide_valid.get(i).copied().unwrap_or(false) {
            return self.wide.get(i).copied().unwrap_or(T::ZERO);
        }
        T::from_word(self.words.get(i).copied().unwrap_or(0))
    }

    /// Writes R(`r`) component `c`.
    #[inline]
    pub fn write_r(&mut self, r: u8, c: usize, v: T) {
        let i = usize::from(r) * 4 + c;
        if let Some(w) = self.words.get_mut(i) {
            *w = v.to_word();
        }
        if T::WIDE {
            if let (Some(w), Some(ok)) = (self.wide.get_mut(i), self.wide_valid.get_mut(i)) {
                *w = v;
                *ok = true;
            }
        }
    }

    /// The binary16 bits of H(`h`) component `c`.
    #[inline]
    pub fn half_bits(&self, h: u8, c: usize) -> u16 {
        let (i, shift) = h_location(h, c);
        (self.words.get(i).copied().unwrap_or(0) >> shift) as u16
    }

    /// H(`h`) component `c`.
    #[inline]
    pub fn read_h(&self, h: u8, c: usize) -> T {
        T::from_half_bits(self.half_bits(h, c))
    }

    /// Writes H(`h`) component `c`, rounding `v` to binary16 (IEEE round to nearest even,
    /// overflow to ±inf).
    #[inline]
    pub fn write_h(&mut self, h: u8, c: usize, v: T) {
        let (i, shift) = h_location(h, c);
        let bits = u32::from(v.to_half_bits()) << shift;
        if let Some(w) = self.words.get_mut(i) {
            *w = (*w & !(0xFFFF << shift)) | bits;
        }
        if let Some(ok) = self.wide_valid.get_mut(i) {
            *ok = false;
        }
    }
}
