//! The synthetic level in `traces/level/` (issue 8): a camera, placements of meshes, other
//! draws, a sky dome and a fog pass, with its ground truth.
