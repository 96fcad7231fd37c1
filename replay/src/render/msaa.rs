//! Multisampled surfaces (`SET_SURFACE_FORMAT` antialias field, bits 12..15): their sample
//! layout in memory, how both renderers draw into it, and the resolve of the output image.
//!
//! **Modes** (RPCS3 `gcm_enums.h` `surface_antialiasing`, raw values per rrc-format.md 4.8):
//! 0 = 1 sample centred, 3 = 2 samples diagonal centred, 4 = 4 samples square centred,
//! 5 = 4 samples square rotated.
//!
//! **Memory layout.** A multisampled surface whose clip is `W × H` pixels occupies a grid of
//! `W·sx × H·sy` samples in memory, `(sx, sy)` = (2, 1) for 2 samples and (2, 2) for 4, each
//! sample stored like a pixel of the surface's format (the surface pitch is the pitch of the
//! sample grid rows): sample `i` of pixel `(x, y)` lies at grid position
//! `(x·sx + i mod sx, y·sy + i div sx)` (RPCS3 `VK/VKResolveHelper.h`: the unresolve pass writes
//! sample `gl_SampleID` of pixel `p` at `p·(sx, sy) + (id % sx, id / sx)`;
//! `Common/surface_utils.h` `get_rsx_dimensions` doubles the width, and the height for 4
//! samples). A later draw that samples that memory as a texture reads the grid, as the
//! hardware's texture unit reads memory; games resolve it themselves, typically with an
//! `NV3089` 2:1 scaled image ([`super::transfer`]).
//!
//! **Rendering.** Both renderers draw into the grid at sample resolution: the viewport,
//! scissor, surface clip, window offset, line width and point size of the draw are scaled by
//! `(sx, sy)` ([`to_sample_grid`]), so every sample is covered (and shaded) at the centre of
//! its grid cell. WPOS and the polygon stipple still count pixels, as the RSX shades a pixel
//! once (RPCS3 derives WPOS from the host's pixel position): a grid position is divided back
//! to its pixel (`DrawState::sample_grid`), and the shader window stays in pixels. A cell
//! centre lies `((i mod sx + ½)/sx, (i div sx + ½)/sy)` within
//! its pixel: for 4 samples square centred (mode 4) that is the mode's pattern, (¼, ¼),
//! (¾, ¼), (¼, ¾), (¾, ¾).
//!
//! The diagonal (mode 3) and rotated (mode 5) patterns put the samples elsewhere in the pixel
//! ([`Antialias::sample_positions`]). The hardware's positions are not documented; RPCS3
//! renders these modes with the host's multisampling and sets no sample locations
//! (`VKGSRender.cpp` `set_multisample_state`, `GLDraw.cpp`), so it places the samples where
//! the host's standard pattern does: the Vulkan standard sample locations (Vulkan 1.3
//! "Multisampling", table of standard sample locations; what desktop GPUs report with
//! `standardSampleLocations`), 2 samples at (¾, ¾), (¼, ¼) (on the diagonal, as the mode's
//! name says) and 4 at (⅜, ⅛), (⅞, ⅜), (⅛, ⅝), (⅝, ⅞) (a rotated grid), sample `i` stored
//! at grid position `(i mod sx, i div sx)` of its pixel as above. Both renderers draw such a
//! draw once per sample ([`sample_passes`]): the geometry moved by the difference between the
//! sample's grid-cell centre and its position (a viewport offset in grid units), writing only
//! that sample's cells (its sample mask), so each sample is covered, interpolated and depth
//! tested at its own position. The RSX shades once per pixel and writes the colour to every
//! covered sample; here each sample is shaded, which differs only for programs whose result
//! varies inside a pixel.
//!
//! **Sample mask, alpha to one** (`SET_ANTI_ALIASING_CONTROL`): a draw into a multisampled
//! surface writes only the samples its mask keeps ([`SampleMask`]), and with alpha to one its
//! colour outputs' alpha is 1 after the alpha test (`DrawState::alpha_to_one`). One-sample
//! surfaces ignore both.
//!
//! **Alpha to coverage** (bit 4) applies on every surface, one-sample ones included: RPCS3
//! hands it to the host whatever the sample count (`VKGSRender.cpp`, `supports_hw_a2c_1spp`)
//! and emulates it in the shader where the host drops it at one sample (OpenGL:
//! `RSXThread.cpp` sets `RSX_SHADER_CONTROL_ALPHA_TO_COVERAGE`; `RSXROPEpilogue.glsl` discards
//! after the alpha test unless colour 0's alpha exceeds a pseudo-random threshold per pixel).
//! Every such rule keeps a fraction `alpha` of the samples on average; which samples is the
//! implementation's (the RSX's pattern is not documented, RPCS3's differs per host). Both
//! renderers here use one deterministic rule, [`alpha_to_coverage_keeps`]: an ordered dither,
//! a sample at grid position `(x, y)` kept when alpha exceeds `(B[y mod 4][x mod 4] + ½) / 16`
//! (`B` the 4×4 Bayer matrix), with the alpha the alpha test sees. A pixel of a four-sample
//! surface spans a 2×2 cell of the grid, so its samples get thresholds a quarter apart and
//! `round(4·alpha)` of them are kept, give or take the dither. A draw with it is warned
//! ([`alpha_to_coverage_note`]): its pattern is approximated.
//!
//! **Resolve.** The output image of a multisampled surface is resolved: each pixel is the mean
//! of its samples' 8-bit channels, rounded half up. This is a choice for the picture only:
//! the PS3 never scans out a multisampled buffer (games resolve into a one-sample one, as
//! above), and RPCS3's own passes between its host image and memory copy samples to grid
//! texels without averaging (`ColorResolvePass.glsl`); memory always holds the grid.

