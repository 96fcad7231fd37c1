//! `rsxtrace verify`: per-draw numeric divergence between the recompiled shaders (wgpu) and
//! the reference interpreter, for the vertex and fragment stages.
