//! Pipeline-file layouts (`rpcs3-shader-cache.md` §3.2, §3.3). Files have no header: the
//! layout is identified by the version folder and the file size (RPCS3 itself only checks the
//! size, §4 step 2). All fields are little-endian.

use serde::Serialize;

/// A pipeline-file layout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub enum PipelineLayout {
    /// `v1.91` (§3.3 A).
    A,
    /// `v1.92` until 2021-09-15, with `fp_unnormalized_coords` (§3.3 B1).
    B1,
    /// `v1.92` from 2021-09-15, without it (§3.3 B2).
    B2,
    /// `v1.93`, MSAA texture masks (§3.3 C).
    C,
    /// `v1.94`, `vp_ctrl0`/`vp_ctrl1` (§3.3 D).
    D,
    /// `v1.95`, `fp_mrt_count` (§3.2 E).
    #[default]
    E,
}

/// The backend folder of a pipeline file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    OpenGl,
    Vulkan,
}

impl Backend {
    pub(crate) fn from_folder(name: &str) -> Option<Self> {
        match name {
            "opengl" => Some(Self::OpenGl),
            "vulkan" => Some(Self::Vulkan),
            _ => None,
        }
    }
}

/// Field offsets of one layout; `None` where the layout has no such field.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Offsets {
    pub vp_ctrl0: Option<u64>,
    pub vp_output_mask: u64,
    pub vp_texture_dimensions: u64,
    pub vp_instruction_mask: u64,
    pub vp_mask_words: u64,
    pub vp_base_address: u64,
    pub vp_entry: u64,
    pub vp_jump_table: u64,
    pub vp_multisampled_textures: Option<u64>,
    pub fp_ctrl: u64,
    pub fp_texture_dimensions: u64,
    pub fp_texcoord_control: u64,
    pub fp_lighting_flags: u64,
    pub fp_shadow_textures: u64,
    pub fp_redirected_textures: u64,
    pub fp_multisampled_textures: Option<u64>,
    pub fp_mrt_count: Option<u64>,
}

/// Layout A (§3.3): one `vp_ctrl` (the output mask) @24, mask\[8\] @32.
const A: Offsets = Offsets {
    vp_ctrl0: None,
    vp_output_mask: 24,
    vp_texture_dimensions: 28,
    vp_instruction_mask: 32,
    vp_mask_words: 8,
    vp_base_address: 96,
    vp_entry: 100,
    vp_jump_table: 104,
    vp_multisampled_textures: None,
    fp_ctrl: 168,
    fp_texture_dimensions: 172,
    fp_texcoord_control: 176,
    // fp_unnormalized_coords @180, height @182, pixel_layout @184.
    fp_lighting_flags: 186,
    fp_shadow_textures: 188,
    fp_redirected_textures: 190,
    fp_multisampled_textures: None,
    fp_mrt_count: None,
};

/// Layout B1 (§3.3): A with mask\[9\], so everything from the base address on moves by 8.
const B1: Offsets = Offsets {
    vp_mask_words: 9,
    vp_base_address: 104,
    vp_entry: 108,
    vp_jump_table: 112,
    fp_ctrl: 176,
    fp_texture_dimensions: 180,
    fp_texcoord_control: 184,
    // fp_unnormalized_coords @188, height @190, pixel_layout @192.
    fp_lighting_flags: 194,
    fp_shadow_textures: 196,
    fp_redirected_textures: 198,
    ..A
};

/// Layout B2 (§3.3): B1 without the 2-byte `fp_unnormalized_coords` @188.
const B2: Offsets = Offsets {
    fp_lighting_flags: 192,
    fp_shadow_textures: 194,
    fp_redirected_textures: 196,
    ..B1
};

/// Layout C (§3.3): `vp_multisampled_textures` @176, the fragment block from 184.
const C: Offsets = Offsets {
    vp_multisampled_textures: Some(176),
    fp_ctrl: 184,
    fp_texture_dimensions: 188,
    fp_texcoord_control: 192,
    // height @196, pixel_layout @198.
    fp_lighting_flags: 200,
    fp_shadow_textures: 202,
    fp_redirected_textures: 204,
    fp_multisampled_textures: Some(206),
    ..B2
};

/// Layout D (§3.3): E without `fp_mrt_count` (bytes 216..224 reserved).
const D: Offsets = Offsets {
    fp_mrt_count: None,
    ..E
};

