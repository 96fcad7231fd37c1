//! Float32 Cg for the oracle ports ([`test3`], [`test4`]): `float2`/`float3` as [`V2`]/[`V3`]
//! with componentwise operators, and the Cg standard-library functions the sources call, each
//! with the definition of the Cg reference (NVIDIA Cg Toolkit standard library: `frac(x) =
//! x − floor(x)`, `lerp(a, b, t) = a + t(b − a)`, `reflect(i, n) = i − 2n·dot(n, i)`,
//! `smoothstep`, `pow(x, y) = exp2(y·log2 x)`), evaluated in f32 as written.

pub mod test3;
pub mod test4;

use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

/// `float2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V2 {
    pub x: f32,
    pub y: f32,
}

/// `float3`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// `float2(x, y)`.
pub fn v2(x: f32, y: f32) -> V2 {
    V2 { x, y }
}

/// `float3(x, y, z)`.
pub fn v3(x: f32, y: f32, z: f32) -> V3 {
    V3 { x, y, z }
}

/// `float3(s)`.
pub fn splat3(s: f32) -> V3 {
    v3(s, s, s)
}

impl V2 {
    pub fn map(self, f: impl Fn(f32) -> f32) -> V2 {
        v2(f(self.x), f(self.y))
    }
    fn zip(self, o: V2, f: impl Fn(f32, f32) -> f32) -> V2 {
        v2(f(self.x, o.x), f(self.y, o.y))
    }
}

impl V3 {
    pub fn map(self, f: impl Fn(f32) -> f32) -> V3 {
        v3(f(self.x), f(self.y), f(self.z))
    }
    fn zip(self, o: V3, f: impl Fn(f32, f32) -> f32) -> V3 {
        v3(f(self.x, o.x), f(self.y, o.y), f(self.z, o.z))
    }
    pub fn xy(self) -> V2 {
        v2(self.x, self.y)
    }
}

macro_rules! ops {
    ($t:ident) => {
        impl Add for $t {
            type Output = $t;
            fn add(self, o: $t) -> $t {
                self.zip(o, |a, b| a + b)
            }
        }
        impl Sub for $t {
            type Output = $t;
            fn sub(self, o: $t) -> $t {
                self.zip(o, |a, b| a - b)
            }
        }
        impl Mul for $t {
            type Output = $t;
            fn mul(self, o: $t) -> $t {
                self.zip(o, |a, b| a * b)
            }
        }
        impl Div for $t {
            type Output = $t;
            fn div(self, o: $t) -> $t {
                self.zip(o, |a, b| a / b)
            }
        }
        impl Add<f32> for $t {
            type Output = $t;
            fn add(self, s: f32) -> $t {
                self.map(|a| a + s)
            }
        }
        impl Sub<f32> for $t {
            type Output = $t;
            fn sub(self, s: f32) -> $t {
                self.map(|a| a - s)
            }
        }
        impl Mul<f32> for $t {
            type Output = $t;
            fn mul(self, s: f32) -> $t {
                self.map(|a| a * s)
            }
        }
        impl Div<f32> for $t {
            type Output = $t;
            fn div(self, s: f32) -> $t {
                self.map(|a| a / s)
            }
        }
        impl Mul<$t> for f32 {
            type Output = $t;
            fn mul(self, v: $t) -> $t {
                v.map(|a| self * a)
            }
        }
        impl Add<$t> for f32 {
            type Output = $t;
            fn add(self, v: $t) -> $t {
                v.map(|a| self + a)
            }
        }
        impl Sub<$t> for f32 {
            type Output = $t;
            fn sub(self, v: $t) -> $t {
                v.map(|a| self - a)
            }
        }
        impl Neg for $t {
            type Output = $t;
            fn neg(self) -> $t {
                self.map(|a| -a)
            }
        }
        impl AddAssign for $t {
            fn add_assign(&mut self, o: $t) {
                *self = *self + o;
            }
        }
        impl SubAssign for $t {
            fn sub_assign(&mut self, o: $t) {
                *self = *self - o;
            }
        }
        impl MulAssign for $t {
            fn mul_assign(&mut self, o: $t) {
                *self = *self * o;
            }
        }
        impl MulAssign<f32> for $t {
            fn mul_assign(&mut self, s: f32) {
                *self = *self * s;
            }
        }
        impl SubAssign<f32> for $t {
            fn sub_assign(&mut self, s: f32) {
                *self = *self - s;
            }
        }
    };
}
ops!(V2);
ops!(V3);

/// Cg `dot` of `float2`s.
pub fn dot2(a: V2, b: V2) -> f32 {
    a.x * b.x + a.y * b.y
}

/// Cg `dot` of `float3`s.
pub fn dot3(a: V3, b: V3) -> f32 {
    a.x * b.x + a.y * b.y + a.z * b.z
}

/// Cg `length`.
pub fn length3(v: V3) -> f32 {
    dot3(v, v).sqrt()
}

/// Cg `length` of a `float2`.
pub fn length2(v: V2) -> f32 {
    dot2(v, v).sqrt()
}

/// Cg `distance(a, b) = length(b − a)`.
pub fn distance3(a: V3, b: V3) -> f32 {
    length3(b - a)
}

/// Cg `normalize(v) = v / length(v)`.
pub fn normalize(v: V3) -> V3 {
    v / length3(v)
}

/// Cg `reflect(i, n) = i − 2n·dot(n, i)`.
pub fn reflect(i: V3, n: V3) -> V3 {
    i - 2.0 * n * dot3(n, i)
}

/// Cg `frac(x) = x − floor(x)`.
pub fn frac(x: f32) -> f32 {
    x - x.floor()
}

/// Cg `lerp(a, b, t) = a + t(b − a)` on scalars.
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + t * (b - a)
}

/// Cg `lerp` of `float3`s with a scalar weight.
pub fn lerp3(a: V3, b: V3, t: f32) -> V3 {
    a + t * (b - a)
}

/// Cg `clamp`.
pub fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    x.max(lo).min(hi)
}

/// Cg `smoothstep(a, b, x)`: t = saturate((x − a)/(b − a)), t²(3 − 2t).
pub fn smoothstep(a: f32, b: f32, x: f32) -> f32 {
    let t = clamp((x - a) / (b - a), 0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Cg `pow(x, y) = exp2(y·log2 x)` (the profile's expansion).
pub fn pow(x: f32, y: f32) -> f32 {
    (y * x.log2()).exp2()
}
