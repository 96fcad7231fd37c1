//! A draw's raster state decoded into enums (blend factors, compare functions, stencil
//! operations, cull, polygon modes, colour and depth formats) shared by both renderers, and the
//! frame events the draw list does not carry (clears, and registers `Draw` does not decode).
//!
//! Values are the NV4097 enumerants (OpenGL enums) listed in rrc-format.md 4.8 and RPCS3
//! `gcm_enums.h`; `rsxtrace_capture::frame::state` already names them, this module turns them
//! into closed enums and refuses an unknown value **only where the draw uses it** (an unknown
//! blend factor with blending off is not an error), naming the register and the value.
//!
//! Register reset values: a register the capture never set reads 0. Where 0 is not a valid
//! enumerant the OpenGL default is used (documented on each `from_raw`): polygon mode 0 = fill,
//! front face 0 = CCW, cull face 0 = back, blend equation 0 = add.
//!
//! The parts: `enumerants` (comparison, stencil, blend, cull, winding and polygon modes),
//! `formats` (colour and depth surface formats, the colour targets), `draw` (a draw's
//! whole raster state, [`DrawState`]) and `events` (clears and occlusion reports between
//! draws, [`FrameEvents`]).

mod draw;
mod enumerants;
mod events;
mod formats;

pub use draw::*;
pub use enumerants::*;
pub use events::*;
pub use formats::*;

/// A state value a renderer cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// An enumerated register holds a value that is not one of its enumerants.
    #[error("{register} = 0x{value:x} is not a valid value")]
    BadValue {
        /// Register (and field) name, e.g. `NV4097_SET_BLEND_FUNC_SFACTOR (rgb)`.
        register: &'static str,
        /// The raw value.
        value: u32,
    },
}

fn bad(register: &'static str, value: u32) -> StateError {
    StateError::BadValue { register, value }
}
