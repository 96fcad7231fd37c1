//! Flow analysis of programs: which texture units and input attributes can influence each
//! output, the discard condition and each texture coordinate. Conservative (over-approximate)
//! by design; see [`fragment`] for the model. Vertex programs branch and call freely:
//! [`vertex_paths`] finds the places a run can be, [`vertex`] the texture units each output
//! may depend on over them.

pub mod deps;
pub mod fragment;
pub mod vertex;
pub mod vertex_paths;

pub use deps::DepSet;
pub use fragment::{analyze, FragmentFlow, OutputDeps, TextureSample};
