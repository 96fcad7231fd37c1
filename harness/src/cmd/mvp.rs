//! `rsxtrace mvp`: match model-view-projection constants to level placements.
//!
//! (Being written: the arguments and the implementation are owned by this module.)

use crate::exit::Status;
use clap::Args;

#[derive(Args, Debug)]
pub struct MvpArgs {
    /// Capture or trace file.
    pub file: std::path::PathBuf,
}

pub fn run(args: &MvpArgs) -> anyhow::Result<Status> {
    anyhow::bail!("mvp: not implemented yet ({})", args.file.display())
}
