//! Fragment interpreter rules (rsx-microcode.md B.2–B.6) against values worked out in the
//! test: precision, saturate, scale, H/R aliasing, condition codes, flow, KIL, derivatives,
//! inputs, outputs, textures, options and errors.

use crate::fragment_interp_support;

use fragment_interp_support::*;
use rsxtrace_program::fragment::FpOpcode::*;
use rsxtrace_program::fragment::{
    FlowKind, LoopFields, OutputScale, Precision, PrecisionModifier, Relation,
};
use rsxtrace_replay::interp::fragment::{
    attr, run_fragment, run_single_quad, FixedPointMode, FragmentExecError, FragmentState,
    HalfRounding, LaneInputs, LodOperand, LoopCounter, QuadInputs,
};
use rsxtrace_replay::interp::Arithmetic;
use rsxtrace_replay::texture::{LodSource, NoTextures, SampleRequest, Sampler};
use std::sync::Mutex;

const XXXX: [u8; 4] = [0, 0, 0, 0];
const XYZW: [u8; 4] = [0, 1, 2, 3];

fn prec(
    mut d: rsxtrace_program::fragment::Destination,
    p: Precision,
) -> rsxtrace_program::fragment::Destination {
    d.precision = p;
    d
}

fn sat(mut d: rsxtrace_program::fragment::Destination) -> rsxtrace_program::fragment::Destination {
    d.saturate = true;
    d
}

#[test]
fn saturate_flushes_nan_to_zero_and_clamps() {
    let nan = f32::NAN.to_bits();
    let out = r0(vec![with_const_bits(
        op(Mov, sat(dest(0)), &[konst()]),
        [
            nan,
            2.0f32.to_bits(),
            (-0.5f32).to_bits(),
            0.25f32.to_bits(),
        ],
    )]);
    assert_eq!(out, [0.0, 1.0, 0.0, 0.25]);
}

/// The value of binary16 bits, computed here from the format (sign, 5-bit exponent bias 15,
/// 10-bit mantissa, subnormals at 2^-24 steps).
fn half_value(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1F);
    let man = f64::from(bits & 0x3FF);
    match exp {
        0 => sign * man * 2f64.powi(-24),
        31 if man == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        e => sign * (1.0 + man / 1024.0) * 2f64.powi(e - 15),
    }
}

/// MOV H0 <- constant `v` under `rounding`, read back through H exports (control 0x00).
fn through_h0(v: [f32; 4], rounding: HalfRounding) -> [f64; 4] {
    let p = program(vec![with_const(op(Mov, hdest(0), &[konst()]), v)]);
    let mut state = FragmentState::new(0);
    state.options.half_rounding = rounding;
    run_quad(&p, &state, &QuadInputs::default()).lanes[0].colors[0]
}

#[test]
fn fp16_writes_truncate_by_default() {
    // rsx-microcode.md B.9: the RSX truncates. 0.3f = 0x3E99999A: exponent 125 - 112 = 13,
    // top ten mantissa bits 0x0CC (the dropped 13 bits are 0x199A, more than half an ULP, so
    // nearest would give 0x0CD). 70000 is beyond the largest half: truncation gives 65504
    // (unverified on hardware). 2^-14 - 2^-25 lies below the smallest normal: trunc(1023.5)
    // = 1023 steps of 2^-24 (nearest: 1024, the tie goes to the even 0x400).
    let tiny = (2f64.powi(-14) - 2f64.powi(-25)) as f32;
    assert_eq!(
        through_h0([0.3, -70000.0, -0.3, tiny], HalfRounding::default()),
        [
            half_value(0x34CC),
            -65504.0,
            half_value(0xB4CC),
            half_value(0x03FF)
        ]
    );
    assert_eq!(half_value(0x34CC), 0.2998046875);
}

#[test]
fn fp16_writes_round_to_nearest_with_the_rpcs3_option() {
    // RPCS3's packHalf2x16 round trip: nearest even, overflow to infinity.
    let tiny = (2f64.powi(-14) - 2f64.powi(-25)) as f32;
    assert_eq!(
        through_h0([0.3, -70000.0, 65519.0, tiny], HalfRounding::Nearest),
        [
            half_value(0x34CD),
            f64::NEG_INFINITY,
            65504.0,
            half_value(0x0400)
        ]
    );
}

#[test]
fn fp16_truncation_keeps_infinities_nan_and_the_sign_of_zero() {
    for rounding in [
        HalfRounding::Truncate,
        HalfRounding::Nearest,
        HalfRounding::Keep,
    ] {
        // 0.75 · 2^-24 truncates to -0 (nearest rounds its magnitude up to 2^-24).
        let small = (-0.75 * 2f64.powi(-24)) as f32;
        let out = through_h0(
            [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, small],
            rounding,
        );
        assert_eq!(out[0], f64::INFINITY);
        assert_eq!(out[1], f64::NEG_INFINITY);
        assert!(out[2].is_nan(), "{rounding:?}");
        match rounding {
            HalfRounding::Truncate => assert!(out[3] == 0.0 && out[3].is_sign_negative()),
            HalfRounding::Nearest => assert_eq!(out[3], -(2f64.powi(-24))),
            HalfRounding::Keep => assert_eq!(out[3], f64::from(small)),
        }
    }
}

