//! Per-lane semantics of the arithmetic, pack and unpack opcodes: three source vectors in,
//! one result vector out, before scale/precision/write (rsx-microcode.md B.7, which restates
//! RPCS3 `FragmentProgramDecompiler.cpp` / `GLSLCommon.cpp` / `FragmentInterpreter.glsl`).
//!
//! Flow control, KIL, derivatives and texture instructions need the whole quad and live in
//! [`super::exec`].

use rsxtrace_program::fragment::FpOpcode;

use super::options::{FragmentOptions, MinMaxNan};
use super::real::{idx4, map4, Real};
use super::skew::{skewed, skewed_trig};
use super::trig;

type V<T> = [T; 4];

#[inline]
fn splat<T: Real>(v: T) -> V<T> {
    [v; 4]
}

#[inline]
fn map<T: Real>(a: V<T>, f: impl Fn(T) -> T) -> V<T> {
    [f(a[0]), f(a[1]), f(a[2]), f(a[3])]
}

#[inline]
fn zip<T: Real>(a: V<T>, b: V<T>, f: impl Fn(T, T) -> T) -> V<T> {
    [f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]), f(a[3], b[3])]
}

#[inline]
fn bool_val<T: Real>(b: bool) -> T {
    if b {
        T::ONE
    } else {
        T::ZERO
    }
}

/// GLSL `fract`: x − floor(x) (not Rust's truncating `fract`).
#[inline]
fn fract<T: Real>(x: T) -> T {
    x - x.floor()
}

fn min_op<T: Real>(a: T, b: T, nan: MinMaxNan) -> T {
    match nan {
        MinMaxNan::OtherOperand => a.min_num(b),
        MinMaxNan::Propagate if a.is_nan() || b.is_nan() => a + b,
        MinMaxNan::Propagate => a.min_num(b),
    }
}

fn max_op<T: Real>(a: T, b: T, nan: MinMaxNan) -> T {
    match nan {
        MinMaxNan::OtherOperand => a.max_num(b),
        MinMaxNan::Propagate if a.is_nan() || b.is_nan() => a + b,
        MinMaxNan::Propagate => a.max_num(b),
    }
}

/// `round(clamp(v, lo, hi) * scale)` as an integer (GLSL pack functions; ties away from 0).
fn pack_component(v: f32, lo: f32, hi: f32, scale: f32) -> i32 {
    let c = if v.is_nan() { 0.0 } else { v.clamp(lo, hi) };
    (c * scale).round() as i32
}

