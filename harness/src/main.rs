//! `rsxtrace`: replay and verify PlayStation 3 RSX captures made by RPCS3.
//!
//! `main` only parses the command line, runs one command and owns the exit policy
//! (see [`exit`]): 0 success, 1 a check found something (divergence, failure), 2 error.

#[macro_use]
mod output;
mod cli;
mod cmd;
mod exit;
mod progress;
mod table;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    let status = match cmd::run(cli) {
        Ok(status) => status,
        Err(err) => {
            if output::is_broken_pipe(&err) {
                exit::Status::Success
            } else {
                eprintln!("rsxtrace: error: {}", output::error_chain(&err));
                exit::Status::Error
            }
        }
    };
    std::process::exit(status.code());
}
