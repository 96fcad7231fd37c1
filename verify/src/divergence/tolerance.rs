//! Tolerances: the register classes a compared value belongs to (fp32, fp16, fx12), how far
//! apart the two results of each class may be, the NaN, infinity and denormal policy, and the
//! `--tolerance` syntax that overrides any of them (`docs/verify.md` "Tolerances").
//!
//! A component is within tolerance when its absolute error is at most `abs`, or its distance
//! in units in the last place of the class's format is at most `ulps`, or its relative error
//! is at most `rel` (a bound of 0 is off, except `abs`, where 0 still admits equal values).

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// The precision class of a compared register (rsx-microcode.md B.2 "precision").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// 32-bit float: every vertex output, fragment R outputs.
    Fp32,
    /// binary16: fragment H outputs (ULPs are counted in binary16).
    Fp16,
    /// Fixed point (fx12 and fx9 results): absolute error only.
    Fx12,
}

impl Class {
    /// Lowercase name (`fp32`, `fp16`, `fx12`).
    pub fn name(self) -> &'static str {
        match self {
            Class::Fp32 => "fp32",
            Class::Fp16 => "fp16",
            Class::Fx12 => "fx12",
        }
    }
}

/// The bounds of one class; see the module documentation for how they combine.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Tolerance {
    /// Distance in ULPs of the class's format (0 = off).
    pub ulps: u32,
    /// Absolute error.
    pub abs: f64,
    /// Relative error, |a − b| / max(|a|, |b|) (0 = off).
    pub rel: f64,
}

/// What a NaN on either side means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NanPolicy {
    /// NaN matches NaN (any payload) and nothing else (default).
    Match,
    /// A component where either side is NaN is not compared; it is counted as `nan_ignored`.
    Ignore,
}

/// What an infinity on either side means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InfPolicy {
    /// An infinity matches only the same infinity (default).
    Exact,
    /// An infinity is one ULP past the largest finite value of the format, so it may match
    /// a value near the top of the range within the ULP bound.
    Ulp,
}

/// All tolerances and policies of one verification.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Tolerances {
    /// fp32 class.
    pub fp32: Tolerance,
    /// fp16 class.
    pub fp16: Tolerance,
    /// fx12 class.
    pub fx12: Tolerance,
    /// NaN policy.
    pub nan: NanPolicy,
    /// Infinity policy.
    pub inf: InfPolicy,
    /// A GPU zero where the interpreter has a denormal matches (Vulkan lets implementations
    /// flush denormals; lavapipe does, `replay/tests/gpu_support` "flushed"). Default on.
    pub flush_denormals: bool,
}

impl Default for Tolerances {
    /// fp32: 4 ULP or 1e-6 absolute; fp16: 1 binary16 ULP or 1e-6; fx12: 1/2048 absolute
    /// (half of the 2^-10 step, rsx-microcode.md B.2); NaN matches NaN; infinities exact;
    /// denormals may be flushed.
    fn default() -> Self {
        Tolerances {
            fp32: Tolerance {
                ulps: 4,
                abs: 1e-6,
                rel: 0.0,
            },
            fp16: Tolerance {
                ulps: 1,
                abs: 1e-6,
                rel: 0.0,
            },
            fx12: Tolerance {
                ulps: 0,
                abs: 1.0 / 2048.0,
                rel: 0.0,
            },
            nan: NanPolicy::Match,
            inf: InfPolicy::Exact,
            flush_denormals: true,
        }
    }
}

impl Tolerances {
    /// The bounds of `class`.
    pub fn of(&self, class: Class) -> &Tolerance {
        match class {
            Class::Fp32 => &self.fp32,
            Class::Fp16 => &self.fp16,
            Class::Fx12 => &self.fx12,
        }
    }

    fn of_mut(&mut self, class: Class) -> &mut Tolerance {
        match class {
            Class::Fp32 => &mut self.fp32,
            Class::Fp16 => &mut self.fp16,
            Class::Fx12 => &mut self.fx12,
        }
    }

    /// The defaults with `spec` applied (see [`Tolerances::apply`]).
    pub fn parse(spec: &str) -> Result<Tolerances, ToleranceError> {
        let mut t = Tolerances::default();
        t.apply(spec)?;
        Ok(t)
    }

