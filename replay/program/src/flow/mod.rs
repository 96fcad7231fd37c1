//! Flow analysis of programs: which texture units and input attributes can influence each
//! output, the discard condition and each texture coordinate. Conservative (over-approximate)
//! by design; see [`fragment`] for the model.

pub mod deps;
pub mod fragment;

pub use deps::DepSet;
pub use fragment::{analyze, FragmentFlow, OutputDeps, TextureSample};
