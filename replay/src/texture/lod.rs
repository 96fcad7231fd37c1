//! A texture unit's level-of-detail state as the shared LOD rule takes it
//! ([`rsxtrace_semantics::lod`]: one definition for the interpreter's sampler and the
//! recompiled WGSL). The interpreter's [`UnitSampler`](super::UnitSampler), the GPU frame
//! renderer and verify all build a unit's [`TextureLod`] here, from the same registers.

use rsxtrace_capture::frame::state::Texture;
pub use rsxtrace_semantics::lod::{lambda_from_derivatives, LevelChoice, MipFilter, TextureLod};

use super::decode::texel_format;
use super::filter::{mag_filter, min_filter, TexelFilter};
use super::format::TexelFormat;
use rsxtrace_semantics::shadow::DepthCompare;

/// The LOD state of `texture` (FILTER bias and min filter, CONTROL0 min and max LOD; decoded
/// by the frame model, rrc-format.md 4.7). It does not depend on the decoded image: the rule
/// drops the mip filter, bias and clamp itself when the image has one level (RPCS3
/// `sampler_state::apply`), on both paths.
pub fn unit_lod(texture: &Texture) -> TextureLod {
    let (min, mip) = min_filter(texture.filter.min.raw);
    let depth = texel_format(0, texture).is_ok_and(TexelFormat::is_depth);
    // Only a 2D unit compares (`rsxtrace_semantics::shadow`).
    let flat = texture.format.dimension == 2 && !texture.format.cubemap;
    let alpha_kill = texture.control0.alpha_kill;
    let compare = if depth && flat {
        DepthCompare::of_unit(
            texture.address.zfunc.raw,
            alpha_kill,
            mag_filter(texture.filter.mag.raw) == TexelFilter::Linear,
            min == TexelFilter::Linear,
        )
    } else {
        None
    };
    TextureLod::from_values(
        texture.filter.bias,
        texture.control0.min_lod,
        texture.control0.max_lod,
        mip,
    )
    .with_unnormalized(texture.format.unnormalized)
    .with_sampling(compare, alpha_kill)
}
