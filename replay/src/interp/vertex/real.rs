//! The floating-point type the vertex interpreter computes in: [`Real`], shared with the
//! fragment interpreter (`f32` for the RSX's own arithmetic, `f64` for the same rules evaluated
//! wider, [`crate::interp::Arithmetic`]).

pub use crate::interp::real::Real;
