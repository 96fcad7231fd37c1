//! What the renderer does between draws: clears and image transfers on the device targets
//! and the surface memory they share.

use std::time::Instant;

use crate::render::state::ClearEvent;
use crate::render::transfer::{
    apply_event, destination_extent, source_extent, BetweenDraws, TransferEvent,
};
use crate::render::RenderError;

use super::targets::{self, SetKey};
use super::{since, DrawFailure, Renderer};

impl Renderer<'_> {
    /// Applies one event between draws (a clear or a transfer).
    pub(super) fn between(&mut self, event: &BetweenDraws<'_>) -> Result<(), RenderError> {
        match event {
            BetweenDraws::Clear(c) => self.clear(c),
            BetweenDraws::Transfer(t) => self.transfer(t),
        }
    }

    /// A transfer runs on the surface memory (the shared rule of `render::transfer`): the
    /// device targets over the bytes it reads are written back first, those over the bytes
    /// it may write written back and dropped, so that the next draw binds what the transfer
    /// wrote; textures over the bytes it wrote get new content keys.
    fn transfer(&mut self, event: &TransferEvent) -> Result<(), RenderError> {
        let base = self.frame.memory_at(event.command);
        if !self.resident.keeps() {
            // Without kept targets, as before: the bound ones written back and dropped.
            let unbound =
                self.resident
                    .unbind(self.gpu, &mut self.surfaces, &base, &mut self.timings);
            self.note_failures();
            unbound.map_err(RenderError::Gpu)?;
        }
        if let Ok(t) = &event.transfer {
            let source: Vec<_> = source_extent(t).into_iter().collect();
            self.write_back_over(&base, &source)?;
            if let Some(written) = destination_extent(t) {
                let dropped = self.resident.drop_over(
                    self.gpu,
                    &mut self.surfaces,
                    &base,
                    &mut self.timings,
                    written,
                );
                self.note_failures();
                dropped.map_err(RenderError::Gpu)?;
            }
        }
        let t = Instant::now();
        let notes = apply_event(event, &mut self.surfaces, &base);
        self.timings.render += since(t);
        let draw = (event.before_draw < self.frame.draws.len()).then_some(event.before_draw);
        for n in notes {
            self.warn(draw, n);
        }
        Ok(())
    }

    fn clear(&mut self, clear: &ClearEvent) -> Result<(), RenderError> {
        let key = match SetKey::of(&clear.surface) {
            Ok(k) => k,
            Err(e) => {
                self.warn(
                    None,
                    format!("clear at command {}: skipped: {e}", clear.command),
                );
                return Ok(());
            }
        };
        if clear.mask.depth || clear.mask.stencil {
            if let Some(why) = targets::depth_refused(&clear.surface) {
                self.warn(None, format!("clear at command {}: {why}", clear.command));
            }
        }
        if key.size().is_none() {
            return Ok(());
        }
        let base = self.frame.memory_at(clear.command);
        match self.bind(key, &base) {
            Ok(()) => {}
            Err(DrawFailure::Fatal(e)) => return Err(e),
            Err(DrawFailure::Skip(e)) => {
                self.warn(
                    None,
                    format!("clear at command {}: skipped: {e}", clear.command),
                );
                return Ok(());
            }
        }
        let t = Instant::now();
        if let Some(set) = self.resident.bound() {
            let cleared = set.clear(self.gpu, clear);
            self.note_failures();
            cleared.map_err(RenderError::Gpu)?;
        }
        self.timings.render += since(t);
        Ok(())
    }
}
