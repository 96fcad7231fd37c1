//! Reading a [`WgslModule`]'s naga IR for what the executor must bind: the entry points it
//! promises and the texture units it declares (ABI.md). Checks here turn a module that breaks
//! the ABI into [`GpuError::Abi`] instead of a wgpu validation failure deep in a pipeline.

use std::collections::BTreeMap;

use rsxtrace_wgsl::WgslModule;

use crate::cache::UnitSlot;
use crate::error::GpuError;
use crate::texture::TextureDimension;

/// Workgroup size of `vp_compute` (ABI.md "Entry points").
pub(crate) const VP_WORKGROUP: u32 = 64;

/// Number of texture units (ABI.md: unit u at bindings 2u and 2u + 1).
pub const TEXTURE_UNITS: u32 = 16;

/// Number of vertex texture units (ABI.md "Vertex textures": group 2, unit u at bindings 2u
/// and 2u + 1).
pub const VERTEX_TEXTURE_UNITS: u32 = 4;

fn abi(module: &WgslModule, what: impl Into<String>) -> GpuError {
    GpuError::Abi {
        hash: module.hash,
        what: what.into(),
    }
}

/// Checks that `name` is an entry point of `stage`; for compute, that its workgroup size is
/// `[64, 1, 1]`.
pub(crate) fn require_entry(
    module: &WgslModule,
    name: &str,
    stage: naga::ShaderStage,
) -> Result<(), GpuError> {
    let ep = module
        .module
        .entry_points
        .iter()
        .find(|ep| ep.name == name)
        .ok_or_else(|| abi(module, format!("entry point {name} is missing")))?;
    if ep.stage != stage {
        return Err(abi(
            module,
            format!(
                "entry point {name} is a {:?} entry point, not {stage:?}",
                ep.stage
            ),
        ));
    }
    if stage == naga::ShaderStage::Compute && ep.workgroup_size != [VP_WORKGROUP, 1, 1] {
        return Err(abi(
            module,
            format!(
                "entry point {name} has workgroup size {:?}, not [{VP_WORKGROUP}, 1, 1]",
                ep.workgroup_size
            ),
        ));
    }
    Ok(())
}

/// The texture units the module declares in group 1, in unit order.
pub(crate) fn texture_units(module: &WgslModule) -> Result<Vec<UnitSlot>, GpuError> {
    texture_units_in(module, 1, TEXTURE_UNITS)
}

/// The vertex texture units the module declares in group 2, in unit order.
pub(crate) fn vertex_texture_units(module: &WgslModule) -> Result<Vec<UnitSlot>, GpuError> {
    texture_units_in(module, 2, VERTEX_TEXTURE_UNITS)
}

/// The units (texture at binding 2u, sampler at 2u + 1) declared in `group`, at most `count`.
fn texture_units_in(
    module: &WgslModule,
    group: u32,
    count: u32,
) -> Result<Vec<UnitSlot>, GpuError> {
    let mut units: BTreeMap<u32, UnitSlot> = BTreeMap::new();
    for (_, global) in module.module.global_variables.iter() {
        let Some(binding) = &global.binding else {
            continue;
        };
        if binding.group != group {
            continue;
        }
        let b = binding.binding;
        let unit = b / 2;
        let name = global.name.as_deref().unwrap_or("?");
        if unit >= count {
            return Err(abi(
                module,
                format!(
                    "group {group} binding {b} ({name}) is past texture unit {}",
                    count - 1
                ),
            ));
        }
        let ty = module.module.types.get_handle(global.ty).map_err(|_| {
            abi(
                module,
                format!("group {group} binding {b} ({name}) has no type"),
            )
        })?;
        let slot = units.entry(unit).or_insert(UnitSlot {
            unit,
            texture: None,
            sampler: false,
        });
        match (&ty.inner, b % 2) {
            (
                naga::TypeInner::Image {
                    dim,
                    arrayed: false,
                    class:
                        naga::ImageClass::Sampled {
                            kind: naga::ScalarKind::Float,
                            multi: false,
                        },
                },
                0,
            ) => {
                slot.texture = Some(match dim {
                    naga::ImageDimension::D1 => TextureDimension::D1,
                    naga::ImageDimension::D2 => TextureDimension::D2,
                    naga::ImageDimension::D3 => TextureDimension::D3,
                    naga::ImageDimension::Cube => TextureDimension::Cube,
                });
            }
            (naga::TypeInner::Sampler { comparison: false }, 1) => slot.sampler = true,
            _ => {
                return Err(abi(
                    module,
                    format!(
                        "group {group} binding {b} ({name}) must be a {} \
                         (texture_1d/2d/3d/cube<f32> at even bindings, sampler at odd ones)",
                        if b % 2 == 0 {
                            "float texture"
                        } else {
                            "sampler"
                        }
                    ),
                ))
            }
        }
    }
    Ok(units.into_values().collect())
}

/// The bind group layout entries of the texture units a module declares, visible to `vis`.
pub(crate) fn texture_layout_entries(
    units: &[UnitSlot],
    filterable: bool,
    vis: wgpu::ShaderStages,
) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut entries = Vec::new();
    for slot in units {
        if let Some(dim) = slot.texture {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: slot.unit * 2,
                visibility: vis,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable },
                    view_dimension: match dim {
                        TextureDimension::D1 => wgpu::TextureViewDimension::D1,
                        TextureDimension::D2 => wgpu::TextureViewDimension::D2,
                        TextureDimension::D3 => wgpu::TextureViewDimension::D3,
                        TextureDimension::Cube => wgpu::TextureViewDimension::Cube,
                    },
                    multisampled: false,
                },
                count: None,
            });
        }
        if slot.sampler {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: slot.unit * 2 + 1,
                visibility: vis,
                ty: wgpu::BindingType::Sampler(if filterable {
                    wgpu::SamplerBindingType::Filtering
                } else {
                    wgpu::SamplerBindingType::NonFiltering
                }),
                count: None,
            });
        }
    }
    entries
}