#[test]
fn fp16_source_modifier_truncates() {
    // MOV R0, c with the fp16 source modifier: the R register keeps the converted value.
    let v = [0.3, 1.0 + 2f32.powi(-10) + 2f32.powi(-11), 1e6, -0.3];
    let p = program(vec![with_const(
        op(Mov, dest(0), &[modif(konst(), PrecisionModifier::Fp16)]),
        v,
    )]);
    let run = |rounding| {
        let mut state = FragmentState::new(0x40);
        state.options.half_rounding = rounding;
        run_quad(&p, &state, &QuadInputs::default()).lanes[0].colors[0]
    };
    // 1 + 2^-10 + 2^-11: exactly half an ULP above 0x3C01; truncation keeps 0x3C01, nearest
    // goes to the even 0x3C02.
    assert_eq!(
        run(HalfRounding::Truncate),
        [
            half_value(0x34CC),
            half_value(0x3C01),
            65504.0,
            half_value(0xB4CC)
        ]
    );
    assert_eq!(
        run(HalfRounding::Nearest),
        [
            half_value(0x34CD),
            half_value(0x3C02),
            f64::INFINITY,
            half_value(0xB4CD)
        ]
    );
    assert_eq!(run(HalfRounding::Keep), v.map(f64::from));
}

#[test]
fn fp16_writes_keep_f32_values_with_the_oracle_option() {
    // HalfRounding::Keep (oracles only): the H0 write and the H0 export keep the f32 value.
    let v = [0.3, -70000.0, 1.0 + 2f32.powi(-12), 1e-9];
    assert_eq!(through_h0(v, HalfRounding::Keep), v.map(f64::from));
}

#[test]
fn fp16_precision_on_an_r_destination_stays_unrounded() {
    // A half-precision op writing an R register keeps its fp32 result (B.2, B.9).
    let p = program(vec![with_const(
        op(Mov, prec(dest(0), Precision::Fp16), &[konst()]),
        [0.3, 70000.0, 0.1, 1.0],
    )]);
    let out = run_quad(&p, &FragmentState::new(0x40), &QuadInputs::default());
    assert_eq!(
        out.lanes[0].colors[0],
        [f64::from(0.3f32), 70000.0, f64::from(0.1f32), 1.0]
    );
}

/// The truncation sees an arithmetic result carried to 26 significant bits, not its f32
/// rounding (`interp::fragment::carry`, docs/arithmetic.md), in both arithmetic widths.
#[test]
fn fp16_truncation_sees_the_result_carried_to_26_bits() {
    // (multiplier, f32 bits of b, the product rounded to f32 (a binary16 value), what the
    // truncation gives):
    // 11 · 0x3DBA5D17 is 1 + 2^-10 − 1.5 · 2^-26 exactly: below half a 26-bit step under
    // 1 + 2^-10, so it truncates to 1.0 (0x3C00), although rounded to f32 it is 1 + 2^-10.
    // 19 · 0x3D5835E5 is 1027/1024 − 0.25 · 2^-26: within half a step, so 1027/1024 (0x3C03).
    let cases = [
        (11.0f32, 0x3DBA_5D17u32, 0x3C01u16, 0x3C00u16),
        (19.0, 0x3D58_35E5, 0x3C03, 0x3C03),
    ];
    for (k, b_bits, rounded, half) in cases {
        let b = f32::from_bits(b_bits);
        let exact = f64::from(k) * f64::from(b);
        assert_eq!(f64::from(exact as f32), half_value(rounded));
        assert!(exact < half_value(rounded));
        let p = program(vec![
            with_const(op(Mov, dest(1), &[konst()]), [k, 0.0, 0.0, 0.0]),
            with_const(op(Mul, hdest(0), &[r(1), konst()]), [b, 0.0, 0.0, 0.0]),
        ]);
        for arithmetic in [Arithmetic::F32, Arithmetic::F64] {
            let mut state = FragmentState::new(0);
            state.options.arithmetic = arithmetic;
            let out = run_quad(&p, &state, &QuadInputs::default());
            assert_eq!(
                out.lanes[0].colors[0][0],
                half_value(half),
                "{k} · {b_bits:#x}, {arithmetic:?}"
            );
        }
    }
}

#[test]
fn h_writes_alias_r_bits() {
    // H0.x = 1.0 (0x3C00), H0.y = 2.0 (0x4000) -> R0.x = 0x4000_3C00;
    // H1.z = -1.0 (0xBC00) -> R0.w low half.
    let bits = r0_bits(vec![
        with_const(
            op(Mov, masked(hdest(0), 0b0011), &[konst()]),
            [1.0, 2.0, 0.0, 0.0],
        ),
        with_const(
            op(Mov, masked(hdest(1), 0b0100), &[konst()]),
            [0.0, 0.0, -1.0, 0.0],
        ),
    ]);
    assert_eq!(bits, [0x4000_3C00, 0, 0, 0x0000_BC00]);
    // Reading H0 back from an R write: R0.x = bits 0x4400_3800 -> H0.x = 0.5, H0.y = 4.0.
    let out = r0(vec![
        with_const_bits(
            op(Mov, dest(0), &[konst()]),
            [0x4400_3800, 0x3C00_0000, 0, 0],
        ),
        op(Mov, dest(1), &[h(0)]),
        op(Mov, dest(0), &[r(1)]),
    ]);
    assert_eq!(out, [0.5, 4.0, 0.0, 1.0]);
}

