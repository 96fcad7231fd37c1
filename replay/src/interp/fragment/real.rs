//! The fragment interpreter's arithmetic width ([`Real`], shared with the vertex interpreter)
//! and small fixed-size array helpers.

pub use crate::interp::real::Real;

/// `[f(a[0]), f(a[1]), f(a[2]), f(a[3])]`, always inlined (`<[T; 4]>::map` is not reliably
/// inlined in the interpreter's hot paths).
#[inline(always)]
pub fn map4<A: Copy, B>(a: [A; 4], f: impl Fn(A) -> B) -> [B; 4] {
    [f(a[0]), f(a[1]), f(a[2]), f(a[3])]
}

/// `[f(0), f(1), f(2), f(3)]`, always inlined.
#[inline(always)]
pub fn idx4<B>(f: impl Fn(usize) -> B) -> [B; 4] {
    [f(0), f(1), f(2), f(3)]
}
