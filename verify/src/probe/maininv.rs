//! Which space a fog shader's `MainInv` uniform lives in.
