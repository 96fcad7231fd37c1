//! The reference interpreter for RSX vertex and fragment programs.
//!
//! Semantics follow `shared/reference/rsx-microcode.md` (sections B.2 to B.9); every rule cites
//! its source. Where RPCS3 and the hardware descriptions differ, the RPCS3 behaviour is the
//! default and the other is a named option in [`fragment::FragmentOptions`] or
//! [`vertex::VertexOptions`].

/// Arithmetic width of the interpreter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Arithmetic {
    /// The RSX rules in f32 (the default, what the hardware computes).
    #[default]
    F32,
    /// The same rules evaluated in f64, to tell an ill-conditioned computation from a wrong one.
    F64,
}

pub mod fragment;
pub mod real;
pub mod vertex;
