//! Primitive assembly, clipping, viewport transform, coverage and interpolation: the fixed
//! function between the vertex and fragment programs, shared by the CPU reference render and
//! `verify`'s fragment stage.
//!
//! - [`primitive`]: vertex positions grouped into points, lines and triangles (quads, quad
//!   strips and polygons become triangles on the hardware's diagonals), each triangle with its
//!   provoking vertex and the edges of its source polygon (what polygon modes LINE and POINT
//!   draw).
//! - [`clip`]: triangles clipped against `w > ε` (and any other clip-space planes), results as
//!   barycentric weights over the original vertices.
//! - [`window`]: the viewport transform to window coordinates (x right, y down = surface rows).
//! - [`coverage`]: which pixel centres a triangle, line or point covers, with the top-left fill
//!   rule, perspective-correct weights and linear window z.
//! - [`smooth`]: antialiased lines and polygons, coverage as the area of each pixel inside.
//! - [`sprite`]: the point-sprite texture coordinates.
//! - [`stipple`]: which covered pixels the line and polygon stipple patterns keep.
//! - [`varyings`]: vertex outputs to fragment-program inputs (WPOS, colours with two-sided
//!   lighting, fog, texture coordinates, facing).
//! - [`shading`]: a draw's per-fragment shading rules (flat colours, two-sided colour, the fog
//!   factor, user clip planes), decoded once for every consumer.

pub mod clip;
pub mod coverage;
pub mod primitive;
pub mod shading;
pub mod smooth;
pub mod sprite;
pub mod stipple;
pub mod varyings;
pub mod window;

pub use clip::{clip_by_distances, clip_triangle, W_EPSILON};
pub use coverage::{
    may_cover_centre, rasterize_line, rasterize_point, rasterize_triangle,
    rasterize_triangle_facing, triangle_weights_at, winding, Covered, PixelRect, Winding,
};
pub use primitive::{
    assemble, assembled_count, first_vertex_provoking, primitive_starts, primitive_starts_distinct,
    primitive_starts_of, Assembled, Primitive, Triangle,
};
pub use shading::{FogRule, ShadingRules, UserClip};
pub use varyings::{
    apply_texcoord_2d, fragment_inputs, fragment_inputs_with, output_sent, wpos, VaryingOptions,
};
pub use window::{to_window, ViewportTransform, WindowVertex};
