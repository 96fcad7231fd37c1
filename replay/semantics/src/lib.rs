//! The named choices of RSX arithmetic shared by the reference interpreter
//! (`rsxtrace-replay::interp`) and the WGSL recompiler (`rsxtrace-wgsl`): one type per rule
//! where RPCS3 and the hardware descriptions disagree, so that both implementations are
//! configured with the same values ("same rules, same options"); [`lod`], the level-of-detail
//! rule both implement (its WGSL text lives beside the Rust); [`shadow`], a unit's depth
//! comparison and alpha kill; [`texel`], the gamma and bias conversions of a filtered texel;
//! [`border`], a border colour the shader adds where the device cannot hold it; and
//! [`texcoord`], the coordinates both `shade` paths feed a full-screen quad's pixels.

pub mod border;
pub mod fragment;
pub mod lod;
pub mod shadow;
pub mod texcoord;
pub mod texel;
pub mod vertex;
