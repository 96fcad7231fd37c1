//! Which draws of a frame a screen band may cut, and whether the cut is exact.
//!
//! **Rows.** A band is rows `a..b` of the output image
//! ([`crate::render::surface::output_surface`]); in the output surface's memory grid they are
//! rows `a·sy .. b·sy`, `sy` the sample rows per pixel of a resolved multisampled output (1
//! otherwise; [`crate::render::msaa`]).
//!
//! **Banded draws.** A draw is cut to the band when one of its colour targets *is* the output
//! surface (same memory, offset, pitch, bytes per pixel and layout), or when it writes no
//! colour and its depth target is the depth target of such a draw (a depth pre-pass, stencil
//! volumes). Its scissor is intersected with the band's rows in its window (memory row minus
//! the window offset's y, `SET_WINDOW_OFFSET`; both are in sample-grid units on a
//! multisampled surface, [`DrawState`]), widened to even rows so that every 2×2 quad holding a
//! band pixel is drawn whole, its helper lanes and derivatives as in the whole frame. All
//! other draws (shadow maps, offscreen targets: a later draw may sample any of their pixels),
//! every clear and every transfer run whole.
//!
//! **Exactness.** Rows outside the band of what a banded draw wrote are wrong (missing), so
//! the cut is exact only when nothing reads that memory after a banded draw wrote it, other
//! than banded draws through their own targets (the depth test, blending: the fragment's own
//! pixel). In frame order, from the first banded draw on, the plan refuses the cut when
//! - a draw samples a texture (a unit its fragment program reads, enabled; its bytes as
//!   [`texture_spans`] gives them) that overlaps memory banded draws wrote;
//! - a transfer's source overlaps it ([`source_extent`]);
//! - a draw that is not banded renders into it (a colour target, or a depth target it tests).
//!
//! It also refuses a draw under conditional rendering after a banded draw that counted its
//! samples for an occlusion query (`render::conditional`): the band's count is not the frame's.
//!
//! A refused plan cuts no draw: the frame renders whole, and the reason is kept for the user.
//! The check is conservative: it looks at byte ranges, not at the pixels actually read.

use super::Band;
use crate::render::extent::{DrawTargets, Extent, Written};
use crate::render::state::{DrawState, FrameEvents};
use crate::render::surface::{OutputSurface, SurfaceLayout};
use crate::render::transfer::{source_extent, BetweenDraws};
use crate::render::Rgba8Image;
use crate::texture::decode::texture_spans;
use rsxtrace_capture::frame::{Draw, Frame};
use rsxtrace_program::fragment::decode as decode_fragment;
use std::ops::Range;

/// What a band did to a render.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BandOutcome {
    /// Rows of the output image the band holds (the others are transparent black).
    pub rows: Range<u32>,
    /// Draws whose scissor was cut to the band.
    pub banded_draws: usize,
    /// Why no draw was cut (the frame rendered whole), when the cut would not be exact.
    pub refused: Option<String>,
}

/// Whether two surfaces lie in memory the same way, pixel for pixel.
fn same_surface(a: &SurfaceLayout, b: &SurfaceLayout) -> bool {
    a.location == b.location
        && a.offset == b.offset
        && a.pitch == b.pitch
        && a.bpp == b.bpp
        && a.swizzle == b.swizzle
}

/// The cut of one frame render to one band.
#[derive(Clone, Debug)]
pub struct BandPlan {
    rows: Range<u32>,
    memory_rows: Range<u32>,
    banded: Vec<bool>,
    refused: Option<String>,
}

