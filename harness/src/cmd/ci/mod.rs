//! `rsxtrace ci`: run a manifest of traces against references.
//!
//! (Being written: the arguments and the implementation are owned by this module.)

use crate::exit::Status;
use clap::Args;

#[derive(Args, Debug)]
pub struct CiArgs {
    /// Manifest (TOML).
    pub file: std::path::PathBuf,
}

pub fn run(args: &CiArgs) -> anyhow::Result<Status> {
    anyhow::bail!("ci: not implemented yet ({})", args.file.display())
}
