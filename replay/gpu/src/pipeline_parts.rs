//! The parts every render pipeline of the crate is made of: its WGSL shader modules and a
//! layout of two bind groups (group 0 the program's buffers, group 1 its textures), whose
//! group layouts the cache keeps to make each draw's bind groups against.

use crate::device::Gpu;

/// Bind group layouts 0 and 1 and the pipeline layout made of them.
pub(crate) struct TwoGroupLayout {
    pub group0: wgpu::BindGroupLayout,
    pub group1: wgpu::BindGroupLayout,
    pub pipeline: wgpu::PipelineLayout,
}

impl Gpu {
    /// A shader module of WGSL `source`.
    pub(crate) fn wgsl_module(&self, label: &str, source: &str) -> wgpu::ShaderModule {
        self.device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
    }

    /// Group layouts of `group0` and `group1` entries (labelled `"{label} group 0"` and
    /// `"{label} group 1"`) and the pipeline layout `label` of the two.
    pub(crate) fn two_group_layout(
        &self,
        label: &str,
        group0: &[wgpu::BindGroupLayoutEntry],
        group1: &[wgpu::BindGroupLayoutEntry],
    ) -> TwoGroupLayout {
        let group = |n: u32, entries: &[wgpu::BindGroupLayoutEntry]| {
            self.device
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(&format!("{label} group {n}")),
                    entries,
                })
        };
        let (group0, group1) = (group(0, group0), group(1, group1));
        let pipeline = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[Some(&group0), Some(&group1)],
                immediate_size: 0,
            });
        TwoGroupLayout {
            group0,
            group1,
            pipeline,
        }
    }
}
