//! The wgpu executor: a headless device, a pipeline cache keyed by program hash and state, and
//! runs of recompiled RSX programs (vertex programs through a compute pass, fragment programs
//! through a render pass into float targets), with readback. Bindings follow
//! `replay/wgsl/ABI.md`.
