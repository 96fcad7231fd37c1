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

pub use crate::fragment::{TextureDim, TextureLod};

/// Vertex texture units (TXL samples units 0..4, rsx-microcode.md B.8).
pub const VERTEX_TEXTURE_UNITS: usize = 4;

/// The state of the four vertex texture units a TXL translation depends on (not in the
/// instruction: it comes from the units' registers, rrc-format.md 4.7), as
/// `FragmentTranslateOptions::texture_dims` and `texture_lod` are for fragment units. The
/// default is 2D units that sample level 0 only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VertexTextureUnits {
    /// Dimension of each unit. The module declares a 1D unit as a `texture_2d<f32>` one texel
    /// high and samples it at t = 0.5 (WGSL has no explicit-LOD sampling of 1D textures): the
    /// executor binds a 1D texture as 2D with height 1.
    pub dims: [TextureDim; VERTEX_TEXTURE_UNITS],
    /// LOD state of each unit (bias, min/max LOD, mip filter, unnormalised coordinates): the
    /// shader chooses levels from TXL's operand with the shared rule.
    pub lod: [TextureLod; VERTEX_TEXTURE_UNITS],
}

impl VertexTextureUnits {
    /// The units as bytes, folded into the module hash.
    pub(crate) fn fingerprint(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        out.extend(self.dims.iter().map(|d| *d as u8));
        for l in &self.lod {
            crate::levels::lod_fingerprint(l, &mut out);
        }
        out
    }
}
