//! The temp register files of a block of lanes, stored component-major ("structure of
//! arrays": one row of [`LANES`] values per register component), so a swizzle selects rows
//! and every operation is a loop over lanes. 48 × 16 bytes per lane shared by the R (fp32)
//! and H (fp16) views (rsx-microcode.md B.3, RPCS3 `FPOpcodes.h`
//! `register_file_max_len = 48*16`).
//!
//! Aliasing (B.3, RPCS3 `RegisterDependencyPass.cpp`): R(n).x holds H(2n).x in its low 16
//! bits and H(2n).y in its high 16 bits; R(n).y = H(2n).zw; R(n).z = H(2n+1).xy;
//! R(n).w = H(2n+1).zw. All registers start at 0 (B.3, RPCS3 `BuildCode`).
//!
//! Each component keeps its value as a [`Real`]; with f32 that value *is* the 32-bit word.
//! With a wide [`Real`] (f64) the 32-bit words are kept beside it: an R write stores the wide
//! value and its f32 word, an H write replaces half of the word and the wide value becomes
//! that word's f32 value, so R reads stay wide until an H write touches them.
//!
//! With kept halves ([`BlockRegisters::keeping_halves`], for `HalfRounding::Keep`) an H write
//! also stores its unconverted value beside the word, and H reads return it until an R write
//! to the same word replaces it; R reads of that word see the nearest binary16 bits.

use super::real::Real;

/// Number of R registers.
pub const R_COUNT: usize = 48;

/// Lanes (pixels) in a block: 16 quads.
pub const LANES: usize = 64;

/// One value per lane.
pub type Row<T> = [T; LANES];

/// Word row index and half (0 = low 16 bits) of component `c` of H(`h`).
#[inline]
pub fn h_location(h: u8, c: usize) -> (usize, u32) {
    let n = usize::from(h >> 1);
    let row = n * 4 + usize::from(h & 1) * 2 + ((c & 3) >> 1);
    (row, (c & 1) as u32 * 16)
}

/// The registers of every lane of a block.
#[derive(Clone, Debug)]
pub struct BlockRegisters<T> {
    values: Vec<Row<T>>,
    /// f32 words, only kept for wide types.
    words: Vec<[u32; LANES]>,
    /// Kept halves only: per word row, the unconverted value of its low and high H component.
    halves: Vec<[Row<T>; 2]>,
    /// Kept halves only: per word row and half, the lanes whose kept value is current.
    current: Vec<[u64; 2]>,
}

impl<T: Real> BlockRegisters<T> {
    /// Registers R0..R(`count` − 1) (at most [`R_COUNT`]), all 0.
    pub fn new(count: usize) -> Self {
        let rows = count.min(R_COUNT) * 4;
        BlockRegisters {
            values: vec![[T::ZERO; LANES]; rows],
            words: if T::WIDE {
                vec![[0; LANES]; rows]
            } else {
                Vec::new()
            },
            halves: Vec::new(),
            current: Vec::new(),
        }
    }

    /// The same registers keeping each H write's value unconverted (`HalfRounding::Keep`).
    pub fn keeping_halves(mut self) -> Self {
        let rows = self.values.len();
        self.halves = vec![[[T::ZERO; LANES]; 2]; rows];
        self.current = vec![[0; 2]; rows];
        self
    }

    /// Sets every register back to 0.
    pub fn reset(&mut self) {
        self.values.fill([T::ZERO; LANES]);
        self.words.fill([0; LANES]);
        self.current.fill([0; 2]);
    }

    /// The kept value of H component at (`row`, `shift`) of `lane`, when current.
    #[inline]
    fn kept(&self, row: usize, shift: u32, lane: usize) -> Option<T> {
        let half = (shift / 16) as usize;
        let current = self.current.get(row)?[half];
        if (current >> lane) & 1 == 0 {
            return None;
        }
        self.halves.get(row)?[half].get(lane).copied()
    }

    /// The row of R(`r`) component `c` (`None` outside the kept registers).
    #[inline]
    pub fn r_row(&self, r: u8, c: usize) -> Option<&Row<T>> {
        self.values.get(usize::from(r) * 4 + (c & 3))
    }

    /// Reads H(`h`) component `c` of every lane into `out` (0 outside the kept registers).
    #[inline]
    pub fn read_h_row(&self, h: u8, c: usize, out: &mut Row<T>) {
        let (row, shift) = h_location(h, c);
        if T::WIDE {
            match self.words.get(row) {
                Some(w) => {
                    for (o, &w) in out.iter_mut().zip(w) {
                        *o = T::from_half_bits((w >> shift) as u16);
                    }
                }
                None => out.fill(T::ZERO),
            }
        } else {
            match self.values.get(row) {
                Some(v) => {
                    let mut bits = [0u16; LANES];
                    for (b, &v) in bits.iter_mut().zip(v) {
                        *b = (v.to_word() >> shift) as u16;
                    }
                    T::from_half_bits_row(&bits, out);
                }
                None => out.fill(T::ZERO),
            }
        }
        if self
            .current
            .get(row)
            .is_some_and(|c| c[(shift / 16) as usize] != 0)
        {
            for (lane, o) in out.iter_mut().enumerate() {
                if let Some(v) = self.kept(row, shift, lane) {
                    *o = v;
                }
            }
        }
    }

