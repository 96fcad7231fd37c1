//! This crate's integration tests, one module per file beside this one, linked into one test
//! binary: one link instead of one per file keeps a clean build's disk use and link time down
//! (a hundred and fifty test binaries of about 50 MB each filled a CI machine's disk).

mod cg_oracle_support;
mod fragment_interp_support;
mod gpu_support;
mod render_support;
mod texture_util;
mod vertex_interp_support;

mod cg_oracle;
mod coverage_current;
mod edit;
mod exec_draw;
mod fragment_interp_ops;
mod fragment_interp_rules;
mod fragment_trace;
mod gpu_corpus_programs;
mod gpu_fragment_ops;
mod gpu_render;
mod gpu_shade_corpus;
mod gpu_vertex_ops;
mod hardware_images;
mod overdraw;
mod raster;
mod raster_render;
mod render_anisotropy;
mod render_band;
mod render_clause;
mod render_clears;
mod render_conditional;
mod render_cpu;
mod render_early_depth;
mod render_float_depth;
mod render_gpu;
mod render_gpu_kept;
mod render_msaa;
mod render_narrow_pitch;
mod render_shading;
mod render_srgb;
mod render_texture_units;
mod render_tile_regions;
mod render_tiles;
mod render_transfer;
mod render_window_offset;
mod shade_corpus;
mod statistics;
mod texture_cache;
mod texture_formats;
mod texture_sampling;
mod vertex_interp;
mod vertex_interp_corpus;
mod vertex_interp_flow;
mod vertex_rows;
mod vertex_trace;
