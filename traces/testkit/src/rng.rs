//! Small seeded generators for randomised tests: deterministic, no dependency. Marsaglia's
//! xorshift64 (shifts 13, 7, 17) and Vigna's xorshift64* (shifts 12, 25, 27, multiplier
//! 0x2545F4914F6CDD1D), as "An experimental exploration of Marsaglia's xorshift generators,
//! scrambled" (Vigna, 2016) gives them. A seed must be non-zero.

/// xorshift64: `x ^= x << 13; x ^= x >> 7; x ^= x << 17`, output x.
#[derive(Clone, Debug)]
pub struct XorShift64(pub u64);

impl XorShift64 {
    /// The next state, which is also the output.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// xorshift64*: `x ^= x >> 12; x ^= x << 25; x ^= x >> 27`, output x · 0x2545F4914F6CDD1D.
#[derive(Clone, Debug)]
pub struct XorShift64Star(pub u64);

impl XorShift64Star {
    /// The next output.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// The high 32 bits of the next output (the better half of a xorshift* output).
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift64_follows_its_shifts() {
        // From seed 1: 1 ^ 1<<13 = 0x2001; ^ >>7 = 0x2001 ^ 0x40 = 0x2041;
        // ^ <<17 = 0x2041 ^ 0x4082_0000 = 0x4082_2041.
        let mut r = XorShift64(1);
        assert_eq!(r.next_u64(), 0x4082_2041);
    }

    #[test]
    fn xorshift64_star_follows_its_shifts_and_multiplier() {
        // From seed 1: 1 ^ 1>>12 = 1; ^ 1<<25 = 0x200_0001; ^ >>27 = 0x200_0001 (nothing left
        // above bit 26 but bit 25); output = 0x200_0001 · 0x2545F4914F6CDD1D mod 2^64.
        let mut r = XorShift64Star(1);
        let state = 0x200_0001u64;
        assert_eq!(r.next_u64(), state.wrapping_mul(0x2545_F491_4F6C_DD1D));
        assert_eq!(r.0, state);
        let mut s = XorShift64Star(1);
        assert_eq!(
            u64::from(s.next_u32()),
            state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32
        );
    }
}
