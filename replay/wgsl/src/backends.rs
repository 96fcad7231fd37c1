//! naga back ends: the validated module as SPIR-V, HLSL, MSL or GLSL.
