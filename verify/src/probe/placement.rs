//! The placements file.
