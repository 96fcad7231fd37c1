//! `rsxtrace replay`: render a captured frame headlessly to a PNG.
//!
//! (Being written: the arguments and the implementation are owned by this module.)

use crate::exit::Status;
use clap::Args;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Capture or trace file.
    pub file: std::path::PathBuf,
}

pub fn run(args: &ReplayArgs) -> anyhow::Result<Status> {
    anyhow::bail!("replay: not implemented yet ({})", args.file.display())
}
