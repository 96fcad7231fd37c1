//! Each fragment opcode against values worked out by hand in the test (rsx-microcode.md B.7).
//! Programs are IR built here, encoded and decoded, then run on one quad; lane 0's R0 is
//! read back through the 32-bit colour export.

use crate::fragment_interp_support;

use fragment_interp_support::*;
use rsxtrace_program::fragment::FpOpcode::{self, *};
use rsxtrace_program::fragment::FragmentInstruction;

const X: [u8; 4] = [0, 0, 0, 0];

/// R1 = a, R2 = b, R3 = c, then `op R0, R1, R2, R3`.
fn eval(opcode: FpOpcode, a: [f32; 4], b: [f32; 4], c: [f32; 4]) -> [f64; 4] {
    r0(setup(opcode, a, b, c))
}

fn setup(opcode: FpOpcode, a: [f32; 4], b: [f32; 4], c: [f32; 4]) -> Vec<FragmentInstruction> {
    vec![
        with_const(op(Mov, dest(1), &[konst()]), a),
        with_const(op(Mov, dest(2), &[konst()]), b),
        with_const(op(Mov, dest(3), &[konst()]), c),
        op(opcode, dest(0), &[r(1), r(2), r(3)]),
    ]
}

fn f(v: [f32; 4]) -> [f64; 4] {
    v.map(f64::from)
}

const Z: [f32; 4] = [0.0; 4];

#[test]
fn mov_mul_add_mad() {
    assert_eq!(
        eval(Mov, [1.5, -2.0, 3.25, 0.0], Z, Z),
        [1.5, -2.0, 3.25, 0.0]
    );
    assert_eq!(
        eval(Mul, [1.5, -2.0, 3.0, 4.0], [2.0, 3.0, -0.5, 0.25], Z),
        [3.0, -6.0, -1.5, 1.0]
    );
    assert_eq!(
        eval(Add, [1.5, -2.0, 3.0, 4.0], [2.0, 3.0, -0.5, 0.25], Z),
        [3.5, 1.0, 2.5, 4.25]
    );
    assert_eq!(
        eval(
            Mad,
            [1.5, -2.0, 3.0, 4.0],
            [2.0, 3.0, -0.5, 0.25],
            [1.0, 1.0, 1.0, -1.0]
        ),
        [4.0, -5.0, -0.5, 0.0]
    );
}

#[test]
fn mad_is_fused() {
    // a = 1 + 2^-12, a*a = 1 + 2^-11 + 2^-24; c = -(1 + 2^-11). Fused: 2^-24 exactly;
    // unfused, a*a rounds to 1 + 2^-11 (ties to even drop 2^-24) and the result is 0.
    let a = 1.0 + 2f32.powi(-12);
    let c = -(1.0 + 2f32.powi(-11));
    let out = eval(Mad, [a; 4], [a; 4], [c; 4]);
    assert_eq!(out[0], 2f64.powi(-24));
}

#[test]
fn dot_products() {
    let a = [1.0, 2.0, 3.0, 4.0];
    let b = [5.0, 6.0, 7.0, 8.0];
    assert_eq!(eval(Dp2, a, b, Z), [17.0; 4]);
    assert_eq!(eval(Dp3, a, b, Z), [38.0; 4]);
    assert_eq!(eval(Dp4, a, b, Z), [70.0; 4]);
    // dot(xy) + src2.x
    assert_eq!(eval(Dp2a, a, b, [0.5, 9.0, 9.0, 9.0]), [17.5; 4]);
}

#[test]
fn dst_min_max() {
    let a = [1.0, 2.0, 3.0, 4.0];
    let b = [5.0, 6.0, 7.0, 8.0];
    assert_eq!(eval(Dst, a, b, Z), [1.0, 12.0, 3.0, 8.0]);
    let c = [-1.0, 7.0, 3.0, f32::NAN];
    let d = [0.0, 6.0, 3.0, 2.0];
    assert_eq!(eval(Min, c, d, Z), [-1.0, 6.0, 3.0, 2.0]);
    assert_eq!(eval(Max, c, d, Z), [0.0, 7.0, 3.0, 2.0]);
}

