//! Primitive assembly, clipping, viewport transform, coverage and interpolation.
