//! `rsxtrace probe maininv`: which space a fog shader's MainInv matrix lives in.
//!
//! (Being written: the arguments and the implementation are owned by this module.)

use crate::exit::Status;
use clap::Args;

#[derive(Args, Debug)]
pub struct MainInvArgs {
    /// Capture or trace file.
    pub file: std::path::PathBuf,
}

pub fn run(args: &MainInvArgs) -> anyhow::Result<Status> {
    anyhow::bail!("probe maininv: not implemented yet ({})", args.file.display())
}
