//! Translation switches of the vertex recompiler ([`VertexTranslateOptions`]): one named choice
//! for every rule where RPCS3 and the hardware descriptions disagree, plus the limits. They are
//! `rsxtrace_semantics::vertex::VertexRules`, the very struct the reference interpreter's
//! `VertexOptions` embeds, with the same defaults, so that a module built from the default
//! options computes what the default interpreter does.

pub use rsxtrace_semantics::vertex::{
    ArlRounding, ExpLog, Lg2Guard, MadRounding, MinMaxNan, RccClamp, RsqGuard, SaturateNan,
    ScalarOperand, VertexRules,
};

/// Options of [`super::translate`]: the shared [`VertexRules`]. The default is the
/// interpreter's default; [`VertexRules::rpcs3`] is the interpreter's `VertexOptions::rpcs3`.
/// `call_depth` is the size of the WGSL stack array, at most [`super::MAX_CALL_DEPTH`].
pub type VertexTranslateOptions = VertexRules;

/// A stable byte string of every field of `o`, folded into the module hash.
pub(crate) fn fingerprint(o: &VertexTranslateOptions) -> [u8; 24] {
    let mut b = [0u8; 24];
    b[0] = u8::from(o.relative_inputs);
    b[1] = o.arl as u8;
    b[2] = o.exp_log as u8;
    b[3] = o.rcc as u8;
    b[4] = o.rsq as u8;
    b[5] = o.lg2 as u8;
    b[6] = o.saturate_nan as u8;
    b[7] = o.min_max_nan as u8;
    b[8] = o.mad as u8;
    b[9] = o.scalar_operand as u8;
    b[10] = u8::from(o.lit_clamp_exponent);
    b[12..20].copy_from_slice(&(o.call_depth as u64).to_le_bytes());
    b[20..24].copy_from_slice(&o.step_limit.to_le_bytes());
    b
}