#[test]
fn set_on_compare() {
    let a = [1.0, 2.0, 3.0, f32::NAN];
    let b = [2.0, 2.0, 1.0, 0.0];
    assert_eq!(eval(Slt, a, b, Z), [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(eval(Sge, a, b, Z), [0.0, 1.0, 1.0, 0.0]);
    assert_eq!(eval(Sle, a, b, Z), [1.0, 1.0, 0.0, 0.0]);
    assert_eq!(eval(Sgt, a, b, Z), [0.0, 0.0, 1.0, 0.0]);
    // NaN != 0 is true
    assert_eq!(eval(Sne, a, b, Z), [1.0, 0.0, 1.0, 1.0]);
    assert_eq!(eval(Seq, a, b, Z), [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(eval(Sfl, a, b, Z), [0.0; 4]);
    assert_eq!(eval(Str, a, b, Z), [1.0; 4]);
}

#[test]
fn frc_flr() {
    let a = [-1.25, 2.75, 0.0, -3.0];
    // GLSL fract: x - floor(x), so fract(-1.25) = 0.75
    assert_eq!(eval(Frc, a, Z, Z), [0.75, 0.75, 0.0, 0.0]);
    assert_eq!(eval(Flr, a, Z, Z), [-2.0, 2.0, 0.0, -3.0]);
}

#[test]
fn scalar_ops_read_x_and_replicate() {
    assert_eq!(eval(Rcp, [4.0, 9.0, 9.0, 9.0], Z, Z), [0.25; 4]);
    // RCP(0) = +inf, RCP(-0) = -inf (IEEE, B.9)
    assert_eq!(eval(Rcp, [0.0; 4], Z, Z), [f64::INFINITY; 4]);
    assert_eq!(eval(Rcp, [-0.0; 4], Z, Z), [f64::NEG_INFINITY; 4]);
    // RSQ ignores the sign: RSQ(-4) = 0.5; RSQ(0) = +inf
    assert_eq!(eval(Rsq, [-4.0, 1.0, 1.0, 1.0], Z, Z), [0.5; 4]);
    assert_eq!(eval(Rsq, [0.0; 4], Z, Z), [f64::INFINITY; 4]);
    assert_eq!(eval(Ex2, [3.0, 0.0, 0.0, 0.0], Z, Z), [8.0; 4]);
    assert_eq!(eval(Ex2, [-1.0, 0.0, 0.0, 0.0], Z, Z), [0.5; 4]);
    assert_eq!(eval(Lg2, [8.0, 0.0, 0.0, 0.0], Z, Z), [3.0; 4]);
    assert!(eval(Lg2, [-1.0, 0.0, 0.0, 0.0], Z, Z)
        .iter()
        .all(|v| v.is_nan()));
    assert_eq!(eval(Lg2, [0.0; 4], Z, Z), [f64::NEG_INFINITY; 4]);
    assert_eq!(eval(Cos, [0.0, 5.0, 5.0, 5.0], Z, Z), [1.0; 4]);
    assert_eq!(eval(Sin, [0.0, 5.0, 5.0, 5.0], Z, Z), [0.0; 4]);
    let half_pi = std::f32::consts::FRAC_PI_2;
    let s = eval(Sin, [half_pi, 0.0, 0.0, 0.0], Z, Z);
    assert!((s[0] - 1.0).abs() < 1e-7, "{s:?}");
    // pow(s0.x, s1.x)
    assert_eq!(
        eval(Pow, [2.0, 0.0, 0.0, 0.0], [10.0, 0.0, 0.0, 0.0], Z),
        [1024.0; 4]
    );
}

#[test]
fn div_and_divsq() {
    // DIV: src0 / src1.x per lane
    assert_eq!(
        eval(Div, [1.0, -6.0, 0.0, 3.0], [2.0, 100.0, 100.0, 100.0], Z),
        [0.5, -3.0, 0.0, 1.5]
    );
    // 1/0 = inf, 0/0 = NaN (IEEE)
    let d = eval(Div, [1.0, 0.0, -1.0, 0.0], Z, Z);
    assert_eq!(d[0], f64::INFINITY);
    assert!(d[1].is_nan());
    assert_eq!(d[2], f64::NEG_INFINITY);
    // DIVSQ: src0 / sqrt(|src1.x|); a 0 numerator gives 0 even for a 0 denominator
    assert_eq!(
        eval(Divsq, [8.0, -2.0, 0.0, 1.0], [-16.0, 0.0, 0.0, 0.0], Z),
        [2.0, -0.5, 0.0, 0.25]
    );
    let z = eval(Divsq, [0.0, -0.0, 3.0, f32::NAN], [0.0; 4], Z);
    assert_eq!(z[0], 0.0);
    assert_eq!(z[1].to_bits(), (-0.0f64).to_bits());
    assert_eq!(z[2], f64::INFINITY);
    assert!(z[3].is_nan());
}

#[test]
fn nrm() {
    // (3, 4, 0) / 5 as .xyzz
    assert_eq!(
        eval(Nrm, [3.0, 4.0, 0.0, 7.0], Z, Z),
        [0.6f32, 0.8, 0.0, 0.0].map(f64::from)
    );
    // zero length: input unchanged as .xyzz (RPCS3)
    assert_eq!(eval(Nrm, [0.0, 0.0, 0.0, 7.0], Z, Z), [0.0; 4]);
}

#[test]
fn lit_lif_lrp_refl() {
    // LIT: (1, max(x,0), x>0 ? pow(max(y,1e-10), w) : 0, 1)
    assert_eq!(eval(Lit, [0.5, 4.0, 9.0, 0.5], Z, Z), [1.0, 0.5, 2.0, 1.0]);
    assert_eq!(eval(Lit, [-0.5, 4.0, 9.0, 0.5], Z, Z), [1.0, 0.0, 0.0, 1.0]);
    // LIF: (1, y, y>0 ? 2^w : 0, 1)
    assert_eq!(
        eval(Lif, [9.0, 0.25, 9.0, 3.0], Z, Z),
        [1.0, 0.25, 8.0, 1.0]
    );
    assert_eq!(
        eval(Lif, [9.0, -0.25, 9.0, 3.0], Z, Z),
        [1.0, -0.25, 0.0, 1.0]
    );
    // LRP: s0*s1 + (1-s0)*s2
    assert_eq!(
        eval(
            Lrp,
            [0.25, 0.0, 1.0, 0.5],
            [4.0, 4.0, 4.0, 4.0],
            [8.0, 8.0, 8.0, 2.0]
        ),
        [7.0, 8.0, 4.0, 3.0]
    );
    // REFL: s0 - 2 dot4(s1, s0) s1 with s1 = (0,1,0,0): flips y
    assert_eq!(
        eval(Refl, [1.0, -2.0, 3.0, 4.0], [0.0, 1.0, 0.0, 0.0], Z),
        [1.0, 2.0, 3.0, 4.0]
    );
}

#[test]
fn bem() {
    // s0.xyxy + s1.xxxx*s2.xzxz + s1.yyyy*s2.ywyw
    let s0 = [1.0, 2.0, 100.0, 100.0];
    let s1 = [2.0, 3.0, 100.0, 100.0];
    let s2 = [1.0, 10.0, 100.0, 1000.0];
    // x: 1 + 2*1 + 3*10 = 33; y: 2 + 2*100 + 3*1000 = 3202
    assert_eq!(eval(Bem, s0, s1, s2), [33.0, 3202.0, 33.0, 3202.0]);
}

#[test]
fn pk2_up2() {
    // half(1.0) = 0x3C00, half(-2.0) = 0xC000; x in the low 16 bits
    let bits = r0_bits(setup(Pk2, [1.0, -2.0, 5.0, 5.0], Z, Z));
    assert_eq!(bits, [0xC000_3C00; 4]);
    let out = r0(vec![
        with_const_bits(op(Mov, dest(1), &[konst()]), [0xC000_3C00, 0, 0, 0]),
        op(Up2, dest(0), &[r(1)]),
    ]);
    assert_eq!(out, [1.0, -2.0, 1.0, -2.0]);
}

#[test]
fn pkb_upb() {
    // round(clamp(c,0,1)*255): 255, 127.5 -> 128, 0 (clamped -1), 51; x lowest byte
    let bits = r0_bits(setup(Pkb, [1.0, 0.5, -1.0, 0.2], Z, Z));
    assert_eq!(bits, [0x3300_80FF; 4]);
    let out = r0(vec![
        with_const_bits(op(Mov, dest(1), &[konst()]), [0x3300_80FF, 0, 0, 0]),
        op(Upb, dest(0), &[r(1)]),
    ]);
    assert_eq!(out, f([1.0, 128.0 / 255.0, 0.0, 51.0 / 255.0]));
}

#[test]
fn pk4_up4() {
    // round(clamp(c,-1,1)*127) as i8: 127 = 0x7F, -127 = 0x81, 63.5 -> 64 = 0x40, 0
    let bits = r0_bits(setup(Pk4, [1.0, -1.0, 0.5, 0.0], Z, Z));
    assert_eq!(bits, [0x0040_817F; 4]);
    // 0x80 = -128 -> max(-128/127, -1) = -1
    let out = r0(vec![
        with_const_bits(op(Mov, dest(1), &[konst()]), [0x8040_817F, 0, 0, 0]),
        op(Up4, dest(0), &[r(1)]),
    ]);
    assert_eq!(out, f([1.0, -1.0, 64.0 / 127.0, -1.0]));
}

#[test]
fn pk16_up16() {
    // 65535, 32767.5 -> 32768
    let bits = r0_bits(setup(Pk16, [1.0, 0.5, 0.0, 0.0], Z, Z));
    assert_eq!(bits, [0x8000_FFFF; 4]);
    let out = r0(vec![
        with_const_bits(op(Mov, dest(1), &[konst()]), [0x8000_FFFF, 0, 0, 0]),
        op(Up16, dest(0), &[r(1)]),
    ]);
    let y = 32768.0f32 / 65535.0;
    assert_eq!(out, f([1.0, y, 1.0, y]));
}

#[test]
fn pkg_upg() {
    // linear 0.5 -> sRGB 1.055 * 0.5^(1/2.4) - 0.055 = 0.735357 -> *255 = 187.5 -> 188 (0xBC);
    // linear 0.001 -> 12.92 * 0.001 = 0.01292 -> 3.29 -> 3; alpha 0.5 stays linear -> 128
    let bits = r0_bits(setup(Pkg, [0.5, 0.001, 1.0, 0.5], Z, Z));
    assert_eq!(bits, [0x80FF_03BC; 4]);
    // UPG: byte 0xBC = 188/255 = 0.737255 -> ((0.737255+0.055)/1.055)^2.4
    let out = r0(vec![
        with_const_bits(op(Mov, dest(1), &[konst()]), [0x80FF_00BC, 0, 0, 0]),
        op(Upg, dest(0), &[r(1)]),
    ]);
    let c = 188.0f32 / 255.0;
    let lin = ((c + 0.055) / 1.055).powf(2.4);
    assert!((out[0] - f64::from(lin)).abs() < 1e-6, "{out:?}");
    assert_eq!(out[1], 0.0);
    assert_eq!(out[2], 1.0);
    assert_eq!(out[3], f64::from(128.0f32 / 255.0));
}

#[test]
fn nop_fence_and_swizzled_sources() {
    let out = r0(vec![
        with_const(op(Mov, dest(1), &[konst()]), [1.0, 2.0, 3.0, 4.0]),
        op(Nop, dest(5), &[]),
        op(Fenct, dest(5), &[]),
        op(Fencb, dest(5), &[]),
        op(Mov, dest(0), &[swz(r(1), [3, 2, 1, 0])]),
    ]);
    assert_eq!(out, [4.0, 3.0, 2.0, 1.0]);
    let x = r0(vec![
        with_const(op(Mov, dest(1), &[konst()]), [1.0, 2.0, 3.0, 4.0]),
        op(Mov, dest(0), &[swz(r(1), X)]),
    ]);
    assert_eq!(x, [1.0; 4]);
}