/// Layout E (§3.2 table).
const E: Offsets = Offsets {
    vp_ctrl0: Some(24),
    vp_output_mask: 28,
    vp_texture_dimensions: 32,
    vp_instruction_mask: 40,
    vp_mask_words: 9,
    vp_base_address: 112,
    vp_entry: 116,
    vp_jump_table: 120,
    vp_multisampled_textures: Some(184),
    fp_ctrl: 192,
    fp_texture_dimensions: 196,
    fp_texcoord_control: 200,
    fp_lighting_flags: 208,
    fp_shadow_textures: 210,
    fp_redirected_textures: 212,
    fp_multisampled_textures: Some(214),
    fp_mrt_count: Some(216),
};

impl PipelineLayout {
    pub(crate) fn offsets(self) -> &'static Offsets {
        match self {
            Self::A => &A,
            Self::B1 => &B1,
            Self::B2 => &B2,
            Self::C => &C,
            Self::D => &D,
            Self::E => &E,
        }
    }

    /// The layouts a version folder can hold, with their (OpenGL, Vulkan) file sizes
    /// (§3.2, §3.3; layout A's Vulkan files were 648 bytes before 2019-09-17).
    fn candidates(version: &str) -> Option<&'static [(Self, u64, &'static [u64])]> {
        Some(match version {
            "v1.91" => &[(Self::A, 216, &[656, 648])],
            "v1.92" => &[(Self::B1, 224, &[664]), (Self::B2, 216, &[656])],
            "v1.93" => &[(Self::C, 224, &[664])],
            "v1.94" => &[(Self::D, 232, &[672])],
            "v1.95" => &[(Self::E, 232, &[672])],
            _ => return None,
        })
    }

    /// Whether rsxtrace reads pipeline files of the version folder `version`.
    pub(crate) fn known_version(version: &str) -> bool {
        Self::candidates(version).is_some()
    }

    /// The layout of a `size`-byte file in `backend`/`version`, or why there is none.
    pub(crate) fn identify(backend: Backend, version: &str, size: u64) -> Result<Self, String> {
        let candidates = Self::candidates(version).ok_or_else(|| {
            format!("version folder {version} is not one rsxtrace reads (v1.91 to v1.95)")
        })?;
        let fits = |&&(_, gl, vk): &&(Self, u64, &[u64])| match backend {
            Backend::OpenGl => gl == size,
            Backend::Vulkan => vk.contains(&size),
        };
        if let Some(&(layout, _, _)) = candidates.iter().find(fits) {
            return Ok(layout);
        }
        let expected: Vec<String> = candidates
            .iter()
            .flat_map(|&(_, gl, vk)| match backend {
                Backend::OpenGl => vec![gl],
                Backend::Vulkan => vk.to_vec(),
            })
            .map(|s| s.to_string())
            .collect();
        Err(format!(
            "pipeline file of {size} bytes does not fit the {} layout of {version} ({} bytes)",
            match backend {
                Backend::OpenGl => "OpenGL",
                Backend::Vulkan => "Vulkan",
            },
            expected.join(" or ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_told_apart_by_version_and_size() {
        use Backend::{OpenGl, Vulkan};
        assert_eq!(
            PipelineLayout::identify(OpenGl, "v1.95", 232),
            Ok(PipelineLayout::E)
        );
        assert_eq!(
            PipelineLayout::identify(Vulkan, "v1.94", 672),
            Ok(PipelineLayout::D)
        );
        assert_eq!(
            PipelineLayout::identify(Vulkan, "v1.93", 664),
            Ok(PipelineLayout::C)
        );
        assert_eq!(
            PipelineLayout::identify(OpenGl, "v1.92", 224),
            Ok(PipelineLayout::B1)
        );
        assert_eq!(
            PipelineLayout::identify(Vulkan, "v1.92", 656),
            Ok(PipelineLayout::B2)
        );
        assert_eq!(
            PipelineLayout::identify(Vulkan, "v1.91", 648),
            Ok(PipelineLayout::A)
        );
        let e = PipelineLayout::identify(OpenGl, "v1.95", 672).unwrap_err();
        assert!(e.contains("672 bytes") && e.contains("232"), "{e}");
        assert!(PipelineLayout::identify(OpenGl, "v1.5", 232).is_err());
    }

    #[test]
    fn fields_end_where_the_next_layout_part_begins() {
        // The fragment block ends right before pipeline_properties (§3.3 "props off").
        for (layout, props) in [
            (PipelineLayout::A, 208),
            (PipelineLayout::B1, 216),
            (PipelineLayout::B2, 208),
            (PipelineLayout::C, 216),
            (PipelineLayout::E, 224),
        ] {
            let o = layout.offsets();
            let jump_end = o.vp_jump_table + 64;
            assert!(jump_end <= o.fp_ctrl, "{layout:?}");
            assert_eq!(
                o.vp_instruction_mask + 8 * o.vp_mask_words,
                o.vp_base_address,
                "{layout:?}"
            );
            assert!(o.fp_redirected_textures + 2 <= props, "{layout:?}");
        }
    }
}
