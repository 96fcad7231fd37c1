//! `rsxtrace probe ...`: reverse-engineering probes, one subcommand each.

use crate::exit::Status;
use clap::Subcommand;

pub mod maininv;

#[derive(Subcommand, Debug)]
pub enum ProbeCommand {
    /// Decide whether a fog shader's MainInv uniform inverts view x projection (world space) or
    /// the projection alone (view space).
    Maininv(maininv::MainInvArgs),
}

pub fn run(command: &ProbeCommand) -> anyhow::Result<Status> {
    match command {
        ProbeCommand::Maininv(args) => maininv::run(args),
    }
}