use super::output::Rgba8Image;
use super::state::DrawState;
use crate::raster::PixelRect;
use rsxtrace_capture::frame::state::Surface;

/// A surface's antialiasing mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Antialias {
    /// 0: one sample per pixel.
    Center1,
    /// 3: two samples, diagonal centred.
    DiagonalCentered2,
    /// 4: four samples, square centred.
    SquareCentered4,
    /// 5: four samples, square rotated.
    SquareRotated4,
}

impl Antialias {
    /// Decode the antialias field (`None` for values that are no mode).
    pub fn from_raw(v: u32) -> Option<Antialias> {
        Some(match v {
            0 => Antialias::Center1,
            3 => Antialias::DiagonalCentered2,
            4 => Antialias::SquareCentered4,
            5 => Antialias::SquareRotated4,
            _ => return None,
        })
    }

    /// The mode of a surface state; an invalid field reads as one sample.
    pub fn of(surface: &Surface) -> Antialias {
        // Swizzled surfaces are not multisampled (RPCS3 `surface_store` only multisamples
        // linear render targets).
        if surface.format.surface_type.raw == 2 {
            return Antialias::Center1;
        }
        Antialias::from_raw(surface.format.antialias.raw).unwrap_or(Antialias::Center1)
    }

    /// Samples across and down a pixel's cell of the grid.
    pub fn grid(self) -> (u32, u32) {
        match self {
            Antialias::Center1 => (1, 1),
            Antialias::DiagonalCentered2 => (2, 1),
            Antialias::SquareCentered4 | Antialias::SquareRotated4 => (2, 2),
        }
    }

    /// Where sample `i` lies in its pixel (`(0, 0)` its top left corner, `(1, 1)` its bottom
    /// right, rows going down memory), in sample order (the module doc).
    pub fn sample_positions(self) -> &'static [(f32, f32)] {
        match self {
            Antialias::Center1 => &[(0.5, 0.5)],
            // Vulkan standard sample locations, as RPCS3's host places them.
            Antialias::DiagonalCentered2 => &[(0.75, 0.75), (0.25, 0.25)],
            Antialias::SquareCentered4 => &[(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
            Antialias::SquareRotated4 => &[
                (0.375, 0.125),
                (0.875, 0.375),
                (0.125, 0.625),
                (0.625, 0.875),
            ],
        }
    }

    /// Whether the samples lie elsewhere than at their grid cells' centres (the draw is then
    /// rendered once per sample, [`sample_passes`]).
    pub fn off_grid(self) -> bool {
        let (sx, sy) = self.grid();
        self.sample_positions()
            .iter()
            .enumerate()
            .any(|(i, &p)| p != grid_centre(i as u32, (sx, sy)))
    }
}

/// The centre of sample `i`'s grid cell within its pixel.
fn grid_centre(i: u32, (sx, sy): (u32, u32)) -> (f32, f32) {
    (
        ((i % sx) as f32 + 0.5) / sx as f32,
        ((i / sx) as f32 + 0.5) / sy as f32,
    )
}

/// The passes that draw `state` (already on its sample grid, [`to_sample_grid`]) with each
/// sample at its position: for a mode whose samples are off their grid cells' centres, one
/// state per sample its sample mask keeps, its geometry moved by the sample's cell centre
/// minus its position (in grid units, through the viewport offset) and its mask that sample
/// alone; otherwise none (draw `state` as it is).
pub fn sample_passes(state: &DrawState) -> Vec<DrawState> {
    let aa = state.antialias;
    if !aa.off_grid() {
        return Vec::new();
    }
    let (sx, sy) = aa.grid();
    aa.sample_positions()
        .iter()
        .enumerate()
        .filter_map(|(i, &(px, py))| {
            let i = i as u32;
            let bit = 1u16 << i;
            if state.sample_mask.is_some_and(|m| m.mask & bit == 0) {
                return None;
            }
            let (cx, cy) = grid_centre(i, (sx, sy));
            let mut pass = state.clone();
            pass.viewport.offset[0] += (cx - px) * sx as f32;
            pass.viewport.offset[1] += (cy - py) * sy as f32;
            pass.sample_mask = Some(SampleMask {
                grid: (sx, sy),
                mask: bit,
            });
            Some(pass)
        })
        .collect()
}

/// The samples of a multisampled surface a draw may write (`SET_ANTI_ALIASING_CONTROL` bits
/// 16..31, bit `i` = sample `i`): RPCS3 hands the mask to the host (`sample_mask(
/// msaa_sample_mask())`, GLDraw.cpp; `set_multisample_state`, VKGSRender.cpp) whatever the
/// enable bit says, and a sample left out is neither tested nor written, as a sample outside
/// the coverage (GL 4.6 14.9.3). One-sample surfaces have no mask (GL: multisample fragment
/// operations need sample buffers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleMask {
    /// Samples across and down a pixel ([`Antialias::grid`]).
    pub grid: (u32, u32),
    /// Bit `i` = sample `i`.
    pub mask: u16,
}

