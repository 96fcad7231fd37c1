//! `rsxtrace uniforms`: a fragment program's uniform values per draw.
//!
//! (Being written: the arguments and the implementation are owned by this module.)

use crate::exit::Status;
use clap::Args;

#[derive(Args, Debug)]
pub struct UniformsArgs {
    /// Capture or trace file.
    pub file: std::path::PathBuf,
}

pub fn run(args: &UniformsArgs) -> anyhow::Result<Status> {
    anyhow::bail!("uniforms: not implemented yet ({})", args.file.display())
}
