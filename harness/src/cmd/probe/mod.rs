//! `rsxtrace probe ...`: reverse-engineering probes, one subcommand each.

use crate::exit::Status;
use clap::Subcommand;

pub mod constants;
pub mod maininv;

#[derive(Subcommand, Debug)]
pub enum ProbeCommand {
    /// How each vertex program reads its transform constants: matrices, palettes indexed by an
    /// address register (bone matrices) with the entries the vertices reach, vectors and
    /// scalars, each with the instructions that read them.
    Constants(constants::ConstantsArgs),
    /// Decide whether a fog shader's MainInv uniform inverts view x projection (world space) or
    /// the projection alone (view space).
    Maininv(maininv::MainInvArgs),
}

pub fn run(command: &ProbeCommand) -> anyhow::Result<Status> {
    match command {
        ProbeCommand::Constants(args) => constants::run(args),
        ProbeCommand::Maininv(args) => maininv::run(args),
    }
}
