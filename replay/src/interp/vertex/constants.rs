//! The 468 transform constants a vertex program reads ([`ConstantBank`]), each known or
//! unknown (never set by the capture), and the record of unknown reads
//! ([`UnknownConstantRead`]).

use rsxtrace_capture::frame::TransformConstants;
use serde::Serialize;

/// Number of transform constants (the frame model's, RPCS3 `vc[468]`).
pub use rsxtrace_capture::frame::CONSTANT_COUNT;

/// The transform constants: `None` where the capture never set the constant.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantBank {
    values: Vec<Option<[f32; 4]>>,
}

impl Default for ConstantBank {
    fn default() -> Self {
        Self::new()
    }
}

impl ConstantBank {
    /// All 468 constants unknown.
    pub fn new() -> Self {
        ConstantBank {
            values: vec![None; CONSTANT_COUNT],
        }
    }

    /// The constants a draw sees (`Draw::constants`).
    pub fn from_transform(constants: &TransformConstants) -> Self {
        ConstantBank {
            values: (0..CONSTANT_COUNT).map(|i| constants.get(i)).collect(),
        }
    }

    /// Set constant `index`; returns `false` (and changes nothing) when `index >= 468`.
    pub fn set(&mut self, index: usize, value: [f32; 4]) -> bool {
        match self.values.get_mut(index) {
            Some(slot) => {
                *slot = Some(value);
                true
            }
            None => false,
        }
    }

    /// Set consecutive constants from `first`; returns `false` (and changes nothing) when they
    /// do not all fit below 468.
    pub fn set_range(&mut self, first: usize, values: &[[f32; 4]]) -> bool {
        let fits = first
            .checked_add(values.len())
            .is_some_and(|end| end <= CONSTANT_COUNT);
        if fits {
            for (k, v) in values.iter().enumerate() {
                self.set(first + k, *v);
            }
        }
        fits
    }

    /// Constant `index`: `None` when unknown or out of range.
    pub fn get(&self, index: usize) -> Option<[f32; 4]> {
        self.values.get(index).copied().flatten()
    }

    /// Whether constant `index` is known.
    pub fn is_known(&self, index: usize) -> bool {
        self.get(index).is_some()
    }
}

/// An unknown constant that was read (allowed by
/// [`super::VertexOptions::allow_unknown_constants`]; it read as zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct UnknownConstantRead {
    /// Constant index.
    pub constant: usize,
    /// Slot of the instruction that read it.
    pub slot: usize,
}
