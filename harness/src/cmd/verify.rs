//! `rsxtrace verify`: per-draw divergence between the recompiled shaders and the interpreter.
//!
//! (Being written: the arguments and the implementation are owned by this module.)

use crate::exit::Status;
use clap::Args;

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Capture or trace file.
    pub file: std::path::PathBuf,
}

pub fn run(args: &VerifyArgs) -> anyhow::Result<Status> {
    anyhow::bail!("verify: not implemented yet ({})", args.file.display())
}