    /// Writes R(`r`) component `c` of the lanes in `lanes` from `v`.
    #[inline]
    pub fn write_r_row(&mut self, r: u8, c: usize, v: &Row<T>, lanes: u64) {
        let row = usize::from(r) * 4 + (c & 3);
        if let Some(dst) = self.values.get_mut(row) {
            masked_copy(dst, v, lanes);
        }
        if T::WIDE {
            if let Some(w) = self.words.get_mut(row) {
                for (l, (w, x)) in w.iter_mut().zip(v).enumerate() {
                    if (lanes >> l) & 1 != 0 {
                        *w = x.to_word();
                    }
                }
            }
        }
        if let Some(current) = self.current.get_mut(row) {
            current[0] &= !lanes;
            current[1] &= !lanes;
        }
    }

    /// Writes H(`h`) component `c` of the lanes in `lanes` from `v`. The caller has already
    /// converted `v` to binary16 values ([`super::precision::to_half`]), so the conversion here
    /// (nearest even) is exact; with kept halves `v` is also stored unconverted.
    #[inline]
    pub fn write_h_row(&mut self, h: u8, c: usize, v: &Row<T>, lanes: u64) {
        let (row, shift) = h_location(h, c);
        if let (Some(halves), Some(current)) = (self.halves.get_mut(row), self.current.get_mut(row))
        {
            let half = (shift / 16) as usize;
            masked_copy(&mut halves[half], v, lanes);
            current[half] |= lanes;
        }
        let keep = !(0xFFFFu32 << shift);
        let Some(values) = self.values.get_mut(row) else {
            return;
        };
        let mut bits = [0u16; LANES];
        T::to_half_bits_row(v, &mut bits);
        if T::WIDE {
            let Some(words) = self.words.get_mut(row) else {
                return;
            };
            for (l, ((w, val), b)) in words
                .iter_mut()
                .zip(values.iter_mut())
                .zip(bits)
                .enumerate()
            {
                if (lanes >> l) & 1 != 0 {
                    *w = (*w & keep) | (u32::from(b) << shift);
                    *val = T::from_word(*w);
                }
            }
        } else if lanes == u64::MAX {
            for (val, b) in values.iter_mut().zip(bits) {
                *val = T::from_word((val.to_word() & keep) | (u32::from(b) << shift));
            }
        } else {
            for (l, (val, b)) in values.iter_mut().zip(bits).enumerate() {
                if (lanes >> l) & 1 != 0 {
                    let w = (val.to_word() & keep) | (u32::from(b) << shift);
                    *val = T::from_word(w);
                }
            }
        }
    }

    /// R(`r`) component `c` of `lane`.
    #[inline]
    pub fn read_r(&self, r: u8, c: usize, lane: usize) -> T {
        self.r_row(r, c)
            .and_then(|row| row.get(lane))
            .copied()
            .unwrap_or(T::ZERO)
    }

    /// H(`h`) component `c` of `lane`.
    #[inline]
    pub fn read_h(&self, h: u8, c: usize, lane: usize) -> T {
        let (row, shift) = h_location(h, c);
        if let Some(v) = self.kept(row, shift, lane) {
            return v;
        }
        let word = if T::WIDE {
            self.words.get(row).and_then(|w| w.get(lane)).copied()
        } else {
            self.values
                .get(row)
                .and_then(|v| v.get(lane))
                .map(|v| v.to_word())
        };
        T::from_half_bits((word.unwrap_or(0) >> shift) as u16)
    }
}

/// `dst[l] = src[l]` for the lanes in `lanes`.
#[inline]
pub fn masked_copy<T: Copy>(dst: &mut [T; LANES], src: &[T; LANES], lanes: u64) {
    if lanes == u64::MAX {
        *dst = *src;
        return;
    }
    for (l, (d, &s)) in dst.iter_mut().zip(src).enumerate() {
        if (lanes >> l) & 1 != 0 {
            *d = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_halves_hold_f32_values_until_an_r_write() {
        let mut regs = BlockRegisters::<f32>::new(2).keeping_halves();
        let all = u64::MAX;
        // H0.x and H0.y share R0.x; 0.1 has no binary16 form.
        regs.write_h_row(0, 0, &[0.1; LANES], all);
        regs.write_h_row(0, 1, &[-0.3; LANES], all);
        assert_eq!(regs.read_h(0, 0, 5), 0.1);
        assert_eq!(regs.read_h(0, 1, 5), -0.3);
        let mut row = [0.0; LANES];
        regs.read_h_row(0, 1, &mut row);
        assert!(row.iter().all(|&v| v == -0.3));
        // R0.x holds the nearest binary16 bits of both.
        let word = regs.read_r(0, 0, 5).to_bits();
        assert_eq!(word & 0xFFFF, u32::from(half::f16::from_f32(0.1).to_bits()));
        // An R write to lane 5 replaces both kept values there, not elsewhere.
        let mut r = [0.0; LANES];
        r[5] = f32::from_bits(0x3C00_4000); // H0.x = 2.0, H0.y = 1.0
        regs.write_r_row(0, 0, &r, 1 << 5);
        assert_eq!((regs.read_h(0, 0, 5), regs.read_h(0, 1, 5)), (2.0, 1.0));
        assert_eq!(regs.read_h(0, 0, 4), 0.1);
        regs.reset();
        assert_eq!(regs.read_h(0, 0, 4), 0.0);
    }

    #[test]
    fn without_kept_halves_h_writes_are_binary16() {
        let mut regs = BlockRegisters::<f32>::new(1);
        regs.write_h_row(1, 2, &[0.1; LANES], u64::MAX);
        assert_eq!(regs.read_h(1, 2, 0), half::f16::from_f32(0.1).to_f32());
    }
}