    /// Apply a comma-separated list of `key=value` items, left to right:
    /// - `fp32=`, `fp16=`, `fx12=` with `<n>ulp` (ULP bound), `<x>rel` (relative bound), or a
    ///   number or fraction `a/b` (absolute bound);
    /// - `abs=<x>` / `rel=<x>`: the absolute / relative bound of fp32 and fp16;
    /// - `nan=match|ignore`, `inf=exact|ulp`, `denormals=flush|exact`.
    ///
    /// Example: `fp32=4ulp,fp16=1ulp,fx12=1/2048,abs=1e-6`.
    pub fn apply(&mut self, spec: &str) -> Result<(), ToleranceError> {
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = |why: &str| ToleranceError {
                item: item.to_string(),
                why: why.to_string(),
            };
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| bad("expected key=value"))?;
            let (key, value) = (key.trim(), value.trim());
            match key {
                "fp32" | "fp16" | "fx12" => {
                    let class = match key {
                        "fp32" => Class::Fp32,
                        "fp16" => Class::Fp16,
                        _ => Class::Fx12,
                    };
                    let t = self.of_mut(class);
                    if let Some(n) = value.strip_suffix("ulp") {
                        t.ulps = n
                            .trim()
                            .parse()
                            .map_err(|_| bad("ULP count must be 0..2^32"))?;
                    } else if let Some(x) = value.strip_suffix("rel") {
                        t.rel = number(x.trim()).map_err(|w| bad(&w))?;
                    } else {
                        t.abs = number(value).map_err(|w| bad(&w))?;
                    }
                }
                "abs" => {
                    let x = number(value).map_err(|w| bad(&w))?;
                    self.fp32.abs = x;
                    self.fp16.abs = x;
                }
                "rel" => {
                    let x = number(value).map_err(|w| bad(&w))?;
                    self.fp32.rel = x;
                    self.fp16.rel = x;
                }
                "nan" => {
                    self.nan = match value {
                        "match" => NanPolicy::Match,
                        "ignore" => NanPolicy::Ignore,
                        _ => return Err(bad("nan is match or ignore")),
                    }
                }
                "inf" => {
                    self.inf = match value {
                        "exact" => InfPolicy::Exact,
                        "ulp" => InfPolicy::Ulp,
                        _ => return Err(bad("inf is exact or ulp")),
                    }
                }
                "denormals" => {
                    self.flush_denormals = match value {
                        "flush" => true,
                        "exact" => false,
                        _ => return Err(bad("denormals is flush or exact")),
                    }
                }
                _ => {
                    return Err(bad(
                        "unknown key (fp32, fp16, fx12, abs, rel, nan, inf, denormals)",
                    ))
                }
            }
        }
        Ok(())
    }
}

/// A finite non-negative number, or a fraction `a/b` of two such numbers.
fn number(s: &str) -> Result<f64, String> {
    let parse = |t: &str| -> Result<f64, String> {
        let v: f64 = t
            .trim()
            .parse()
            .map_err(|_| format!("{t:?} is not a number"))?;
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(format!("{t:?} must be finite and not negative"))
        }
    };
    match s.split_once('/') {
        Some((a, b)) => {
            let (a, b) = (parse(a)?, parse(b)?);
            if b == 0.0 {
                return Err("division by zero".to_string());
            }
            Ok(a / b)
        }
        None => parse(s),
    }
}

impl FromStr for Tolerances {
    type Err = ToleranceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Tolerances::parse(s)
    }
}

impl fmt::Display for Tolerances {
    /// The spec that reproduces these tolerances.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for class in [Class::Fp32, Class::Fp16, Class::Fx12] {
            let t = self.of(class);
            let n = class.name();
            write!(f, "{n}={}ulp,{n}={},{n}={}rel,", t.ulps, t.abs, t.rel)?;
        }
        write!(
            f,
            "nan={},inf={},denormals={}",
            match self.nan {
                NanPolicy::Match => "match",
                NanPolicy::Ignore => "ignore",
            },
            match self.inf {
                InfPolicy::Exact => "exact",
                InfPolicy::Ulp => "ulp",
            },
            if self.flush_denormals {
                "flush"
            } else {
                "exact"
            }
        )
    }
}

/// A `--tolerance` item that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tolerance item {item:?}: {why}")]
pub struct ToleranceError {
    /// The item as written.
    pub item: String,
    /// What is wrong with it.
    pub why: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_example_parses() {
        let t = Tolerances::parse("fp32=4ulp,fp16=1ulp,fx12=1/2048,abs=1e-6").unwrap();
        assert_eq!(t.fp32.ulps, 4);
        assert_eq!(t.fp16.ulps, 1);
        assert_eq!(t.fx12.abs, 1.0 / 2048.0);
        assert_eq!(t.fp32.abs, 1e-6);
        assert_eq!(t.fp16.abs, 1e-6);
        assert_eq!(t.fx12.ulps, 0, "fx12 keeps its default");
    }

    #[test]
    fn items_override_left_to_right() {
        let t = Tolerances::parse(
            "abs=0.5, fp32=0.25, fp32=1e-3rel, nan=ignore, inf=ulp, denormals=exact",
        )
        .unwrap();
        assert_eq!(t.fp32.abs, 0.25);
        assert_eq!(t.fp16.abs, 0.5);
        assert_eq!(t.fp32.rel, 1e-3);
        assert_eq!(t.nan, NanPolicy::Ignore);
        assert_eq!(t.inf, InfPolicy::Ulp);
        assert!(!t.flush_denormals);
    }

    #[test]
    fn display_round_trips() {
        let t = Tolerances::parse("fp32=7ulp,fp16=0.125,fx12=3/1024,rel=1e-4,nan=ignore").unwrap();
        assert_eq!(Tolerances::parse(&t.to_string()).unwrap(), t);
        assert_eq!(
            Tolerances::parse(&Tolerances::default().to_string()).unwrap(),
            Tolerances::default()
        );
    }

    #[test]
    fn bad_items_are_named() {
        for (spec, item) in [
            ("fp32", "fp32"),
            ("fp32=-1", "fp32=-1"),
            ("fp64=1ulp", "fp64=1ulp"),
            ("fx12=1/0", "fx12=1/0"),
            ("abs=1e-6,nan=maybe", "nan=maybe"),
            ("fp16=xulp", "fp16=xulp"),
            ("rel=inf", "rel=inf"),
        ] {
            let e = Tolerances::parse(spec).unwrap_err();
            assert_eq!(e.item, item, "{spec}: {e}");
        }
    }
}
