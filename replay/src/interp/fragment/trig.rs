//! SIN and COS of the fragment interpreter under [`TrigReduction`]: the exact IEEE functions,
//! or the reduction in turns (x · f32(1/2π), fraction, times 2π) that the WGSL recompiler
//! emits alike (rsx-microcode.md B.9, open question 3; the turns are refuted for the RSX by
//! a hardware image, docs/arithmetic.md).

use super::options::TrigReduction;
use super::real::Real;

/// f32(1/2π), the scale of the reduction in turns.
pub const INV_TWO_PI: f32 = 0.159_154_94;
/// f32(2π).
pub const TWO_PI: f32 = 6.283_185_5;

/// The angle the functions are evaluated at: `x` itself, or 2π · fract(x · f32(1/2π)) with
/// each step rounded to the working precision.
#[inline]
pub fn reduce<T: Real>(x: T, mode: TrigReduction) -> T {
    match mode {
        TrigReduction::Exact => x,
        TrigReduction::Turns => {
            let t = x * T::from_f32(INV_TWO_PI);
            (t - t.floor()) * T::from_f32(TWO_PI)
        }
    }
}

/// SIN under `mode`.
#[inline]
pub fn sin<T: Real>(x: T, mode: TrigReduction) -> T {
    reduce(x, mode).sin()
}

/// COS under `mode`.
#[inline]
pub fn cos<T: Real>(x: T, mode: TrigReduction) -> T {
    reduce(x, mode).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_nearest_f32() {
        assert_eq!(INV_TWO_PI, (1.0 / std::f64::consts::TAU) as f32);
        assert_eq!(TWO_PI, std::f64::consts::TAU as f32);
        // The bit patterns the WGSL recompiler writes for the same constants
        // (`rsxtrace_wgsl` fragment ops, `Turns` and the exact reduction).
        assert_eq!(INV_TWO_PI.to_bits(), 0x3E22_F983);
        assert_eq!(TWO_PI.to_bits(), 0x40C9_0FDB);
    }

    #[test]
    fn turns_follow_the_rounded_product() {
        // x = 5000: t = f32(5000 · f32(1/2π)) = 795.7747 (f32 grid 2^-14 there); the angle is
        // 2π times its fraction, not 5000 mod 2π.
        // Worked out by hand in f32: t = 795.774658203125, fraction 0.774658203125, angle
        // f32(0.774658203125 · 6.2831855) = 4.8673210 (bits 0x409BC118).
        let x = 5000.0f32;
        let angle = f32::from_bits(0x409B_C118);
        assert_eq!(reduce(x, TrigReduction::Turns), angle);
        assert_eq!(sin(x, TrigReduction::Turns), angle.sin());
        let exact = (f64::from(x) % std::f64::consts::TAU) as f32;
        assert!((angle - exact).abs() > 1e-5, "{angle} {exact}");
        assert_eq!(sin(x, TrigReduction::Exact), x.sin());
        // Small arguments agree to a few ULP.
        for x in [0.1f32, 1.0, 3.0, -2.0] {
            assert!((sin(x, TrigReduction::Turns) - x.sin()).abs() < 1e-6);
            assert!((cos(x, TrigReduction::Turns) - x.cos()).abs() < 1e-6);
        }
    }
}
