//! `rsxtrace textures`: texture units bound versus sampled, per draw.
//!
//! (Being written: the arguments and the implementation are owned by this module.)

use crate::exit::Status;
use clap::Args;

#[derive(Args, Debug)]
pub struct TexturesArgs {
    /// Capture or trace file.
    pub file: std::path::PathBuf,
}

pub fn run(args: &TexturesArgs) -> anyhow::Result<Status> {
    anyhow::bail!("textures: not implemented yet ({})", args.file.display())
}