impl BandPlan {
    /// [`BandPlan::new`] when a band was asked for; a band of a frame without an output
    /// surface (no draw writes colour) is an error.
    pub(crate) fn for_render(
        frame: &Frame,
        events: &FrameEvents,
        output: Option<&OutputSurface>,
        draws: Range<usize>,
        band: Option<Band>,
    ) -> Result<Option<BandPlan>, crate::render::RenderError> {
        match (band, output) {
            (Some(band), Some(output)) => {
                Ok(Some(BandPlan::new(frame, events, output, draws, band)))
            }
            (Some(_), None) => Err(crate::render::RenderError::NothingToRender(
                "no draw writes a usable colour target to cut into bands".into(),
            )),
            (None, _) => Ok(None),
        }
    }

    /// Plan `band` of the render of `draws` of `frame`, the output surface `output` (see
    /// [`crate::render::surface::output_surface`]).
    pub fn new(
        frame: &Frame,
        events: &FrameEvents,
        output: &OutputSurface,
        draws: Range<usize>,
        band: Band,
    ) -> BandPlan {
        let (_, sy) = output.antialias.grid();
        // The image's height: the resolve's (`msaa::resolve`).
        let rows = band.rows(output.layout.height / sy.max(1));
        let memory_rows = rows.start.saturating_mul(sy)..rows.end.saturating_mul(sy);
        let mut plan = BandPlan {
            rows,
            memory_rows,
            banded: vec![false; frame.draws.len()],
            refused: None,
        };
        if let Err(why) = plan.choose(frame, events, output, draws) {
            plan.banded.iter_mut().for_each(|b| *b = false);
            plan.refused = Some(why);
        }
        plan
    }

    /// Mark the banded draws in frame order, or say why the cut is not exact.
    fn choose(
        &mut self,
        frame: &Frame,
        events: &FrameEvents,
        output: &OutputSurface,
        draws: Range<usize>,
    ) -> Result<(), String> {
        let targets: Vec<Option<DrawTargets>> = frame.draws.iter().map(DrawTargets::of).collect();
        let is_output = |l: &SurfaceLayout| same_surface(l, &output.layout);
        // The depth targets of the draws into the output surface.
        let output_depths: Vec<SurfaceLayout> = targets
            .iter()
            .flatten()
            .filter(|t| t.colors.iter().any(is_output))
            .filter_map(|t| t.depth)
            .collect();
        // Memory banded draws have written so far.
        let mut written = Written::default();
        // Whether a banded draw so far counted its samples for an occlusion query.
        let mut banded_counts = false;
        let between = events.between_draws();
        let mut pending = between.iter().peekable();
        let end = draws.end.min(frame.draws.len());
        for index in draws.start.min(end)..end {
            while let Some(e) = pending.next_if(|e| e.before_draw() <= index) {
                check_event(e, &written)?;
            }
            let (Some(draw), Some(Some(t))) = (frame.draws.get(index), targets.get(index)) else {
                continue;
            };
            check_textures(index, draw, &written)?;
            if draw.raster.render_enable.conditional() && banded_counts {
                return Err(format!(
                    "draw {index} renders only when an occlusion query counted a sample, and the \
                     draws cut to the band count only the band's samples"
                ));
            }
            let banded = t.colors.iter().any(is_output)
                || (t.colors.is_empty()
                    && t.depth
                        .is_some_and(|d| output_depths.iter().any(|o| same_surface(&d, o))));
            if banded {
                banded_counts |= draw.raster.occlusion.zpass_pixel_count;
                for e in t.extents() {
                    written.add(e);
                }
                if let Some(b) = self.banded.get_mut(index) {
                    *b = true;
                }
            } else if let Some(e) = t.extents().find(|e| written.overlapping(e).is_some()) {
                return Err(format!(
                    "draw {index} renders whole into {}, which a banded draw wrote",
                    e.describe()
                ));
            }
        }
        if end == frame.draws.len() {
            for e in pending {
                check_event(e, &written)?;
            }
        }
        Ok(())
    }

    /// Rows of the output image.
    pub fn rows(&self) -> Range<u32> {
        self.rows.clone()
    }

    /// Why the cut was refused.
    pub fn refused(&self) -> Option<&str> {
        self.refused.as_deref()
    }

