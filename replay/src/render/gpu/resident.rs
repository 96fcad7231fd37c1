//! Surfaces resident on the device: the bound surface state ([`SurfaceSet`]) and the targets
//! of states bound earlier, kept on the device ([`DeviceTarget`], keyed by their place in
//! memory and format) so that switching back to a state (a shadow map, then the main target,
//! then the shadow map again) neither reads its targets back nor fills them again.
//!
//! A target's bytes in the frame's surface memory are brought up to date (written back) only
//! when something needs them as memory: a draw sampling a texture over them
//! ([`Resident::write_back_over`]), a transfer reading them, the output image, per-draw
//! snapshots and observers ([`Resident::write_back_all`]). A target is written back and
//! dropped when:
//! - another target is placed over its bytes (a depth buffer bound again as colour, two
//!   states whose targets overlap): the older one's bytes go to memory first and the newer
//!   one is filled from them, so writes land in the order the draws made them;
//! - a transfer writes over its bytes ([`Resident::drop_over`]);
//! - it is not [`TargetFormat::exact`] (5- and 6-bit colour, kept in 8-bit device targets:
//!   written back and filled again at every switch, the rounding the memory imposes), or its
//!   state's targets overlap one another;
//! - the kept targets exceed [`KEPT_BYTES`] of device memory: the least recently bound go
//!   first.
//!
//! Without keeping ([`Resident::new`] with `keep` false) every switch writes the bound
//! targets back and drops them: the render before targets were kept, for measuring and for
//! checking that keeping changes nothing. [`SurfaceTraffic`] counts what moved.

use std::time::Instant;

use rsxtrace_capture::fetch::GuestMemory;
use rsxtrace_capture::rrc::Location;
use rsxtrace_gpu::Gpu;

use crate::render::surface::SurfaceMemory;
use crate::render::{RenderTimings, SurfaceTraffic};

use super::targets::{overlaps_itself, Counted, DeviceTarget, SetKey, SurfaceSet};

/// Device memory the kept targets (not counting the bound ones) may hold: 256 MiB, sixteen
/// 1920 × 1080 RGBA8 targets with their depth buffers.
pub(crate) const KEPT_BYTES: u64 = 256 << 20;

/// Why a surface state could not be bound.
#[derive(Debug)]
pub(crate) enum BindError {
    /// Writing a target back failed (the device failed: the frame stops).
    WriteBack(String),
    /// The state's targets could not be created (the draw or clear is skipped).
    Open(String),
}

/// The bound surface state and the kept targets.
#[derive(Debug)]
pub(crate) struct Resident {
    /// The bound state.
    bound: Option<SurfaceSet>,
    /// Targets of states bound earlier, least recently bound first.
    kept: Vec<DeviceTarget>,
    /// Whether targets are kept at all.
    keep: bool,
    /// Draws the device refused in sets no longer bound.
    failures: Vec<(usize, String)>,
    /// Occlusion counts of sets no longer bound.
    counts: Vec<Counted>,
    /// What moved between the device and the surface memory.
    pub traffic: SurfaceTraffic,
}

impl Resident {
    /// Nothing bound; `keep`: keep the targets of states bound earlier on the device.
    pub(crate) fn new(keep: bool) -> Resident {
        Resident {
            bound: None,
            kept: Vec::new(),
            keep,
            failures: Vec::new(),
            counts: Vec::new(),
            traffic: SurfaceTraffic::default(),
        }
    }

    /// Whether targets are kept on the device between binds.
    pub(crate) fn keeps(&self) -> bool {
        self.keep
    }

    /// The bound state.
    pub(crate) fn bound(&mut self) -> Option<&mut SurfaceSet> {
        self.bound.as_mut()
    }

