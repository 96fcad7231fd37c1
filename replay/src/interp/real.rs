//! The arithmetic width of the interpreters: the [`Real`] trait, implemented for `f32` (what the
//! RSX computes) and `f64` (the same rules evaluated wider, [`Arithmetic::F64`]).
//!
//! Every operation the vertex and fragment interpreters perform on a value goes through this
//! trait, so the two widths share one implementation of the semantics.
//!
//! [`Arithmetic::F64`]: crate::interp::Arithmetic::F64

use std::fmt::Debug;
use std::ops::{Add, Div, Mul, Neg, Sub};

use half::f16;
use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};

/// A floating-point type the interpreter can compute in.
pub trait Real:
    Copy
    + Debug
    + PartialOrd
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// 0.0.
    const ZERO: Self;
    /// 1.0.
    const ONE: Self;
    /// Whether the type is wider than the f32 words of the register file (the register file
    /// then keeps the wide value beside each word).
    const WIDE: bool;

    /// From an f32 (exact).
    fn from_f32(v: f32) -> Self;
    /// From an f64 (rounded to nearest for f32).
    fn from_f64(v: f64) -> Self;
    /// To f32 (rounded to nearest for f64).
    fn to_f32(self) -> f32;
    /// To f64 (exact).
    fn to_f64(self) -> f64;

    /// |x|.
    fn abs(self) -> Self;
    /// Largest integer not above x.
    fn floor(self) -> Self;
    /// Round toward zero.
    fn trunc(self) -> Self;
    /// Square root (NaN below 0).
    fn sqrt(self) -> Self;
    /// 2^x.
    fn exp2(self) -> Self;
    /// log2(x) (NaN below 0, −inf at 0).
    fn log2(self) -> Self;
    /// e^x.
    fn exp(self) -> Self;
    /// ln(x).
    fn ln(self) -> Self;
    /// sin(x), radians.
    fn sin(self) -> Self;
    /// cos(x), radians.
    fn cos(self) -> Self;
    /// x^y.
    fn powf(self, y: Self) -> Self;
    /// x·y + z rounded once.
    fn fma(self, y: Self, z: Self) -> Self;
    /// Whether x is NaN.
    fn is_nan(self) -> bool;
    /// IEEE minNum: the other operand when one is NaN.
    fn min_num(self, y: Self) -> Self;
    /// IEEE maxNum: the other operand when one is NaN.
    fn max_num(self, y: Self) -> Self;
    /// Saturating conversion to an integer (NaN gives 0).
    fn to_i32(self) -> i32;

    /// The nearest binary16 value (IEEE round to nearest even, overflow to ±inf, NaN kept),
    /// as its bits.
    fn to_half_bits(self) -> u16;
    /// The value of binary16 bits.
    fn from_half_bits(bits: u16) -> Self;
    /// [`Real::to_half_bits`] of each value of `src` into `dst`, over the shorter of the two
    /// (several values per instruction where the CPU converts binary16: x86 F16C).
    fn to_half_bits_row(src: &[Self], dst: &mut [u16]);
    /// [`Real::from_half_bits`] of each value of `src` into `dst`, over the shorter of the two.
    fn from_half_bits_row(src: &[u16], dst: &mut [Self]);
    /// The value of f32 bits.
    fn from_word(bits: u32) -> Self {
        Self::from_f32(f32::from_bits(bits))
    }
    /// The f32 bits of the value (rounded to f32 first for wider types).
    fn to_word(self) -> u32 {
        self.to_f32().to_bits()
    }
}

macro_rules! impl_real {
    ($t:ty, $wide:expr, $from_f32:expr, $from_f64:expr, $to_f32:expr, $to_f64:expr, $half:path,
     $to_half_row:path, $from_half_row:path) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const WIDE: bool = $wide;

            #[inline]
            fn from_f32(v: f32) -> Self {
                $from_f32(v)
            }
            #[inline]
            fn from_f64(v: f64) -> Self {
                $from_f64(v)
            }
            #[inline]
            fn to_f32(self) -> f32 {
                $to_f32(self)
            }
            #[inline]
            fn to_f64(self) -> f64 {
                $to_f64(self)
            }
            #[inline]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline]
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            #[inline]
            fn trunc(self) -> Self {
                <$t>::trunc(self)
            }
            #[inline]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline]
            fn exp2(self) -> Self {
                <$t>::exp2(self)
            }
            #[inline]
            fn log2(self) -> Self {
                <$t>::log2(self)
            }
            #[inline]
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline]
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            #[inline]
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            #[inline]
            fn powf(self, y: Self) -> Self {
                <$t>::powf(self, y)
            }
            #[inline]
            fn fma(self, y: Self, z: Self) -> Self {
                <$t>::mul_add(self, y, z)
            }
            #[inline]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline]
            fn min_num(self, y: Self) -> Self {
                <$t>::min(self, y)
            }
            #[inline]
            fn max_num(self, y: Self) -> Self {
                <$t>::max(self, y)
            }
            #[inline]
            fn to_i32(self) -> i32 {
                // `as` saturates and maps NaN to 0 (Rust reference, numeric cast semantics).
                self as i32
            }
            #[inline]
            fn to_half_bits(self) -> u16 {
                $half(self).to_bits()
            }
            #[inline]
            fn from_half_bits(bits: u16) -> Self {
                Self::from_f32(f16::from_bits(bits).to_f32())
            }
            #[inline]
            fn to_half_bits_row(src: &[Self], dst: &mut [u16]) {
                let n = src.len().min(dst.len());
                if let (Some(src), Some(dst)) = (src.get(..n), dst.get_mut(..n)) {
                    $to_half_row(src, dst);
                }
            }
            #[inline]
            fn from_half_bits_row(src: &[u16], dst: &mut [Self]) {
                let n = src.len().min(dst.len());
                if let (Some(src), Some(dst)) = (src.get(..n), dst.get_mut(..n)) {
                    $from_half_row(src, dst);
                }
            }
        }
    };
}

/// Binary16 bits of equally long f32 slices through `half`'s slice conversion, which takes
/// eight values per instruction with x86 F16C and rounds as [`f16::from_f32`] does.
#[inline]
fn f32_row_to_half(src: &[f32], dst: &mut [u16]) {
    dst.reinterpret_cast_mut::<f16>()
        .convert_from_f32_slice(src);
}

/// Values of equally long binary16 bit slices as f32 (exact).
#[inline]
fn half_row_to_f32(src: &[u16], dst: &mut [f32]) {
    src.reinterpret_cast::<f16>().convert_to_f32_slice(dst);
}

/// Binary16 bits of f64 values, one at a time as [`f16::from_f64`] rounds them.
#[inline]
fn f64_row_to_half(src: &[f64], dst: &mut [u16]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = f16::from_f64(s).to_bits();
    }
}

/// Values of binary16 bits as f64 (exact).
#[inline]
fn half_row_to_f64(src: &[u16], dst: &mut [f64]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = f64::from(f16::from_bits(s).to_f32());
    }
}

impl_real!(
    f32,
    false,
    |v: f32| v,
    |v: f64| v as f32,
    |v: f32| v,
    |v: f32| f64::from(v),
    f16::from_f32,
    f32_row_to_half,
    half_row_to_f32
);
impl_real!(
    f64,
    true,
    |v: f32| f64::from(v),
    |v: f64| v,
    |v: f64| v as f32,
    |v: f64| v,
    f16::from_f64,
    f64_row_to_half,
    half_row_to_f64
);