impl SampleMask {
    /// The mask of a draw into a surface of mode `aa`; `None` when it keeps every sample.
    pub fn of(aa: Antialias, mask: u16) -> Option<SampleMask> {
        let (sx, sy) = aa.grid();
        let all = (1u32 << (sx * sy)) - 1;
        (sx * sy > 1 && u32::from(mask) & all != all).then_some(SampleMask {
            grid: (sx, sy),
            mask,
        })
    }

    /// Whether the sample at surface grid position (`x`, `y`) is written: sample
    /// `x mod sx + (y mod sy)·sx` (the memory layout above).
    pub fn covers(&self, x: u32, y: u32) -> bool {
        let (sx, sy) = self.grid;
        let i = x % sx + (y % sy) * sx;
        self.mask >> i & 1 != 0
    }
}

/// The 4×4 Bayer matrix: the order in which an ordered dither turns the cells of a 4×4 block
/// on as the value rises.
const BAYER4: [[u8; 4]; 4] = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]];

/// The alpha-to-coverage threshold of the sample at grid position (`x`, `y`):
/// `(B[y mod 4][x mod 4] + ½) / 16`, exact in f32 (the module doc).
pub fn alpha_to_coverage_threshold(x: u32, y: u32) -> f32 {
    (f32::from(BAYER4[(y % 4) as usize][(x % 4) as usize]) + 0.5) / 16.0
}

/// Whether alpha to coverage keeps the sample at grid position (`x`, `y`) of a fragment whose
/// colour 0 has `alpha` (the module doc): alpha 0 (or NaN) keeps none, alpha 1 every one.
pub fn alpha_to_coverage_keeps(alpha: f32, x: u32, y: u32) -> bool {
    alpha > alpha_to_coverage_threshold(x, y)
}

/// The WGSL of [`alpha_to_coverage_keeps`] for `alpha` at the fragment position `pos`
/// (`@builtin(position)`, in grid units): the same thresholds, as a constant array.
pub fn alpha_to_coverage_wgsl(alpha: &str, pos: &str) -> String {
    let rows: Vec<String> = BAYER4
        .iter()
        .flatten()
        .map(|b| format!("{:?}", (f32::from(*b) + 0.5) / 16.0))
        .collect();
    format!(
        "({alpha} > array<f32, 16>({})[(u32({pos}.y) % 4u) * 4u + u32({pos}.x) % 4u])",
        rows.join(", ")
    )
}

/// The warning of a draw with alpha to coverage: which samples the hardware keeps for an
/// alpha is not documented, so the replay's pattern is an approximation (the module doc).
pub fn alpha_to_coverage_note(draw: &rsxtrace_capture::frame::Draw) -> Option<String> {
    draw.raster.anti_aliasing.alpha_to_coverage.then(|| {
        "SET_ANTI_ALIASING_CONTROL alpha to coverage: samples kept by an ordered 4x4 dither \
         of colour 0's alpha (the hardware's pattern is undocumented)"
            .to_string()
    })
}