    /// Binds the surface state `key`: its targets are taken from the kept ones where they lie
    /// at the same place in the same format, else created and filled from `surfaces` (after
    /// every device target over their bytes is written back and dropped).
    pub(crate) fn bind(
        &mut self,
        gpu: &Gpu,
        key: SetKey,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
        timings: &mut RenderTimings,
    ) -> Result<(), BindError> {
        if self.bound.as_ref().is_some_and(|b| b.key == key) {
            return Ok(());
        }
        self.unbind(gpu, surfaces, base, timings)
            .map_err(BindError::WriteBack)?;
        let reuse = self.keep && !overlaps_itself(&key);
        let mut targets = Vec::new();
        let mut taken = Vec::new();
        for (layout, format) in key.places() {
            let same = self
                .kept
                .iter()
                .position(|k| reuse && k.layout == *layout && k.format == format);
            match same {
                Some(i) => taken.push((targets.len(), self.kept.remove(i))),
                None => {
                    self.drop_overlapping(gpu, surfaces, base, timings, |k| {
                        k.overlaps_layout(layout)
                    })
                    .map_err(BindError::WriteBack)?;
                    // Filled below, once every target over the state's bytes is gone.
                }
            }
            targets.push(None);
        }
        for (i, t) in taken {
            self.traffic.kept_binds += 1;
            targets[i] = Some(t);
        }
        let t0 = Instant::now();
        let mut filled = Vec::with_capacity(targets.len());
        let mut failed = None;
        for ((layout, format), slot) in key.places().zip(targets) {
            match slot {
                Some(t) => filled.push(t),
                None if failed.is_none() => {
                    match DeviceTarget::create(gpu, layout, format, surfaces, base) {
                        Ok(t) => {
                            self.traffic.uploads += 1;
                            filled.push(t);
                        }
                        Err(e) => failed = Some(e),
                    }
                }
                None => {}
            }
        }
        timings.setup += t0.elapsed().as_secs_f64();
        if let Some(e) = failed {
            // The targets taken for the state stay kept (with what was drawn into them).
            let keep = self.keep;
            self.kept
                .extend(filled.into_iter().filter(|t| keep && t.format.exact()));
            return Err(BindError::Open(e));
        }
        self.bound = Some(SurfaceSet::new(key, filled).map_err(BindError::Open)?);
        Ok(())
    }

    /// Unbinds the bound state: its queued draws are submitted and its targets kept (written
    /// back and dropped when they may not be kept), the least recently bound kept targets
    /// over [`KEPT_BYTES`] written back and dropped.
    pub(crate) fn unbind(
        &mut self,
        gpu: &Gpu,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
        timings: &mut RenderTimings,
    ) -> Result<(), String> {
        let Some(mut set) = self.bound.take() else {
            return Ok(());
        };
        let submitted = set.submit(gpu).map_err(|e| e.to_string());
        let keep = self.keep && !overlaps_itself(&set.key);
        let (targets, failures, counts) = set.into_targets();
        self.failures.extend(failures);
        self.counts.extend(counts);
        submitted?;
        for mut t in targets {
            if keep && t.format.exact() {
                self.kept.push(t);
            } else {
                self.write_back(gpu, &mut t, surfaces, base, timings)?;
            }
        }
        let mut held: u64 = self.kept.iter().map(DeviceTarget::device_bytes).sum();
        while held > KEPT_BYTES && !self.kept.is_empty() {
            let mut t = self.kept.remove(0);
            held -= t.device_bytes();
            self.traffic.evicted += 1;
            self.write_back(gpu, &mut t, surfaces, base, timings)?;
        }
        Ok(())
    }

    /// Writes back every dirty device target over memory `start..end` of `location` (they
    /// stay on the device).
    pub(crate) fn write_back_over(
        &mut self,
        gpu: &Gpu,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
        timings: &mut RenderTimings,
        spans: &[(Location, u64, u64)],
    ) -> Result<(), String> {
        let over = |t: &DeviceTarget| t.dirty && spans.iter().any(|&(l, s, e)| t.overlaps(l, s, e));
        self.write_back_where(gpu, surfaces, base, timings, over)
    }