/// Linear → sRGB transfer (PKG, B.7).
fn linear_to_srgb(c: f32) -> f32 {
    if c.is_nan() || c <= 0.0031308 {
        12.92 * if c.is_nan() { 0.0 } else { c }
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// sRGB → linear transfer (UPG, B.7).
fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn pack_unorm4x8(v: [f32; 4]) -> u32 {
    v.iter().enumerate().fold(0u32, |acc, (i, &c)| {
        acc | ((pack_component(c, 0.0, 1.0, 255.0) as u32 & 0xFF) << (8 * i))
    })
}

fn unpack_unorm4x8(bits: u32) -> [f32; 4] {
    idx4(|i| ((bits >> (8 * i)) & 0xFF) as f32 / 255.0)
}

/// The opcode's result for one lane; `None` for opcodes this module does not handle (flow,
/// KIL, derivatives, textures, and those without semantics).
pub fn alu<T: Real>(op: FpOpcode, s: &[V<T>; 3], opts: &FragmentOptions) -> Option<V<T>> {
    let [a, b, c] = *s;
    let dot = |n: usize| -> T {
        if opts.fused_dot {
            // fma(a0, b0, fma(a1, b1, ... a[n-1] * b[n-1])).
            let mut acc = a[n - 1] * b[n - 1];
            for i in (0..n - 1).rev() {
                acc = a[i].fma(b[i], acc);
            }
            return acc;
        }
        let mut acc = T::ZERO;
        for i in 0..n {
            acc = acc + a[i] * b[i];
        }
        acc
    };
    Some(match op {
        FpOpcode::Mov => a,
        FpOpcode::Mul => zip(a, b, |x, y| x * y),
        FpOpcode::Add => zip(a, b, |x, y| x + y),
        // RPCS3 emits `fma` for MAD (B.7).
        FpOpcode::Mad => {
            if opts.fused_mad {
                idx4(|i| a[i].fma(b[i], c[i]))
            } else {
                idx4(|i| a[i] * b[i] + c[i])
            }
        }
        FpOpcode::Dp2 => splat(dot(2)),
        FpOpcode::Dp3 => splat(dot(3)),
        FpOpcode::Dp4 => splat(dot(4)),
        // dot(src0.xy, src1.xy) + src2.x (B.7).
        FpOpcode::Dp2a if opts.fused_dot => splat(a[0].fma(b[0], a[1].fma(b[1], c[0]))),
        FpOpcode::Dp2a => splat(dot(2) + c[0]),
        // (1, s0.y·s1.y, s0.z, s1.w) (B.7).
        FpOpcode::Dst => [T::ONE, a[1] * b[1], a[2], b[3]],
        FpOpcode::Min => zip(a, b, |x, y| min_op(x, y, opts.min_max_nan)),
        FpOpcode::Max => zip(a, b, |x, y| max_op(x, y, opts.min_max_nan)),
        // Set-on-compare, per lane 1.0/0.0, IEEE comparisons (B.7).
        FpOpcode::Slt => zip(a, b, |x, y| bool_val(x < y)),
        FpOpcode::Sge => zip(a, b, |x, y| bool_val(x >= y)),
        FpOpcode::Sle => zip(a, b, |x, y| bool_val(x <= y)),
        FpOpcode::Sgt => zip(a, b, |x, y| bool_val(x > y)),
        FpOpcode::Sne => zip(a, b, |x, y| bool_val(x != y)),
        FpOpcode::Seq => zip(a, b, |x, y| bool_val(x == y)),
        // "set false" / "set true" (B.7).
        FpOpcode::Sfl => splat(T::ZERO),
        FpOpcode::Str => splat(T::ONE),
        FpOpcode::Frc => map(a, fract),
        FpOpcode::Flr => map(a, T::floor),
        // Scalar ops read src0.x and replicate (B.7). RCP(0) = +inf (HW-tested).
        FpOpcode::Rcp => splat(skewed(T::ONE / a[0], opts.transcendental_skew)),
        // RSQ ignores the sign (B.7, "Metro Last Light, GTA4"); RSQ(0) = +inf.
        FpOpcode::Rsq => splat(skewed(T::ONE / a[0].abs().sqrt(), opts.transcendental_skew)),
        FpOpcode::Ex2 => splat(skewed(a[0].exp2(), opts.transcendental_skew)),
        // LG2 of a negative number is NaN (HW-tested, B.7).
        FpOpcode::Lg2 => splat(skewed(a[0].log2(), opts.transcendental_skew)),
        // The argument or the result moved, by the skew (`skew::skewed_trig`).
        FpOpcode::Cos => splat(skewed_trig(a[0], opts.transcendental_skew, |x| {
            trig::cos(x, opts.trig)
        })),
        FpOpcode::Sin => splat(skewed_trig(a[0], opts.transcendental_skew, |x| {
            trig::sin(x, opts.trig)
        })),
        // src0 / src1.x per lane, IEEE (B.7).
        FpOpcode::Div => map(a, |x| skewed(x / b[0], opts.transcendental_skew)),
        // Per lane: |src0| > 0 ? src0 / sqrt(|src1.x|) : src0 (B.7, HW-tested: 0 numerator
        // gives 0 even for a 0 denominator; a NaN numerator stays NaN).
        FpOpcode::Divsq => {
            let d = b[0].abs().sqrt();
            map(a, |x| {
                if x.abs() > T::ZERO {
                    skewed(x / d, opts.transcendental_skew)
                } else {
                    x
                }
            })
        }
        // normalize(src0.xyz) as .xyzz; input unchanged when the length is 0 (RPCS3 hack, B.7).
        FpOpcode::Nrm => {
            let len = dot_self3(a).sqrt();
            if len == T::ZERO {
                [a[0], a[1], a[2], a[2]]
            } else {
                [a[0] / len, a[1] / len, a[2] / len, a[2] / len]
            }
        }
        // (1, max(x,0), x>0 ? pow(max(y,1e-10), w) : 0, 1) (B.7, RPCS3's emulation).
        FpOpcode::Lit => {
            let y = if a[0] > T::ZERO {
                a[1].max_num(T::from_f32(1e-10)).powf(a[3])
            } else {
                T::ZERO
            };
            [T::ONE, a[0].max_num(T::ZERO), y, T::ONE]
        }
        // (1, t.y, t.y > 0 ? exp2(t.w) : 0, 1) (B.7).
        FpOpcode::Lif => {
            let z = if a[1] > T::ZERO { a[3].exp2() } else { T::ZERO };
            [T::ONE, a[1], z, T::ONE]
        }
        // src0·src1 + (1−src0)·src2 (B.7).
        FpOpcode::Lrp => idx4(|i| a[i] * b[i] + (T::ONE - a[i]) * c[i]),
        // GLSL reflect(src0, src1) on vec4: s0 − 2·dot(s1, s0)·s1 (B.7).
        FpOpcode::Refl => {
            let d = dot(4);
            let two = T::from_f32(2.0);
            idx4(|i| a[i] - two * d * b[i])
        }
        // pow(s0.x, s1.x) replicated (RPCS3 interpreter, B.7).
        FpOpcode::Pow => splat(skewed(a[0].powf(b[0]), opts.transcendental_skew)),
        // BEM: src0.xyxy + src1.xxxx·src2.xzxz + src1.yyyy·src2.ywyw (B.7).
        FpOpcode::Bem => bem(a, b, c),
        FpOpcode::Pk2 | FpOpcode::Pk4 | FpOpcode::Pkb | FpOpcode::Pk16 | FpOpcode::Pkg => {
            splat(T::from_word(pack(op, map4(a, T::to_f32))))
        }
        FpOpcode::Up2 | FpOpcode::Up4 | FpOpcode::Upb | FpOpcode::Up16 | FpOpcode::Upg => {
            unpack(op, a[0].to_word()).map(T::from_f32)
        }
        _ => return None,
    })
}

#[inline]
fn dot_self3<T: Real>(a: V<T>) -> T {
    a[0] * a[0] + a[1] * a[1] + a[2] * a[2]
}

/// src0.xyxy + src1.xxxx·src2.xzxz + src1.yyyy·src2.ywyw (BEM, TEXBEM, TXPBEM; B.4, B.7).
pub fn bem<T: Real>(a: V<T>, b: V<T>, c: V<T>) -> V<T> {
    [
        a[0] + b[0] * c[0] + b[1] * c[1],
        a[1] + b[0] * c[2] + b[1] * c[3],
        a[0] + b[0] * c[0] + b[1] * c[1],
        a[1] + b[0] * c[2] + b[1] * c[3],
    ]
}

/// The packed 32-bit word (B.7: packHalf2x16, packSnorm4x8, packUnorm4x8, packUnorm2x16,
/// sRGB + packUnorm4x8).
fn pack(op: FpOpcode, v: [f32; 4]) -> u32 {
    match op {
        FpOpcode::Pk2 => {
            u32::from(f32::to_half_bits(v[0])) | (u32::from(f32::to_half_bits(v[1])) << 16)
        }
        FpOpcode::Pk4 => v.iter().enumerate().fold(0u32, |acc, (i, &c)| {
            acc | ((pack_component(c, -1.0, 1.0, 127.0) as u32 & 0xFF) << (8 * i))
        }),
        FpOpcode::Pk16 => {
            (pack_component(v[0], 0.0, 1.0, 65535.0) as u32 & 0xFFFF)
                | ((pack_component(v[1], 0.0, 1.0, 65535.0) as u32 & 0xFFFF) << 16)
        }
        FpOpcode::Pkg => pack_unorm4x8([
            linear_to_srgb(v[0]),
            linear_to_srgb(v[1]),
            linear_to_srgb(v[2]),
            v[3],
        ]),
        _ => pack_unorm4x8(v),
    }
}

/// The unpacked vector of a 32-bit word (B.7; UP2 and UP16 give .xyxy).
fn unpack(op: FpOpcode, bits: u32) -> [f32; 4] {
    match op {
        FpOpcode::Up2 => {
            let lo = f32::from_half_bits(bits as u16);
            let hi = f32::from_half_bits((bits >> 16) as u16);
            [lo, hi, lo, hi]
        }
        FpOpcode::Up4 => idx4(|i| (f32::from((bits >> (8 * i)) as u8 as i8) / 127.0).max(-1.0)),
        FpOpcode::Up16 => {
            let lo = (bits & 0xFFFF) as f32 / 65535.0;
            let hi = (bits >> 16) as f32 / 65535.0;
            [lo, hi, lo, hi]
        }
        FpOpcode::Upg => {
            let u = unpack_unorm4x8(bits);
            [
                srgb_to_linear(u[0]),
                srgb_to_linear(u[1]),
                srgb_to_linear(u[2]),
                u[3],
            ]
        }
        _ => unpack_unorm4x8(bits),
    }
}
