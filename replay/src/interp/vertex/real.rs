//! The floating-point type the interpreter computes in ([`Real`]): `f32` for the RSX's own
//! arithmetic, `f64` for the same rules evaluated wider ([`crate::interp::Arithmetic`]).
//!
//! Every operation the vertex semantics need goes through this trait, so one generic
//! implementation of each rule serves both widths.

use std::fmt::Debug;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A float width the vertex interpreter runs in.
pub trait Real:
    Copy
    + Debug
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Send
    + Sync
    + 'static
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// Widen (or keep) an `f32` value: inputs and constants are f32 in the capture.
    fn from_f32(v: f32) -> Self;
    /// A constant given in f64 (rounded to the width).
    fn from_f64(v: f64) -> Self;
    /// The value as f64 (exact for both widths).
    fn to_f64(self) -> f64;
    /// IEEE NaN test.
    fn is_nan(self) -> bool;
    /// Absolute value.
    fn abs(self) -> Self;
    /// Round toward negative infinity.
    fn floor(self) -> Self;
    /// Round toward zero.
    fn trunc(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// 2^x.
    fn exp2(self) -> Self;
    /// log2(x).
    fn log2(self) -> Self;
    /// e^x.
    fn exp(self) -> Self;
    /// ln(x).
    fn ln(self) -> Self;
    /// x^y.
    fn powf(self, y: Self) -> Self;
    /// Sine (radians).
    fn sin(self) -> Self;
    /// Cosine (radians).
    fn cos(self) -> Self;
    /// `self * a + b` with one rounding.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Saturating conversion to an integer (NaN gives 0).
    fn to_i32(self) -> i32;
}

macro_rules! impl_real {
    ($t:ty) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline]
            fn from_f32(v: f32) -> Self {
                v as $t
            }
            #[inline]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
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
            fn powf(self, y: Self) -> Self {
                <$t>::powf(self, y)
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
            fn mul_add(self, a: Self, b: Self) -> Self {
                <$t>::mul_add(self, a, b)
            }
            #[inline]
            fn to_i32(self) -> i32 {
                // `as` saturates and maps NaN to 0 (Rust reference, numeric cast semantics).
                self as i32
            }
        }
    };
}

impl_real!(f32);
impl_real!(f64);