/// The warning of a draw into a surface whose antialias field is no mode.
pub fn msaa_note(surface: &Surface) -> Option<String> {
    let raw = surface.format.antialias.raw;
    if Antialias::from_raw(raw).is_none() {
        return Some(format!(
            "SET_SURFACE_FORMAT antialias field {raw} is no mode (0, 3, 4, 5); rendered with \
             one sample"
        ));
    }
    None
}

/// `r` in grid units (each pixel `sx` × `sy` samples).
pub fn grid_pixels(r: PixelRect, (sx, sy): (u32, u32)) -> PixelRect {
    PixelRect {
        x0: r.x0.saturating_mul(sx),
        y0: r.y0.saturating_mul(sy),
        x1: r.x1.saturating_mul(sx),
        y1: r.y1.saturating_mul(sy),
    }
}

/// Scale a draw's window-space state to the sample grid of `aa` (nothing for one sample).
pub fn to_sample_grid(state: &mut DrawState, aa: Antialias) {
    let (sx, sy) = aa.grid();
    if (sx, sy) == (1, 1) {
        return;
    }
    let (fx, fy) = (sx as f32, sy as f32);
    state.viewport.scale[0] *= fx;
    state.viewport.offset[0] *= fx;
    state.viewport.scale[1] *= fy;
    state.viewport.offset[1] *= fy;
    state.scissor = grid_pixels(state.scissor, (sx, sy));
    state.clip = grid_pixels(state.clip, (sx, sy));
    state.window_offset = (
        state.window_offset.0.saturating_mul(sx),
        state.window_offset.1.saturating_mul(sy),
    );
    // The shader window stays in pixels: the RSX shades a pixel once, and WPOS counts
    // pixels (RPCS3 derives it from the host's pixel position, `RSXDrawCommands.cpp`); the
    // grid positions are divided back (`DrawState::sample_grid`).
    state.sample_grid = (sx, sy);
    // Lines and points keep their size in pixels: the grid is finer along x (and y).
    state.primitives.line_width *= fx.max(fy);
    state.primitives.point_size *= fx.max(fy);
}

/// Resolve a sample-grid image of `aa` to pixels: each channel the rounded mean of the
/// pixel's samples. A one-sample image is returned as it is.
pub fn resolve(grid: Rgba8Image, aa: Antialias) -> Rgba8Image {
    let (sx, sy) = aa.grid();
    if (sx, sy) == (1, 1) {
        return grid;
    }
    let (w, h) = (grid.width / sx, grid.height / sy);
    let mut out = Rgba8Image::filled(w, h, [0, 0, 0, 0]);
    let n = sx * sy;
    for y in 0..h {
        for x in 0..w {
            let mut sum = [0u32; 4];
            for i in 0..n {
                let p = grid
                    .pixel(x * sx + i % sx, y * sy + i / sx)
                    .unwrap_or_default();
                for (s, c) in sum.iter_mut().zip(p) {
                    *s += u32::from(c);
                }
            }
            let at = (y as usize * w as usize + x as usize) * 4;
            if let Some(d) = out.pixels.get_mut(at..at + 4) {
                for (d, s) in d.iter_mut().zip(sum) {
                    *d = ((s + n / 2) / n) as u8;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_grids() {
        assert_eq!(Antialias::from_raw(0).map(Antialias::grid), Some((1, 1)));
        assert_eq!(Antialias::from_raw(3).map(Antialias::grid), Some((2, 1)));
        assert_eq!(Antialias::from_raw(4).map(Antialias::grid), Some((2, 2)));
        assert_eq!(Antialias::from_raw(5).map(Antialias::grid), Some((2, 2)));
        assert_eq!(Antialias::from_raw(1), None);
    }

    #[test]
    fn resolve_averages_each_cell() {
        // 4×2 grid of a 2×1-pixel 4-sample image: pixel 0 has samples 0, 100, 200, 255.
        let mut g = Rgba8Image::filled(4, 2, [0, 0, 0, 255]);
        for (i, v) in [(0usize, 0u8), (1, 100), (4, 200), (5, 255)] {
            g.pixels[i * 4] = v;
        }
        let r = resolve(g, Antialias::SquareCentered4);
        assert_eq!((r.width, r.height), (2, 1));
        // (0 + 100 + 200 + 255 + 2) / 4 = 139.
        assert_eq!(r.pixel(0, 0), Some([139, 0, 0, 255]));
        assert_eq!(r.pixel(1, 0), Some([0, 0, 0, 255]));
    }
}