    /// Writes back every dirty device target (they stay on the device).
    pub(crate) fn write_back_all(
        &mut self,
        gpu: &Gpu,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
        timings: &mut RenderTimings,
    ) -> Result<(), String> {
        self.write_back_where(gpu, surfaces, base, timings, |t| t.dirty)
    }

    /// Writes back and drops every device target over memory `start..end` of `location`
    /// (unbinding the bound state first when one of its targets lies there).
    pub(crate) fn drop_over(
        &mut self,
        gpu: &Gpu,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
        timings: &mut RenderTimings,
        (location, start, end): (Location, u64, u64),
    ) -> Result<(), String> {
        let bound_there = self
            .bound
            .as_mut()
            .is_some_and(|b| b.targets_mut().any(|t| t.overlaps(location, start, end)));
        if bound_there {
            self.unbind(gpu, surfaces, base, timings)?;
        }
        self.drop_overlapping(gpu, surfaces, base, timings, |t| {
            t.overlaps(location, start, end)
        })
    }

    /// The draws the device refused since the last call.
    pub(crate) fn take_failures(&mut self) -> Vec<(usize, String)> {
        let mut all = std::mem::take(&mut self.failures);
        if let Some(b) = &mut self.bound {
            all.extend(b.take_failures());
        }
        all
    }

    /// The occlusion counts of every draw queued so far (the bound state's queue submitted
    /// first).
    pub(crate) fn take_counts(&mut self, gpu: &Gpu) -> Result<Vec<Counted>, String> {
        let mut all = std::mem::take(&mut self.counts);
        if let Some(b) = &mut self.bound {
            b.submit(gpu).map_err(|e| e.to_string())?;
            all.extend(b.take_counts());
        }
        Ok(all)
    }

    fn write_back_where(
        &mut self,
        gpu: &Gpu,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
        timings: &mut RenderTimings,
        wanted: impl Fn(&DeviceTarget) -> bool,
    ) -> Result<(), String> {
        if let Some(set) = &mut self.bound {
            if set.targets_mut().any(|t| wanted(t)) {
                // The set is written back whole, as it was drawn to whole.
                let submitted = set.submit(gpu).map_err(|e| e.to_string());
                submitted?;
                let t0 = Instant::now();
                for t in set.targets_mut() {
                    if t.write_back(gpu, surfaces, base)? {
                        self.traffic.readbacks += 1;
                    }
                }
                timings.readback += t0.elapsed().as_secs_f64();
            }
        }
        let t0 = Instant::now();
        for t in self.kept.iter_mut().filter(|t| wanted(t)) {
            if t.write_back(gpu, surfaces, base)? {
                self.traffic.readbacks += 1;
            }
        }
        timings.readback += t0.elapsed().as_secs_f64();
        Ok(())
    }

    /// Writes back and drops the kept targets `which` selects.
    fn drop_overlapping(
        &mut self,
        gpu: &Gpu,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
        timings: &mut RenderTimings,
        which: impl Fn(&DeviceTarget) -> bool,
    ) -> Result<(), String> {
        let (gone, stay): (Vec<DeviceTarget>, Vec<DeviceTarget>) =
            std::mem::take(&mut self.kept).into_iter().partition(which);
        self.kept = stay;
        for mut t in gone {
            self.traffic.aliased += 1;
            self.write_back(gpu, &mut t, surfaces, base, timings)?;
        }
        Ok(())
    }

    fn write_back(
        &mut self,
        gpu: &Gpu,
        target: &mut DeviceTarget,
        surfaces: &mut SurfaceMemory,
        base: &dyn GuestMemory,
        timings: &mut RenderTimings,
    ) -> Result<(), String> {
        let t0 = Instant::now();
        let read = target.write_back(gpu, surfaces, base);
        timings.readback += t0.elapsed().as_secs_f64();
        if read? {
            self.traffic.readbacks += 1;
        }
        Ok(())
    }
}
