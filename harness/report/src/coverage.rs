//! Each draw's coverage of its first target as an overlay for its page: the pixels the draw
//! rasterizes (`rsxtrace_replay::render::overdraw::draw_coverage`: after scissor, clip,
//! culling and stipple, before the fragment program and the tests), as RenderDoc's "highlight
//! draw" overlay shows them, so that a draw the depth test hid, or one drawn off the target,
//! still shows where it went. Worked out after the render, draws in parallel a chunk at a
//! time (memory: one chunk's overlays), each overlay encoded by the image store.

use crate::images::{ImageId, ImageStore};
use crate::pixels::{cell_map, fit, Channels};
use crate::snapshot::DrawShots;
use crate::target::TargetPlace;
use rayon::prelude::*;
use rsxtrace_capture::frame::Frame;
use rsxtrace_replay::render::overdraw::{draw_coverage, DrawCoverage};
use rsxtrace_replay::render::Rgba8Image;
use std::collections::HashMap;

/// The overlay's colour where the draw rasterizes a pixel (cyan, three fifths opaque).
pub const HIGHLIGHT: [u8; 4] = [0, 255, 255, 150];

/// Draws whose overlays are made at once.
const CHUNK: usize = 64;

/// A draw's target, covered pixels and overlay (none when it covers no pixel), or why not.
type Made = Result<(TargetPlace, u64, Option<Rgba8Image>), String>;

/// One draw's coverage on its page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoverageShot {
    /// The target it is worked out on: the draw's first target shot (its first colour target,
    /// else its depth surface).
    pub place: TargetPlace,
    /// Pixels of the target it rasterizes.
    pub pixels: u64,
    /// The overlay at the target's view size; `None` when it rasterizes no pixel.
    pub image: Option<ImageId>,
}

/// The coverage overlay of each draw of `shots` (draw `first` onwards) on its first target
/// shot (its first colour target, else its depth surface: a depth-only pass), at the view
/// size `view` (as the target's view), or why it could not be worked out.
pub fn coverage_shots(
    frame: &Frame,
    shots: &[DrawShots],
    first: usize,
    store: &ImageStore,
    view: (u32, u32),
) -> HashMap<usize, Result<CoverageShot, String>> {
    let mut out = HashMap::new();
    let draws: Vec<(usize, &DrawShots)> = (first..).zip(shots).collect();
    for chunk in draws.chunks(CHUNK) {
        let made: Vec<(usize, Made)> = chunk
            .par_iter()
            .filter_map(|&(d, s)| {
                let place = first_shot(s)?;
                let overlay = draw_coverage(frame, d, &place).map(|c| {
                    let pixels = c.pixels();
                    (place, pixels, (pixels > 0).then(|| overlay(&c, view)))
                });
                Some((d, overlay))
            })
            .collect();
        for (d, result) in made {
            let shot = result.map(|(place, pixels, image)| CoverageShot {
                place,
                pixels,
                image: image.map(|image| {
                    let id = store.reserve(1)[0];
                    store.submit(move || vec![(id, image, Channels::Rgba)]);
                    id
                }),
            });
            out.insert(d, shot);
        }
    }
    out
}

/// The place of the first target the page shows for a draw: its first colour target, else
/// the first of the others that was shot (the depth surface of a depth-only draw).
fn first_shot(shots: &DrawShots) -> Option<TargetPlace> {
    std::iter::once(shots.target.as_ref()?)
        .chain(&shots.others)
        .find_map(|s| s.as_ref().ok())
        .map(|s| s.place)
}

/// `coverage` scaled to fit `max_w` x `max_h` as the target's view is: a cell is
/// [`HIGHLIGHT`] when the draw rasterizes any pixel under it, transparent otherwise.
pub fn overlay(coverage: &DrawCoverage, (max_w, max_h): (u32, u32)) -> Rgba8Image {
    let (w, h) = fit(coverage.width, coverage.height, max_w, max_h);
    let (xs, ys) = (cell_map(w, coverage.width), cell_map(h, coverage.height));
    let mut image = Rgba8Image::filled(w, h, [0; 4]);
    for (x, y) in coverage.covered_pixels() {
        if let (Some(&cx), Some(&cy)) = (xs.get(x as usize), ys.get(y as usize)) {
            let at = (cy * w as usize + cx) * 4;
            if let Some(px) = image.pixels.get_mut(at..at + 4) {
                px.copy_from_slice(&HIGHLIGHT);
            }
        }
    }
    image
}
