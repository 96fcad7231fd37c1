//! A draw's raster state decoded into enums (blend factors, compare functions, stencil
//! operations, cull, polygon modes, colour and depth formats) shared by both renderers.