#[test]
fn output_from_h0_when_control_bit_clear() {
    let insns = vec![with_const(
        op(Mov, dest(0), &[konst()]),
        [0.25, 0.5, 0.75, 1.0],
    )];
    let p = program(insns);
    // R0 = (0.25, 0.5, ...) as f32 bits: 0x3E800000, 0x3F000000. H0 = halves of R0.x, R0.y:
    // H0.x = 0x0000 = 0, H0.y = 0x3E80 = 1.625, H0.z = 0, H0.w = 0x3F00 = 1.75.
    let h_out = run_quad(&p, &FragmentState::new(0), &QuadInputs::default());
    assert_eq!(h_out.lanes[0].colors[0], [0.0, 1.625, 0.0, 1.75]);
    let r_out = run_quad(&p, &FragmentState::new(0x40), &QuadInputs::default());
    assert_eq!(r_out.lanes[0].colors[0], [0.25, 0.5, 0.75, 1.0]);
}

#[test]
fn mrt_and_depth_outputs() {
    let p = program(vec![
        with_const(op(Mov, dest(2), &[konst()]), [1.0, 2.0, 3.0, 4.0]),
        with_const(op(Mov, dest(4), &[konst()]), [5.0, 6.0, 7.0, 8.0]),
        with_const(op(Mov, dest(1), &[konst()]), [0.0, 0.0, 0.375, 0.0]),
    ]);
    let out = run_quad(&p, &FragmentState::new(0x40 | 0xE), &QuadInputs::default());
    let l = out.lanes[0];
    assert_eq!(l.colors[0], [0.0; 4]); // R0 untouched: registers start at 0
    assert_eq!(l.colors[1], [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(l.colors[3], [5.0, 6.0, 7.0, 8.0]);
    assert_eq!(l.depth, Some(0.375));
    let no_depth = run_quad(&p, &FragmentState::new(0x40), &QuadInputs::default());
    assert_eq!(no_depth.lanes[0].depth, None);
}

#[test]
fn output_scale() {
    let c = [1.5, -3.0, 0.25, 8.0];
    let x2 = r0(vec![with_scale(
        with_const(op(Mov, dest(0), &[konst()]), c),
        OutputScale::Mul2,
    )]);
    assert_eq!(x2, [3.0, -6.0, 0.5, 16.0]);
    let d2 = r0(vec![with_scale(
        with_const(op(Mov, dest(0), &[konst()]), c),
        OutputScale::Div2,
    )]);
    assert_eq!(d2, [0.75, -1.5, 0.125, 4.0]);
    let x8 = r0(vec![with_scale(
        with_const(op(Mov, dest(0), &[konst()]), c),
        OutputScale::Mul8,
    )]);
    assert_eq!(x8, [12.0, -24.0, 2.0, 64.0]);
    // scale comes before saturate: 0.75 * 2 = 1.5 -> 1
    let s = r0(vec![with_scale(
        with_const(op(Mov, sat(dest(0)), &[konst()]), [0.75, 0.25, -1.0, 0.0]),
        OutputScale::Mul2,
    )]);
    assert_eq!(s, [1.0, 0.5, 0.0, 0.0]);
}

#[test]
fn fx12_and_fx9_clamp() {
    let nan = f32::NAN.to_bits();
    let c = [5.0f32.to_bits(), (-7.0f32).to_bits(), 0.3f32.to_bits(), nan];
    let fx12 = r0(vec![with_const_bits(
        op(Mov, prec(dest(0), Precision::Fx12), &[konst()]),
        c,
    )]);
    assert_eq!(fx12, [2.0, -2.0, f64::from(0.3f32), 0.0]);
    let fx9 = r0(vec![with_const_bits(
        op(Mov, prec(dest(0), Precision::Fx9), &[konst()]),
        c,
    )]);
    assert_eq!(fx9, [1.0, -1.0, f64::from(0.3f32), 0.0]);
    // Exception list: MAX skips the precision clamp (B.2).
    let max = r0(vec![
        with_const(op(Mov, dest(1), &[konst()]), [5.0, -7.0, 0.0, 0.0]),
        op(Max, prec(dest(0), Precision::Fx12), &[r(1), r(1)]),
    ]);
    assert_eq!(max, [5.0, -7.0, 0.0, 0.0]);
    // fp16 precision on an R destination is ignored: 1/3 stays f32.
    let third = r0(vec![with_const(
        op(Mov, prec(dest(0), Precision::Fp16), &[konst()]),
        [1.0 / 3.0; 4],
    )]);
    assert_eq!(third[0], f64::from(1.0f32 / 3.0));
}

#[test]
fn fx12_quantise_option() {
    let p = program(vec![with_const(
        op(Mov, prec(dest(0), Precision::Fx12), &[konst()]),
        [0.3, 5.0, -7.0, 0.0],
    )]);
    let mut state = FragmentState::new(0x40);
    state.options.fx12 = FixedPointMode::Quantise;
    let out = run_quad(&p, &state, &QuadInputs::default());
    // 0.3 * 1024 = 307.2 -> 307/1024; top of range is 2 - 1/1024
    assert_eq!(
        out.lanes[0].colors[0],
        [307.0 / 1024.0, 2.0 - 1.0 / 1024.0, -2.0, 0.0]
    );
}

#[test]
fn source_modifiers_abs_then_precision_then_negate() {
    // |−3| = 3, fx9 clamp -> 1, negate -> -1
    let out = r0(vec![
        with_const(op(Mov, dest(1), &[konst()]), [-3.0, 0.5, -0.25, 1.0 / 3.0]),
        op(
            Mov,
            dest(0),
            &[neg(abs(modif(r(1), PrecisionModifier::Fx9)))],
        ),
    ]);
    assert_eq!(out, [-1.0, -0.5, -0.25, -f64::from(1.0f32 / 3.0)]);
    // fp16 modifier: 1/3 -> 0.333251953125
    let f16 = r0(vec![
        with_const(op(Mov, dest(1), &[konst()]), [1.0 / 3.0, 0.0, 0.0, 0.0]),
        op(Mov, dest(0), &[modif(r(1), PrecisionModifier::Fp16)]),
    ]);
    assert_eq!(f16[0], 0.333251953125);
}

fn lane_with(a: usize, v: [f32; 4]) -> LaneInputs {
    let mut l = LaneInputs::default();
    l.attributes[a] = v;
    l
}

#[test]
fn col0_clamped_on_read_and_exempt_from_modifier_fogc_w_zero() {
    let p = program(vec![with_input(
        op(Mov, dest(0), &[modif(input(), PrecisionModifier::Fx9)]),
        attr::COL0 as u8,
    )]);
    let q = uniform_quad(lane_with(attr::COL0, [1.5, -0.5, 0.25, 0.75]));
    let out = run_quad(&p, &FragmentState::new(0x40), &q);
    assert_eq!(out.lanes[0].colors[0], [1.0, 0.0, 0.25, 0.75]);
    // TEX0 is not clamped
    let t = program(vec![with_input(
        op(Mov, dest(0), &[input()]),
        attr::TEX0 as u8,
    )]);
    let qt = uniform_quad(lane_with(attr::TEX0, [1.5, -0.5, 0.25, 9.0]));
    let out = run_quad(&t, &FragmentState::new(0x40), &qt);
    assert_eq!(out.lanes[0].colors[0], [1.5, -0.5, 0.25, 9.0]);
    // FOGC.w reads 0
    let fp = program(vec![with_input(
        op(Mov, dest(0), &[input()]),
        attr::FOGC as u8,
    )]);
    let qf = uniform_quad(lane_with(attr::FOGC, [0.5, 0.5, 0.5, 1.0]));
    let out = run_quad(&fp, &FragmentState::new(0x40), &qf);
    assert_eq!(out.lanes[0].colors[0], [0.5, 0.5, 0.5, 0.0]);
}

/// A quad whose COL0.x is given per lane.
fn quad_col0_x(x: [f32; 4]) -> QuadInputs {
    let mut q = QuadInputs {
        coverage: 0xF,
        ..Default::default()
    };
    for (l, v) in x.into_iter().enumerate() {
        q.lanes[l].attributes[attr::COL0] = [v, 0.0, 0.0, 0.0];
    }
    q
}

#[test]
fn conditional_write_per_lane_and_component() {
    // CC0 = (COL0.x, 0, 0, 0); then R0.xy = 7 where CC0.x > 0, and R0.zw = 9 where the
    // swizzled CC (.yyyy) is EQ 0.
    let p = program(vec![
        set_cond(with_input(op(Mov, masked(dest(1), 1), &[input()]), 1), 0),
        with_cond(
            with_const(op(Mov, masked(dest(0), 0b0011), &[konst()]), [7.0; 4]),
            Relation::Gt,
            XXXX,
            0,
        ),
        with_cond(
            with_const(op(Mov, masked(dest(0), 0b1100), &[konst()]), [9.0; 4]),
            Relation::Eq,
            [1, 1, 1, 1],
            0,
        ),
    ]);
    let out = run_quad(
        &p,
        &FragmentState::new(0x40),
        &quad_col0_x([0.5, 0.0, 0.25, 0.0]),
    );
    assert_eq!(out.lanes[0].colors[0], [7.0, 7.0, 9.0, 9.0]);
    assert_eq!(out.lanes[1].colors[0], [0.0, 0.0, 9.0, 9.0]);
    assert_eq!(out.lanes[2].colors[0], [7.0, 7.0, 9.0, 9.0]);
    assert_eq!(out.lanes[3].colors[0], [0.0, 0.0, 9.0, 9.0]);
}

#[test]
fn condition_per_component_swizzle_and_nan() {
    // CC0 = (1, -1, 0, NaN); MOV R0 (GE.xyzw) 5: only x and z pass (NaN fails GE).
    let nan = f32::NAN.to_bits();
    let p = vec![
        set_cond(
            with_const_bits(
                op(Mov, masked(dest(1), 0xF), &[konst()]),
                [1.0f32.to_bits(), (-1.0f32).to_bits(), 0, nan],
            ),
            0,
        ),
        with_cond(
            with_const(op(Mov, dest(0), &[konst()]), [5.0; 4]),
            Relation::Ge,
            XYZW,
            0,
        ),
    ];
    assert_eq!(r0(p), [5.0, 0.0, 5.0, 0.0]);
    // NE passes for NaN
    let p = vec![
        set_cond(
            with_const_bits(op(Mov, masked(dest(1), 0xF), &[konst()]), [0, 0, 0, nan]),
            0,
        ),
        with_cond(
            with_const(op(Mov, dest(0), &[konst()]), [5.0; 4]),
            Relation::Ne,
            XYZW,
            0,
        ),
    ];
    assert_eq!(r0(p), [0.0, 0.0, 0.0, 5.0]);
}

#[test]
fn two_condition_registers() {
    // set_cond writes CC1 only; a test of CC0 (still 0) and of CC1 differ.
    let mut no_dest = dest(0);
    no_dest.no_dest = true;
    let p = vec![
        set_cond(with_const(op(Mov, no_dest, &[konst()]), [1.0; 4]), 1),
        with_cond(
            with_const(op(Mov, masked(dest(0), 0b0001), &[konst()]), [3.0; 4]),
            Relation::Gt,
            XXXX,
            0,
        ),
        with_cond(
            with_const(op(Mov, masked(dest(0), 0b0010), &[konst()]), [4.0; 4]),
            Relation::Gt,
            XXXX,
            1,
        ),
        // FL never writes, even unmasked
        with_cond(
            with_const(op(Mov, dest(0), &[konst()]), [6.0; 4]),
            Relation::Fl,
            XXXX,
            1,
        ),
    ];
    assert_eq!(r0(p), [0.0, 4.0, 0.0, 0.0]);
}

#[test]
fn if_else_per_lane() {
    // slot 0: CC0.x = COL0.x; slot 1: IFE GT.x else@3 end@5; slot 2: R0.x = COL0.x (then);
    // slots 3-4: R0.y = COL0.x + 2 (else); slots 5-6: R0.z = R0.x + 1 (after).
    let p = program(vec![
        set_cond(with_input(op(Mov, masked(dest(1), 1), &[input()]), 1), 0),
        with_cond(
            flow(FlowKind::Ife {
                else_slot: 3,
                end_slot: 5,
            }),
            Relation::Gt,
            XXXX,
            0,
        ),
        with_input(op(Mov, masked(dest(0), 0b0001), &[swz(input(), XXXX)]), 1),
        with_const(
            with_input(
                op(Add, masked(dest(0), 0b0010), &[swz(input(), XXXX), konst()]),
                1,
            ),
            [2.0; 4],
        ),
        with_const(
            op(Add, masked(dest(0), 0b0100), &[swz(r(0), XXXX), konst()]),
            [1.0; 4],
        ),
    ]);
    let out = run_quad(
        &p,
        &FragmentState::new(0x40),
        &quad_col0_x([0.5, 0.0, 0.25, 0.0]),
    );
    assert_eq!(out.lanes[0].colors[0], [0.5, 0.0, 1.5, 0.0]);
    assert_eq!(out.lanes[1].colors[0], [0.0, 2.0, 1.0, 0.0]);
    assert_eq!(out.lanes[2].colors[0], [0.25, 0.0, 1.25, 0.0]);
    assert_eq!(out.lanes[3].colors[0], [0.0, 2.0, 1.0, 0.0]);
}

#[test]
fn loop_count_and_brk() {
    // slot 0-1: MOV R1 = (0, 0, 0, 0) (const); slot 2: LOOP count=10 end@7;
    // slot 3-4: ADD R1.x = R1.x + 1 (const); slot 5-6: ADDC CC0.x = R1.x - 3 (no dest,
    // const); slot 7? -> BRK must be inside the body: reorder below.
    let loop_fields = |end| LoopFields {
        count: 10,
        init: 0,
        increment: 1,
        end_slot: end,
    };
    let mut no_dest = masked(dest(2), 0b0001);
    no_dest.no_dest = true;
    // slots: 0 LOOP; 1-2 ADD R1.x += 1; 3-4 ADDC (R1.x - 3); 5 BRK (EQ.x); 6-7 ADD R0.y += 1;
    // 8 MOV R0.x = R1.x (after loop, end@8)
    let p = program(vec![
        flow(FlowKind::Loop(loop_fields(8))),
        with_const(op(Add, masked(dest(1), 1), &[r(1), konst()]), [1.0; 4]),
        set_cond(with_const(op(Add, no_dest, &[r(1), konst()]), [-3.0; 4]), 0),
        with_cond(flow(FlowKind::Brk), Relation::Eq, XXXX, 0),
        with_const(op(Add, masked(dest(0), 2), &[r(0), konst()]), [1.0; 4]),
        op(Mov, masked(dest(0), 1), &[r(1)]),
    ]);
    let out = run_quad(&p, &FragmentState::new(0x40), &QuadInputs::default());
    // three iterations increment R1.x; the third breaks before R0.y's increment
    assert_eq!(out.lanes[0].colors[0], [3.0, 2.0, 0.0, 0.0]);
    // Without BRK ever passing the loop runs `count` = 10 times.
    let p2 = program(vec![
        flow(FlowKind::Rep(loop_fields(3))),
        with_const(op(Add, masked(dest(0), 1), &[r(0), konst()]), [1.5; 4]),
        op(Mov, masked(dest(0), 2), &[swz(r(0), XXXX)]),
    ]);
    let out2 = run_quad(&p2, &FragmentState::new(0x40), &QuadInputs::default());
    assert_eq!(out2.lanes[0].colors[0], [15.0, 15.0, 0.0, 0.0]);
}

#[test]
fn a_loop_runs_on_the_lanes_its_condition_passes() {
    // CC0.x = COL0.x - 0.5; REP 3 if GT.x: R0.x += 1; LOOP 2 if FL (never): R0.y += 1;
    // R0.z = 1. RPCS3 wraps LOOP and REP in `if (cond)`, as IFE.
    let fields = |count, end| LoopFields {
        count,
        init: 0,
        increment: 1,
        end_slot: end,
    };
    let mut cc = masked(dest(1), 0b0001);
    cc.no_dest = true;
    let p = program(vec![
        set_cond(
            with_const(with_input(op(Add, cc, &[input(), konst()]), 1), [-0.5; 4]),
            0,
        ),
        with_cond(flow(FlowKind::Rep(fields(3, 5))), Relation::Gt, XXXX, 0),
        with_const(op(Add, masked(dest(0), 1), &[r(0), konst()]), [1.0; 4]),
        with_cond(flow(FlowKind::Loop(fields(2, 8))), Relation::Fl, XXXX, 0),
        with_const(op(Add, masked(dest(0), 2), &[r(0), konst()]), [1.0; 4]),
        with_const(op(Mov, masked(dest(0), 4), &[konst()]), [1.0; 4]),
    ]);
    let out = run_quad(
        &p,
        &FragmentState::new(0x40),
        &quad_col0_x([1.0, 0.0, 0.75, 0.5]),
    );
    let x: Vec<[f64; 4]> = out.lanes.iter().map(|l| l.colors[0]).collect();
    assert_eq!(
        x,
        [
            [3.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [3.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0, 0.0]
        ]
    );
}

#[test]
fn a_conditional_write_tests_the_cc_as_it_was_before_the_instruction() {
    // CC0 starts at 0. MOVC R0.xy (EQ.xxxx), {1, 1, 1, 1}: both components test CC0.x as it
    // was (0, so EQ passes) and both are written, though the instruction sets CC0.x to 1 on
    // the way (RPCS3 AddCodeCond: one vector test, then the select; the recompiled shader
    // does the same). Testing y against the CC x left would drop it.
    let p = program(vec![
        with_cond(
            set_cond(
                with_const(op(Mov, masked(dest(0), 0b0011), &[konst()]), [1.0; 4]),
                0,
            ),
            Relation::Eq,
            XXXX,
            0,
        ),
        op(Mov, masked(dest(1), 0), &[r(0)]),
    ]);
    let out = run_quad(&p, &FragmentState::new(0x40), &QuadInputs::default());
    assert_eq!(out.lanes[0].colors[0], [1.0, 1.0, 0.0, 0.0]);
}

/// A LOOP of count 3 (A0 = 0, 1, 2) adding TEX[A0 + `displacement`] into R0, with TEXn =
/// (10n, 1, 0, 0): the sum, as COL0.
fn indexed_loop_sum(displacement: u16) -> [f64; 4] {
    indexed_loop_sum_from(0, 1, displacement, &FragmentState::new(0x40))
}

/// The same with the loop's own initial value and increment.
fn indexed_loop_sum_from(
    init: u8,
    increment: i8,
    displacement: u16,
    state: &FragmentState,
) -> [f64; 4] {
    let mut add = op(Add, dest(0), &[r(0), input()]);
    if let rsxtrace_program::fragment::Operands::Alu(a) = &mut add.operands {
        a.indexed_input = true;
        a.input_displacement = displacement;
    }
    let p = program(vec![
        flow(FlowKind::Loop(LoopFields {
            count: 3,
            init,
            increment,
            end_slot: 2,
        })),
        add,
        op(Mov, dest(1), &[r(0)]),
    ]);
    let mut lane = LaneInputs::default();
    for t in 0..10 {
        lane.attributes[attr::TEX0 + t] = [t as f32 * 10.0, 1.0, 0.0, 0.0];
    }
    let out = run_quad(&p, state, &uniform_quad(lane));
    out.lanes[0].colors[0]
}

#[test]
fn the_loop_index_starts_at_init_and_steps_by_increment() {
    // LOOP {count 3, init 2, increment 3}: A0 = 2, 5, 8 (NV_fragment_program2's loop index),
    // so TEX[A0] reads TEX2 + TEX5 + TEX8.
    let state = FragmentState::new(0x40);
    assert_eq!(
        indexed_loop_sum_from(2, 3, 0, &state),
        [150.0, 3.0, 0.0, 0.0]
    );
    // RPCS3's iteration number (A0 = 0, 1, 2) reads TEX0 + TEX1 + TEX2.
    let mut rpcs3 = state;
    rpcs3.options.loop_counter = LoopCounter::Iteration;
    assert_eq!(
        indexed_loop_sum_from(2, 3, 0, &rpcs3),
        [30.0, 3.0, 0.0, 0.0]
    );
}

#[test]
fn loop_counter_indexes_inputs() {
    // TEX1 + TEX2 + TEX3.
    assert_eq!(indexed_loop_sum(1), [60.0, 3.0, 0.0, 0.0]);
}

#[test]
fn an_indexed_input_past_tex9_reads_0001() {
    // TEX8 + TEX9 + (0, 0, 0, 1): past TEX9 the read gives (0, 0, 0, 1), as RPCS3's
    // `_indexed_load` returns.
    assert_eq!(indexed_loop_sum(8), [170.0, 2.0, 0.0, 1.0]);
}

#[test]
fn ret_ends_lanes() {
    let p = program(vec![
        set_cond(with_input(op(Mov, masked(dest(1), 1), &[input()]), 1), 0),
        with_cond(flow(FlowKind::Ret), Relation::Gt, XXXX, 0),
        with_const(op(Mov, dest(0), &[konst()]), [2.0; 4]),
    ]);
    let out = run_quad(
        &p,
        &FragmentState::new(0x40),
        &quad_col0_x([0.5, 0.0, 0.0, 1.0]),
    );
    assert_eq!(out.lanes[0].colors[0], [0.0; 4]);
    assert_eq!(out.lanes[1].colors[0], [2.0; 4]);
    assert_eq!(out.lanes[3].colors[0], [0.0; 4]);
}

#[test]
fn kil_flags_lanes() {
    // CC0.x = COL0.x - 0.5 ; KIL LT.x
    let p = program(vec![
        set_cond(
            with_const(
                with_input(op(Add, masked(dest(1), 1), &[input(), konst()]), 1),
                [-0.5; 4],
            ),
            0,
        ),
        with_cond(op(Kil, dest(0), &[]), Relation::Lt, XXXX, 0),
        with_const(op(Mov, dest(0), &[konst()]), [1.0; 4]),
    ]);
    let out = run_quad(
        &p,
        &FragmentState::new(0xC0),
        &quad_col0_x([0.25, 0.75, 0.5, 0.0]),
    );
    let killed: Vec<bool> = out.lanes.iter().map(|l| l.killed).collect();
    assert_eq!(killed, [true, false, false, true]);
    assert!(out.lanes.iter().all(|l| l.covered));
}

#[test]
fn ddx_ddy_on_a_quad() {
    // value per lane (TL, TR, BL, BR) = (1, 4, 10, 19) in .x, (0, 2, 0, 2) in .y
    let mut q = QuadInputs {
        coverage: 0xF,
        ..Default::default()
    };
    for (l, v) in [[1.0, 0.0], [4.0, 2.0], [10.0, 0.0], [19.0, 2.0]]
        .iter()
        .enumerate()
    {
        q.lanes[l].attributes[attr::TEX0] = [v[0], v[1], 0.0, 0.0];
    }
    let p = program(vec![
        with_input(
            op(Ddx, masked(dest(0), 0b0011), &[input()]),
            attr::TEX0 as u8,
        ),
        with_input(
            op(Ddy, masked(dest(2), 0b0011), &[input()]),
            attr::TEX0 as u8,
        ),
    ]);
    let out = run_quad(&p, &FragmentState::new(0x40), &q);
    // d/dx = right - left per row: top 4-1 = 3, bottom 19-10 = 9
    // d/dy = bottom - top per column: left 10-1 = 9, right 19-4 = 15
    let dx: Vec<f64> = out.lanes.iter().map(|l| l.colors[0][0]).collect();
    let dy: Vec<f64> = out.lanes.iter().map(|l| l.colors[1][0]).collect();
    assert_eq!(dx, [3.0, 3.0, 9.0, 9.0]);
    assert_eq!(dy, [9.0, 15.0, 9.0, 15.0]);
    assert_eq!(out.lanes[0].colors[0][1], 2.0);
    assert_eq!(out.lanes[0].colors[1][1], 0.0);
}

#[test]
fn f64_arithmetic() {
    let p = program(vec![
        with_const(op(Mov, dest(1), &[konst()]), [3.0; 4]),
        op(Rcp, dest(0), &[r(1)]),
    ]);
    let mut state = FragmentState::new(0x40);
    let f32_out = run_quad(&p, &state, &QuadInputs::default());
    assert_eq!(f32_out.lanes[0].colors[0][0], f64::from(1.0f32 / 3.0));
    state.options.arithmetic = Arithmetic::F64;
    let f64_out = run_quad(&p, &state, &QuadInputs::default());
    assert_eq!(f64_out.lanes[0].colors[0][0], 1.0 / 3.0);
}

/// Records every request and answers (0.25, 0.5, 0.75, 1).
#[derive(Default)]
struct Recorder(Mutex<Vec<(u8, SampleRequest)>>);

impl Sampler for Recorder {
    fn sample(&self, unit: u8, request: &SampleRequest) -> [f32; 4] {
        self.0.lock().unwrap().push((unit, *request));
        [0.25, 0.5, 0.75, 1.0]
    }
}

#[test]
fn texture_requests() {
    // TXP on unit 3 with coordinate (2, 4, 6, 2) -> (1, 2, 3, 2); TXL lod = src1.x;
    // exp_tex remaps (0.25, ..) with 2x - 1.
    let mut txp = with_const(op(Txp, dest(0), &[konst()]), [2.0, 4.0, 6.0, 2.0]);
    txp.texture_unit = 3;
    txp.exp_tex = true;
    // src0 = (0.5, 0.5, 2.5, 1.5); src1 = .zzzz = 2.5
    let txl = with_const(
        op(Txl, dest(1), &[konst(), swz(konst(), [2, 2, 2, 2])]),
        [0.5, 0.5, 2.5, 1.5],
    );
    let p = program(vec![txp, txl]);
    let rec = Recorder::default();
    let out = run_quad_with(&p, &FragmentState::new(0x40), &QuadInputs::default(), &rec);
    assert_eq!(out.lanes[0].colors[0], [-0.5, 0.0, 0.5, 1.0]);
    let reqs = rec.0.lock().unwrap();
    assert_eq!(reqs.len(), 8);
    let (unit, first) = reqs[0];
    assert_eq!(unit, 3);
    assert_eq!(first.coord, [1.0, 2.0, 3.0, 2.0]);
    assert_eq!(first.lod, LodSource::Implicit);
    assert_eq!(first.ddx, [0.0; 4]);
    let (_, lod) = reqs[4];
    assert_eq!(lod.lod, LodSource::Explicit(2.5));
    drop(reqs);
    // Mesa option: LOD from src0.w = 1.5
    let rec2 = Recorder::default();
    let mut state = FragmentState::new(0x40);
    state.options.lod_operand = LodOperand::Src0W;
    run_quad_with(&p, &state, &QuadInputs::default(), &rec2);
    assert_eq!(rec2.0.lock().unwrap()[4].1.lod, LodSource::Explicit(1.5));
}

#[test]
fn texture_derivatives_follow_the_quad() {
    let mut q = QuadInputs {
        coverage: 0xF,
        ..Default::default()
    };
    for (l, x) in [0.0f32, 0.125, 0.5, 0.625].into_iter().enumerate() {
        q.lanes[l].attributes[attr::TEX0] = [x, 1.0 - x, 0.0, 1.0];
    }
    let p = program(vec![with_input(
        op(Tex, dest(0), &[input()]),
        attr::TEX0 as u8,
    )]);
    let rec = Recorder::default();
    run_quad_with(&p, &FragmentState::new(0x40), &q, &rec);
    let reqs = rec.0.lock().unwrap();
    // lane 0: ddx = 0.125 - 0, ddy = 0.5 - 0
    assert_eq!(reqs[0].1.ddx, [0.125, -0.125, 0.0, 0.0]);
    assert_eq!(reqs[0].1.ddy, [0.5, -0.5, 0.0, 0.0]);
}

#[test]
fn errors_name_the_slot() {
    let p = program(vec![
        with_const(op(Mov, dest(0), &[konst()]), [1.0; 4]),
        op(Bemlum, dest(0), &[r(0), r(0), r(0)]),
    ]);
    let e = run_single_quad(
        &p,
        &FragmentState::new(0x40),
        &QuadInputs::default(),
        &NoTextures,
    )
    .unwrap_err();
    assert!(matches!(
        e,
        FragmentExecError::UnsupportedOpcode {
            slot: 2,
            opcode: Bemlum
        }
    ));
    assert!(e.to_string().contains("slot 2"), "{e}");
    let big = program(vec![op(Mov, dest(50), &[r(0)])]);
    let e = run_fragment(
        &big,
        &FragmentState::new(0x40),
        &[QuadInputs::default()],
        &NoTextures,
    )
    .unwrap_err();
    assert!(matches!(
        e,
        FragmentExecError::RegisterOutOfRange {
            slot: 0,
            index: 50,
            ..
        }
    ));
}

#[test]
fn batch_runs_in_order() {
    let p = program(vec![with_input(
        op(Mov, dest(0), &[input()]),
        attr::TEX0 as u8,
    )]);
    let quads: Vec<QuadInputs> = (0..1000)
        .map(|i| uniform_quad(lane_with(attr::TEX0, [i as f32, 0.0, 0.0, 0.0])))
        .collect();
    let out = run_fragment(&p, &FragmentState::new(0x40), &quads, &NoTextures).unwrap();
    assert_eq!(out.len(), 1000);
    for (i, q) in out.iter().enumerate() {
        assert_eq!(q.lanes[3].colors[0][0], i as f64);
    }
}