    /// Whether draw `index` is cut to the band.
    pub fn is_banded(&self, index: usize) -> bool {
        self.banded.get(index).copied().unwrap_or(false)
    }

    /// What the band did, for the render's report.
    pub fn outcome(&self) -> BandOutcome {
        BandOutcome {
            rows: self.rows.clone(),
            banded_draws: self.banded.iter().filter(|&&b| b).count(),
            refused: self.refused.clone(),
        }
    }

    /// The window rows a banded draw with `state` renders: the band's memory rows less the
    /// window offset, widened to even rows.
    pub fn window_rows(&self, state: &DrawState) -> Range<u32> {
        let oy = state.window_offset.1;
        let y0 = self.memory_rows.start.saturating_sub(oy) & !1;
        let y1 = self.memory_rows.end.saturating_sub(oy);
        y0..y1.saturating_add(y1 & 1)
    }

    /// Cut `state`'s scissor to [`window_rows`](Self::window_rows) (for a draw the plan
    /// cuts, [`is_banded`](Self::is_banded)).
    pub fn cut(&self, state: &mut DrawState) {
        let rows = self.window_rows(state);
        let s = &mut state.scissor;
        s.y0 = s.y0.max(rows.start);
        s.y1 = s.y1.min(rows.end).max(s.y0);
    }

    /// Cut draw `index`'s scissor when the plan cuts that draw; returns whether it did.
    pub fn restrict(&self, index: usize, state: &mut DrawState) -> bool {
        let banded = self.is_banded(index);
        if banded {
            self.cut(state);
        }
        banded
    }

    /// Make every row of `image` outside the band transparent black.
    pub fn mask(&self, image: &mut Rgba8Image) {
        let row = image.width as usize * 4;
        for (y, pixels) in image.pixels.chunks_mut(row.max(1)).enumerate() {
            if !u32::try_from(y).is_ok_and(|y| self.rows.contains(&y)) {
                pixels.fill(0);
            }
        }
    }
}

/// Refuse when a transfer reads memory banded draws wrote.
fn check_event(event: &BetweenDraws<'_>, written: &Written) -> Result<(), String> {
    let BetweenDraws::Transfer(t) = event else {
        return Ok(());
    };
    let Ok(transfer) = &t.transfer else {
        return Ok(());
    };
    let Some((location, start, end)) = source_extent(transfer) else {
        return Ok(());
    };
    let source = Extent {
        location,
        start,
        end,
    };
    match written.overlapping(&source) {
        Some(w) => Err(format!(
            "the transfer at command {} reads {}, which a banded draw wrote",
            t.command,
            w.describe()
        )),
        None => Ok(()),
    }
}

/// Refuse when draw `index` samples memory banded draws wrote.
fn check_textures(index: usize, draw: &Draw, written: &Written) -> Result<(), String> {
    if written.is_empty() {
        return Ok(());
    }
    let Some(fp) = &draw.fragment_program else {
        return Ok(());
    };
    // A program that does not decode is not run (both renderers skip the draw).
    let Ok(program) = decode_fragment(&fp.ucode) else {
        return Ok(());
    };
    let units = program.texture_units_read();
    for unit in (0..16u8).filter(|u| units & (1 << u) != 0) {
        let Some(texture) = draw.textures.get(usize::from(unit)) else {
            continue;
        };
        if !texture.control0.enabled {
            continue;
        }
        // A texture whose state does not decode is sampled as zeros by both renderers
        // (`CaptureSampler::lenient`, `texture::binding`): it reads nothing.
        let Ok(spans) = texture_spans(unit, texture) else {
            continue;
        };
        for span in spans {
            let read = Extent::of_span(&span);
            if let Some(w) = written.overlapping(&read) {
                return Err(format!(
                    "draw {index} samples texture unit {unit} from {}, which a banded draw wrote",
                    w.describe()
                ));
            }
        }
    }
    Ok(())
}
