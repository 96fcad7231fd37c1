//! What every stage of every draw shares during one verification: the device (its use
//! serialised by a lock, so CPU work of other draws overlaps it), the tolerances, the phase
//! clock and the test-only program hooks.

use super::clock::{Clock, Phase};
use super::tolerance::Tolerances;
use rsxtrace_gpu::Gpu;
use rsxtrace_program::fragment::FragmentProgram;
use rsxtrace_program::vertex::VertexProgram;
use rsxtrace_replay::texture::cache::TextureCache;
use rsxtrace_replay::wgsl::fragment::FragmentTranslateOptions;
use std::sync::Mutex;

/// A test-only edit of a draw's decoded vertex program on the GPU side (draw index, program).
pub type VertexHook = fn(usize, &mut VertexProgram);
/// A test-only edit of a draw's decoded fragment program on the GPU side.
pub type FragmentHook = fn(usize, &mut FragmentProgram);
/// A test-only edit of a draw's fragment translation options on the GPU side (e.g. a wrong
/// LOD bias baked into the shader, which the interpreter's sampler does not share).
pub type FragmentOptionsHook = fn(usize, &mut FragmentTranslateOptions);

/// Shared state of one verification.
pub struct Context<'a> {
    /// The device.
    pub gpu: &'a Gpu,
    /// Serialises device use.
    lock: Mutex<()>,
    /// Tolerances.
    pub tolerances: Tolerances,
    /// Phase clock.
    pub clock: Clock,
    /// Most fragment pixels compared per draw.
    pub max_pixels: usize,
    /// First draw of the verified range.
    pub first_draw: usize,
    /// GPU-side vertex program edit (tests).
    pub vertex_hook: Option<VertexHook>,
    /// GPU-side fragment program edit (tests).
    pub fragment_hook: Option<FragmentHook>,
    /// GPU-side fragment translation options edit (tests).
    pub fragment_options_hook: Option<FragmentOptionsHook>,
    /// Decoded textures of the run, shared by its draws (`divergence::textures`).
    pub textures: TextureCache,
    /// Recompiled modules of the run, shared by its draws.
    pub modules: super::modules::Modules,
    /// Whether the device keeps the pipelines of the programs checked (the draws of a frame
    /// share programs) or drops each after its run (`batch` checks each program once).
    pub pipelines: Pipelines,
}

/// What becomes of a checked program's device pipelines after its run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pipelines {
    /// Kept in the device's cache (its most recently used pipelines) for the next draw.
    #[default]
    Keep,
    /// Dropped after the run: the program will not run again.
    Forget,
}

impl<'a> Context<'a> {
    /// A context on `gpu`.
    pub fn new(gpu: &'a Gpu, tolerances: Tolerances, max_pixels: usize) -> Context<'a> {
        Context {
            gpu,
            lock: Mutex::new(()),
            tolerances,
            clock: Clock::default(),
            max_pixels,
            first_draw: 0,
            vertex_hook: None,
            fragment_hook: None,
            fragment_options_hook: None,
            textures: TextureCache::default(),
            modules: Default::default(),
            pipelines: Pipelines::Keep,
        }
    }

    /// What becomes of the pipelines of a run: `Forget` for a program run once (a mutant of
    /// the negative control), else this context's choice.
    pub fn pipelines_of(&self, run_once: bool) -> Pipelines {
        if run_once {
            Pipelines::Forget
        } else {
            self.pipelines
        }
    }

    /// Drops `module`'s pipelines after its run when `pipelines` forgets them.
    pub(crate) fn after_run(
        &self,
        module: &rsxtrace_replay::wgsl::WgslModule,
        pipelines: Pipelines,
    ) {
        if pipelines == Pipelines::Forget {
            self.gpu.forget_pipelines(module);
        }
    }

    /// Run `f` on the device alone, timed as `phase`.
    pub fn on_gpu<T>(&self, phase: Phase, f: impl FnOnce(&Gpu) -> T) -> T {
        // A poisoned lock only means another draw panicked; the device is still usable.
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.clock.time(phase, || f(self.gpu))
    }
}
