//! Library side of the `rsxtrace` package: things the binary and the tests share.
//!
//! - [`samples`] builds the sample captures bundled in `traces/samples/` with the capture
//!   builder and rsxtrace's own program encoders.

pub mod samples;
