//! Exit statuses of the `rsxtrace` binary (documented in the README).

/// What a command's outcome means to a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// 0: the command did what was asked and found nothing wrong.
    Success,
    /// 1: the command ran and a check it performs found something (`verify`: a divergence;
    /// `ci`: a failing trace; `probe maininv`: undecided; `textures --fail-on-mismatch`;
    /// `match`: a program not named exactly).
    Finding,
    /// 2: the command could not do what was asked (bad input, I/O error, usage error).
    Error,
}

impl Status {
    pub fn code(self) -> i32 {
        match self {
            Status::Success => 0,
            Status::Finding => 1,
            Status::Error => 2,
        }
    }
}
