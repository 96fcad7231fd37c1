//! Early depth rejection: quads whose every covered fragment is sure to fail the depth test
//! are not shaded. The result is the same bit for bit; only the shading is saved (the RSX
//! does the same in hardware with its Z-cull, before the fragment program runs).
//!
//! Before a batch of quads is shaded, each covered fragment's depth (after the depth range)
//! is compared with the depth buffer as the earlier batches left it. A fragment that fails
//! there fails at its turn in the per-fragment operations too, whatever the fragments
//! shaded before it in the same batch wrote, when:
//! - the fragment program does not export depth (the depth tested is the interpolated one);
//! - the function keeps failures failing: with LESS or LEQUAL a passing fragment writes a
//!   smaller depth (with GREATER, GEQUAL a larger one), so a value that fails against the
//!   buffer fails against every later state of it; EQUAL only writes the value already
//!   stored; NEVER fails all. NOTEQUAL and ALWAYS are left alone;
//! - nothing else writes the depth bytes: no colour target shares them;
//! - a failing fragment would change nothing else: no stencil test, or one whose `fail` and
//!   `zfail` operations are KEEP on both faces (a failing fragment that the program would
//!   have killed, or the alpha test dropped, changes nothing either).
//!
//! Only whole quads are dropped: a quad with one fragment that may pass is shaded whole, as
//! its other lanes feed its derivatives.

use super::quads::QuadJob;
use super::rop::{depth_range, TileTargets};
use crate::interp::fragment::CONTROL_DEPTH_EXPORT;
use crate::render::state::{CompareFunc, DrawState, StencilOp};
use crate::render::surface::depth_to_fixed;

/// The depth function of a draw whose failing fragments can be dropped before shading
/// (module docs), or `None`.
pub fn rule(state: &DrawState, control: u32, targets: &TileTargets<'_>) -> Option<CompareFunc> {
    let func = state.depth_test?.func;
    let keeps_failures = matches!(
        func,
        CompareFunc::Never
            | CompareFunc::Less
            | CompareFunc::LessEqual
            | CompareFunc::Greater
            | CompareFunc::GreaterEqual
            | CompareFunc::Equal
    );
    let stencil_quiet = state.stencil.as_ref().is_none_or(|s| {
        [&s.front, &s.back]
            .iter()
            .all(|f| f.fail == StencilOp::Keep && f.zfail == StencilOp::Keep)
    });
    (keeps_failures
        && stencil_quiet
        && control & CONTROL_DEPTH_EXPORT == 0
        && targets.depth_is_separate())
    .then_some(func)
}

/// Whether every covered fragment of `job` fails `func` against the depth buffer now;
/// `offset` moves window pixels to surface pixels.
pub fn rejects(
    func: CompareFunc,
    state: &DrawState,
    targets: &mut TileTargets<'_>,
    job: &QuadJob,
    offset: (u32, u32),
) -> bool {
    job.lanes.iter().enumerate().all(|(l, cover)| {
        let Some(cover) = cover else {
            return true;
        };
        let (x, y) = job.pixel(l);
        let (Some(sx), Some(sy)) = (x.checked_add(offset.0), y.checked_add(offset.1)) else {
            return true;
        };
        let Some(z) = depth_range(state, cover.z) else {
            return true;
        };
        match targets.stored_depth(sx, sy) {
            Some((stored, format)) => !func.test(depth_to_fixed(format, z), stored),
            // Outside the tile or the target: the per-fragment operations drop it too.
            None => true,
        }
    })
}
